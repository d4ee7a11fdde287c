//! Windows GUIDs as they appear in ETW headers.

use std::fmt;

/// A GUID, stored in canonical (big-endian, as printed) byte order.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Guid(pub [u8; 16]);

impl Guid {
    /// From the Windows in-memory layout: Data1 (u32), Data2, Data3 (u16) little-endian, Data4 as bytes.
    pub fn from_bytes_le(b: [u8; 16]) -> Guid {
        let mut c = b;
        c[0..4].reverse();
        c[4..6].reverse();
        c[6..8].reverse();
        Guid(c)
    }

    /// To the Windows in-memory layout.
    pub fn to_bytes_le(self) -> [u8; 16] {
        let mut c = self.0;
        c[0..4].reverse();
        c[4..6].reverse();
        c[6..8].reverse();
        c
    }

    /// Parse `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`, with or without braces.
    pub fn parse(s: &str) -> Option<Guid> {
        let s = s.trim().trim_start_matches('{').trim_end_matches('}');
        let hex: String = s.chars().filter(|&c| c != '-').collect();
        if hex.len() != 32 || s.len() != 36 {
            return None;
        }
        let mut out = [0u8; 16];
        for (i, o) in out.iter_mut().enumerate() {
            *o = u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok()?;
        }
        Some(Guid(out))
    }

    pub const fn from_u128(v: u128) -> Guid {
        Guid(v.to_be_bytes())
    }
}

impl fmt::Display for Guid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = &self.0;
        write!(
            f,
            "{:02x}{:02x}{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}{:02x}{:02x}{:02x}{:02x}",
            b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]
        )
    }
}

impl fmt::Debug for Guid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_windows_layout() {
        let g = Guid::parse("b3e675d7-2554-4f18-830b-2762732560de").unwrap();
        let le = g.to_bytes_le();
        assert_eq!(&le[..4], &[0xd7, 0x75, 0xe6, 0xb3]);
        assert_eq!(Guid::from_bytes_le(le), g);
        assert_eq!(g.to_string(), "b3e675d7-2554-4f18-830b-2762732560de");
        assert_eq!(
            Guid::parse("{B3E675D7-2554-4F18-830B-2762732560DE}"),
            Some(g)
        );
        assert_eq!(Guid::parse("nope"), None);
    }
}
