//! Page Faults: one row per soft fault (transition, demand zero, copy on
//! write, guard page, hard page, access violation).

use super::{
    address, get, keyed, stack, start_time, text, thread_id, Numbers, PercentOf, TableDef,
};
use model::Trace;

pub(super) fn table(t: &Trace) -> TableDef<'_> {
    let f = &t.page_faults;
    let p = t.info.pointer_size;
    TableDef {
        name: "page-faults",
        rows: f.len(),
        columns: vec![
            start_time("Time", Numbers::I64(&f.time)).alias(&["Time (s)"]),
            keyed(
                "Process",
                move |i| get(&f.process, i),
                move |k| t.process_text(k),
            ),
            thread_id(t, "Thread", move |i| get(&f.thread, i)).alias(&["Thread ID"]),
            text("Type", move |i| {
                f.kind.get(i).map_or("", |k| k.name()).to_string()
            }),
            // User or Kernel half of the address space.
            text("Address Region", move |i| {
                model::memory::region(get(&f.virtual_address, i), p).to_string()
            }),
            address("Virtual Address", move |i| {
                get(&f.virtual_address, i) as i64
            }),
            address("Program Counter", move |i| {
                get(&f.program_counter, i) as i64
            }),
            stack("Stack", move |i| {
                f.stack.get(i).copied().unwrap_or(model::NONE)
            }),
        ],
        start: Numbers::I64(&f.time),
        end: Numbers::I64(&f.time),
        timed: true,
        weight: None,
        percent_of: PercentOf::TotalWeight,
        default_keys: &[],
        default_values: &["Count"],
        ui_weight: None,
        ui_sums: &[],
    }
}
