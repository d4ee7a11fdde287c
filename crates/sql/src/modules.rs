//! `modules`: one row per distinct image (name, timestamp, size), with the
//! version resources and PDB identity the trace recorded.

use crate::lists::{text, ListDef};
use model::Trace;
use rusqlite::types::Value;

pub static MODULES: ListDef = ListDef {
    name: "modules",
    columns: &[
        ("module_id", "INTEGER"),
        ("name", "TEXT"),
        ("path", "TEXT"),
        ("size", "INTEGER"),
        ("timestamp", "INTEGER"),
        ("checksum", "INTEGER"),
        ("file_version", "TEXT"),
        ("product_name", "TEXT"),
        ("product_version", "TEXT"),
        ("company_name", "TEXT"),
        ("file_description", "TEXT"),
        ("original_file_name", "TEXT"),
        ("has_version_info", "INTEGER"),
        ("pdb_guid", "TEXT"),
        ("pdb_age", "INTEGER"),
        ("pdb_name", "TEXT"),
    ],
    rows: |t| t.modules.len(),
    cell: module_cell,
    keyed: true,
};

fn module_cell(t: &Trace, row: usize, col: usize) -> Value {
    let m = &t.modules;
    let s = |v: &Vec<model::strings::StrId>| v.get(row).map_or(Value::Null, |&id| text(t, id));
    let n = |v: Option<i64>| v.map_or(Value::Null, Value::Integer);
    match col {
        0 => Value::Integer(row as i64),
        1 => s(&m.name),
        2 => s(&m.path),
        3 => n(m.size.get(row).map(|&x| x.min(i64::MAX as u64) as i64)),
        4 => n(m.timestamp.get(row).map(|&x| i64::from(x))),
        5 => n(m.checksum.get(row).map(|&x| i64::from(x))),
        6 => s(&m.file_version),
        7 => s(&m.product_name),
        8 => s(&m.product_version),
        9 => s(&m.company_name),
        10 => s(&m.file_description),
        11 => s(&m.original_file_name),
        12 => n(m.has_version_info.get(row).map(|&b| i64::from(b))),
        13 => match m.pdb_guid.get(row) {
            Some(Some(g)) => Value::Text(g.to_string()),
            _ => Value::Null,
        },
        14 => n(m.pdb_age.get(row).map(|&x| i64::from(x))),
        15 => s(&m.pdb_name),
        _ => Value::Null,
    }
}
