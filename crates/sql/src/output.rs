//! An answer as CSV, TSV or JSON; the CLI and the HTTP API write the same.

use crate::run::Answer;
use rusqlite::types::Value;
use serde_json::json;
use std::io::Write;

/// A cell's text in CSV and TSV (NULL empty, reals as Rust prints them).
fn text(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::Integer(i) => i.to_string(),
        Value::Real(r) => r.to_string(),
        Value::Text(s) => s.clone(),
        Value::Blob(b) => b.iter().map(|x| format!("{x:02x}")).collect(),
    }
}

pub fn cell_json(v: &Value) -> serde_json::Value {
    match v {
        Value::Null => serde_json::Value::Null,
        Value::Integer(i) => json!(i),
        // NaN and infinities have no JSON: null.
        Value::Real(r) => {
            serde_json::Number::from_f64(*r).map_or(serde_json::Value::Null, Into::into)
        }
        Value::Text(s) => json!(s),
        Value::Blob(_) => json!(text(v)),
    }
}

/// `{"columns": [...], "rows": [[...], ...], "truncated": bool}`.
pub fn json(a: &Answer) -> serde_json::Value {
    let rows: Vec<serde_json::Value> = a
        .rows
        .iter()
        .map(|r| serde_json::Value::Array(r.iter().map(cell_json).collect()))
        .collect();
    json!({"columns": a.columns, "rows": rows, "truncated": a.truncated})
}

/// The header row, then one line per row; CSV quotes as RFC 4180, TSV
/// turns tabs and line breaks inside a field into spaces.
pub fn separated(out: &mut impl Write, a: &Answer, sep: char) -> std::io::Result<()> {
    let field = |s: &str| -> String {
        if sep == '\t' {
            s.replace(['\t', '\n', '\r'], " ")
        } else if s.contains([',', '"', '\n', '\r']) {
            format!("\"{}\"", s.replace('"', "\"\""))
        } else {
            s.to_string()
        }
    };
    let sep = sep.to_string();
    let header: Vec<String> = a.columns.iter().map(|c| field(c)).collect();
    writeln!(out, "{}", header.join(&sep))?;
    for row in &a.rows {
        let line: Vec<String> = row.iter().map(|v| field(&text(v))).collect();
        writeln!(out, "{}", line.join(&sep))?;
    }
    Ok(())
}
