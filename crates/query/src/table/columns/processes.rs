//! Processes: one row per process lifetime.

use super::{
    duration, end_time, get, id, keyed, start_time, string, time_cell, Numbers, PercentOf, TableDef,
};
use model::processes::OPEN;
use model::Trace;

pub(super) fn table(t: &Trace) -> TableDef<'_> {
    let p = &t.processes;
    let end_of_trace = t.info.duration_ns;
    TableDef {
        name: "processes",
        rows: p.len(),
        columns: vec![
            keyed("Process", |i| i as u32, move |k| t.process_label(k)),
            string(t, "Process Name", move |i| get(&p.name, i)),
            id("PID", move |i| i64::from(get(&p.pid, i))),
            id("Parent PID", move |i| i64::from(get(&p.parent_pid, i))),
            string(t, "Command Line", move |i| get(&p.command_line, i)),
            // The kernel logs the system processes' session as 0xFFFFFFFF;
            // WPA shows it as -1.
            id("Session", move |i| i64::from(get(&p.session, i) as i32)),
            start_time("Start Time", move |i| time_cell(get(&p.start, i))).alias(&["Start (s)"]),
            end_time("End Time", move |i| time_cell(get(&p.end, i))).alias(&["End (s)"]),
            // Within the trace: a process that ran before it starts at 0,
            // one still running at its end ends there.
            duration("Duration", move |i| {
                let s = match get(&p.start, i) {
                    OPEN => 0,
                    s => s,
                };
                let e = match get(&p.end, i) {
                    OPEN => end_of_trace,
                    e => e,
                };
                (e - s).max(0)
            }),
            // Only a process that ended in the trace has an exit code (the
            // kernel's 0 for one still running is no code).
            id("Exit Code", move |i| match get(&p.end, i) {
                OPEN => super::MISSING,
                _ => i64::from(get(&p.exit_status, i)),
            })
            .alias(&["Exit Status"]),
        ],
        start: Numbers::I64(&p.start),
        end: Numbers::I64(&p.end),
        timed: false,
        weight: None,
        percent_of: PercentOf::TotalWeight,
        default_keys: &[],
        default_values: &["Count", "Start Time", "End Time", "Duration"],
        ui_weight: None,
        ui_sums: &[],
    }
}
