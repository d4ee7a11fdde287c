//! The XML of a `.wpaProfile` into a [`Profile`].
//!
//! Only the elements WPA's presets are made of are read (`View`, `Graph`,
//! `Preset`, `Column`, `MetadataEntry`, `FileReference`), by element name in
//! any namespace; the rest is passed over. Nothing recurses on the input's
//! depth, DTDs are refused, and the node count is bounded.

use crate::{layout, Column, Preset, Profile, SortOrder};
use roxmltree::{Document, Node, ParsingOptions};
use std::fmt;

/// Largest profile read (WPA's own are tens of KiB).
pub const MAX_BYTES: usize = 4 << 20;
/// Most XML nodes read (elements, attributes' parents, text).
pub const MAX_NODES: u32 = 400_000;
/// Most presets and columns kept: a file past these is not a saved view.
const MAX_PRESETS: usize = 1_000;
const MAX_COLUMNS: usize = 2_000;
/// Longest text kept from an attribute.
const MAX_TEXT: usize = 1_000;

/// Why a profile could not be read; `line` is 1-based (0: the whole file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub line: u32,
    pub message: String,
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

fn err(line: u32, message: impl Into<String>) -> Error {
    Error {
        line,
        message: message.into(),
    }
}

/// Reads a profile. A byte-order mark is allowed.
pub fn parse(xml: &str) -> Result<Profile, Error> {
    if xml.len() > MAX_BYTES {
        return Err(err(
            0,
            format!("the profile is {} bytes, more than {MAX_BYTES}", xml.len()),
        ));
    }
    let xml = xml.strip_prefix('\u{feff}').unwrap_or(xml);
    let opt = ParsingOptions {
        allow_dtd: false,
        nodes_limit: MAX_NODES,
        ..ParsingOptions::default()
    };
    let doc = Document::parse_with_options(xml, opt)
        .map_err(|e| err(e.pos().row, format!("not well-formed XML: {e}")))?;
    let lines = Lines::of(xml);
    let root = doc.root_element();
    if root.tag_name().name() != "WpaProfileContainer" {
        return Err(err(
            lines.line(&root),
            format!(
                "not a WPA profile: the root element is <{}>, not <WpaProfileContainer>",
                clip(root.tag_name().name())
            ),
        ));
    }
    let mut profile = Profile::default();
    for node in root.descendants().filter(|n| n.is_element()) {
        match node.tag_name().name() {
            "FileReference" => {
                if let Some(f) = node.attribute("FileName") {
                    profile.file_references.push(clip(f));
                }
            }
            "Preset" => {
                // A preset counts where WPA reads it: View/Graphs/Graph/Preset.
                let Some(graph) = node.parent_element().filter(|g| is(g, "Graph")) else {
                    continue;
                };
                let Some(view) = graph
                    .parent_element()
                    .filter(|g| is(g, "Graphs"))
                    .and_then(|g| g.parent_element())
                    .filter(|v| is(v, "View"))
                else {
                    continue;
                };
                if profile.presets.len() >= MAX_PRESETS {
                    return Err(err(
                        lines.line(&node),
                        format!("more than {MAX_PRESETS} presets"),
                    ));
                }
                profile.presets.push(preset(&lines, &view, &graph, &node)?);
            }
            _ => {}
        }
    }
    Ok(profile)
}

fn preset(l: &Lines, view: &Node, graph: &Node, p: &Node) -> Result<Preset, Error> {
    let mut out = Preset {
        view_title: text(view, "Title"),
        view_guid: text(view, "Guid").to_ascii_lowercase(),
        graph_guid: text(graph, "Guid").to_ascii_lowercase(),
        layout_style: graph.attribute("LayoutStyle").map(clip),
        name: text(p, "Name"),
        line: l.line(p),
        key_column_count: count(l, p, "KeyColumnCount")?,
        graph_column_count: count(l, p, "GraphColumnCount")?,
        left_frozen_column_count: count(l, p, "LeftFrozenColumnCount")?,
        right_frozen_column_count: count(l, p, "RightFrozenColumnCount")?,
        initial_filter_query: p
            .attribute("InitialFilterQuery")
            .map(clip)
            .filter(|q| !q.trim().is_empty()),
        // Older WPA leaves the attribute out when it is false (it wrote
        // UIforETW's "[DPC/ISR]:=... OR [Process]:="Idle (0)"" to drop those).
        initial_filter_should_keep: p
            .attribute("InitialFilterShouldKeep")
            .is_some_and(|v| v.eq_ignore_ascii_case("true")),
        initial_selection_query: p.attribute("InitialSelectionQuery").map(clip),
        graph_filter_column_guid: p
            .attribute("GraphFilterColumnGuid")
            .map(|g| clip(g).to_ascii_lowercase()),
        graph_chart_type: p.attribute("GraphChartType").map(clip),
        ..Preset::default()
    };
    for child in p.children().filter(|c| c.is_element()) {
        match child.tag_name().name() {
            "Columns" => {
                for c in child.children().filter(|c| is(c, "Column")) {
                    if out.columns.len() >= MAX_COLUMNS {
                        return Err(err(l.line(&c), format!("more than {MAX_COLUMNS} columns")));
                    }
                    out.columns.push(column(l, &c)?);
                }
            }
            "MetadataEntries" => {
                for m in child.children().filter(|c| is(c, "MetadataEntry")) {
                    out.metadata.push((
                        text(&m, "Guid").to_ascii_lowercase(),
                        text(&m, "Name"),
                        text(&m, "ColumnMetadata"),
                    ));
                }
            }
            _ => {}
        }
    }
    let bars = layout::place_bars(&out, out.columns.len());
    for c in out.columns.iter_mut().take(bars.keys) {
        c.is_key = true;
    }
    Ok(out)
}

fn column(l: &Lines, c: &Node) -> Result<Column, Error> {
    let sort_order = match c.attribute("SortOrder") {
        Some("Ascending") => Some(SortOrder::Ascending),
        Some("Descending") => Some(SortOrder::Descending),
        _ => None,
    };
    let sort_priority = match c.attribute("SortPriority") {
        None => None,
        Some(v) => Some(v.trim().parse::<i32>().map_err(|_| {
            err(
                l.line(c),
                format!("SortPriority {:?} is not a number", clip(v)),
            )
        })?),
    };
    let stack_mode = c
        .children()
        .find(|o| is(o, "StackOptionsParameter"))
        .map(|o| o.attribute("Mode").map(clip).unwrap_or_default());
    Ok(Column {
        guid: text(c, "Guid").to_ascii_lowercase(),
        name: text(c, "Name"),
        visible: c
            .attribute("IsVisible")
            .is_some_and(|v| v.eq_ignore_ascii_case("true")),
        aggregation: c
            .attribute("AggregationMode")
            .map(clip)
            .filter(|a| !a.is_empty()),
        sort_order,
        sort_priority,
        stack_mode,
        cell_format: c.attribute("CellFormat").map(clip),
        is_key: false,
        line: l.line(c),
    })
}

/// A bar position: a non-negative number.
fn count(l: &Lines, p: &Node, name: &str) -> Result<Option<u32>, Error> {
    match p.attribute(name) {
        None => Ok(None),
        Some(v) => v.trim().parse::<u32>().map(Some).map_err(|_| {
            err(
                l.line(p),
                format!("{name} {:?} is not a column position", clip(v)),
            )
        }),
    }
}

fn is(n: &Node, name: &str) -> bool {
    n.is_element() && n.tag_name().name() == name
}

fn text(n: &Node, attr: &str) -> String {
    n.attribute(attr).map(clip).unwrap_or_default()
}

/// At most `MAX_TEXT` characters of an attribute.
fn clip(s: &str) -> String {
    match s.char_indices().nth(MAX_TEXT) {
        Some((at, _)) => format!("{}…", &s[..at]),
        None => s.to_string(),
    }
}

/// Line starts of the text, so that a node's line is a binary search
/// (roxmltree's own `text_pos_at` scans from the start on every call).
struct Lines(Vec<usize>);

impl Lines {
    fn of(xml: &str) -> Lines {
        Lines(xml.match_indices('\n').map(|(i, _)| i).collect())
    }

    fn line(&self, n: &Node) -> u32 {
        let before = self.0.partition_point(|&nl| nl < n.range().start);
        u32::try_from(before + 1).unwrap_or(u32::MAX)
    }
}
