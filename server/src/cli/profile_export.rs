//! `etlscope export TRACE --profile FILE.wpaProfile --outdir DIR`: what
//! `wpaexporter -i TRACE -profile FILE -outputfolder DIR` writes, so that
//! scripts made for wpaexporter run against etlscope:
//!
//! - one CSV per preset under the profile's Views, named
//!   `<WPA table title>_<preset name>.csv` with spaces as `_` (Microsoft's
//!   wpaexporter page: "the output file names are generated from the table
//!   and preset names"; UIforETW's bin/CPUByCommandLine.py and
//!   LabScripts/GeneralTracing/SummarizeData.py read
//!   `CPU_Usage_(Precise)_Randomascii_CPU_Summary_by_Process.csv` and
//!   `Processes_ProcessCommandLines.csv`, bin/xperf_to_collapsedstacks.py
//!   `CPU_Usage_(Sampled)_Randomascii_Export.csv`);
//! - a header line of the preset's shown columns in its order, keys then
//!   values, each named as WPA names it with its unit (UIforETW's
//!   IdentifyChromeProcesses.py: `New Process,Count,CPU Usage (in view) (ms)`
//!   then `Idle (0),7237,"26,420.482528"`), durations in the unit WPA shows
//!   (ms unless the preset's CellFormat or WPA says otherwise), times in s,
//!   stacks root first with `/` between frames (xperf_to_collapsedstacks.py
//!   splits them on `/`). Numbers carry no thousands separators (the
//!   scripts strip them, so they read ours unchanged).
//! - a preset without key columns lists every row (one line per sample...).
//!
//! Presets of tables etlscope does not have are skipped, one stderr line
//! each; what does not map is summed up per preset on stderr, in full in
//! `DIR/etlscope-profile.txt`.

use super::export::{self, ExportArgs, Format};
use crate::wpa_profile;
use anyhow::Context;
use model::Trace;
use query::table::flat::FlatTable;
use query::{CellValue, ColumnType};
use std::io::Write;
use std::path::{Path, PathBuf};
use wpaprofile::map::{Kind, MappedColumn, MappedPreset};

pub struct ProfileArgs<'a> {
    pub profile: &'a Path,
    pub outdir: &'a Path,
    pub range: Option<(f64, f64)>,
    pub symbol_path: Option<&'a str>,
    pub stack_tags: Option<std::sync::Arc<query::stack_tags::StackTags>>,
}

/// The profile's mapped presets; errors name the file (and line).
pub fn read_profile(path: &Path) -> anyhow::Result<Vec<MappedPreset>> {
    let size = std::fs::metadata(path)
        .with_context(|| format!("cannot read {}", path.display()))?
        .len();
    if size > wpa_profile::MAX_BYTES as u64 {
        anyhow::bail!(
            "{}: {size} bytes, more than a profile's {} ",
            path.display(),
            wpa_profile::MAX_BYTES
        );
    }
    let bytes = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let xml = String::from_utf8(bytes)
        .map_err(|_| anyhow::anyhow!("{}: not UTF-8 text", path.display()))?;
    let (_, mapped) = wpa_profile::read(&xml).map_err(|e| match e.line {
        0 => anyhow::anyhow!("{}: {}", path.display(), e.message),
        n => anyhow::anyhow!("{}:{n}: {}", path.display(), e.message),
    })?;
    Ok(mapped)
}

pub fn run(paths: &[PathBuf], companions: bool, args: ProfileArgs<'_>) -> anyhow::Result<()> {
    // The profile first: a bad one fails before the trace is read.
    let presets = read_profile(args.profile)?;
    std::fs::create_dir_all(args.outdir)
        .with_context(|| format!("cannot create {}", args.outdir.display()))?;
    let opened = super::files::open(paths, companions)?;
    let mut trace = super::progress::build_model(&opened.file);
    drop(opened.file);
    super::symbols::name_frames(&mut trace, &opened.files, args.symbol_path);
    let mut details = String::new();
    let mut written: Vec<String> = Vec::new();
    for p in &presets {
        say!(details, "{}", p.summary());
        for u in &p.unmapped {
            say!(details, "  not mapped: {u}");
        }
        for n in &p.notes {
            say!(details, "  approximate: {n}");
        }
        let Some(table) = p.table else {
            eprintln!("{}", p.summary());
            continue;
        };
        if written.contains(&p.file_name) {
            eprintln!(
                "skipped {:?}: {} was written for an earlier preset",
                p.name, p.file_name
            );
            continue;
        }
        let (out, filter_note) = preset_table(&trace, table, p, &args)
            .with_context(|| format!("preset {:?} (line {})", p.name, p.line))?;
        if let Some(n) = &filter_note {
            say!(details, "  not applied: {n}");
        }
        let path = args.outdir.join(&p.file_name);
        let mut f = std::io::BufWriter::new(
            std::fs::File::create(&path)
                .with_context(|| format!("cannot write {}", path.display()))?,
        );
        write_csv(&mut f, p, &out)?;
        f.flush()?;
        let missing = p.unmapped.len() + usize::from(filter_note.is_some());
        eprintln!(
            "wrote {} ({} rows){}",
            path.display(),
            out.len(),
            match missing {
                0 => String::new(),
                1 => "; 1 item not mapped".to_string(),
                n => format!("; {n} items not mapped"),
            }
        );
        written.push(p.file_name.clone());
    }
    let notes = args.outdir.join("etlscope-profile.txt");
    std::fs::write(&notes, details).with_context(|| format!("cannot write {}", notes.display()))?;
    eprintln!("what did not map, per preset: {}", notes.display());
    Ok(())
}

/// One output cell: our cell and its column type.
type Row = Vec<(CellValue, ColumnType)>;

/// The preset's rows, its columns in the preset's order (keys, values); and
/// the filter when it could not be applied.
fn preset_table(
    trace: &Trace,
    table: &'static str,
    p: &MappedPreset,
    args: &ProfileArgs<'_>,
) -> anyhow::Result<(Vec<Row>, Option<String>)> {
    // A keep filter on one value is the export's own; any other filter
    // removes rows afterwards, by a column the output has.
    let (filters, post) = match &p.filter {
        Some(f) if !f.exclude && f.values.len() == 1 => {
            (vec![(f.column.clone(), f.values[0].clone())], None)
        }
        f => (Vec::new(), f.as_ref()),
    };
    let sort = p
        .sort
        .as_ref()
        .filter(|_| !p.rows)
        .map(|(c, d)| format!("{c}:{}", if *d { "desc" } else { "asc" }));
    let column_names: Vec<String> = p.values.iter().map(|v| v.ours.clone()).collect();
    let a = ExportArgs {
        table,
        group: p.keys.iter().map(|k| k.ours.clone()).collect(),
        values: Some(if p.rows {
            // Names the listed columns, so Stack Tag columns are made.
            column_names
                .iter()
                .filter(|c| c.as_str() != "Count")
                .cloned()
                .collect()
        } else {
            column_names
        }),
        sort: sort.as_deref(),
        limit: 0,
        range: args.range,
        filters,
        format: Format::Csv,
        symbol_path: args.symbol_path,
        stack_tags: args.stack_tags.clone(),
        rows: p.rows,
    };
    let t = export::export(trace, &a)?;
    let mut rows = if p.rows { listed(&t, p) } else { grouped(&t) };
    let mut note = None;
    if let Some(f) = post {
        // The filter's column among the output's, else not applied.
        let at = if p.rows {
            t.key_names
                .iter()
                .position(|n| *n == f.column)
                .map(|i| (i, true))
        } else {
            p.keys
                .iter()
                .position(|k| k.ours == f.column)
                .map(|i| (i, false))
        };
        match at {
            Some((i, whole)) => {
                let source = if whole { full_rows(&t) } else { Vec::new() };
                let keep = |k: usize, r: &Row| {
                    let cell = if whole { &source[k][i] } else { &r[i] };
                    f.values.contains(&cell.0.text(cell.1)) != f.exclude
                };
                let mut k = 0;
                rows.retain(|r| {
                    let ok = keep(k, r);
                    k += 1;
                    ok
                });
            }
            None => {
                note = Some(format!(
                    "filter on {} (not a key column of this preset)",
                    f.column
                ))
            }
        }
    }
    Ok((rows, note))
}

/// Grouped: keys then values, as the export made them.
fn grouped(t: &FlatTable) -> Vec<Row> {
    t.rows
        .iter()
        .map(|r| {
            let k = r.keys.iter().cloned().zip(t.key_types.iter().copied());
            k.chain(r.values.iter().cloned().zip(t.value_types.iter().copied()))
                .collect()
        })
        .collect()
}

/// Every column of each listed row.
fn full_rows(t: &FlatTable) -> Vec<Row> {
    t.rows
        .iter()
        .map(|r| {
            r.keys
                .iter()
                .cloned()
                .zip(t.key_types.iter().copied())
                .collect()
        })
        .collect()
}

/// Listed rows: the preset's columns picked from every column (Count is 1).
fn listed(t: &FlatTable, p: &MappedPreset) -> Vec<Row> {
    let at: Vec<Option<usize>> = p
        .values
        .iter()
        .map(|v| t.key_names.iter().position(|n| *n == v.ours))
        .collect();
    t.rows
        .iter()
        .map(|r| {
            at.iter()
                .map(|i| match i {
                    Some(i) => (
                        r.keys.get(*i).cloned().unwrap_or(CellValue::Empty),
                        t.key_types.get(*i).copied().unwrap_or(ColumnType::Text),
                    ),
                    None => (CellValue::Count(1), ColumnType::Count),
                })
                .collect()
        })
        .collect()
}

fn write_csv(out: &mut impl Write, p: &MappedPreset, rows: &[Row]) -> std::io::Result<()> {
    let columns: Vec<&MappedColumn> = p.keys.iter().chain(p.values.iter()).collect();
    let header: Vec<String> = columns.iter().map(|c| field(&c.header)).collect();
    writeln!(out, "{}", header.join(","))?;
    for r in rows {
        let line: Vec<String> = r
            .iter()
            .zip(&columns)
            .map(|((cell, ty), c)| field(&cell_text(cell, *ty, c)))
            .collect();
        writeln!(out, "{}", line.join(","))?;
    }
    Ok(())
}

/// A cell in WPA's unit for its column.
fn cell_text(cell: &CellValue, ty: ColumnType, c: &MappedColumn) -> String {
    let scaled = |ns: f64| {
        // ms: 6 decimals, µs: 3, s: 9 (nanosecond precision, as WPA shows).
        let decimals = (c.ns_per_unit.log10().round() as usize).min(9);
        format!("{:.*}", decimals, ns / c.ns_per_unit)
    };
    match cell {
        CellValue::Number(v) if ty.is_nanoseconds() && c.ns_per_unit > 0.0 => scaled(*v as f64),
        CellValue::Float(v) if ty.is_nanoseconds() && c.ns_per_unit > 0.0 => scaled(*v),
        CellValue::Plain(x) | CellValue::Float(x) if c.decimals.is_some() => {
            format!("{:.*}", c.decimals.unwrap_or(2), x)
        }
        CellValue::Text(s) if c.kind == Kind::Stack || ty == ColumnType::Stack => {
            s.replace(';', "/")
        }
        other => other.text(ty),
    }
}

fn field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}
