//! Orders of text as WPA sorts it: case-insensitive for text, and version
//! order (numeric runs compared as numbers) for versions, so that
//! `10.0.19041.1093` comes after `10.0.19041.110`.

use std::cmp::Ordering;

/// Case-insensitive, then byte order (so distinct texts never tie).
pub fn text_cmp(a: &str, b: &str) -> Ordering {
    let lower = |s: &str| s.chars().flat_map(char::to_lowercase).collect::<String>();
    if a.is_ascii() && b.is_ascii() {
        let o = a
            .bytes()
            .map(|c| c.to_ascii_lowercase())
            .cmp(b.bytes().map(|c| c.to_ascii_lowercase()));
        return o.then_with(|| a.cmp(b));
    }
    lower(a).cmp(&lower(b)).then_with(|| a.cmp(b))
}

/// Runs of digits compare as numbers, everything else case-insensitively.
pub fn version_cmp(a: &str, b: &str) -> Ordering {
    let (mut x, mut y) = (runs(a), runs(b));
    loop {
        match (x.next(), y.next()) {
            (None, None) => return a.cmp(b),
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(p), Some(q)) => {
                let o = match (is_digits(p), is_digits(q)) {
                    (true, true) => number_cmp(p, q),
                    // A number sorts before text at the same place.
                    (true, false) => Ordering::Less,
                    (false, true) => Ordering::Greater,
                    (false, false) => text_cmp(p, q),
                };
                if o != Ordering::Equal {
                    return o;
                }
            }
        }
    }
}

fn is_digits(s: &str) -> bool {
    s.bytes().next().is_some_and(|c| c.is_ascii_digit())
}

/// Compares digit strings of any length without parsing them.
fn number_cmp(p: &str, q: &str) -> Ordering {
    let (p, q) = (p.trim_start_matches('0'), q.trim_start_matches('0'));
    p.len().cmp(&q.len()).then_with(|| p.cmp(q))
}

/// Alternating runs of digits and non-digits.
fn runs(s: &str) -> impl Iterator<Item = &str> {
    let mut rest = s;
    std::iter::from_fn(move || {
        let first = rest.chars().next()?;
        let digit = first.is_ascii_digit();
        let end = rest
            .char_indices()
            .find(|&(_, c)| c.is_ascii_digit() != digit)
            .map_or(rest.len(), |(i, _)| i);
        let (run, tail) = rest.split_at(end);
        rest = tail;
        Some(run)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_compare_their_numbers() {
        assert_eq!(
            version_cmp("10.0.19041.1093", "10.0.19041.110"),
            Ordering::Greater
        );
        assert_eq!(version_cmp("10.0.2", "10.0.10"), Ordering::Less);
        assert_eq!(version_cmp("", "1.0"), Ordering::Less);
        assert_eq!(version_cmp("1.0", "1.0.1"), Ordering::Less);
        assert_eq!(version_cmp("007", "7"), "007".cmp("7"));
    }

    #[test]
    fn text_ignores_case() {
        assert_eq!(text_cmp("b.dll", "A.dll"), Ordering::Greater);
        assert_eq!(text_cmp("Ä", "ä"), "Ä".cmp("ä"));
        assert_eq!(text_cmp("éa", "Éb"), Ordering::Less);
    }
}
