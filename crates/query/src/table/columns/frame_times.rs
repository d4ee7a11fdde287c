//! Frame Times: one row per frame, from a DxgKrnl Present of a window to the
//! next Present of the same process and window (see `model::gpu`): Process,
//! Thread Id (the presenting thread), Window (hWindow), Start Time (the
//! previous present), Present Time (this one), Frame Time (the time since
//! the previous present, PresentMon's MsBetweenPresents) and Frame Rate
//! (fps, 1 s / Frame Time; a group's is the mean of its frames). Timed and
//! graphed at the present.

use super::{
    address, duration, end_time, get, id, keyed, number, start_time, ColumnType, Numbers,
    PercentOf, TableDef, MISSING,
};
use crate::table::aggregate::Aggregation;
use model::Trace;

pub(super) fn table(t: &Trace) -> TableDef<'_> {
    let f = &t.frame_times;
    let frame = move |i: usize| (get(&f.end, i) - get(&f.start, i)).max(0);
    TableDef {
        name: "frame-times",
        rows: f.len(),
        columns: vec![
            keyed(
                "Process",
                move |i| get(&f.process, i),
                move |k| t.process_text(k),
            ),
            id("Thread Id", move |i| i64::from(get(&f.tid, i))).alias(&["Thread ID"]),
            address("Window", move |i| get(&f.window, i) as i64).alias(&["hWindow", "Hwnd"]),
            start_time("Start Time", Numbers::I64(&f.start))
                .alias(&["Start Time (s)", "Previous Present Time"]),
            end_time("Present Time", Numbers::I64(&f.end)).alias(&[
                "Present Time (s)",
                "End Time",
                "Time",
            ]),
            duration("Frame Time", frame).alias(&[
                "Frame Time (ms)",
                "Duration",
                "Time Since Previous Present",
                "MsBetweenPresents",
            ]),
            number(
                "Frame Rate (fps)",
                ColumnType::Count,
                Aggregation::Avg,
                move |i| match frame(i) {
                    0 => MISSING,
                    ns => (1_000_000_000 + ns / 2) / ns,
                },
            )
            .alias(&["Frame Rate", "FPS"]),
        ],
        // Timed (and graphed) at the present.
        start: Numbers::I64(&f.end),
        end: Numbers::I64(&f.end),
        timed: true,
        weight: Some("Frame Time"),
        percent_of: PercentOf::TotalWeight,
        default_keys: &[],
        default_values: &["Count", "Frame Time"],
        ui_weight: Some("Frame Time (ms)"),
        ui_sums: &[],
    }
}
