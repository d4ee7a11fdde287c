//! `stacks` and `frames`: the model's stacks as a prefix tree (each row a
//! frame called from its parent row, so every prefix of a stack is a stack)
//! and the code locations they name. A table's `stack` column holds a
//! `stack_id` of the leaf; `stack_contains` (functions.rs) tests a whole
//! stack without walking it in SQL.

use crate::lists::{row_ref, text, unsigned, ListDef};
use model::{Trace, NONE};
use rusqlite::types::Value;

pub static STACKS: ListDef = ListDef {
    name: "stacks",
    columns: &[
        ("stack_id", "INTEGER"),
        ("parent_id", "INTEGER"),
        ("frame_id", "INTEGER"),
        ("depth", "INTEGER"),
    ],
    rows: |t| t.stacks.len(),
    cell: stack_cell,
    keyed: true,
};

fn stack_cell(t: &Trace, row: usize, col: usize) -> Value {
    let s = &t.stacks;
    match col {
        0 => Value::Integer(row as i64),
        1 => row_ref(s.parent.get(row).copied().unwrap_or(NONE)),
        2 => row_ref(s.frame.get(row).copied().unwrap_or(NONE)),
        3 => Value::Integer(s.depth.get(row).map_or(0, |&d| i64::from(d))),
        _ => Value::Null,
    }
}

pub static FRAMES: ListDef = ListDef {
    name: "frames",
    columns: &[
        ("frame_id", "INTEGER"),
        ("label", "TEXT"),
        ("module", "TEXT"),
        ("function", "TEXT"),
        ("module_id", "INTEGER"),
        ("address", "INTEGER"),
        ("pid", "INTEGER"),
    ],
    rows: |t| t.frames.len(),
    cell: frame_cell,
    keyed: true,
};

fn frame_cell(t: &Trace, row: usize, col: usize) -> Value {
    let f = &t.frames;
    let module = f.module.get(row).copied().unwrap_or(NONE);
    let func = f.func.get(row).copied().unwrap_or(NONE);
    match col {
        0 => Value::Integer(row as i64),
        // `module!function` (or `module!0xRVA` before symbols), as the UI shows it.
        1 => Value::Text(t.frame_label(row as u32)),
        2 => match t.modules.name.get(module as usize) {
            Some(&n) => text(t, n),
            None => Value::Null,
        },
        3 => match t.funcs.name.get(func as usize) {
            Some(&n) => text(t, n),
            None => Value::Null,
        },
        4 => row_ref(module),
        // The RVA inside the module, the raw address outside every module.
        5 => f.address.get(row).map_or(Value::Null, |&a| unsigned(a)),
        6 => match f.process.get(row).copied().unwrap_or(NONE) {
            NONE => Value::Null,
            p => t
                .processes
                .pid
                .get(p as usize)
                .map_or(Value::Null, |&pid| Value::Integer(i64::from(pid))),
        },
        _ => Value::Null,
    }
}
