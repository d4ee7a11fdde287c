//! The little XML an instrumentation manifest needs: element starts with
//! their attributes and element ends, in order. No DTDs, no namespaces
//! resolved, text content ignored; malformed input ends the walk early.

/// One tag of the document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tag {
    Start {
        name: String,
        attrs: Vec<(String, String)>,
        /// `<x/>`: no End follows.
        empty: bool,
    },
    End(String),
}

impl Tag {
    /// The value of attribute `key` of a Start tag.
    pub fn attr(&self, key: &str) -> Option<&str> {
        match self {
            Tag::Start { attrs, .. } => attrs
                .iter()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.as_str()),
            Tag::End(_) => None,
        }
    }
}

/// `&lt;` and the other predefined entities, and numeric references.
fn unescape(s: &str) -> String {
    if !s.contains('&') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(rest.get(..i).unwrap_or(""));
        let after = rest.get(i..).unwrap_or("");
        let Some(end) = after.find(';').filter(|&e| e <= 10) else {
            out.push('&');
            rest = after.get(1..).unwrap_or("");
            continue;
        };
        let ent = after.get(1..end).unwrap_or("");
        let c = match ent {
            "lt" => Some('<'),
            "gt" => Some('>'),
            "amp" => Some('&'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            _ => ent
                .strip_prefix("#x")
                .and_then(|h| u32::from_str_radix(h, 16).ok())
                .or_else(|| ent.strip_prefix('#').and_then(|d| d.parse().ok()))
                .and_then(char::from_u32),
        };
        match c {
            Some(c) => out.push(c),
            None => out.push_str(after.get(..=end).unwrap_or("")),
        }
        rest = after.get(end + 1..).unwrap_or("");
    }
    out.push_str(rest);
    out
}

fn attrs(body: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = body;
    while let Some(eq) = rest.find('=') {
        let key = rest.get(..eq).unwrap_or("").trim().to_string();
        let after = rest.get(eq + 1..).unwrap_or("").trim_start();
        let Some(q) = after.chars().next().filter(|c| *c == '"' || *c == '\'') else {
            break;
        };
        let Some(close) = after.get(1..).and_then(|a| a.find(q)) else {
            break;
        };
        out.push((key, unescape(after.get(1..1 + close).unwrap_or(""))));
        rest = after.get(close + 2..).unwrap_or("");
    }
    out
}

/// Every tag of `doc` in document order.
pub fn tags(doc: &str) -> Vec<Tag> {
    let mut out = Vec::new();
    let mut rest = doc;
    while let Some(lt) = rest.find('<') {
        rest = rest.get(lt + 1..).unwrap_or("");
        if let Some(r) = rest.strip_prefix("!--") {
            rest = r.find("-->").and_then(|e| r.get(e + 3..)).unwrap_or("");
            continue;
        }
        if let Some(r) = rest.strip_prefix("![CDATA[") {
            rest = r.find("]]>").and_then(|e| r.get(e + 3..)).unwrap_or("");
            continue;
        }
        let Some(gt) = rest.find('>') else { break };
        let body = rest.get(..gt).unwrap_or("");
        rest = rest.get(gt + 1..).unwrap_or("");
        if body.starts_with('?') || body.starts_with('!') {
            continue;
        }
        if let Some(name) = body.strip_prefix('/') {
            out.push(Tag::End(name.trim().to_string()));
            continue;
        }
        let (body, empty) = match body.strip_suffix('/') {
            Some(b) => (b, true),
            None => (body, false),
        };
        let name_end = body.find(char::is_whitespace).unwrap_or(body.len());
        out.push(Tag::Start {
            name: body.get(..name_end).unwrap_or("").to_string(),
            attrs: attrs(body.get(name_end..).unwrap_or("")),
            empty,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_attributes_and_entities() {
        let t = tags(r#"<?xml?><!-- c <x> --><a k="1 &amp; &lt;2&gt;" j='q'><b n="x"/></a><c"#);
        assert_eq!(t.len(), 3);
        assert_eq!(t[0].attr("k"), Some("1 & <2>"));
        assert_eq!(t[0].attr("j"), Some("q"));
        assert!(matches!(&t[1], Tag::Start { name, empty: true, .. } if name == "b"));
        assert_eq!(t[2], Tag::End("a".into()));
        assert_eq!(unescape("&#x41;&#66;&bogus;&"), "AB&bogus;&");
    }
}
