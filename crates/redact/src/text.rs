//! Text inside binary payloads: runs of printable UTF-16LE code units and of
//! printable 8-bit (ANSI) characters, found without a schema, so every
//! event kind (known or not) is searched the same way.

/// One run of text and where it starts in the bytes searched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    pub start: usize,
    pub text: String,
    /// UTF-16LE (2 bytes per character) rather than 8-bit.
    pub wide: bool,
}

/// Shortest run worth a look: nothing the rules search for is shorter.
pub const MIN_RUN: usize = 3;

/// Whether an 8-bit character belongs in text: printable ASCII, or a
/// Latin-1 letter (ANSI code pages put accented letters there).
pub fn printable8(b: u8) -> bool {
    (0x20..0x7F).contains(&b) || (b >= 0xC0 && b != 0xD7 && b != 0xF7)
}

/// Whether a UTF-16 code unit belongs in text: printable ASCII or a letter
/// or digit of the Basic Multilingual Plane (no surrogates, no controls).
pub fn printable16(u: u16) -> bool {
    if (0x20..0x7F).contains(&u) {
        return true;
    }
    u >= 0xA0
        && !(0xD800..0xE000).contains(&u)
        && char::from_u32(u32::from(u)).is_some_and(|c| c.is_alphanumeric())
}

/// Every run of at least `MIN_RUN` characters in `bytes`: 8-bit runs, then
/// UTF-16LE runs at even and at odd offsets (a string after a one-byte
/// field is not 2-aligned).
pub fn runs(bytes: &[u8]) -> Vec<Run> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if !printable8(bytes[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && printable8(bytes[i]) {
            i += 1;
        }
        if i - start >= MIN_RUN {
            let text = bytes[start..i].iter().map(|&b| char::from(b)).collect();
            out.push(Run {
                start,
                text,
                wide: false,
            });
        }
    }
    for parity in 0..2 {
        let mut i = parity;
        while i + 1 < bytes.len() {
            let unit = |at: usize| u16::from_le_bytes([bytes[at], bytes[at + 1]]);
            if !printable16(unit(i)) {
                i += 2;
                continue;
            }
            let start = i;
            let mut text = String::new();
            while i + 1 < bytes.len() && printable16(unit(i)) {
                text.extend(char::from_u32(u32::from(unit(i))));
                i += 2;
            }
            // Binary pairs read as CJK letters: text has some ASCII.
            if (i - start) / 2 >= MIN_RUN && text.chars().any(|c| c.is_ascii()) {
                out.push(Run {
                    start,
                    text,
                    wide: true,
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wide(s: &str) -> Vec<u8> {
        s.encode_utf16().flat_map(u16::to_le_bytes).collect()
    }

    #[test]
    fn finds_ansi_and_utf16_runs_at_any_alignment() {
        let mut b = vec![1u8, 2, 3];
        b.extend(b"C:\\Users\\ann\\x.txt");
        b.push(0);
        b.push(7); // odd: the UTF-16 string below starts at an odd offset
        b.extend(wide("D:\\src\\app.exe -v"));
        b.extend([0, 0]);
        let r = runs(&b);
        assert!(r
            .iter()
            .any(|r| !r.wide && r.text == "C:\\Users\\ann\\x.txt" && r.start == 3));
        let w = r
            .iter()
            .find(|r| r.wide && r.text.starts_with("D:"))
            .expect("wide run");
        assert_eq!(w.text, "D:\\src\\app.exe -v");
        assert_eq!(w.start % 2, 1);
    }

    #[test]
    fn short_and_binary_bytes_are_no_runs() {
        assert!(runs(&[0, 0, 7, 8, 0, 0, 0x01, 0x02, b'a', b'b']).is_empty());
        assert!(runs(&[]).is_empty());
        assert!(runs(b"a").is_empty());
    }
}
