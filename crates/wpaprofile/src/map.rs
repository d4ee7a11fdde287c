//! A parsed profile as etlscope presets: each preset's table (by its Graph
//! GUID), its visible key columns (left of the gold bar) and value columns
//! (`COL:AGG`), its sort and filter, mapped onto a [`Catalog`] of our tables;
//! everything that does not map is listed with the reason.

use crate::filter::parse_filter;
use crate::names::{same, stack_tag_of, synonym};
use crate::tables::wpa_table;
use crate::{Column, Preset, Profile, SortOrder};

/// What a column of ours holds (fixes its unit in wpaexporter's layout).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Text,
    Number,
    /// Nanoseconds since trace start.
    Time,
    /// Nanoseconds.
    Duration,
    Stack,
    /// `% Weight`: a share, not a column of the rows.
    Percent,
}

#[derive(Debug, Clone)]
pub struct CatalogColumn {
    pub name: String,
    pub aliases: Vec<String>,
    pub kind: Kind,
    /// The aggregation the column has by default (`sum`, `min`...): a value
    /// column with it is written by its plain name, as the UI writes it.
    pub aggregation: String,
    /// Aggregations that have no meaning for it (`sum` of an id or a
    /// time): a preset asking for one gets the column's own.
    pub refused: Vec<String>,
}

/// Our tables and their columns (`query::TableDef` in the server).
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    pub tables: Vec<(String, Vec<CatalogColumn>)>,
}

impl Catalog {
    fn column(&self, table: &str, name: &str) -> Option<&CatalogColumn> {
        let (_, cols) = self.tables.iter().find(|(t, _)| t == table)?;
        cols.iter().find(|c| c.name == name).or_else(|| {
            cols.iter()
                .find(|c| same(&c.name, name) || c.aliases.iter().any(|a| same(a, name)))
        })
    }
}

/// One column of a mapped preset.
#[derive(Debug, Clone, PartialEq)]
pub struct MappedColumn {
    /// WPA's name and GUID.
    pub wpa: String,
    pub guid: String,
    /// WPA's `AggregationMode` as written (value columns).
    pub aggregation: Option<String>,
    /// Our column (keys) or `COL[:AGG]` spec (values).
    pub ours: String,
    pub kind: Kind,
    /// wpaexporter's header: WPA's name with the unit (`Weight (in view) (ms)`).
    pub header: String,
    /// Nanoseconds per unit of the header (1e6 for ms); 0 for no unit.
    pub ns_per_unit: f64,
    /// Decimals WPA shows (`CellFormat` `N2`), when it says.
    pub decimals: Option<usize>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct MappedFilter {
    /// Our column.
    pub column: String,
    pub values: Vec<String>,
    /// Remove the matching rows (WPA's `InitialFilterShouldKeep="false"`).
    pub exclude: bool,
}

/// One preset as etlscope's.
#[derive(Debug, Clone, PartialEq)]
pub struct MappedPreset {
    pub name: String,
    pub view_title: String,
    pub graph_guid: String,
    pub line: u32,
    /// WPA's table title (`None`: a GUID we do not know).
    pub wpa_table: Option<&'static str>,
    /// Our table (`None`: the preset is skipped).
    pub table: Option<&'static str>,
    /// wpaexporter's output file name for it.
    pub file_name: String,
    /// No key columns: WPA lists every row (one CSV line per row).
    pub rows: bool,
    pub keys: Vec<MappedColumn>,
    pub values: Vec<MappedColumn>,
    /// Our column (key) or value spec, and descending.
    pub sort: Option<(String, bool)>,
    pub filter: Option<MappedFilter>,
    /// What does not map, one item each ("key column \"X\": ...").
    pub unmapped: Vec<String>,
    /// What maps approximately.
    pub notes: Vec<String>,
    /// Hidden columns (not shown by WPA either).
    pub hidden: usize,
}

impl MappedPreset {
    /// One line: what the preset became and how many items did not map.
    pub fn summary(&self) -> String {
        let Some(table) = self.table else {
            let what = self.wpa_table.map_or_else(
                || format!("graph {}", self.graph_guid),
                |t| format!("WPA's {t}"),
            );
            return format!(
                "\"{}\": skipped, {what} is not a table etlscope has",
                self.name
            );
        };
        let shape = if self.rows {
            format!("every row, {} columns", self.values.len())
        } else {
            format!(
                "{} key, {} value columns",
                self.keys.len(),
                self.values.len()
            )
        };
        let missing = match self.unmapped.len() {
            0 => "everything mapped".to_string(),
            1 => "1 item not mapped".to_string(),
            n => format!("{n} items not mapped"),
        };
        format!("\"{}\": {table}, {shape}; {missing}", self.name)
    }
}

/// Maps every preset of `p` onto `catalog`.
pub fn map_profile(p: &Profile, catalog: &Catalog) -> Vec<MappedPreset> {
    p.presets.iter().map(|x| map_preset(x, catalog)).collect()
}

pub fn map_preset(p: &Preset, catalog: &Catalog) -> MappedPreset {
    let wpa = wpa_table(&p.graph_guid);
    let title = wpa.map_or("Unknown Table", |t| t.title);
    let mut out = MappedPreset {
        name: p.name.clone(),
        view_title: p.view_title.clone(),
        graph_guid: p.graph_guid.clone(),
        line: p.line,
        wpa_table: wpa.map(|t| t.title),
        table: None,
        file_name: file_name(title, &p.name),
        rows: false,
        keys: Vec::new(),
        values: Vec::new(),
        sort: None,
        filter: None,
        unmapped: Vec::new(),
        notes: Vec::new(),
        hidden: p.columns.iter().filter(|c| !c.visible).count(),
    };
    let Some(table) = wpa.and_then(|t| t.ours) else {
        return out;
    };
    if catalog.tables.iter().all(|(t, _)| t != table) {
        return out;
    }
    out.table = Some(table);
    out.rows = !p.keys().any(|c| c.visible);
    let mut mapped_guids: Vec<(&Column, String)> = Vec::new();
    for c in p.columns.iter().filter(|c| c.visible) {
        let ours = match our_column(table, c, catalog) {
            Ok((col, note)) => {
                if !note.is_empty() && !c.name.starts_with("Count: ") {
                    out.notes
                        .push(format!("\"{}\" as {}: {note}", c.name, col.name));
                }
                col
            }
            Err(why) => {
                let role = if c.is_key { "key" } else { "value" };
                out.unmapped
                    .push(format!("{role} column \"{}\": {why}", c.name));
                continue;
            }
        };
        let counted = c.name.starts_with("Count: ") && !c.is_key;
        let kind = if counted { Kind::Number } else { ours.kind };
        let (header, ns_per_unit) = header(table, c, kind);
        let decimals = c
            .cell_format
            .as_deref()
            .and_then(|f| f.strip_prefix('N'))
            .and_then(|d| d.parse::<usize>().ok())
            .filter(|&d| d <= 12);
        let mut m = MappedColumn {
            wpa: c.name.clone(),
            guid: c.guid.clone(),
            aggregation: c.aggregation.clone(),
            ours: ours.name.clone(),
            kind,
            header,
            ns_per_unit,
            decimals,
        };
        if c.is_key {
            if ours.kind == Kind::Percent {
                out.unmapped.push(format!(
                    "key column \"{}\": a share cannot group rows",
                    c.name
                ));
                continue;
            }
            mapped_guids.push((c, m.ours.clone()));
            out.keys.push(m);
            continue;
        }
        if out.rows {
            // Every row: no aggregation, each cell is the row's own.
            if ours.kind == Kind::Percent {
                out.unmapped.push(format!(
                    "value column \"{}\": etlscope lists rows without a share",
                    c.name
                ));
                continue;
            }
            mapped_guids.push((c, m.ours.clone()));
            out.values.push(m);
            continue;
        }
        match value_spec(c, ours) {
            _ if counted => m.ours = format!("{}:count", ours.name),
            Ok(spec) => m.ours = spec,
            Err(why) => {
                out.notes
                    .push(format!("value column \"{}\": {why}", c.name));
            }
        }
        if ours.kind == Kind::Stack {
            out.unmapped.push(format!(
                "value column \"{}\": a stack cannot be aggregated",
                c.name
            ));
            continue;
        }
        mapped_guids.push((c, m.ours.clone()));
        out.values.push(m);
    }
    sort_of(p, &mapped_guids, &mut out);
    filter_of(p, table, catalog, &mut out);
    out
}

/// Our column for WPA's `c` in `table`, and what differs ("" if nothing).
fn our_column<'c>(
    table: &str,
    c: &Column,
    catalog: &'c Catalog,
) -> Result<(&'c CatalogColumn, &'static str), String> {
    let (name, note) = synonym(table, &c.name).unwrap_or((c.name.as_str(), ""));
    // WPA's "Count: X" counts the rows that have an X: X's count.
    if let Some(of) = name.strip_prefix("Count: ").filter(|_| !c.is_key) {
        let of = synonym(table, of).map_or(of, |s| s.0);
        return match catalog.column(table, of) {
            Some(col) if col.kind != Kind::Stack && col.kind != Kind::Percent => {
                Ok((col, "counts the rows that have one"))
            }
            _ => Err(format!("{table} has no column {of}")),
        };
    }
    let name = match c.stack_mode.as_deref() {
        Some("StackTag") => stack_tag_of(name),
        Some("FrameTags") => return Err("frame tags are not an etlscope column".into()),
        _ => name,
    };
    let name = name.to_string();
    match catalog.column(table, &name) {
        Some(col) => Ok((col, note)),
        None => Err(format!("{table} has no such column")),
    }
}

/// `COL` or `COL:AGG` for a value column with WPA's `AggregationMode`.
fn value_spec(c: &Column, ours: &CatalogColumn) -> Result<String, String> {
    let agg = match c.aggregation.as_deref().unwrap_or("None") {
        "None" | "Default" | "" => return Ok(ours.name.clone()),
        "Sum" => "sum",
        "Min" => "min",
        "Max" => "max",
        "Average" => "avg",
        "Count" => "count",
        "UniqueCount" => "unique",
        other => {
            return Err(format!(
                "aggregation {other} is not etlscope's; shown with {}'s own",
                ours.name
            ))
        }
    };
    let numeric = matches!(
        ours.kind,
        Kind::Number | Kind::Time | Kind::Duration | Kind::Percent
    );
    // The plain name for the default (and Count's count is its sum).
    if ours.kind == Kind::Percent
        || agg == ours.aggregation
        || (ours.name == "Count" && agg == "count")
    {
        return Ok(ours.name.clone());
    }
    if numeric && ours.refused.iter().any(|r| r == agg) {
        return Err(format!(
            "{} of {} adds up ids or instants, which means nothing; shown with {}'s own aggregation",
            c.aggregation.as_deref().unwrap_or_default(),
            ours.name,
            ours.name
        ));
    }
    if !numeric && matches!(agg, "sum" | "min" | "max" | "avg") {
        return Err(format!(
            "{} of text is not possible; shown with {}'s own aggregation",
            c.aggregation.as_deref().unwrap_or_default(),
            ours.name
        ));
    }
    Ok(format!("{}:{agg}", ours.name))
}

/// wpaexporter's header for `c` and the nanoseconds per unit of its numbers.
fn header(table: &str, c: &Column, kind: Kind) -> (String, f64) {
    let unit = match kind {
        Kind::Time => Some(("s", 1e9)),
        Kind::Duration => Some(
            match c.cell_format.as_deref().and_then(|f| f.chars().next()) {
                Some('m') => ("ms", 1e6),
                Some('u') | Some('µ') => ("µs", 1e3),
                Some('n') => ("ns", 1.0),
                Some('s') => ("s", 1e9),
                // WPA shows CPU Usage (Precise)'s Waits and Ready in µs, the
                // other durations in ms.
                _ if table == "cpu-precise"
                    && (same(&c.name, "Waits") || same(&c.name, "Ready")) =>
                {
                    ("µs", 1e3)
                }
                _ => ("ms", 1e6),
            },
        ),
        _ => None,
    };
    // Counts of a duration are counts.
    let counted = matches!(
        c.aggregation.as_deref(),
        Some("Count") | Some("UniqueCount")
    );
    match unit {
        Some((u, ns)) if !counted || c.is_key => (format!("{} ({u})", c.name), ns),
        _ => (c.name.clone(), 0.0),
    }
}

/// The first sorted column (by `SortPriority`) when it maps; listed rows
/// keep the trace's order.
fn sort_of(p: &Preset, mapped: &[(&Column, String)], out: &mut MappedPreset) {
    if out.rows {
        return;
    }
    let Some(c) = p.sort_columns().into_iter().next() else {
        return;
    };
    match mapped.iter().find(|(m, _)| std::ptr::eq(*m, c)) {
        Some((_, ours)) => {
            out.sort = Some((ours.clone(), c.sort_order == Some(SortOrder::Descending)));
        }
        None => out.unmapped.push(format!("sort by \"{}\"", c.name)),
    }
}

/// `InitialFilterQuery` when it is `[C]:="v" OR ...` on one column of ours.
fn filter_of(p: &Preset, table: &str, catalog: &Catalog, out: &mut MappedPreset) {
    let Some(q) = p.initial_filter_query.as_deref() else {
        return;
    };
    let problem = match parse_filter(q) {
        None => "only [Column]:=\"value\" terms joined by OR are read".to_string(),
        Some(terms) => {
            let cols: Vec<Option<&CatalogColumn>> = terms
                .iter()
                .map(|t| {
                    let name = synonym(table, &t.column).map_or(t.column.as_str(), |s| s.0);
                    catalog.column(table, name)
                })
                .collect();
            match cols.first().copied().flatten() {
                Some(first) if cols.iter().all(|c| c.is_some_and(|c| c.name == first.name)) => {
                    out.filter = Some(MappedFilter {
                        column: first.name.clone(),
                        values: terms.into_iter().map(|t| t.value).collect(),
                        exclude: !p.initial_filter_should_keep,
                    });
                    return;
                }
                _ => {
                    let mut missing: Vec<&str> = terms
                        .iter()
                        .zip(&cols)
                        .filter(|(_, c)| c.is_none())
                        .map(|(t, _)| t.column.as_str())
                        .collect();
                    missing.dedup();
                    if missing.is_empty() {
                        "its terms name several columns".to_string()
                    } else {
                        format!("{table} has no column {}", missing.join(", "))
                    }
                }
            }
        }
    };
    let q: String = q.chars().take(200).collect();
    out.unmapped
        .push(format!("filter {q}: {problem}; not applied"));
}

/// wpaexporter's name: `<table title>_<preset name>.csv`, spaces as `_`
/// (UIforETW reads `CPU_Usage_(Precise)_Randomascii_CPU_Summary_by_Process.csv`);
/// characters no file name may hold also become `_`, so a name from the
/// file never leaves the output folder.
pub fn file_name(table_title: &str, preset: &str) -> String {
    let raw = format!("{table_title}_{preset}");
    let mut name: String = raw
        .chars()
        .map(|c| match c {
            ' ' | '/' | '\\' | ':' | '*' | '?' | '"' | '<' | '>' | '|' => '_',
            c if c.is_control() => '_',
            c => c,
        })
        .take(200)
        .collect();
    name.push_str(".csv");
    name
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_stay_in_the_folder() {
        assert_eq!(
            file_name("CPU Usage (Precise)", "Randomascii CPU Summary by Process"),
            "CPU_Usage_(Precise)_Randomascii_CPU_Summary_by_Process.csv"
        );
        assert_eq!(file_name("Disk Usage", "../../x"), "Disk_Usage_.._.._x.csv");
        assert!(!file_name("T", &"a/".repeat(500)).contains('/'));
    }
}
