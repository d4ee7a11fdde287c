//! CPU Idle States: one row per idle period of a CPU (its idle thread
//! running), with the C-state the context switch that ended it names
//! (PreviousCState): CPU, C-State, Start Time, End Time, Duration. The
//! weight is Duration, so CPU by C-State gives each state's residency.

use super::{duration, end_time, get, id, start_time, Numbers, PercentOf, TableDef};
use model::Trace;

pub(super) fn table(t: &Trace) -> TableDef<'_> {
    let s = &t.idle_states;
    TableDef {
        name: "cpu-idle-states",
        rows: s.len(),
        columns: vec![
            id("CPU", move |i| i64::from(get(&s.cpu, i))),
            id("C-State", move |i| i64::from(get(&s.c_state, i))).alias(&[
                "Idle State",
                "State",
                "Previous C-State",
            ]),
            start_time("Start Time", Numbers::I64(&s.start)).alias(&["Start Time (s)"]),
            end_time("End Time", Numbers::I64(&s.end)).alias(&["End Time (s)"]),
            duration("Duration", move |i| {
                (get(&s.end, i) - get(&s.start, i)).max(0)
            })
            .alias(&["Duration (ms)"]),
        ],
        start: Numbers::I64(&s.start),
        end: Numbers::I64(&s.end),
        timed: false,
        weight: Some("Duration"),
        percent_of: PercentOf::TotalWeight,
        default_keys: &[],
        default_values: &["Count", "Duration"],
        ui_weight: Some("Duration (ms)"),
        ui_sums: &[],
    }
}
