//! Disk I/O: one row per disk operation, timed at its initiation.

use super::{
    duration, get, id, keyed, size, stack, start_time, string, text, thread_id, PercentOf, TableDef,
};
use model::Trace;

pub(super) fn table(t: &Trace) -> TableDef<'_> {
    let d = &t.disk_io;
    TableDef {
        name: "disk-io",
        rows: d.len(),
        columns: vec![
            start_time("Init Time", move |i| get(&d.time, i)).alias(&["Init Time (s)"]),
            keyed(
                "Process",
                move |i| get(&d.process, i),
                move |k| t.process_text(k),
            ),
            thread_id(t, "Thread", move |i| get(&d.thread, i)),
            text("IO Type", move |i| {
                d.op.get(i).map_or("", |o| o.name()).to_string()
            }),
            id("Disk", move |i| i64::from(get(&d.disk, i))),
            string(t, "Path Name", move |i| get(&d.path, i)),
            size("Size", move |i| i64::from(get(&d.size, i))),
            super::number(
                "Offset",
                super::ColumnType::Size,
                crate::aggregate::Aggregation::Min,
                move |i| get(&d.offset, i).min(i64::MAX as u64) as i64,
            ),
            id("Priority", move |i| i64::from(get(&d.priority, i))),
            duration("Disk Service Time", move |i| get(&d.duration_ns, i))
                .alias(&["Disk Service Time (ms)", "Disk Service Time (µs)"]),
            stack("Stack", move |i| {
                d.stack.get(i).copied().unwrap_or(model::NONE)
            }),
        ],
        start: Box::new(move |i| get(&d.time, i)),
        end: Box::new(move |i| get(&d.time, i)),
        timed: true,
        weight: Some("Disk Service Time"),
        percent_of: PercentOf::TotalWeight,
        default_keys: &[],
        default_values: &["Count", "Size", "Disk Service Time"],
        ui_weight: Some("Disk Service Time (ms)"),
        ui_sums: &[("Size", "Size", 1.0)],
    }
}
