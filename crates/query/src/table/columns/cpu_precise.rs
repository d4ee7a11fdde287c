//! CPU Usage (Precise): one row per context switch, timed at the switch-in.

use super::{
    duration, get, id, keyed, stack, start_time, text, thread_id, Numbers, PercentOf, TableDef,
    MISSING,
};
use model::cpu_precise::{thread_state_name, wait_reason_name, UNKNOWN};
use model::{Trace, NONE};

pub(super) fn table(t: &Trace) -> TableDef<'_> {
    let c = &t.cswitches;
    let r = &t.ready_threads;
    let readying = move |i: usize| match get(&c.ready_event, i) {
        NONE => NONE,
        e => r.readying_thread.get(e as usize).copied().unwrap_or(NONE),
    };
    let known = |ns: i64| if ns == UNKNOWN { MISSING } else { ns };
    let process_of = move |th: u32| t.thread_process(th);
    TableDef {
        name: "cpu-precise",
        rows: c.len(),
        columns: vec![
            start_time("Switch-In Time", move |i| get(&c.time, i)).alias(&["Switch-In Time (s)"]),
            id("CPU", move |i| i64::from(get(&c.cpu, i))),
            keyed(
                "New Process",
                move |i| process_of(get(&c.new_thread, i)),
                move |k| t.process_text(k),
            ),
            thread_id(t, "New Thread Id", move |i| get(&c.new_thread, i)),
            id("New Thread Priority", move |i| {
                i64::from(get(&c.new_priority, i))
            }),
            keyed(
                "Old Process",
                move |i| process_of(get(&c.old_thread, i)),
                move |k| t.process_text(k),
            ),
            thread_id(t, "Old Thread Id", move |i| get(&c.old_thread, i)),
            id("Old Thread Priority", move |i| {
                i64::from(get(&c.old_priority, i))
            }),
            text("Old Wait Reason", move |i| {
                wait_reason_name(get(&c.old_wait_reason, i)).to_string()
            }),
            text("Old State", move |i| {
                thread_state_name(get(&c.old_state, i)).to_string()
            }),
            duration("Waits", move |i| known(get(&c.wait_ns, i)))
                .alias(&["Waits (µs)", "Waits (ms)"]),
            duration("Ready", move |i| known(get(&c.ready_ns, i)))
                .alias(&["Ready (µs)", "Ready (ms)"]),
            // Raw: the payload gives no unit (see model::cpu_precise).
            id("New Thread Wait Time (raw)", move |i| {
                i64::from(get(&c.new_wait_time_raw, i))
            }),
            keyed(
                "Readying Process",
                move |i| process_of(readying(i)),
                move |k| t.process_text(k),
            ),
            thread_id(t, "Readying Thread Id", readying),
            stack("New Thread Stack", move |i| {
                c.stack.get(i).copied().unwrap_or(NONE)
            }),
            stack("Ready Thread Stack", move |i| {
                match get(&c.ready_event, i) {
                    NONE => NONE,
                    e => r.stack.get(e as usize).copied().unwrap_or(NONE),
                }
            }),
            duration("CPU Usage", move |i| get(&c.run_ns, i)).alias(&["CPU Usage (ms)"]),
        ],
        start: Numbers::I64(&c.time),
        end: Numbers::I64(&c.time),
        timed: true,
        weight: Some("CPU Usage"),
        percent_of: PercentOf::TotalWeight,
        default_keys: &[],
        default_values: &["Count", "CPU Usage", "Waits", "Ready"],
        ui_weight: Some("CPU Usage (ms)"),
        ui_sums: &[("Waits (ms)", "Waits", 1e6), ("Ready (ms)", "Ready", 1e6)],
    }
}
