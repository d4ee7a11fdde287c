//! Heap Allocations: one row per heap block, alive from its allocation to
//! its free (or the trace's end).

use super::range_class::{class_column, Selection};
use super::{
    address, duration, end_time, get, keyed, size, stack, start_time, thread_id, time_cell,
    Numbers, PercentOf, TableDef,
};
use crate::scan::filter::TimeRange;
use model::processes::OPEN;
use model::Trace;

/// The table, its Type and Impacting Size relative to `range` (the whole
/// trace without one).
pub(super) fn table(t: &Trace, range: Option<TimeRange>) -> TableDef<'_> {
    let h = &t.heap;
    let sel = Selection::new(range);
    let end_of_trace = t.info.duration_ns;
    TableDef {
        name: "heap",
        rows: h.len(),
        columns: vec![
            keyed(
                "Process",
                move |i| get(&h.process, i),
                move |k| t.process_text(k),
            ),
            address("Handle", move |i| get(&h.handle, i) as i64),
            address("Address", move |i| get(&h.address, i) as i64),
            size("Size", Numbers::U64(&h.size)),
            start_time("Allocation Time", move |i| time_cell(get(&h.alloc_time, i))),
            end_time("Free Time", move |i| time_cell(get(&h.free_time, i))),
            duration("Lifetime", move |i| {
                let s = match get(&h.alloc_time, i) {
                    OPEN => 0,
                    s => s,
                };
                let e = match get(&h.free_time, i) {
                    OPEN => end_of_trace,
                    e => e,
                };
                (e - s).max(0)
            }),
            class_column("Type", move |i| {
                sel.class(get(&h.alloc_time, i), get(&h.free_time, i))
            })
            .alias(&["Impacting Type"]),
            size("Impacting Size", move |i| {
                sel.impacting(get(&h.alloc_time, i), get(&h.free_time, i), get(&h.size, i))
            })
            .ranged(),
            thread_id(t, "Thread", move |i| get(&h.thread, i)).alias(&["Thread ID"]),
            stack("Stack", move |i| {
                h.alloc_stack.get(i).copied().unwrap_or(model::NONE)
            })
            .alias(&["Allocation Stack"]),
            stack("Free Stack", move |i| {
                h.free_stack.get(i).copied().unwrap_or(model::NONE)
            }),
        ],
        start: Numbers::I64(&h.alloc_time),
        end: Numbers::I64(&h.free_time),
        timed: false,
        weight: None,
        percent_of: PercentOf::TotalWeight,
        default_keys: &[],
        default_values: &["Count", "Size", "Impacting Size"],
        ui_weight: None,
        ui_sums: &[
            ("Size", "Size", 1.0),
            ("Impacting Size", "Impacting Size", 1.0),
        ],
    }
}
