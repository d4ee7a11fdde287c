//! Bounds-checked little-endian reads. Every read of trace bytes goes through
//! these so that malformed input yields `None`, never a panic.

#[inline]
pub fn u8_at(b: &[u8], off: usize) -> Option<u8> {
    b.get(off).copied()
}

#[inline]
pub fn u16_at(b: &[u8], off: usize) -> Option<u16> {
    let s = b.get(off..off.checked_add(2)?)?;
    Some(u16::from_le_bytes([s[0], s[1]]))
}

#[inline]
pub fn u32_at(b: &[u8], off: usize) -> Option<u32> {
    let s = b.get(off..off.checked_add(4)?)?;
    Some(u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

#[inline]
pub fn u64_at(b: &[u8], off: usize) -> Option<u64> {
    let s = b.get(off..off.checked_add(8)?)?;
    let mut a = [0u8; 8];
    a.copy_from_slice(s);
    Some(u64::from_le_bytes(a))
}

#[inline]
pub fn i64_at(b: &[u8], off: usize) -> Option<i64> {
    u64_at(b, off).map(|v| v as i64)
}

/// A pointer-sized field (4 or 8 bytes), zero-extended to 64 bits.
#[inline]
pub fn ptr_at(b: &[u8], off: usize, pointer_size: u8) -> Option<u64> {
    if pointer_size == 4 {
        u32_at(b, off).map(u64::from)
    } else {
        u64_at(b, off)
    }
}

/// A GUID stored in its Windows in-memory layout (Data1..3 little-endian).
#[inline]
pub fn guid_at(b: &[u8], off: usize) -> Option<crate::Guid> {
    let s = b.get(off..off.checked_add(16)?)?;
    let mut a = [0u8; 16];
    a.copy_from_slice(s);
    Some(crate::Guid::from_bytes_le(a))
}

/// NUL-terminated UTF-16LE string starting at `off`. Returns the string and
/// the number of bytes consumed (terminator included). A missing terminator
/// takes the rest of the slice.
pub fn utf16z_at(b: &[u8], off: usize) -> Option<(String, usize)> {
    let s = b.get(off..)?;
    let mut units = Vec::new();
    let mut i = 0;
    while i + 1 < s.len() {
        let u = u16::from_le_bytes([s[i], s[i + 1]]);
        i += 2;
        if u == 0 {
            return Some((String::from_utf16_lossy(&units), i));
        }
        units.push(u);
    }
    Some((String::from_utf16_lossy(&units), s.len()))
}

/// NUL-terminated 8-bit string (ANSI / UTF-8) starting at `off`.
pub fn cstr_at(b: &[u8], off: usize) -> Option<(String, usize)> {
    let s = b.get(off..)?;
    match s.iter().position(|&c| c == 0) {
        Some(n) => Some((String::from_utf8_lossy(&s[..n]).into_owned(), n + 1)),
        None => Some((String::from_utf8_lossy(s).into_owned(), s.len())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_are_bounds_checked() {
        let b = [1u8, 2, 3];
        assert_eq!(u16_at(&b, 1), Some(0x0302));
        assert_eq!(u16_at(&b, 2), None);
        assert_eq!(u32_at(&b, 0), None);
        assert_eq!(u64_at(&b, usize::MAX), None);
    }

    #[test]
    fn strings_stop_at_nul_or_end() {
        let b = [b'h', 0, b'i', 0, 0, 0, b'x', 0];
        assert_eq!(utf16z_at(&b, 0), Some(("hi".to_string(), 6)));
        assert_eq!(utf16z_at(&b, 6), Some(("x".to_string(), 2)));
        assert_eq!(cstr_at(b"ab\0c", 0), Some(("ab".to_string(), 3)));
        assert_eq!(cstr_at(b"ab", 0), Some(("ab".to_string(), 2)));
    }
}
