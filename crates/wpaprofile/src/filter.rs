//! WPA's `InitialFilterQuery` in the forms etlscope's filters can hold:
//! `[Column]:="value"` terms joined by `OR`, optionally in parentheses.
//! Anything else (AND, NOT, other operators) is not read.

/// `[column]:="value"`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Condition {
    pub column: String,
    pub value: String,
}

/// The terms of `q` when it is `[C]:="v" OR [C]:="w" ...`; `None` otherwise.
pub fn parse_filter(q: &str) -> Option<Vec<Condition>> {
    let mut s = q.trim();
    while let Some(inner) = s.strip_prefix('(').and_then(|x| x.strip_suffix(')')) {
        s = inner.trim();
    }
    let mut out = Vec::new();
    let mut rest = s;
    loop {
        let r = rest.trim_start().strip_prefix('[')?;
        let (column, r) = r.split_once(']')?;
        let r = r.trim_start().strip_prefix(":=")?.trim_start();
        let r = r.strip_prefix('"')?;
        let (value, r) = r.split_once('"')?;
        out.push(Condition {
            column: column.to_string(),
            value: value.to_string(),
        });
        let r = r.trim_start();
        if r.is_empty() {
            return Some(out);
        }
        rest = r.strip_prefix("OR ").or_else(|| r.strip_prefix("or "))?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn or_terms() {
        let f = parse_filter(r#"([DPC/ISR]:="DPC" OR [DPC/ISR]:="ISR")"#);
        assert_eq!(f.map(|v| v.len()), Some(2));
        let f = parse_filter(r#"[Process]:="Idle (0)""#).unwrap_or_default();
        assert_eq!(f[0].value, "Idle (0)");
        assert_eq!(parse_filter(r#"[A]:="x" AND [B]:="y""#), None);
        assert_eq!(
            parse_filter("([Series Name]:=\"P\" AND NOT ([P]:=\"Idle\"))"),
            None
        );
        assert_eq!(parse_filter("[unclosed"), None);
    }
}
