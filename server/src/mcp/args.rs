//! Arguments several tools share (a time range, filters, a sort), described
//! for an agent, and written into the API's request shape.

use rmcp::schemars::{self, JsonSchema};
use serde::Deserialize;
use serde_json::{json, Value};

#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct RangeArg {
    /// Seconds from the trace's start.
    pub start_s: f64,
    /// Seconds from the trace's start; after start_s.
    pub end_s: f64,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct FilterArg {
    /// A key column of the table, e.g. "Process", "Module", "Type", "Process Name".
    pub column: String,
    /// Row labels (e.g. "explorer.exe (6148)", "Create") or stable ids ("pid:6148@0").
    pub values: Vec<String>,
    /// Leave these rows out instead of keeping only them.
    #[serde(default)]
    pub exclude: bool,
    /// cpu-sampled only: keep the samples whose stack contains the function
    /// (column Function) or any frame of the module (column Module), anywhere on the stack.
    #[serde(default)]
    pub contains: bool,
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct SortArg {
    /// count, weight, percent, first, last, label, or a value column's name
    /// (e.g. "File Version", "Duration:max"). Default: weight.
    pub by: String,
    /// Largest first (default true).
    #[serde(default = "yes")]
    pub descending: bool,
}

fn yes() -> bool {
    true
}

pub fn range_json(r: &Option<RangeArg>) -> Value {
    match r {
        Some(r) => json!({"start_s": r.start_s, "end_s": r.end_s}),
        None => Value::Null,
    }
}

pub fn filters_json(fs: &[FilterArg]) -> Value {
    fs.iter()
        .map(|f| {
            json!({"column": f.column, "values": f.values, "exclude": f.exclude, "contains": f.contains})
        })
        .collect()
}

pub fn sort_json(s: &Option<SortArg>) -> Value {
    match s {
        Some(s) => json!({"by": s.by, "descending": s.descending}),
        None => json!({}),
    }
}
