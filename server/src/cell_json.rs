//! Table cells as JSON, the same for `etlscope export` and the HTTP API:
//! numbers as JSON numbers in base units (seconds from trace start,
//! seconds, bytes, counts; integers exact), texts and hex addresses as
//! strings, an empty number as null.

use query::{CellValue, ColumnDef, ColumnType};
use serde_json::{json, Value};

pub fn cell_json(c: &CellValue, ty: ColumnType) -> Value {
    if let Some(i) = c.integer(ty) {
        return Value::from(i);
    }
    if let Some(x) = c.number(ty) {
        return serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number);
    }
    match c {
        CellValue::Empty if ty.is_numeric() && ty != ColumnType::Address => Value::Null,
        _ => Value::String(c.text(ty)),
    }
}

/// A column definition as `/columns` lists it, with the aggregations it
/// takes (the UI's menus offer those and no others).
pub fn column_json(d: &ColumnDef) -> Value {
    json!({
        "name": d.name,
        "aliases": d.aliases,
        "type": d.ty.name(),
        "unit": d.ty.unit(),
        "aggregation": d.aggregation.name(),
        "aggregations": d.accepted_names(),
    })
}
