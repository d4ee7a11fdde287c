//! Regions of Interest: one row per instance of a region of the regions
//! file in use (`--regions`, or the library's), with WPA's columns; and
//! the Region key column other tables get when a regions file is in use.

use super::{
    duration, end_time, get, keyed, start_time, thread_id, Numbers, PercentOf, TableColumn,
    TableDef,
};
use model::regions::RegionTable;
use model::{Trace, NONE};

pub(super) fn table<'a>(t: &'a Trace, r: &'a RegionTable) -> TableDef<'a> {
    TableDef {
        name: "regions",
        rows: r.len(),
        columns: vec![
            // The region's path from its RegionRoot (WPA's Region tree).
            keyed("Region", move |i| get(&r.region, i), move |k| r.path(k)),
            // One key per instance (the row), so that a tree by Region ends
            // in its instances: "#n Name" (its region's path when unnamed),
            // n counting the table's rows from 1.
            keyed(
                "Instance",
                |i| u32::try_from(i).unwrap_or(NONE),
                move |k| {
                    let i = k as usize;
                    let name = match r.name.get(i) {
                        Some(n) if !n.is_empty() => n.clone(),
                        _ => r.path(get(&r.region, i)),
                    };
                    format!("#{} {name}", u64::from(k) + 1)
                },
            ),
            super::text("Name", move |i| r.name.get(i).cloned().unwrap_or_default()),
            keyed(
                "Process",
                move |i| r.process.get(i).copied().unwrap_or(NONE),
                move |k| t.process_text(k),
            ),
            thread_id(t, "Thread", move |i| {
                r.thread.get(i).copied().unwrap_or(NONE)
            })
            .alias(&["Thread ID"]),
            start_time("Start Time", Numbers::I64(&r.start)).alias(&["Start Time (s)"]),
            end_time("Stop Time", Numbers::I64(&r.stop)).alias(&["Stop Time (s)", "End Time"]),
            duration("Duration", move |i| get(&r.stop, i) - get(&r.start, i))
                .alias(&["Duration (ms)"]),
        ],
        start: Numbers::I64(&r.start),
        end: Numbers::I64(&r.stop),
        timed: false,
        weight: Some("Duration"),
        percent_of: PercentOf::TotalWeight,
        default_keys: &["Region"],
        default_values: &["Count", "Duration"],
        ui_weight: Some("Duration (ms)"),
        ui_sums: &[],
    }
}

/// The Region key column of a table whose row `i` happens at `time(i)`:
/// the region of the innermost instance containing it, empty outside
/// every instance. Only with a regions file in use.
pub(super) fn region_column<'a>(
    r: &'a RegionTable,
    time: impl Fn(usize) -> i64 + Sync + 'a,
) -> Option<TableColumn<'a>> {
    r.set.as_ref()?;
    let index = r.region_at();
    Some(keyed(
        "Region",
        move |i| index.at(time(i)),
        move |k| match k {
            NONE => String::new(),
            k => r.path(k),
        },
    ))
}

/// Marks (`xperf -m`, `wpr -marker`): one row per mark.
pub(super) fn marks(t: &Trace) -> TableDef<'_> {
    let m = &t.marks;
    TableDef {
        name: "marks",
        rows: m.len(),
        columns: vec![
            start_time("Time", Numbers::I64(&m.time)).alias(&["Time (s)"]),
            super::text("Label", move |i| {
                m.label.get(i).cloned().unwrap_or_default()
            }),
            keyed(
                "Process",
                move |i| m.process.get(i).copied().unwrap_or(NONE),
                move |k| t.process_text(k),
            ),
            thread_id(t, "Thread", move |i| {
                m.thread.get(i).copied().unwrap_or(NONE)
            })
            .alias(&["Thread ID"]),
        ],
        start: Numbers::I64(&m.time),
        end: Numbers::I64(&m.time),
        timed: true,
        weight: None,
        percent_of: PercentOf::TotalWeight,
        default_keys: &[],
        default_values: &["Count"],
        ui_weight: None,
        ui_sums: &[],
    }
}
