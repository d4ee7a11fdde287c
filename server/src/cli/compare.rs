//! `etlscope compare BASE NEW --table T --group ... [--values ...]
//! [--range-base S-E] [--range-new S-E] [--normalize none|time|samples]
//! [--format csv|json]`: the same grouped table on both traces
//! (`export::export`), rows matched by identity (query::compare), with
//! baseline, comparison, delta and delta % for each numeric value column,
//! largest loss first.

use super::export::{self, ExportArgs};
use anyhow::Context;
use etl::EtlFile;
use model::Trace;
use query::compare::{self, CompareTable, Normalize};
use serde_json::{Map, Value};
use std::io::Write;
use std::path::Path;

pub struct CompareArgs {
    pub table: String,
    pub group: Vec<String>,
    pub values: Option<Vec<String>>,
    pub range_base: Option<(f64, f64)>,
    pub range_new: Option<(f64, f64)>,
    pub normalize: String,
    pub json: bool,
    pub symbol_path: Option<String>,
}

fn load(path: &Path, symbol_path: Option<&str>) -> anyhow::Result<Trace> {
    let file = EtlFile::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let mut trace = super::progress::build_model(&file);
    super::symbols::name_frames(&mut trace, &[path.to_path_buf()], symbol_path);
    Ok(trace)
}

fn args<'a>(a: &'a CompareArgs, range: Option<(f64, f64)>, group: Vec<String>) -> ExportArgs<'a> {
    ExportArgs {
        table: &a.table,
        group,
        values: a.values.clone(),
        sort: None,
        limit: 0,
        range,
        filters: Vec::new(),
        format: export::Format::Csv,
        symbol_path: a.symbol_path.as_deref(),
        stack_tags: None,
    }
}

/// Rows of the table in the range (the table's Count, ungrouped).
fn total_rows(t: &Trace, a: &CompareArgs, range: Option<(f64, f64)>) -> anyhow::Result<u64> {
    let mut e = args(a, range, Vec::new());
    e.values = Some(vec!["Count".into()]);
    let table = export::export(t, &e)?;
    let n = table
        .rows
        .first()
        .and_then(|r| r.values.first())
        .and_then(|v| v.number(query::ColumnType::Count))
        .unwrap_or(0.0);
    Ok(n as u64)
}

fn seconds(t: &Trace, range: Option<(f64, f64)>) -> f64 {
    range.map_or(t.info.duration_ns as f64 / 1e9, |(a, b)| b - a)
}

/// The comparison `a` asks for of two loaded traces; the CLI and
/// `POST /api/compare` (api::compare) both call it, so they print the same rows.
pub fn compare_traces(tb: &Trace, tn: &Trace, a: &CompareArgs) -> anyhow::Result<CompareTable> {
    let fb = export::export(tb, &args(a, a.range_base, a.group.clone()))?;
    let fnew = export::export(tn, &args(a, a.range_new, a.group.clone()))?;
    let factor = normalize(tb, tn, a)?.factor();
    Ok(compare::compare(&fb, &fnew, factor))
}

/// The baseline's scale factor that `a.normalize` (none, time, samples) asks for.
pub fn normalize(tb: &Trace, tn: &Trace, a: &CompareArgs) -> anyhow::Result<Normalize> {
    Ok(match a.normalize.as_str() {
        "time" => Normalize::Time {
            base_s: seconds(tb, a.range_base),
            new_s: seconds(tn, a.range_new),
        },
        "samples" => Normalize::Samples {
            base: total_rows(tb, a, a.range_base)?,
            new: total_rows(tn, a, a.range_new)?,
        },
        "none" | "" => Normalize::None,
        other => anyhow::bail!("unknown normalisation {other:?}: none, time or samples"),
    })
}

pub fn run(base: &Path, new: &Path, a: CompareArgs) -> anyhow::Result<()> {
    let (tb, tn) = (
        load(base, a.symbol_path.as_deref())?,
        load(new, a.symbol_path.as_deref())?,
    );
    let table = compare_traces(&tb, &tn, &a)?;
    let mut out = Vec::new();
    if a.json {
        write_json(&mut out, &table)?;
    } else {
        write_csv(&mut out, &table)?;
    }
    let stdout = std::io::stdout();
    let mut w = stdout.lock();
    match w.write_all(&out).and_then(|()| w.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        r => Ok(r?),
    }
}

fn headers(t: &CompareTable) -> Vec<String> {
    let mut h: Vec<String> = t.key_names.iter().map(|s| s.to_string()).collect();
    for v in &t.value_names {
        for side in ["baseline", "comparison", "delta", "delta %"] {
            h.push(format!("{v} ({side})"));
        }
    }
    h
}

fn cells(t: &CompareTable, r: &compare::CompareRow) -> Vec<Value> {
    // Whole numbers (counts, bytes) print as integers, as export prints them.
    let num = |x: f64| {
        if x.fract() == 0.0 && x.abs() < 9.0e15 {
            Value::from(x as i64)
        } else {
            serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number)
        }
    };
    let mut c: Vec<Value> = r.keys.iter().map(|k| Value::String(k.clone())).collect();
    for i in 0..t.value_names.len() {
        let (b, n) = r.values.get(i).copied().unwrap_or((0.0, 0.0));
        c.extend([num(b), num(n), num(r.delta(i))]);
        c.push(r.delta_percent(i).map_or(Value::Null, num));
    }
    c
}

fn write_json(out: &mut impl Write, t: &CompareTable) -> anyhow::Result<()> {
    let names = headers(t);
    let rows: Vec<Value> = t
        .rows
        .iter()
        .map(|r| {
            Value::Object(
                names
                    .iter()
                    .cloned()
                    .zip(cells(t, r))
                    .collect::<Map<_, _>>(),
            )
        })
        .collect();
    serde_json::to_writer_pretty(&mut *out, &rows)?;
    writeln!(out)?;
    Ok(())
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn write_csv(out: &mut impl Write, t: &CompareTable) -> anyhow::Result<()> {
    let h: Vec<String> = headers(t).iter().map(|s| csv_field(s)).collect();
    writeln!(out, "{}", h.join(","))?;
    for r in &t.rows {
        let line: Vec<String> = cells(t, r)
            .iter()
            .map(|v| match v {
                Value::String(s) => csv_field(s),
                Value::Null => String::new(),
                v => v.to_string(),
            })
            .collect();
        writeln!(out, "{}", line.join(","))?;
    }
    Ok(())
}
