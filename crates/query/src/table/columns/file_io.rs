//! File I/O: one row per file operation (kernel FileIo or
//! Microsoft-Windows-Kernel-File), timed at its start.

use super::{
    duration, get, keyed, number, size, stack, start_time, string, text, thread_id, ColumnType,
    Numbers, PercentOf, TableDef,
};
use crate::table::aggregate::Aggregation;
use model::Trace;

pub(super) fn table(t: &Trace) -> TableDef<'_> {
    let f = &t.file_io;
    TableDef {
        name: "file-io",
        rows: f.len(),
        columns: vec![
            start_time("Start Time", Numbers::I64(&f.time)).alias(&["Start Time (s)"]),
            keyed(
                "Process",
                move |i| get(&f.process, i),
                move |k| t.process_text(k),
            ),
            thread_id(t, "Thread", move |i| get(&f.thread, i)),
            text("Type", move |i| {
                f.op.get(i).map_or("", |o| o.name()).to_string()
            }),
            string(t, "File Path", move |i| get(&f.path, i)),
            size("Size", Numbers::U64(&f.size)),
            number(
                "Offset",
                ColumnType::Size,
                Aggregation::Min,
                Numbers::U64(&f.offset),
            ),
            // Until the operation's end; 0 when the trace has none.
            duration("Duration", Numbers::I64(&f.duration_ns))
                .alias(&["Duration (ms)", "Duration (µs)"]),
            text("Provider", move |i| {
                if get(&f.from_kernel_file_provider, i) {
                    "Microsoft-Windows-Kernel-File"
                } else {
                    "FileIo"
                }
                .to_string()
            }),
            stack("Stack", move |i| {
                f.stack.get(i).copied().unwrap_or(model::NONE)
            }),
        ],
        start: Numbers::I64(&f.time),
        end: Numbers::I64(&f.time),
        timed: true,
        weight: Some("Duration"),
        percent_of: PercentOf::TotalWeight,
        default_keys: &[],
        default_values: &["Count", "Size", "Duration"],
        ui_weight: Some("Duration (ms)"),
        ui_sums: &[("Size", "Size", 1.0)],
    }
}
