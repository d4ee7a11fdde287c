//! Tables that are not WPA tables: the stacks' prefix tree and its frames
//! (`stacks`), the modules (`modules`), the trace's summary (`trace_info`).
//! Each is a list of rows read by one function per cell; the first column
//! of a keyed list is the row number, and `id = ?` on it reads one row.

use model::Trace;
use rusqlite::types::Value;

pub struct ListDef {
    pub name: &'static str,
    /// (SQL name, SQL type).
    pub columns: &'static [(&'static str, &'static str)],
    pub rows: fn(&Trace) -> usize,
    /// The cell of (row, column).
    pub cell: fn(&Trace, usize, usize) -> Value,
    /// Column 0 is the row number (equality on it is pushed down).
    pub keyed: bool,
}

pub const LISTS: [&ListDef; 4] = [
    &crate::stacks::STACKS,
    &crate::stacks::FRAMES,
    &crate::modules::MODULES,
    &crate::trace_info::TRACE_INFO,
];

/// A string of the trace's string table.
pub(crate) fn text(t: &Trace, id: model::strings::StrId) -> Value {
    Value::Text(t.strings.get(id).to_string())
}

/// A row number of another table, NULL for `model::NONE`.
pub(crate) fn row_ref(id: u32) -> Value {
    if id == model::NONE {
        Value::Null
    } else {
        Value::Integer(i64::from(id))
    }
}

/// An unsigned number as SQLite's signed 64-bit integer (addresses above
/// 2^63, kernel space, read as negative: `printf('%x', address)` prints them
/// right).
pub(crate) fn unsigned(v: u64) -> Value {
    Value::Integer(v as i64)
}
