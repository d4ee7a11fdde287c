//! The little XML an instrumentation manifest needs: element starts with
//! their attributes and element ends, in order. No DTDs, no namespaces
//! resolved, text content ignored; malformed input ends the walk early
//! ([`tags`]) or is an error naming its line ([`tags_checked`]).

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
    attrs_checked(body).0
}

/// The attributes of a tag body, and whether the whole body was read.
fn attrs_checked(body: &str) -> (Vec<(String, String)>, bool) {
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
    let clean = rest.trim().is_empty();
    (out, clean)
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

/// A malformed document: the 1-based line and what is wrong there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct XmlError {
    pub line: usize,
    pub message: String,
}

/// `r` up to `end` and after it; an error if `end` never comes.
fn skip_to<'a>(
    r: &'a str,
    end: &str,
    what: &str,
    line: usize,
) -> Result<(&'a str, &'a str), XmlError> {
    match r.find(end) {
        Some(e) => Ok((
            r.get(..e).unwrap_or(""),
            r.get(e + end.len()..).unwrap_or(""),
        )),
        None => Err(XmlError {
            line,
            message: format!("{what} never ends"),
        }),
    }
}

/// Elements nested deeper than this are refused (a manifest needs about 8).
const MAX_DEPTH: usize = 64;

/// As [`tags`], each tag with its line, and every malformation an error:
/// a tag or comment that never closes, an attribute that does not parse,
/// an end tag that closes another element, an element left open.
pub fn tags_checked(doc: &str) -> Result<Vec<(usize, Tag)>, XmlError> {
    let mut out = Vec::new();
    let mut open: Vec<(usize, String)> = Vec::new();
    let mut line = 1;
    let mut rest = doc;
    let err = |line, message: String| Err(XmlError { line, message });
    while let Some(lt) = rest.find('<') {
        line += rest.get(..lt).unwrap_or("").matches('\n').count();
        rest = rest.get(lt + 1..).unwrap_or("");
        let at = line;
        let skip = |r, end, what| skip_to(r, end, what, at);
        let (body, after) = if let Some(r) = rest.strip_prefix("!--") {
            skip(r, "-->", "comment")?
        } else if let Some(r) = rest.strip_prefix("![CDATA[") {
            skip(r, "]]>", "CDATA section")?
        } else if let Some(r) = rest.strip_prefix('?') {
            skip(r, "?>", "processing instruction")?
        } else {
            let (b, a) = skip(rest, ">", "tag")?;
            if b.starts_with('!') {
                return err(at, "DTDs are not read".into());
            }
            line += b.matches('\n').count();
            rest = a;
            if let Some(name) = b.strip_prefix('/') {
                let name = name.trim();
                match open.pop() {
                    Some((_, o)) if o == name => {}
                    Some((l, o)) => {
                        return err(at, format!("</{name}> closes <{o}> of line {l}"));
                    }
                    None => return err(at, format!("</{name}> closes nothing")),
                }
                out.push((at, Tag::End(name.to_string())));
                continue;
            }
            let (b, empty) = match b.strip_suffix('/') {
                Some(x) => (x, true),
                None => (b, false),
            };
            let name_end = b.find(char::is_whitespace).unwrap_or(b.len());
            let name = b.get(..name_end).unwrap_or("");
            if name.is_empty() || name.contains(['<', '"', '\'', '=']) {
                return err(at, format!("bad element name {name:?}"));
            }
            let (attrs, clean) = attrs_checked(b.get(name_end..).unwrap_or(""));
            if !clean {
                return err(at, format!("<{name}>: an attribute does not parse"));
            }
            if !empty {
                if open.len() >= MAX_DEPTH {
                    return err(at, format!("elements nested deeper than {MAX_DEPTH}"));
                }
                open.push((at, name.to_string()));
            }
            out.push((
                at,
                Tag::Start {
                    name: name.to_string(),
                    attrs,
                    empty,
                },
            ));
            continue;
        };
        line += body.matches('\n').count();
        rest = after;
    }
    if let Some((l, name)) = open.pop() {
        return err(l, format!("<{name}> is never closed"));
    }
    Ok(out)
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

    #[test]
    fn checked_tags_name_the_line_of_a_fault() {
        let good = "<?xml version='1.0'?>\n<a>\n<!-- x\n y -->\n<t n='1'>\n>\n</t><b/></a>";
        let t = tags_checked(good).unwrap();
        assert_eq!(t.len(), 5);
        assert_eq!(t[1].0, 5);
        assert_eq!(t[3].0, 7);
        let bad = [
            ("<a>\n<b>\n</a>", 3, "closes <b> of line 2"),
            ("<a>\n\n<b x=1></b></a>", 3, "attribute"),
            ("<a>\n<!-- open", 2, "comment never ends"),
            ("<a>\n<b", 2, "tag never ends"),
            ("\n<a>", 2, "never closed"),
            ("</a>", 1, "closes nothing"),
        ];
        for (doc, line, msg) in bad {
            let e = tags_checked(doc).unwrap_err();
            assert_eq!(e.line, line, "{doc:?}: {e:?}");
            assert!(e.message.contains(msg), "{doc:?}: {e:?}");
        }
    }
}
