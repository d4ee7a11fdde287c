//! UI Delays: one row per Win32k MessageCheckDelay, a thread that left
//! its input waiting before it checked its messages: Process, Thread Id,
//! Start Time (the event less the delay, not before the trace), End Time (the event), Duration
//! (DelayTimeMs), Time Since Oldest Input (TimeSinceOldestInputMs).

use super::{duration, end_time, get, id, keyed, start_time, Numbers, PercentOf, TableDef};
use model::Trace;

pub(super) fn table(t: &Trace) -> TableDef<'_> {
    let d = &t.ui_delays;
    TableDef {
        name: "ui-delays",
        rows: d.len(),
        columns: vec![
            keyed(
                "Process",
                move |i| get(&d.process, i),
                move |k| t.process_text(k),
            ),
            id("Thread Id", move |i| i64::from(get(&d.tid, i))).alias(&["Thread ID"]),
            start_time("Start Time", Numbers::I64(&d.start)).alias(&["Start Time (s)"]),
            end_time("End Time", Numbers::I64(&d.time)).alias(&["End Time (s)", "Time"]),
            duration("Duration", Numbers::I64(&d.delay_ns)).alias(&[
                "Duration (ms)",
                "Delay",
                "DelayTimeMs",
            ]),
            duration("Time Since Oldest Input", Numbers::I64(&d.oldest_input_ns))
                .alias(&["TimeSinceOldestInputMs"]),
        ],
        // Timed (and graphed) from the start, as DPC/ISR from its entry.
        start: Numbers::I64(&d.start),
        end: Numbers::I64(&d.time),
        timed: true,
        weight: Some("Duration"),
        percent_of: PercentOf::TotalWeight,
        default_keys: &[],
        default_values: &["Count", "Duration"],
        ui_weight: Some("Duration (ms)"),
        ui_sums: &[],
    }
}
