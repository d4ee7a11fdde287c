//! What the memory and network rules share: one value of a table summed
//! per process (the rows `filter` keeps), as `etlscope export --group
//! Process --values VALUE [--filter COL=TEXT]` prints it.

use crate::table::flat::{self, FlatRequest};
use crate::{CellValue, TableDef, ValueSpec};

/// (process text, value) of each process whose value is at least `min`,
/// largest first, at most `top`.
pub(crate) fn at_least(
    t: &model::Trace,
    table: &str,
    value: &str,
    filter: Option<(&str, &str)>,
    min: i64,
    top: usize,
) -> Vec<(String, i64)> {
    let Some(def) = TableDef::of(t, table) else {
        return Vec::new();
    };
    if def.rows == 0 {
        return Vec::new();
    }
    let (Some(process), Ok(spec)) = (def.column("Process"), ValueSpec::parse(&def, value)) else {
        return Vec::new();
    };
    let mut filters = Vec::new();
    if let Some((col, text)) = filter {
        let Some(c) = def.column(col) else {
            return Vec::new();
        };
        filters.push((c, text.to_string()));
    }
    let req = FlatRequest {
        keys: vec![process],
        values: vec![spec],
        filters,
        ..Default::default()
    };
    let Ok(table) = flat::group(t, &def, &req) else {
        return Vec::new();
    };
    let mut out: Vec<(String, i64)> = table
        .rows
        .iter()
        .filter_map(|r| match (r.keys.first(), r.values.first()) {
            (Some(CellValue::Text(p)), Some(CellValue::Number(v))) if *v >= min => {
                Some((p.clone(), *v))
            }
            (Some(CellValue::Text(p)), Some(&CellValue::Count(n))) if n as i64 >= min => {
                Some((p.clone(), n as i64))
            }
            _ => None,
        })
        .collect();
    out.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    out.truncate(top);
    out
}
