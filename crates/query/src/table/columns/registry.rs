//! Registry: one row per registry operation, its key named in full from
//! the KCB rundown, timed from its start.

use super::{
    address, duration, get, keyed, stack, start_time, string, text, thread_id, Numbers, PercentOf,
    TableDef,
};
use model::Trace;

pub(super) fn table(t: &Trace) -> TableDef<'_> {
    let r = &t.registry;
    TableDef {
        name: "registry",
        rows: r.len(),
        columns: vec![
            start_time("Start Time", Numbers::I64(&r.time)).alias(&["Start Time (s)", "Time"]),
            keyed(
                "Process",
                move |i| get(&r.process, i),
                move |k| t.process_text(k),
            ),
            thread_id(t, "Thread", move |i| get(&r.thread, i)).alias(&["Thread ID"]),
            text("Operation", move |i| {
                model::registry::op_name(get(&r.opcode, i))
                    .unwrap_or("")
                    .to_string()
            }),
            string(t, "Key Path", move |i| get(&r.key, i)),
            string(t, "Value Name", move |i| get(&r.value, i)),
            // NTSTATUS, in hex as WPA shows it.
            address("Status", move |i| i64::from(get(&r.status, i))),
            duration("Duration", Numbers::I64(&r.duration_ns))
                .alias(&["Duration (ms)", "Duration (µs)"]),
            stack("Stack", move |i| {
                r.stack.get(i).copied().unwrap_or(model::NONE)
            }),
        ],
        start: Numbers::I64(&r.time),
        end: Numbers::I64(&r.time),
        timed: true,
        weight: Some("Duration"),
        percent_of: PercentOf::TotalWeight,
        default_keys: &[],
        default_values: &["Count", "Duration"],
        ui_weight: Some("Duration (ms)"),
        ui_sums: &[],
    }
}
