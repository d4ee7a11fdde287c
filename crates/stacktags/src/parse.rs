//! Reading WPA's `.stacktags` XML (the format of WPA's catalog and of
//! UIforETW's `default.stacktags`): nested `<Tag Name=".." Priority="..">`
//! elements holding `<Entrypoint Module=".." Method=".."/>` patterns. The
//! file is untrusted: its size, nesting and entry count are bounded, DTDs
//! (entity expansion) are refused, and every failure is an error, never a
//! panic.

use crate::pattern::Pattern;
use boundedxml::{Limits, Node, Xml};
use std::fmt;

/// Largest file read (WPA's own catalog files are well under 1 MiB).
pub const MAX_BYTES: usize = 8 << 20;
/// Deepest `Tag` nesting accepted.
pub const MAX_DEPTH: usize = 64;
/// Most entry points in one set.
pub const MAX_ENTRIES: usize = 100_000;
const MAX_NODES: u32 = 1_000_000;

/// One entry point: frames whose module and method match get `tag`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub module: Pattern,
    pub method: Pattern,
    /// Index into [`TagSet::tags`].
    pub tag: u32,
    pub priority: i64,
}

/// A parsed set: tag names and the entry points naming them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TagSet {
    /// Full tag names, nested names joined by `\` as WPA shows them
    /// (`Windows\Kernel\Page Fault`).
    pub tags: Vec<String>,
    /// In file order; among equal priorities on one frame the first wins.
    pub entries: Vec<Entry>,
    /// What was read past and not applied (`HintTag`, unknown elements),
    /// for the user to see.
    pub ignored: Vec<String>,
}

/// Why a stack tags file could not be read, at its 1-based `line` (0: the
/// whole file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub line: u32,
    pub kind: ParseErrorKind,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseErrorKind {
    TooLarge(usize),
    /// Not well-formed, a DTD, or too many nodes: the XML reader's words.
    Xml(String),
    TooDeep,
    TooManyEntries,
    BadPriority(String),
    NoEntries,
}

impl fmt::Display for ParseErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseErrorKind::TooLarge(n) => {
                write!(f, "stack tags file of {n} bytes exceeds {MAX_BYTES}")
            }
            ParseErrorKind::Xml(e) => f.write_str(e),
            ParseErrorKind::TooDeep => write!(f, "Tag elements nested deeper than {MAX_DEPTH}"),
            ParseErrorKind::TooManyEntries => {
                write!(f, "more than {MAX_ENTRIES} Entrypoint elements")
            }
            ParseErrorKind::BadPriority(p) => write!(f, "Priority {p:?} is not an integer"),
            ParseErrorKind::NoEntries => write!(f, "no Tag holds an Entrypoint"),
        }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line > 0 {
            write!(f, "line {}: {}", self.line, self.kind)
        } else {
            self.kind.fmt(f)
        }
    }
}

impl std::error::Error for ParseError {}

const LIMITS: Limits = Limits {
    what: "the stack tags file",
    max_bytes: MAX_BYTES,
    max_nodes: MAX_NODES,
};

impl TagSet {
    pub fn parse(xml: &str) -> Result<TagSet, ParseError> {
        let fail = |line, kind| ParseError { line, kind };
        if xml.len() > MAX_BYTES {
            return Err(fail(0, ParseErrorKind::TooLarge(xml.len())));
        }
        let doc =
            Xml::parse(xml, LIMITS).map_err(|e| fail(e.line, ParseErrorKind::Xml(e.message)))?;
        let mut set = Reader {
            xml: &doc,
            set: TagSet::default(),
            index: Default::default(),
        };
        let root = doc.doc.root_element();
        // UIforETW's file is one root `<Tag Name="">`; other files wrap
        // their tags in an element of their own.
        if root.tag_name().name() == "Tag" {
            set.read_tag(root, "", 0, 0)?;
        } else {
            set.read_children(root, "", 0, 0)?;
        }
        if set.set.entries.is_empty() {
            return Err(fail(doc.line(root), ParseErrorKind::NoEntries));
        }
        Ok(set.set)
    }
}

/// A set being read, with its tag names indexed.
struct Reader<'d> {
    xml: &'d Xml<'d>,
    set: TagSet,
    index: rustc_hash::FxHashMap<String, u32>,
}

impl Reader<'_> {
    fn fail(&self, n: Node, kind: ParseErrorKind) -> ParseError {
        ParseError {
            line: self.xml.line(n),
            kind,
        }
    }

    fn read_tag(
        &mut self,
        node: Node,
        parent: &str,
        parent_priority: i64,
        depth: usize,
    ) -> Result<(), ParseError> {
        if depth > MAX_DEPTH {
            return Err(self.fail(node, ParseErrorKind::TooDeep));
        }
        let name = node.attribute("Name").unwrap_or("").trim();
        let path = match (parent.is_empty(), name.is_empty()) {
            (_, true) => parent.to_string(),
            (true, false) => name.to_string(),
            (false, false) => format!("{parent}\\{name}"),
        };
        // A nested tag without its own Priority keeps its parent's.
        let priority = match node.attribute("Priority") {
            None => parent_priority,
            Some(p) => p
                .trim()
                .parse::<i64>()
                .map_err(|_| self.fail(node, ParseErrorKind::BadPriority(p.to_string())))?,
        };
        self.read_children(node, &path, priority, depth + 1)
    }

    fn read_children(
        &mut self,
        node: Node,
        path: &str,
        priority: i64,
        depth: usize,
    ) -> Result<(), ParseError> {
        for child in node.children().filter(|c| c.is_element()) {
            match child.tag_name().name() {
                "Tag" => self.read_tag(child, path, priority, depth)?,
                "Entrypoint" if path.is_empty() => {
                    self.ignore("Entrypoint outside every named Tag")
                }
                "Entrypoint" => {
                    if self.set.entries.len() >= MAX_ENTRIES {
                        return Err(self.fail(child, ParseErrorKind::TooManyEntries));
                    }
                    let tag = self.tag_id(path);
                    let pat = |a: &str| Pattern::new(child.attribute(a).unwrap_or("*").trim());
                    self.set.entries.push(Entry {
                        module: pat("Module"),
                        method: pat("Method"),
                        tag,
                        priority,
                    });
                }
                other => self.ignore(other),
            }
        }
        Ok(())
    }

    fn tag_id(&mut self, path: &str) -> u32 {
        let tags = &mut self.set.tags;
        *self.index.entry(path.to_string()).or_insert_with(|| {
            tags.push(path.to_string());
            (tags.len() - 1) as u32
        })
    }

    fn ignore(&mut self, what: &str) {
        let ignored = &mut self.set.ignored;
        if !ignored.iter().any(|w| w == what) {
            ignored.push(what.to_string());
        }
    }
}
