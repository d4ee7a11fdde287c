//! `etlscope compare BASE NEW --table T --group ... [--values ...]
//! [--range-base S-E] [--range-new S-E] [--normalize none|time|samples]
//! [--format csv|json]`: the same grouped table on both traces, rows
//! matched by identity, with baseline, comparison, delta and delta % for
//! each numeric value column, largest loss first. CPU Usage (Sampled) by
//! thread and stack columns is matched by ids (query::compare::ids); the
//! rest groups each trace as `export::export` does and matches the texts
//! (query::compare).

use super::export::{self, ExportArgs};
use anyhow::Context;
use etl::EtlFile;
use model::Trace;
use query::compare::ids::{self as compare_ids, Side};
use query::compare::{self, CompareTable, Normalize};
use query::{Engine, TimeRange};
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

fn load(path: &Path, symbol_path: Option<&str>) -> anyhow::Result<Engine> {
    let file = EtlFile::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let mut trace = super::progress::build_model(&file);
    super::symbols::name_frames(&mut trace, &[path.to_path_buf()], symbol_path);
    Ok(Engine::new(std::sync::Arc::new(trace)))
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
        rows: false,
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

/// The comparison `a` asks for of two loaded traces.
pub fn compare_traces(eb: &Engine, en: &Engine, a: &CompareArgs) -> anyhow::Result<CompareTable> {
    Ok(compare_cut(eb, en, a, usize::MAX)?.table)
}

/// A comparison cut to its largest changes.
pub struct Cut {
    pub table: CompareTable,
    /// Rows before the cut.
    pub total: usize,
    pub omitted: usize,
}

fn time_range(r: Option<(f64, f64)>) -> Option<TimeRange> {
    r.map(|(a, b)| TimeRange {
        start_ns: model::time::s_to_ns(a),
        end_ns: model::time::s_to_ns(b),
    })
}

/// The comparison `a` asks for, at most `limit` rows (the largest
/// changes, `compare::keep_largest_changes`); the CLI and `POST
/// /api/compare` (api::compare) both call it, so they print the same rows.
pub fn compare_cut(eb: &Engine, en: &Engine, a: &CompareArgs, limit: usize) -> anyhow::Result<Cut> {
    let factor = normalize(eb.trace(), en.trace(), a)?.factor();
    let side = |engine, range| Side {
        engine,
        range: time_range(range),
    };
    let by_ids = compare_ids::compare(
        side(eb, a.range_base),
        side(en, a.range_new),
        &a.table,
        &a.group,
        a.values.as_deref(),
        factor,
    );
    if let Some(c) = by_ids {
        let total = c.len();
        let (table, omitted) = c.into_table(limit);
        return Ok(Cut {
            table,
            total,
            omitted,
        });
    }
    let fb = export::export(eb.trace(), &args(a, a.range_base, a.group.clone()))?;
    let fnew = export::export(en.trace(), &args(a, a.range_new, a.group.clone()))?;
    let mut table = compare::compare(&fb, &fnew, factor);
    let total = table.rows.len();
    let omitted = compare::keep_largest_changes(&mut table.rows, limit, |r| r.delta(0));
    Ok(Cut {
        table,
        total,
        omitted,
    })
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
