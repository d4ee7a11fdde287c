//! Threads: one row per thread lifetime.

use super::{
    address, duration, end_time, get, id, keyed, start_time, string, time_cell, Numbers, PercentOf,
    TableDef,
};
use model::processes::OPEN;
use model::Trace;

pub(super) fn table(t: &Trace) -> TableDef<'_> {
    let th = &t.threads;
    let end_of_trace = t.info.duration_ns;
    TableDef {
        name: "threads",
        rows: th.len(),
        columns: vec![
            keyed(
                "Process",
                move |i| get(&th.process, i),
                move |k| t.process_text(k),
            ),
            id("Thread ID", move |i| i64::from(get(&th.tid, i))),
            string(t, "Thread Name", move |i| get(&th.name, i)),
            address("Start Address", move |i| get(&th.start_address, i) as i64),
            start_time("Start Time", move |i| time_cell(get(&th.start, i))).alias(&["Start (s)"]),
            end_time("End Time", move |i| time_cell(get(&th.end, i))).alias(&["End (s)"]),
            // Within the trace, as the Processes table's Duration.
            duration("Duration", move |i| {
                let s = match get(&th.start, i) {
                    OPEN => 0,
                    s => s,
                };
                let e = match get(&th.end, i) {
                    OPEN => end_of_trace,
                    e => e,
                };
                (e - s).max(0)
            }),
        ],
        start: Numbers::I64(&th.start),
        end: Numbers::I64(&th.end),
        timed: false,
        weight: None,
        percent_of: PercentOf::TotalWeight,
        default_keys: &[],
        default_values: &["Count", "Start Time", "End Time", "Duration"],
        ui_weight: None,
        ui_sums: &[],
    }
}
