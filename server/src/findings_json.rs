//! Findings as JSON: the CLI's `findings --format json` and the HTTP API's
//! `/api/traces/{id}/findings` give exactly this.

use query::findings::{Finding, ViewKind};
use serde_json::{json, Value};

/// The findings as the CLI's `--format json` and the HTTP API give them.
pub fn findings_json(list: &[Finding]) -> Value {
    Value::Array(list.iter().map(finding_json).collect())
}

fn finding_json(f: &Finding) -> Value {
    let v = &f.view;
    let kind = match v.kind {
        ViewKind::Table => "table",
        ViewKind::Butterfly => "butterfly",
        ViewKind::Info => "info",
        ViewKind::Symbols => "symbols",
        ViewKind::Model => "model",
    };
    json!({
        "rule": f.rule,
        "category": f.category.name(),
        "title": f.title,
        "figure": f.figure,
        "unit": f.unit,
        "view": {
            "kind": kind,
            "link": v.link(),
            "table": v.table,
            "group": v.group,
            "values": v.values,
            "filters": v.filters.iter().map(|(c, x)| json!({"column": c, "value": x})).collect::<Vec<_>>(),
            "excludes": v.excludes.iter().map(|(c, x)| json!({"column": c, "value": x})).collect::<Vec<_>>(),
            "row": v.row,
            "column": v.column,
            "target": v.target,
            "export": v.export_args(),
        },
    })
}
