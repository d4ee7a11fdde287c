//! `etlscope export FILE --table T [--group COL,...] [--range S-E] [--filter COL=V]... [--format csv|json] [--symbol-path P]`:
//! a table grouped by the given columns with Count and Weight (ms), like
//! wpaexporter. Grouping here is the simple row-at-a-time kind; the query
//! engine takes over behind the same interface.

use anyhow::{bail, Context};
use etl::EtlFile;
use model::Trace;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

use super::tables::table_by_name;

pub struct ExportArgs<'a> {
    pub table: &'a str,
    pub group: Vec<String>,
    pub range: Option<(f64, f64)>,
    pub filters: Vec<(String, String)>,
    pub json: bool,
    /// Extra symbol path for naming frames (see `super::symbols`).
    pub symbol_path: Option<&'a str>,
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

pub fn run(path: &Path, args: ExportArgs<'_>) -> anyhow::Result<()> {
    let file = EtlFile::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let mut trace = model::build(&file);
    super::symbols::name_frames(&mut trace, path, args.symbol_path);
    let rows = export(&trace, &args)?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    if args.json {
        serde_json::to_writer_pretty(&mut out, &rows)?;
        writeln!(out)?;
    } else {
        write_csv(&mut out, &rows)?;
    }
    out.flush()?;
    Ok(())
}

/// Rows as JSON objects whose keys are column names.
pub fn export(trace: &Trace, args: &ExportArgs<'_>) -> anyhow::Result<Vec<Map<String, Value>>> {
    let table = table_by_name(trace, args.table)?;
    let cols = table.columns();
    let group: Vec<usize> = args
        .group
        .iter()
        .map(|g| column_index(&cols, g))
        .collect::<anyhow::Result<_>>()?;
    let filters: Vec<(usize, &str)> = args
        .filters
        .iter()
        .map(|(c, v)| Ok((column_index(&cols, c)?, v.as_str())))
        .collect::<anyhow::Result<_>>()?;
    let range_ns = args
        .range
        .map(|(a, b)| (model::time::s_to_ns(a), model::time::s_to_ns(b)));
    let keep = |row: usize| -> bool {
        if let Some((a, b)) = range_ns {
            match table.time(row) {
                Some(t) if t >= a && t < b => {}
                Some(_) => return false,
                None => {}
            }
        }
        filters.iter().all(|&(c, v)| table.value(row, c) == v)
    };
    let mut out = Vec::new();
    if group.is_empty() && !table.has_weight() {
        // Plain listing of rows.
        for row in (0..table.len()).filter(|&r| keep(r)) {
            let mut m = Map::new();
            for (c, name) in cols.iter().enumerate() {
                m.insert(name.to_string(), Value::String(table.value(row, c)));
            }
            out.push(m);
        }
        return Ok(out);
    }
    let mut groups: HashMap<Vec<String>, (u64, i64)> = HashMap::new();
    let mut order: Vec<Vec<String>> = Vec::new();
    for row in (0..table.len()).filter(|&r| keep(r)) {
        let key: Vec<String> = group.iter().map(|&c| table.value(row, c)).collect();
        let e = groups.entry(key.clone()).or_insert_with(|| {
            order.push(key);
            (0, 0)
        });
        e.0 += 1;
        e.1 += table.weight_ns(row);
    }
    order.sort_by(|a, b| {
        let (ca, wa) = groups[a];
        let (cb, wb) = groups[b];
        (wb, cb).cmp(&(wa, ca)).then_with(|| a.cmp(b))
    });
    for key in order {
        let (count, weight) = groups[&key];
        let mut m = Map::new();
        for (i, &c) in group.iter().enumerate() {
            m.insert(cols[c].to_string(), Value::String(key[i].clone()));
        }
        m.insert("Count".into(), Value::from(count));
        if table.has_weight() {
            m.insert("Weight (ms)".into(), Value::from(weight as f64 / 1e6));
        }
        out.push(m);
    }
    Ok(out)
}

fn column_index(cols: &[&str], name: &str) -> anyhow::Result<usize> {
    let norm = |s: &str| s.to_ascii_lowercase().replace([' ', '_', '-'], "");
    cols.iter()
        .position(|c| norm(c) == norm(name))
        .with_context(|| format!("unknown column {name:?}; columns are: {}", cols.join(", ")))
}

fn write_csv(out: &mut impl Write, rows: &[Map<String, Value>]) -> std::io::Result<()> {
    let Some(first) = rows.first() else {
        return Ok(());
    };
    let header: Vec<&String> = first.keys().collect();
    let esc = |s: &str| {
        if s.contains([',', '"', '\n']) {
            format!("\"{}\"", s.replace('"', "\"\""))
        } else {
            s.to_string()
        }
    };
    writeln!(
        out,
        "{}",
        header.iter().map(|h| esc(h)).collect::<Vec<_>>().join(",")
    )?;
    for r in rows {
        let line: Vec<String> = header
            .iter()
            .map(|h| match &r[h.as_str()] {
                Value::String(s) => esc(s),
                v => v.to_string(),
            })
            .collect();
        writeln!(out, "{}", line.join(","))?;
    }
    Ok(())
}
