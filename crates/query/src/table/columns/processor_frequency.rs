//! Processor Frequency: one row per interval a CPU ran at one frequency
//! (Kernel-Processor-Power's ProcessorPerfStateChange), with WPA's column
//! names: CPU, Frequency (MHz), Start Time, End Time, Duration; P-State
//! and Performance (% of nominal) as the event gives them. The weight is
//! Duration, so grouping by CPU and Frequency gives the time at each.

use super::{
    duration, end_time, get, id, number, start_time, ColumnType, Numbers, PercentOf, TableDef,
    MISSING,
};
use crate::table::aggregate::Aggregation;
use model::Trace;

pub(super) fn table(t: &Trace) -> TableDef<'_> {
    let f = &t.frequency;
    TableDef {
        name: "processor-frequency",
        rows: f.len(),
        columns: vec![
            id("CPU", move |i| i64::from(get(&f.cpu, i))),
            // A row's mean is not weighted by time: the graph's is.
            number(
                "Frequency (MHz)",
                ColumnType::Count,
                Aggregation::Avg,
                move |i| i64::from(get(&f.mhz, i)),
            )
            .alias(&["Processor Frequency (MHz)", "Frequency"]),
            start_time("Start Time", Numbers::I64(&f.start)).alias(&["Start Time (s)"]),
            end_time("End Time", Numbers::I64(&f.end)).alias(&["End Time (s)"]),
            duration("Duration", move |i| {
                (get(&f.end, i) - get(&f.start, i)).max(0)
            })
            .alias(&["Duration (ms)"]),
            id("P-State", move |i| i64::from(get(&f.state, i))).alias(&["State"]),
            id("Performance (%)", move |i| match get(&f.performance, i) {
                u32::MAX => MISSING,
                p => i64::from(p),
            })
            .alias(&["Performance"]),
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
