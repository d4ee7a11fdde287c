//! VirtualAlloc Commit Lifetimes: one row per committed region, alive from
//! its commit to its decommit (or the trace's end).

use super::range_class::{class_column, Selection};
use super::{
    address, duration, end_time, get, keyed, size, stack, start_time, text, thread_id, time_cell,
    Numbers, PercentOf, TableDef,
};
use crate::scan::filter::TimeRange;
use model::processes::OPEN;
use model::Trace;

/// The table, its Impacting Type and Impacting Size relative to `range`
/// (the whole trace without one).
pub(super) fn table(t: &Trace, range: Option<TimeRange>) -> TableDef<'_> {
    let c = &t.commits;
    let sel = Selection::new(range);
    let end_of_trace = t.info.duration_ns;
    TableDef {
        name: "virtual-alloc",
        rows: c.len(),
        columns: vec![
            keyed(
                "Process",
                move |i| get(&c.process, i),
                move |k| t.process_text(k),
            ),
            text("Commit Type", move |i| {
                model::virtual_alloc::commit_type(get(&c.flags, i)).to_string()
            }),
            address("Address", move |i| get(&c.base, i) as i64),
            size("Size", Numbers::U64(&c.size)),
            start_time("Allocation Time", move |i| time_cell(get(&c.alloc_time, i))),
            end_time("Free Time", move |i| time_cell(get(&c.free_time, i))),
            // Within the trace: to its end while still committed.
            duration("Lifetime", move |i| {
                let e = match get(&c.free_time, i) {
                    OPEN => end_of_trace,
                    e => e,
                };
                (e - get(&c.alloc_time, i)).max(0)
            }),
            // WPA's AIFI/AIFO/AOFI/AOFO of the commit against the range
            // (WPA's column is "Type").
            class_column("Type", move |i| {
                sel.class(get(&c.alloc_time, i), get(&c.free_time, i))
            })
            .alias(&["Impacting Type"]),
            size("Impacting Size", move |i| {
                sel.impacting(get(&c.alloc_time, i), get(&c.free_time, i), get(&c.size, i))
            })
            .ranged(),
            thread_id(t, "Thread", move |i| get(&c.thread, i)).alias(&["Thread ID"]),
            stack("Commit Stack", move |i| {
                c.commit_stack.get(i).copied().unwrap_or(model::NONE)
            }),
            stack("Decommit Stack", move |i| {
                c.decommit_stack.get(i).copied().unwrap_or(model::NONE)
            }),
        ],
        start: Numbers::I64(&c.alloc_time),
        end: Numbers::I64(&c.free_time),
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
