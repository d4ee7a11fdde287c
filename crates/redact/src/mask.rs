//! Same-length replacements. A replacement is a function of the original
//! (lower-cased) and a secret salt, so the same original gets the same
//! replacement everywhere without a table, and nobody without the salt can
//! test guesses of a short name against it.

use std::hash::{BuildHasher, Hasher};

/// The salt of one redaction run: random unless a test fixes it.
#[derive(Debug, Clone, Copy)]
pub struct Salt(pub u64);

impl Salt {
    /// A fresh secret salt (the standard library's random hasher keys).
    pub fn random() -> Salt {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u64(0x5EED);
        Salt(h.finish())
    }
}

/// Deterministic 64-bit stream of (salt, original, position): SplitMix64 over
/// an FNV-1a hash of the original.
fn stream(salt: Salt, original: &str) -> impl FnMut() -> u64 {
    let mut state = original
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325u64 ^ salt.0, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
        });
    move || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// What a mask leaves as it was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// Only punctuation and separators.
    Punctuation,
    /// Also the extension of each path component (`.exe`, `.cs`).
    Extensions,
}

/// A same-length replacement of `original` (ASCII-lower-cased): letters become
/// letters, digits digits, everything else stays, so separators, quotes
/// and (with `Keep::Extensions`) file extensions survive. One character
/// of the original is one character (one UTF-16 unit) of the replacement.
pub fn mask(original: &str, salt: Salt, keep: Keep) -> String {
    let lower = original.to_ascii_lowercase();
    let kept = if keep == Keep::Extensions {
        extension_positions(&lower)
    } else {
        Vec::new()
    };
    let mut next = stream(salt, &lower);
    let mut out = String::with_capacity(lower.len());
    for (i, c) in lower.chars().enumerate() {
        let r = next();
        out.push(if kept.contains(&i) {
            c
        } else if c.is_ascii_digit() {
            char::from(b'0' + (r % 10) as u8)
        } else if c.is_alphabetic() {
            char::from(b'a' + (r % 26) as u8)
        } else {
            c
        });
    }
    out
}

/// Character positions of the extensions (`.` and up to 5 letters or
/// digits before a separator or the end) of every path component.
fn extension_positions(s: &str) -> Vec<usize> {
    let chars: Vec<char> = s.chars().collect();
    let mut kept = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == '.' {
            let mut j = i + 1;
            while j < chars.len() && chars[j].is_ascii_alphanumeric() {
                j += 1;
            }
            let ends = j == chars.len() || matches!(chars[j], '\\' | '/' | ' ' | '"' | ';' | ',');
            if ends && (2..=6).contains(&(j - i)) {
                kept.extend(i..j);
            }
            i = j;
        } else {
            i += 1;
        }
    }
    kept
}

/// `replacement` with the letter case of `matched` (the text as the trace
/// holds it), character by character: replacements are made from the
/// lower-cased original, so `LIHA` and `liha` become `QXZT` and `qxzt`.
pub fn with_case_of(replacement: &str, matched: &[char]) -> Vec<char> {
    replacement
        .chars()
        .enumerate()
        .map(|(i, c)| match matched.get(i) {
            Some(m) if m.is_ascii_uppercase() => c.to_ascii_uppercase(),
            _ => c,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_original_same_replacement_any_case() {
        let s = Salt(7);
        assert_eq!(
            mask("Liha", s, Keep::Punctuation),
            mask("LIHA", s, Keep::Punctuation)
        );
        assert_ne!(
            mask("liha", s, Keep::Punctuation),
            mask("liha", Salt(8), Keep::Punctuation)
        );
        assert_ne!(mask("liha", s, Keep::Punctuation), "liha");
    }

    #[test]
    fn keeps_length_separators_and_extensions() {
        let m = mask("proj\\Main File.cs", Salt(1), Keep::Extensions);
        assert_eq!(m.chars().count(), "proj\\Main File.cs".chars().count());
        assert_eq!(&m[4..5], "\\");
        assert!(m.ends_with(".cs"), "{m}");
        assert_eq!(m.chars().nth(9), Some(' '));
        let d = mask("10.1.22.3", Salt(1), Keep::Punctuation);
        assert!(d.chars().all(|c| c.is_ascii_digit() || c == '.'));
        assert_eq!(d.len(), 9);
        let u = mask("José", Salt(2), Keep::Punctuation);
        assert_eq!(u.chars().count(), 4);
        assert!(u.is_ascii());
    }

    #[test]
    fn case_follows_the_trace() {
        let got: String = with_case_of("qxzt", &['L', 'i', 'H', 'a'])
            .into_iter()
            .collect();
        assert_eq!(got, "QxZt");
    }
}
