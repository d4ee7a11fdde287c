//! A bounds-checked cursor over one event payload. Every typed decoder reads
//! through it, so a short or malformed payload becomes a [`DecodeError`]
//! naming the payload offset, never a panic.

use crate::Guid;
use std::fmt;

/// Why a payload could not be decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecodeErrorKind {
    /// The payload ends before a field: `need` bytes were wanted at the offset.
    Short { need: usize, have: usize },
    /// A NUL-terminated string runs to the end of the payload.
    Unterminated,
    /// A value is out of its documented range.
    Malformed(&'static str),
}

/// A decode failure: which event, where in its payload, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecodeError {
    /// Name of the event kind being decoded (e.g. "Process").
    pub event: &'static str,
    /// Byte offset within the payload.
    pub offset: usize,
    pub kind: DecodeErrorKind,
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} payload offset {}: ", self.event, self.offset)?;
        match self.kind {
            DecodeErrorKind::Short { need, have } => {
                write!(f, "needs {need} more bytes, only {have} left")
            }
            DecodeErrorKind::Unterminated => write!(f, "string has no terminator"),
            DecodeErrorKind::Malformed(why) => write!(f, "{why}"),
        }
    }
}

impl std::error::Error for DecodeError {}

pub type Result<T> = std::result::Result<T, DecodeError>;

/// Cursor over a payload with the pointer size that applies to it.
#[derive(Debug, Clone)]
pub struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    pointer_size: u8,
    event: &'static str,
}

impl<'a> Reader<'a> {
    pub fn new(data: &'a [u8], pointer_size: u8, event: &'static str) -> Self {
        Reader {
            data,
            pos: 0,
            pointer_size: if pointer_size == 4 { 4 } else { 8 },
            event,
        }
    }

    pub fn pos(&self) -> usize {
        self.pos
    }

    pub fn len(&self) -> usize {
        self.data.len()
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    pub fn remaining(&self) -> usize {
        self.data.len().saturating_sub(self.pos)
    }

    pub fn at_end(&self) -> bool {
        self.remaining() == 0
    }

    pub fn pointer_size(&self) -> u8 {
        self.pointer_size
    }

    /// Name of the event being decoded (for errors raised by callers).
    pub fn event(&self) -> &'static str {
        self.event
    }

    pub fn error(&self, kind: DecodeErrorKind) -> DecodeError {
        DecodeError {
            event: self.event,
            offset: self.pos,
            kind,
        }
    }

    pub fn malformed(&self, why: &'static str) -> DecodeError {
        self.error(DecodeErrorKind::Malformed(why))
    }

    /// The whole payload, for decoders that need random access.
    pub fn data(&self) -> &'a [u8] {
        self.data
    }

    /// Move to an absolute payload offset (may be the end, not past it).
    pub fn seek(&mut self, pos: usize) -> Result<()> {
        if pos > self.data.len() {
            return Err(DecodeError {
                event: self.event,
                offset: self.pos,
                kind: DecodeErrorKind::Short {
                    need: pos - self.pos.min(pos),
                    have: self.remaining(),
                },
            });
        }
        self.pos = pos;
        Ok(())
    }

    /// Take the next `n` bytes.
    pub fn bytes(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self.pos.checked_add(n);
        match end.and_then(|e| self.data.get(self.pos..e)) {
            Some(s) => {
                self.pos += n;
                Ok(s)
            }
            None => Err(self.error(DecodeErrorKind::Short {
                need: n,
                have: self.remaining(),
            })),
        }
    }

    pub fn skip(&mut self, n: usize) -> Result<()> {
        self.bytes(n).map(|_| ())
    }

    /// The rest of the payload.
    pub fn rest(&mut self) -> &'a [u8] {
        let s = self.data.get(self.pos..).unwrap_or(&[]);
        self.pos = self.data.len();
        s
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        let s = self.bytes(N)?;
        let mut a = [0u8; N];
        a.copy_from_slice(s);
        Ok(a)
    }

    pub fn u8(&mut self) -> Result<u8> {
        Ok(self.array::<1>()?[0])
    }
    pub fn i8(&mut self) -> Result<i8> {
        Ok(self.u8()? as i8)
    }
    pub fn u16(&mut self) -> Result<u16> {
        Ok(u16::from_le_bytes(self.array()?))
    }
    pub fn i16(&mut self) -> Result<i16> {
        Ok(i16::from_le_bytes(self.array()?))
    }
    pub fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(self.array()?))
    }
    pub fn i32(&mut self) -> Result<i32> {
        Ok(i32::from_le_bytes(self.array()?))
    }
    pub fn u64(&mut self) -> Result<u64> {
        Ok(u64::from_le_bytes(self.array()?))
    }
    pub fn i64(&mut self) -> Result<i64> {
        Ok(i64::from_le_bytes(self.array()?))
    }
    pub fn f32(&mut self) -> Result<f32> {
        Ok(f32::from_le_bytes(self.array()?))
    }
    pub fn f64(&mut self) -> Result<f64> {
        Ok(f64::from_le_bytes(self.array()?))
    }

    /// A pointer-sized field, zero-extended.
    pub fn ptr(&mut self) -> Result<u64> {
        if self.pointer_size == 4 {
            self.u32().map(u64::from)
        } else {
            self.u64()
        }
    }

    /// A GUID in its Windows in-memory layout.
    pub fn guid(&mut self) -> Result<Guid> {
        Ok(Guid::from_bytes_le(self.array()?))
    }

    /// NUL-terminated UTF-16LE string; the terminator must be present.
    pub fn utf16z(&mut self) -> Result<String> {
        let start = self.pos;
        let rest = self.data.get(start..).unwrap_or(&[]);
        let mut units = rest
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]));
        match units.position(|u| u == 0) {
            Some(n) => {
                let s = decode_utf16(rest.get(..n * 2).unwrap_or(&[]));
                self.pos = start + n * 2 + 2;
                Ok(s)
            }
            None => Err(self.error(DecodeErrorKind::Unterminated)),
        }
    }

    /// NUL-terminated 8-bit string (UTF-8 when valid, else Latin-1); the
    /// terminator must be present.
    pub fn cstr(&mut self) -> Result<String> {
        let rest = self.data.get(self.pos..).unwrap_or(&[]);
        match rest.iter().position(|&c| c == 0) {
            Some(n) => {
                let s = decode_8bit(rest.get(..n).unwrap_or(&[]));
                self.pos += n + 1;
                Ok(s)
            }
            None => Err(self.error(DecodeErrorKind::Unterminated)),
        }
    }

    /// A fixed-size UTF-16 field of `chars` units, cut at the first NUL.
    pub fn fixed_utf16(&mut self, chars: usize) -> Result<String> {
        let b = self.bytes(chars.saturating_mul(2))?;
        let end = b
            .chunks_exact(2)
            .position(|c| c == [0, 0])
            .map_or(b.len(), |i| i * 2);
        Ok(decode_utf16(b.get(..end).unwrap_or(&[])))
    }
}

/// UTF-16LE bytes (even length) to a String, replacing unpaired surrogates.
pub fn decode_utf16(b: &[u8]) -> String {
    let units = b.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]]));
    char::decode_utf16(units)
        .map(|r| r.unwrap_or(char::REPLACEMENT_CHARACTER))
        .collect()
}

/// 8-bit text: UTF-8 if it is valid, else each byte as Latin-1.
pub fn decode_8bit(b: &[u8]) -> String {
    match std::str::from_utf8(b) {
        Ok(s) => s.to_owned(),
        Err(_) => b.iter().map(|&c| char::from(c)).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_fields_and_reports_offsets() {
        let b = [1u8, 0, 0, 0, b'h', 0, b'i', 0, 0, 0, b'x', 0];
        let mut r = Reader::new(&b, 4, "Test");
        assert_eq!(r.u32().unwrap(), 1);
        assert_eq!(r.utf16z().unwrap(), "hi");
        assert_eq!(r.pos(), 10);
        assert_eq!(r.cstr().unwrap(), "x");
        assert!(r.at_end());
        let e = r.u8().unwrap_err();
        assert_eq!(e.offset, 12);
        assert_eq!(e.kind, DecodeErrorKind::Short { need: 1, have: 0 });
        assert_eq!(
            e.to_string(),
            "Test payload offset 12: needs 1 more bytes, only 0 left"
        );
    }

    #[test]
    fn unterminated_strings_are_errors() {
        let mut r = Reader::new(&[b'a', 0, b'b'], 8, "Test");
        assert_eq!(r.utf16z().unwrap_err().kind, DecodeErrorKind::Unterminated);
        let mut r = Reader::new(b"abc", 8, "Test");
        assert_eq!(r.cstr().unwrap_err().kind, DecodeErrorKind::Unterminated);
        assert_eq!(decode_8bit(&[0x41, 0xE9]), "A\u{e9}");
    }

    #[test]
    fn pointers_follow_the_pointer_size() {
        let b = [1u8, 2, 3, 4, 5, 6, 7, 8];
        assert_eq!(Reader::new(&b, 4, "T").ptr().unwrap(), 0x0403_0201);
        assert_eq!(
            Reader::new(&b, 8, "T").ptr().unwrap(),
            0x0807_0605_0403_0201
        );
        assert_eq!(
            Reader::new(&b, 4, "T").fixed_utf16(2).unwrap(),
            "\u{201}\u{403}"
        );
    }
}
