//! Finding the originals in bytes and writing their replacements over them,
//! in 8-bit and UTF-16LE text alike, ASCII letters in any case.

use crate::mask::with_case_of;
use crate::text::printable8;
use crate::Category;
use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};

/// One original to replace: its text (ASCII letters lower-cased), its
/// replacement (as many characters) and what it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Needle {
    pub key: String,
    pub replacement: String,
    pub category: Category,
}

/// An 8-bit original shorter than this is only matched inside text at
/// least this long: two or three letters occur by chance in binary fields.
const SHORT: usize = 5;

/// Every needle in both encodings, in one automaton.
pub struct Matcher {
    needles: Vec<Needle>,
    /// Per pattern: the needle, and whether it is the UTF-16LE form.
    patterns: Vec<(usize, bool)>,
    ac: Option<AhoCorasick>,
}

/// One accepted match.
#[derive(Debug, Clone, Copy)]
pub struct Hit {
    pub start: usize,
    pub end: usize,
    pub needle: usize,
    pub wide: bool,
}

impl Matcher {
    pub fn new(needles: Vec<Needle>) -> Matcher {
        let mut bytes: Vec<Vec<u8>> = Vec::new();
        let mut patterns = Vec::new();
        for (i, n) in needles.iter().enumerate() {
            if let Some(narrow) = latin1(&n.key) {
                bytes.push(narrow);
                patterns.push((i, false));
            }
            if let Some(wide) = utf16(&n.key) {
                bytes.push(wide);
                patterns.push((i, true));
            }
        }
        let ac = if bytes.is_empty() {
            None
        } else {
            AhoCorasickBuilder::new()
                .ascii_case_insensitive(true)
                .match_kind(MatchKind::LeftmostLongest)
                .build(&bytes)
                .ok()
        };
        Matcher {
            needles,
            patterns,
            ac,
        }
    }

    pub fn needles(&self) -> &[Needle] {
        &self.needles
    }

    /// The matches in `bytes` that are the original text, not chance bytes
    /// or part of a longer word.
    pub fn hits(&self, bytes: &[u8]) -> Vec<Hit> {
        let Some(ac) = &self.ac else {
            return Vec::new();
        };
        // A match refused (inside a word) may hide another that starts
        // within it: search again from the next byte, not after its end.
        let mut hits = Vec::new();
        let mut pos = 0;
        while pos < bytes.len() {
            let Some(m) = ac.find(aho_corasick::Input::new(bytes).span(pos..bytes.len())) else {
                break;
            };
            let Some(&(needle, wide)) = self.patterns.get(m.pattern().as_usize()) else {
                break;
            };
            let hit = Hit {
                start: m.start(),
                end: m.end(),
                needle,
                wide,
            };
            if self.accepts(bytes, &hit) {
                hits.push(hit);
                pos = m.end().max(m.start() + 1);
            } else {
                pos = m.start() + 1;
            }
        }
        hits
    }

    fn accepts(&self, bytes: &[u8], hit: &Hit) -> bool {
        let n = &self.needles[hit.needle];
        let key = &n.key;
        // A command line begins at its image's drive letter: a letter before
        // it is a byte of the field before the string, not a longer word.
        let first = n.category != Category::CommandLines
            && key.chars().next().is_some_and(|c| c.is_alphanumeric());
        let last = key.chars().last().is_some_and(|c| c.is_alphanumeric());
        let word =
            |c: Option<u16>| c.is_some_and(|u| u < 0x80 && (u as u8).is_ascii_alphanumeric());
        if hit.wide {
            let before = hit.start.checked_sub(2).and_then(|s| unit_at(bytes, s));
            let after = unit_at(bytes, hit.end);
            !(first && word(before) || last && word(after))
        } else {
            let before = hit
                .start
                .checked_sub(1)
                .and_then(|s| bytes.get(s))
                .map(|&b| u16::from(b));
            let after = bytes.get(hit.end).map(|&b| u16::from(b));
            if first && word(before) || last && word(after) {
                return false;
            }
            let len = key.chars().count();
            len >= SHORT || text_len_around(bytes, hit.start, hit.end) >= SHORT
        }
    }

    /// `s` with every needle replaced (as the trace's UTF-16 text would be).
    pub fn redact_str(&self, s: &str) -> String {
        let Some(mut b) = utf16(s) else {
            return s.to_string();
        };
        self.replace(&mut b);
        let units: Vec<u16> = b
            .chunks_exact(2)
            .map(|p| u16::from_le_bytes([p[0], p[1]]))
            .collect();
        String::from_utf16_lossy(&units)
    }

    /// Write every needle's replacement over its originals in `bytes`;
    /// the hits replaced.
    pub fn replace(&self, bytes: &mut [u8]) -> Vec<Hit> {
        let hits = self.hits(bytes);
        for h in &hits {
            let n = &self.needles[h.needle];
            let span = &mut bytes[h.start..h.end];
            if h.wide {
                let matched: Vec<char> = span
                    .chunks_exact(2)
                    .map(|p| {
                        char::from_u32(u32::from(u16::from_le_bytes([p[0], p[1]]))).unwrap_or(' ')
                    })
                    .collect();
                let repl = with_case_of(&n.replacement, &matched);
                for (dst, c) in span.chunks_exact_mut(2).zip(repl) {
                    let u = u16::try_from(u32::from(c)).unwrap_or(u16::from(b'x'));
                    dst.copy_from_slice(&u.to_le_bytes());
                }
            } else {
                let matched: Vec<char> = span.iter().map(|&b| char::from(b)).collect();
                let repl = with_case_of(&n.replacement, &matched);
                for (dst, c) in span.iter_mut().zip(repl) {
                    *dst = u8::try_from(u32::from(c)).unwrap_or(b'x');
                }
            }
        }
        hits
    }
}

fn unit_at(bytes: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes([*bytes.get(at)?, *bytes.get(at + 1)?]))
}

/// Length of the 8-bit text around `start..end`.
fn text_len_around(bytes: &[u8], start: usize, end: usize) -> usize {
    let left = bytes[..start]
        .iter()
        .rev()
        .take_while(|&&b| printable8(b))
        .count();
    let right = bytes[end..].iter().take_while(|&&b| printable8(b)).count();
    left + (end - start) + right
}

/// The 8-bit form of `s`, when every character has one.
pub fn latin1(s: &str) -> Option<Vec<u8>> {
    s.chars().map(|c| u8::try_from(u32::from(c)).ok()).collect()
}

/// The UTF-16LE form of `s`, when every character is one code unit.
pub fn utf16(s: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len() * 2);
    for c in s.chars() {
        let u = u16::try_from(u32::from(c)).ok()?;
        out.extend(u.to_le_bytes());
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn needle(key: &str, replacement: &str) -> Needle {
        Needle {
            key: key.into(),
            replacement: replacement.into(),
            category: Category::Users,
        }
    }

    fn wide(s: &str) -> Vec<u8> {
        utf16(s).expect("BMP")
    }

    #[test]
    fn replaces_both_encodings_keeping_case_and_length() {
        let m = Matcher::new(vec![needle("liha", "qxzt")]);
        let mut b = b"C:\\Users\\LIHA~1.RED\\x".to_vec();
        b.extend(wide("\\Users\\liha.REDMOND\\"));
        let before = b.len();
        let hits = m.replace(&mut b);
        assert_eq!(hits.len(), 2);
        assert_eq!(b.len(), before);
        assert!(b.starts_with(b"C:\\Users\\QXZT~1.RED\\x"));
        assert!(b.ends_with(&wide("\\Users\\qxzt.REDMOND\\")));
    }

    #[test]
    fn a_name_inside_a_word_or_short_binary_is_left() {
        let m = Matcher::new(vec![needle("eric", "abcd")]);
        let mut b = wide("Generic Events");
        b.extend([0x01, b'e', b'r', b'i', b'c', 0x02]);
        let copy = b.clone();
        assert!(m.replace(&mut b).is_empty());
        assert_eq!(b, copy);
        let mut t = b"user eric logged".to_vec();
        assert_eq!(m.replace(&mut t).len(), 1);
        assert_eq!(&t, b"user abcd logged");
    }

    #[test]
    fn a_refused_match_does_not_hide_one_inside_it() {
        // The whole command line is refused (a stray letter before it); its
        // arguments, a needle of their own, are still found.
        let m = Matcher::new(vec![
            needle("c:\\x.exe -k secret", "c:\\x.exe -q zzzzzz"),
            needle("-k secret", "-q zzzzzz"),
        ]);
        let mut b = wide("ec:\\x.exe -k secret");
        assert_eq!(m.replace(&mut b).len(), 1);
        assert_eq!(b, wide("ec:\\x.exe -q zzzzzz"));
    }

    #[test]
    fn no_needles_no_hits() {
        let m = Matcher::new(Vec::new());
        assert!(m.hits(b"anything").is_empty());
    }
}
