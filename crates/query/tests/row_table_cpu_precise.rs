//! CPU Usage (Precise) as a row table on a hand-built trace (no real trace
//! here has context switches): the expected sums are worked out by hand
//! from the rows below, not by the code under test.

use model::cpu_precise::UNKNOWN;
use model::{Trace, NONE};
use query::{Engine, RowFilter, RowTableKind, RowTableRequest, SortBy, TimeRange, ValueColumn};
use std::sync::Arc;

fn trace() -> Trace {
    let mut t = Trace::default();
    let a = t.strings.intern("a.exe");
    let b = t.strings.intern("b.exe");
    let pa = t.processes.push(10, a, 0);
    let pb = t.processes.push(20, b, 0);
    let ta = t.threads.push(11, pa, 0);
    let tb = t.threads.push(21, pb, 0);
    let c = &mut t.cswitches;
    // (time, new thread, old thread, run, wait, ready)
    let rows = [
        (100, ta, tb, 40, 5, 2),
        (140, tb, ta, 60, UNKNOWN, 3),
        (200, ta, tb, 25, 7, UNKNOWN),
    ];
    for (time, new, old, run, wait, ready) in rows {
        c.time.push(time);
        c.cpu.push(0);
        c.new_thread.push(new);
        c.old_thread.push(old);
        c.old_wait_reason.push(0);
        c.old_state.push(5);
        c.new_priority.push(8);
        c.old_priority.push(8);
        c.new_wait_time_raw.push(0);
        c.wait_ns.push(wait);
        c.ready_ns.push(ready);
        c.ready_event.push(NONE);
        c.run_ns.push(run);
        c.stack.push(NONE);
    }
    t
}

#[test]
fn cpu_usage_waits_and_ready_sum_per_new_process() {
    let e = Engine::new(Arc::new(trace()));
    let rt = e.row_table(RowTableKind::CpuPrecise);
    assert_eq!(rt.weight_name, Some("CPU Usage (ms)"));
    let names: Vec<&str> = rt.values.iter().map(|v| v.0).collect();
    assert_eq!(names, ["Waits (ms)", "Ready (ms)"]);
    let col = |n: &str| rt.columns.iter().position(|c| *c == n).unwrap();
    let req = RowTableRequest {
        columns: vec![col("New Process")],
        sort: SortBy {
            column: ValueColumn::Label,
            descending: false,
        },
        ..RowTableRequest::default()
    };
    let r = rt.query(&req).unwrap();
    let got: Vec<(String, u64, i64, Vec<i64>)> = r
        .rows
        .iter()
        .map(|x| (x.label.clone(), x.count, x.weight_ns, x.sums.clone()))
        .collect();
    // a.exe: runs 40 + 25, waits 5 + 7, ready 2 + (unknown = 0);
    // b.exe: run 60, wait unknown = 0, ready 3.
    assert_eq!(
        got,
        [
            ("a.exe (10)".to_string(), 2, 65, vec![12, 2]),
            ("b.exe (20)".to_string(), 1, 60, vec![0, 3]),
        ]
    );
    assert_eq!(r.total.weight_ns, 125);
    assert_eq!(r.rows[0].first_ns, 100);
    assert_eq!(r.rows[0].last_ns, 200);
    // No stacks: the stack column's single level is n/a.
    let r = rt
        .query(&RowTableRequest {
            columns: vec![col("New Thread Stack")],
            ..RowTableRequest::default()
        })
        .unwrap();
    assert_eq!(r.rows.len(), 1);
    assert_eq!(r.rows[0].label, "n/a");
    assert!(!r.rows[0].expandable);
    // Range keeps the switches whose time is in it; filters by label key.
    let old_b = rt.keys_of_label(col("Old Process"), "b.exe (20)");
    let r = rt
        .query(&RowTableRequest {
            columns: vec![col("New Process")],
            range: Some(TimeRange {
                start_ns: 150,
                end_ns: 300,
            }),
            filters: vec![RowFilter {
                column: col("Old Process"),
                values: old_b,
                exclude: false,
            }],
            ..RowTableRequest::default()
        })
        .unwrap();
    assert_eq!(r.total.count, 1);
    assert_eq!(r.rows[0].weight_ns, 25);
    // Sorting by a value column: Ready descending puts b.exe first.
    let r = rt
        .query(&RowTableRequest {
            sort_value: Some(1),
            sort: SortBy {
                column: ValueColumn::Count,
                descending: true,
            },
            ..req
        })
        .unwrap();
    assert_eq!(r.rows[0].label, "b.exe (20)");
}
