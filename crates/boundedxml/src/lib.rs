//! XML files from anyone (WPA regions files, `.wpaProfile` presets), read
//! within bounds: the size and the node count are capped, DTDs are refused
//! (no entity expansion), and every error names its 1-based line.
//!
//! The readers built on it walk the [`roxmltree::Document`] themselves; this
//! crate holds what they all need, so each bound is written once.

use roxmltree::ParsingOptions;
pub use roxmltree::{Document, Node};
use std::fmt;

/// Why a file could not be read; `line` is 1-based (0: the whole file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub line: u32,
    pub message: String,
}

impl Error {
    pub fn new(line: u32, message: impl Into<String>) -> Error {
        Error {
            line,
            message: message.into(),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line > 0 {
            write!(f, "line {}: {}", self.line, self.message)
        } else {
            f.write_str(&self.message)
        }
    }
}

impl std::error::Error for Error {}

/// The bounds of one kind of file.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// What the file is, for messages ("the profile", "the file").
    pub what: &'static str,
    pub max_bytes: usize,
    pub max_nodes: u32,
}

/// A parsed document with the line starts of its text.
pub struct Xml<'a> {
    pub doc: Document<'a>,
    lines: Lines,
}

impl<'a> Xml<'a> {
    /// Parses `text` within `limits`. A byte-order mark is allowed.
    pub fn parse(text: &'a str, limits: Limits) -> Result<Xml<'a>, Error> {
        if text.len() > limits.max_bytes {
            return Err(Error::new(
                0,
                format!(
                    "{} is {} bytes, more than {}",
                    limits.what,
                    text.len(),
                    limits.max_bytes
                ),
            ));
        }
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let opt = ParsingOptions {
            allow_dtd: false,
            nodes_limit: limits.max_nodes,
            ..ParsingOptions::default()
        };
        let doc = Document::parse_with_options(text, opt)
            .map_err(|e| Error::new(e.pos().row, format!("not well-formed XML: {e}")))?;
        Ok(Xml {
            doc,
            lines: Lines::of(text),
        })
    }

    /// The 1-based line where `n` starts.
    pub fn line(&self, n: Node) -> u32 {
        self.lines.line(n.range().start)
    }
}

/// Line starts of the text, so that a node's line is a binary search:
/// roxmltree's own `text_pos_at` scans from the start on every call, which
/// is quadratic over a file of many nodes.
struct Lines(Vec<usize>);

impl Lines {
    fn of(text: &str) -> Lines {
        Lines(text.match_indices('\n').map(|(i, _)| i).collect())
    }

    fn line(&self, offset: usize) -> u32 {
        let before = self.0.partition_point(|&nl| nl < offset);
        u32::try_from(before + 1).unwrap_or(u32::MAX)
    }
}

/// At most `max` characters of `s`, with an ellipsis where it was cut.
pub fn clip(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &s[..at]),
        None => s.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const L: Limits = Limits {
        what: "the file",
        max_bytes: 1000,
        max_nodes: 20,
    };

    #[test]
    fn lines_of_nodes_and_errors() {
        let x = Xml::parse("\u{feff}<a>\n <b/>\n\n <c/></a>", L).expect("parses");
        let root = x.doc.root_element();
        let lines: Vec<u32> = root
            .children()
            .filter(|n| n.is_element())
            .map(|n| x.line(n))
            .collect();
        assert_eq!(lines, vec![2, 4]);
        let e = Xml::parse("<a>\n<b>\n</a>", L).err().expect("refused");
        assert_eq!(e.line, 3, "{e}");
    }

    #[test]
    fn bounds_refuse_with_a_message() {
        let big = format!("<a>{}</a>", " ".repeat(1000));
        let e = Xml::parse(&big, L).err().expect("too big");
        assert_eq!(
            (e.line, e.message.as_str()),
            (0, "the file is 1007 bytes, more than 1000")
        );
        let many = format!("<a>{}</a>", "<b/>".repeat(30));
        assert!(Xml::parse(&many, L).is_err());
        let dtd = "<!DOCTYPE a [<!ENTITY x \"y\">]><a>&x;</a>";
        assert!(Xml::parse(dtd, L).is_err());
    }

    #[test]
    fn clip_keeps_whole_characters() {
        assert_eq!(clip("ééé", 2), "éé…");
        assert_eq!(clip("ab", 2), "ab");
    }
}
