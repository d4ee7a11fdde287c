//! The XML of a `.wpaProfile` into a [`Profile`].
//!
//! Only the elements WPA's presets are made of are read (`View`, `Graph`,
//! `Preset`, `Column`, `MetadataEntry`, `FileReference`), by element name in
//! any namespace; the rest is passed over. Nothing recurses on the input's
//! depth, DTDs are refused, and the node count is bounded.

use crate::{layout, Column, Preset, Profile, SortOrder};
use boundedxml::{Limits, Node, Xml};

/// Largest profile read (WPA's own are tens of KiB).
pub const MAX_BYTES: usize = 4 << 20;
/// Most XML nodes read (elements, attributes' parents, text).
pub const MAX_NODES: u32 = 400_000;
/// Most presets and columns kept: a file past these is not a saved view.
const MAX_PRESETS: usize = 1_000;
const MAX_COLUMNS: usize = 2_000;
/// Longest text kept from an attribute.
const MAX_TEXT: usize = 1_000;

pub use boundedxml::Error;

fn err(line: u32, message: impl Into<String>) -> Error {
    Error::new(line, message)
}

const LIMITS: Limits = Limits {
    what: "the profile",
    max_bytes: MAX_BYTES,
    max_nodes: MAX_NODES,
};

/// Reads a profile. A byte-order mark is allowed.
pub fn parse(xml: &str) -> Result<Profile, Error> {
    let xml_doc = Xml::parse(xml, LIMITS)?;
    let doc = &xml_doc.doc;
    let root = doc.root_element();
    if root.tag_name().name() != "WpaProfileContainer" {
        return Err(err(
            xml_doc.line(root),
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
                        xml_doc.line(node),
                        format!("more than {MAX_PRESETS} presets"),
                    ));
                }
                profile
                    .presets
                    .push(preset(&xml_doc, &view, &graph, &node)?);
            }
            _ => {}
        }
    }
    Ok(profile)
}

fn preset(l: &Xml, view: &Node, graph: &Node, p: &Node) -> Result<Preset, Error> {
    let mut out = Preset {
        view_title: text(view, "Title"),
        view_guid: text(view, "Guid").to_ascii_lowercase(),
        graph_guid: text(graph, "Guid").to_ascii_lowercase(),
        layout_style: graph.attribute("LayoutStyle").map(clip),
        name: text(p, "Name"),
        line: l.line(*p),
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
                        return Err(err(l.line(c), format!("more than {MAX_COLUMNS} columns")));
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

fn column(l: &Xml, c: &Node) -> Result<Column, Error> {
    let sort_order = match c.attribute("SortOrder") {
        Some("Ascending") => Some(SortOrder::Ascending),
        Some("Descending") => Some(SortOrder::Descending),
        _ => None,
    };
    let sort_priority = match c.attribute("SortPriority") {
        None => None,
        Some(v) => Some(v.trim().parse::<i32>().map_err(|_| {
            err(
                l.line(*c),
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
        line: l.line(*c),
    })
}

/// A bar position: a non-negative number.
fn count(l: &Xml, p: &Node, name: &str) -> Result<Option<u32>, Error> {
    match p.attribute(name) {
        None => Ok(None),
        Some(v) => v.trim().parse::<u32>().map(Some).map_err(|_| {
            err(
                l.line(*p),
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
    boundedxml::clip(s, MAX_TEXT)
}
