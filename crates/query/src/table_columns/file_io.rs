//! File I/O: one row per file operation (kernel FileIo or
//! Microsoft-Windows-Kernel-File), timed at its start.

use super::{
    duration, get, keyed, size, stack, start_time, string, text, thread_id, PercentOf, TableDef,
};
use model::Trace;

pub(super) fn table(t: &Trace) -> TableDef<'_> {
    let f = &t.file_io;
    TableDef {
        name: "file-io",
        rows: f.len(),
        columns: vec![
            start_time("Start Time", move |i| get(&f.time, i)).alias(&["Start Time (s)"]),
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
            size("Size", move |i| get(&f.size, i).min(i64::MAX as u64) as i64),
            super::number(
                "Offset",
                super::ColumnType::Size,
                crate::aggregate::Aggregation::Min,
                move |i| get(&f.offset, i).min(i64::MAX as u64) as i64,
            ),
            // Until the operation's end; 0 when the trace has none.
            duration("Duration", move |i| get(&f.duration_ns, i))
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
        start: Box::new(move |i| get(&f.time, i)),
        end: Box::new(move |i| get(&f.time, i)),
        timed: true,
        weight: Some("Duration"),
        percent_of: PercentOf::TotalWeight,
        default_keys: &[],
        default_values: &["Count", "Size", "Duration"],
        ui_weight: Some("Duration (ms)"),
        ui_sums: &[("Size", "Size", 1.0)],
    }
}
