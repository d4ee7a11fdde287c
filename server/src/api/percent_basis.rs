//! What a table's `% Weight` is a share of, said in every `/table`
//! response (`percent_of`), so no percentage silently changes its basis:
//! CPU Usage (Sampled) takes the CPU time the range offers (range x CPUs,
//! as WPA); a row table the summed weight column of the rows the filters
//! keep, or their count when it has no weight or none was recorded (File
//! I/O without completions), and then says "% Count".

use query::{RowTable, TableResponse};
use serde_json::{json, Value};

/// CPU Usage (Sampled): `capacity_ns` is the range's span times `cpus`.
pub fn sampled(capacity_ns: f64, cpus: u32) -> Value {
    let span_s = capacity_ns / 1e9 / f64::from(cpus.max(1));
    json!({
        "basis": "cpu_capacity",
        "label": "% Weight",
        "base": capacity_ns / 1e6,
        "unit": "ms",
        "description": format!(
            "share of the CPU time the selected range offers: {span_s:.3} s x {} CPUs = {:.0} ms",
            cpus.max(1),
            capacity_ns / 1e6
        ),
    })
}

/// A row table's basis: its weight column while the rows have weight, else their count.
pub fn row_table(table: &RowTable, r: &TableResponse) -> Value {
    match table.weight_name {
        Some(w) if r.total.weight_ns != 0 => {
            let name = w.strip_suffix(" (ms)").unwrap_or(w);
            json!({
                "basis": "weight",
                "column": name,
                "label": format!("% {name}"),
                "base": r.total.weight_ns as f64 / 1e6,
                "unit": "ms",
                "description": format!("share of the {name} summed over every row the filters keep"),
            })
        }
        w => json!({
            "basis": "count",
            "label": "% Count",
            "base": r.total.count,
            "unit": "rows",
            "description": match w {
                Some(w) => format!(
                    "share of the rows the filters keep: no row has a {} (none recorded)",
                    w.strip_suffix(" (ms)").unwrap_or(w)
                ),
                None => "share of the rows the filters keep (the table has no weight)".to_string(),
            },
        }),
    }
}
