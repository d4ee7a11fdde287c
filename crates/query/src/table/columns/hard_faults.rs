//! Hard Faults: one row per page read from disk on a fault (PageFault
//! HardFault), timed from the fault's start.

use super::{
    address, duration, get, keyed, number, size, stack, start_time, string, text, thread_id,
    ColumnType, Numbers, PercentOf, TableDef,
};
use crate::table::aggregate::Aggregation;
use model::Trace;

pub(super) fn table(t: &Trace) -> TableDef<'_> {
    let h = &t.hard_faults;
    TableDef {
        name: "hard-faults",
        rows: h.len(),
        columns: vec![
            start_time("Start Time", Numbers::I64(&h.time)).alias(&["Start Time (s)", "Time"]),
            keyed(
                "Process",
                move |i| get(&h.process, i),
                move |k| t.process_text(k),
            ),
            thread_id(t, "Thread", move |i| get(&h.thread, i)).alias(&["Thread ID"]),
            string(t, "File Path", move |i| get(&h.path, i)),
            // Image, Data or PageFile.
            text("Type", move |i| {
                h.kind.get(i).map_or("", |k| k.name()).to_string()
            }),
            number(
                "Byte Offset",
                ColumnType::Size,
                Aggregation::Min,
                Numbers::U64(&h.offset),
            ),
            size("Size", Numbers::U32(&h.size)),
            // From InitialTime to the event: the faulting thread's wait
            // for the read.
            duration("I/O Time", Numbers::I64(&h.duration_ns)).alias(&[
                "I/O Time (ms)",
                "IO Time",
                "Disk Service Time",
                "Disk Service Time (ms)",
            ]),
            address("Virtual Address", move |i| {
                get(&h.virtual_address, i) as i64
            }),
            stack("Stack", move |i| {
                h.stack.get(i).copied().unwrap_or(model::NONE)
            }),
        ],
        start: Numbers::I64(&h.time),
        end: Numbers::I64(&h.time),
        timed: true,
        weight: Some("I/O Time"),
        percent_of: PercentOf::TotalWeight,
        default_keys: &[],
        default_values: &["Count", "Size", "I/O Time"],
        ui_weight: Some("I/O Time (ms)"),
        ui_sums: &[("Size", "Size", 1.0)],
    }
}
