//! `etlscope export FILE --table T [--rows] [--group COL,...] [--values "COL[:AGG],..."] [--sort COL[:asc|desc]] [--limit N] [--range S-E] [--filter COL=V]... [--format csv|tsv|json]`:
//! a table grouped like wpaexporter: the key columns, then the value
//! columns with their aggregates. Columns, types and default aggregations
//! are query::table::columns' (the ones the UI and the HTTP API use).
//! Numbers are in base units: seconds from trace start, seconds, bytes,
//! counts; CSV has no thousands separators or units.

use crate::cell_json::cell_json;
use anyhow::{bail, Context};
use model::Trace;
use query::stack_tags::columns::is_tag_column;
use query::stack_tags::{StackTagKeys, StackTags};
use query::table::flat::{self, FlatTable};
use query::table::plan::{self, SortPlan, TableAsk};
use query::{CellValue, ColumnType, TableDef};
use serde_json::{Map, Value};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub struct ExportArgs<'a> {
    pub table: &'a str,
    pub group: Vec<String>,
    /// `COL[:AGG]` specs; `None`: the table's default value columns.
    pub values: Option<Vec<String>>,
    /// `COL[:asc|desc]`: a key column, a value column (as in `values`) or
    /// its header.
    pub sort: Option<&'a str>,
    /// At most this many rows; 0 means all.
    pub limit: usize,
    pub range: Option<(f64, f64)>,
    pub filters: Vec<(String, String)>,
    pub format: Format,
    /// Extra symbol path for naming frames (see `super::symbols`).
    pub symbol_path: Option<&'a str>,
    /// The set Stack Tag columns show (`--stack-tags FILE`); `None`: the
    /// built-in one.
    pub stack_tags: Option<Arc<StackTags>>,
    /// `--rows`: list every row with every column, nothing grouped, also on
    /// tables with a weight (tests derive group figures from these).
    pub rows: bool,
}

/// How `export` writes its table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Csv,
    /// Tab-separated, for pasting into a spreadsheet.
    Tsv,
    Json,
}

impl Format {
    pub fn parse(s: &str) -> anyhow::Result<Format> {
        match s {
            "csv" => Ok(Format::Csv),
            "tsv" => Ok(Format::Tsv),
            "json" => Ok(Format::Json),
            _ => bail!("unknown format {s:?}: csv, tsv or json"),
        }
    }
}

pub fn parse_range(s: &str) -> anyhow::Result<(f64, f64)> {
    let (a, b) = s
        .split_once('-')
        .with_context(|| format!("bad range {s:?}: expected START-END in seconds"))?;
    let a: f64 = a
        .trim()
        .parse()
        .with_context(|| format!("bad range start {a:?}"))?;
    let b: f64 = b
        .trim()
        .parse()
        .with_context(|| format!("bad range end {b:?}"))?;
    if a.is_nan() || b.is_nan() || a > b {
        bail!("bad range {s:?}: start is after end");
    }
    Ok((a, b))
}

pub fn parse_filter(s: &str) -> anyhow::Result<(String, String)> {
    let (c, v) = s
        .split_once('=')
        .with_context(|| format!("bad filter {s:?}: expected COLUMN=VALUE"))?;
    Ok((c.trim().to_string(), v.to_string()))
}

pub fn run(paths: &[PathBuf], companions: bool, args: ExportArgs<'_>) -> anyhow::Result<()> {
    let opened = super::files::open(paths, companions)?;
    let mut trace = super::progress::build_model(&opened.file);
    drop(opened.file);
    super::symbols::name_frames(&mut trace, &opened.files, args.symbol_path);
    warn_if_incomplete(&trace);
    let table = export(&trace, &args)?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let written = write(&mut out, &table, args.format).and_then(|()| out.flush());
    match written {
        // A closed pipe (`| head`) is the reader's choice, not an error.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        r => Ok(r?),
    }
}

/// A trace read only in part gives partial tables: say so on stderr.
pub(crate) fn warn_if_incomplete(t: &Trace) {
    let i = &t.info;
    let mut what = Vec::new();
    let n = |k: u64, one: &str, many: &str| format!("{k} {}", if k == 1 { one } else { many });
    if i.skipped_buffers > 0 {
        let b = n(i.skipped_buffers.into(), "buffer", "buffers");
        what.push(format!("{b} could not be read"));
    }
    if i.lost_events > 0 || i.lost_buffers > 0 {
        what.push(format!(
            "the recorder lost {} and {}",
            n(i.lost_events, "event", "events"),
            n(i.lost_buffers, "buffer", "buffers")
        ));
    }
    if !i.diagnostics.is_empty() {
        let d = n(
            i.diagnostics.len() as u64,
            "decoding error",
            "decoding errors",
        );
        what.push(d);
    }
    if !what.is_empty() {
        eprintln!(
            "warning: the trace is incomplete ({}); the table may miss rows (`etlscope info` lists the errors)",
            what.join(", ")
        );
    }
}

/// A `.stacktags` file, named by its file name.
pub fn read_stack_tags(path: &Path) -> anyhow::Result<Arc<StackTags>> {
    let xml =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let name = path
        .file_stem()
        .map_or_else(|| "file".into(), |s| s.to_string_lossy().into_owned());
    let set = StackTags::parse(&name, &xml).with_context(|| format!("{}", path.display()))?;
    Ok(Arc::new(set))
}

/// The table as `args` asks for it.
pub fn export(trace: &Trace, args: &ExportArgs<'_>) -> anyhow::Result<FlatTable> {
    let set = args.stack_tags.clone().unwrap_or_else(StackTags::builtin);
    export_tagged(trace, &trace.regions, args, &|| {
        StackTagKeys::build(trace, &set)
    })
}

/// The table as `args` asks for it, Stack Tag columns read from `tags`
/// (called only when a column the request names is one).
pub fn export_tagged(
    trace: &Trace,
    regions: &model::regions::RegionTable,
    args: &ExportArgs<'_>,
    tags: &dyn Fn() -> StackTagKeys,
) -> anyhow::Result<FlatTable> {
    let unknown = || {
        anyhow::anyhow!(
            "unknown table {:?}; tables are {}",
            args.table,
            TableDef::NAMES.join(", ")
        )
    };
    // Tagging costs a walk over every stack: only when a column needs it.
    let empty = StackTagKeys::empty();
    let names =
        TableDef::of_tagged_with(trace, regions, args.table, &empty, None).ok_or_else(unknown)?;
    let named = args
        .group
        .iter()
        .chain(args.filters.iter().map(|f| &f.0))
        .map(|n| n.as_str())
        .chain(args.values.iter().flatten().map(|v| value_column_name(v)));
    let wants_tags = named
        .filter_map(|n| names.column(n))
        .any(|c| is_tag_column(names.columns[c].def.name));
    drop(names);
    let keys = if wants_tags { tags() } else { empty };
    let tagged =
        TableDef::of_tagged_with(trace, regions, args.table, &keys, None).ok_or_else(unknown)?;
    // No grouping asked for, on a table without a weight (or `--rows`): list
    // the rows, every column; tag columns only when asked for.
    let list =
        args.rows || (args.group.is_empty() && args.values.is_none() && tagged.weight.is_none());
    let def = if list && !wants_tags {
        TableDef::of_with(trace, regions, args.table).ok_or_else(unknown)?
    } else {
        tagged
    };
    let ask = TableAsk {
        keys: &args.group,
        // Listing prints every column: no value columns to read.
        values: if list {
            Some(&[])
        } else {
            args.values.as_deref()
        },
        filters: &args.filters,
        range: args.range,
        sort: if list { None } else { args.sort },
        limit: args.limit,
    };
    let plan = plan::plan(&def, &ask)?;
    // Columns relative to the range (WPA's allocation classes, Impacting
    // Size) are made for it; the columns keep their places.
    let def = match plan.range {
        Some(r) if def.has_ranged_columns() => if list && !wants_tags {
            TableDef::of_in_with(trace, regions, args.table, Some(r))
        } else {
            TableDef::of_tagged_with(trace, regions, args.table, &keys, Some(r))
        }
        .ok_or_else(unknown)?,
        _ => def,
    };
    if list {
        return Ok(flat::list(
            trace,
            &def,
            &plan.filters,
            &plan.excludes,
            plan.range,
            plan.limit,
        ));
    }
    if let SortPlan::Unknown(name) = &plan.sort {
        bail!("cannot sort by {name:?}: it is neither a --group nor a --values column");
    }
    Ok(flat::group(trace, &def, &plan.flat_request())?)
}

/// The column of a `COL[:AGG]` value spec.
fn value_column_name(spec: &str) -> &str {
    spec.rsplit_once(':').map_or(spec, |(c, _)| c).trim()
}

fn headers(t: &FlatTable) -> Vec<String> {
    let keys = t.key_names.iter().map(|s| s.to_string());
    keys.chain(t.value_names.iter().cloned()).collect()
}

/// Each row's cells with their types: keys, then values.
fn cells(t: &FlatTable) -> impl Iterator<Item = Vec<(&CellValue, ColumnType)>> {
    t.rows.iter().map(|r| {
        let keys = r.keys.iter().zip(t.key_types.iter().copied());
        keys.chain(r.values.iter().zip(t.value_types.iter().copied()))
            .collect()
    })
}

/// The table in `format`; the CLI and the HTTP export write the same bytes.
pub fn write(out: &mut impl Write, t: &FlatTable, format: Format) -> std::io::Result<()> {
    match format {
        Format::Csv => write_separated(out, t, ',', csv_field),
        Format::Tsv => write_separated(out, t, '\t', tsv_field),
        Format::Json => write_json(out, t),
    }
}

fn write_json(out: &mut impl Write, t: &FlatTable) -> std::io::Result<()> {
    let names = headers(t);
    let rows: Vec<Value> = cells(t)
        .map(|row| {
            let m: Map<String, Value> = names
                .iter()
                .zip(row)
                .map(|(n, (c, ty))| (n.clone(), cell_json(c, ty)))
                .collect();
            Value::Object(m)
        })
        .collect();
    serde_json::to_writer_pretty(&mut *out, &rows)?;
    writeln!(out)
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// TSV has no quoting: a tab or line break inside a field becomes a space.
fn tsv_field(s: &str) -> String {
    s.replace(['\t', '\n', '\r'], " ")
}

/// The header row always, then one line per row.
fn write_separated(
    out: &mut impl Write,
    t: &FlatTable,
    sep: char,
    field: fn(&str) -> String,
) -> std::io::Result<()> {
    let sep = sep.to_string();
    let header: Vec<String> = headers(t).iter().map(|h| field(h)).collect();
    writeln!(out, "{}", header.join(&sep))?;
    for row in cells(t) {
        let line: Vec<String> = row.iter().map(|(c, ty)| field(&c.text(*ty))).collect();
        writeln!(out, "{}", line.join(&sep))?;
    }
    Ok(())
}
