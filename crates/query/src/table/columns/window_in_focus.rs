//! Window in Focus: one row per time a thread had the keyboard focus
//! (Win32k FocusChange: from one change to the next; the last until the
//! end of the trace), with WPA's lifetime columns: Process, Thread Id,
//! Start Time, End Time, Duration. The event names the thread, not the
//! window, so there is no Window column.

use super::{duration, end_time, get, id, keyed, start_time, Numbers, PercentOf, TableDef};
use model::Trace;

pub(super) fn table(t: &Trace) -> TableDef<'_> {
    let f = &t.focus;
    TableDef {
        name: "window-in-focus",
        rows: f.len(),
        columns: vec![
            keyed(
                "Process",
                move |i| get(&f.process, i),
                move |k| t.process_text(k),
            ),
            id("Thread Id", move |i| i64::from(get(&f.tid, i))).alias(&["Thread ID"]),
            start_time("Start Time", Numbers::I64(&f.start)).alias(&["Start Time (s)"]),
            end_time("End Time", Numbers::I64(&f.end)).alias(&["End Time (s)"]),
            duration("Duration", move |i| {
                (get(&f.end, i) - get(&f.start, i)).max(0)
            })
            .alias(&["Duration (ms)", "Focus Time"]),
        ],
        start: Numbers::I64(&f.start),
        end: Numbers::I64(&f.end),
        timed: false,
        weight: Some("Duration"),
        percent_of: PercentOf::TotalWeight,
        default_keys: &[],
        default_values: &["Count", "Duration"],
        ui_weight: Some("Duration (ms)"),
        ui_sums: &[],
    }
}
