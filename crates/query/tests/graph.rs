//! The graph above a table: CPU Usage (Sampled) series against a naive
//! sample-by-sample binning written here, and row-table series and spans
//! on hand-built traces whose expected bins are worked out by hand.

use model::cpu_precise::UNKNOWN;
use model::processes::OPEN;
use model::{Trace, NONE};
use query::synthetic::{self, Shape};
use query::*;
use std::collections::BTreeMap;
use std::sync::Arc;

fn shape(seed: u64) -> Shape {
    Shape {
        samples: 4000,
        stacks: 300,
        threads: 20,
        processes: 6,
        modules: 8,
        frames_per_module: 12,
        cpus: 4,
        symbolized: 0.5,
        two_intervals: seed % 2 == 1,
        seed,
    }
}

/// Naive: bin of `t` is floor((t - start) * bins / span); per process label.
fn naive(
    t: &Trace,
    r: TimeRange,
    bins: usize,
    keep: impl Fn(usize) -> bool,
) -> BTreeMap<String, Vec<i64>> {
    let mut out: BTreeMap<String, Vec<i64>> = BTreeMap::new();
    let span = (r.end_ns - r.start_ns) as i128;
    for i in 0..t.samples.len() {
        let time = t.samples.time[i];
        if time < r.start_ns || time >= r.end_ns || !keep(i) {
            continue;
        }
        let b = ((time - r.start_ns) as i128 * bins as i128 / span) as usize;
        let th = t.samples.thread(i) as usize;
        let label = t.process_label(t.threads.process[th]);
        out.entry(label).or_insert_with(|| vec![0; bins])[b] += t.samples.interval_at(time);
    }
    out
}

fn process_request() -> TableRequest {
    TableRequest {
        columns: vec![Column::Process, Column::Stack],
        ..TableRequest::default()
    }
}

#[test]
fn sampled_series_are_the_top_level_rows_binned_as_a_naive_pass_bins_them() {
    for seed in 1..5 {
        let t = Arc::new(synthetic::trace(&shape(seed)));
        let e = Engine::new(Arc::clone(&t));
        let end = t.samples.time.last().copied().unwrap_or(1) + 1;
        // The whole trace and an inner range whose bins do not divide evenly.
        for r in [
            TimeRange {
                start_ns: 0,
                end_ns: end,
            },
            TimeRange {
                start_ns: end / 7,
                end_ns: end / 2 + 3,
            },
        ] {
            let bins = 37;
            let g = e
                .table_graph(
                    &process_request(),
                    &GraphBins {
                        range: r,
                        bins,
                        top: 100,
                    },
                )
                .unwrap();
            assert!(g.other.is_none());
            let want = naive(&t, r, bins, |_| true);
            let got: BTreeMap<String, Vec<i64>> = g
                .series
                .iter()
                .map(|s| (s.label.clone(), s.values.clone()))
                .collect();
            assert_eq!(got, want, "seed {seed} range {r:?}");
            // Keys are the table's row keys, heaviest first.
            let table = e
                .table(&TableRequest {
                    filters: Filters {
                        range: Some(r),
                        ..Filters::default()
                    },
                    ..process_request()
                })
                .unwrap();
            let keys: Vec<u32> = table.rows.iter().map(|row| row.key).collect();
            let gkeys: Vec<u32> = g.series.iter().map(|s| s.key).collect();
            assert_eq!(gkeys, keys, "seed {seed}");
            // Top 2: the rest is one "other" series with the rest's sum.
            let g2 = e
                .table_graph(
                    &process_request(),
                    &GraphBins {
                        range: r,
                        bins,
                        top: 2,
                    },
                )
                .unwrap();
            assert_eq!(g2.series, g.series[..2.min(g.series.len())]);
            if g.series.len() > 2 {
                let other = g2.other.unwrap();
                let mut rest = vec![0i64; bins];
                for s in &g.series[2..] {
                    for (x, y) in rest.iter_mut().zip(&s.values) {
                        *x += y;
                    }
                }
                assert_eq!(other.values, rest);
            }
        }
    }
}

#[test]
fn sampled_series_under_an_expanded_row_sum_to_that_row_per_bin() {
    let t = Arc::new(synthetic::trace(&shape(7)));
    let e = Engine::new(Arc::clone(&t));
    let end = t.samples.time.last().copied().unwrap_or(1) + 1;
    let r = TimeRange {
        start_ns: 0,
        end_ns: end,
    };
    let bins = 20;
    let top = e.table(&process_request()).unwrap();
    let first = &top.rows[0];
    let req = TableRequest {
        path: vec![first.key],
        ..process_request()
    };
    let g = e
        .table_graph(
            &req,
            &GraphBins {
                range: r,
                bins,
                top: 1000,
            },
        )
        .unwrap();
    let mut sum = vec![0i64; bins];
    for s in &g.series {
        for (x, y) in sum.iter_mut().zip(&s.values) {
            *x += y;
        }
    }
    let want = naive(&t, r, bins, |_| true);
    assert_eq!(Some(&sum), want.get(&first.label));
    // The children are the table's rows under the path.
    let children = e.table(&req).unwrap();
    let mut a: Vec<u32> = children.rows.iter().map(|c| c.key).collect();
    let mut b: Vec<u32> = g.series.iter().map(|s| s.key).collect();
    a.sort_unstable();
    b.sort_unstable();
    assert_eq!(a, b);
    // A filter on a process: only its series remains.
    let filters = Filters {
        columns: vec![ColumnFilter {
            column: Column::Process,
            values: vec![first.key],
            exclude: false,
        }],
        ..Filters::default()
    };
    let g = e
        .table_graph(
            &TableRequest {
                filters,
                ..process_request()
            },
            &GraphBins {
                range: r,
                bins,
                top: 10,
            },
        )
        .unwrap();
    assert_eq!(g.series.len(), 1);
    assert_eq!(Some(&g.series[0].values), want.get(&first.label));
}

/// Three context switches (as in row_table_cpu_precise.rs): a.exe at
/// 100 ns (run 40, wait 5) and 200 ns (run 25, wait 7), b.exe at 140 ns
/// (run 60, wait unknown).
fn precise_trace() -> Trace {
    let mut t = Trace::default();
    let a = t.strings.intern("a.exe");
    let b = t.strings.intern("b.exe");
    let pa = t.processes.push(10, a, 0);
    let pb = t.processes.push(20, b, 0);
    let ta = t.threads.push(11, pa, 0);
    let tb = t.threads.push(21, pb, 0);
    let c = &mut t.cswitches;
    for (time, new, old, run, wait) in [
        (100, ta, tb, 40, 5),
        (140, tb, ta, 60, UNKNOWN),
        (200, ta, tb, 25, 7),
    ] {
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
        c.ready_ns.push(UNKNOWN);
        c.ready_event.push(NONE);
        c.run_ns.push(run);
        c.stack.push(NONE);
    }
    t
}

#[test]
fn event_table_series_count_weight_and_a_column_per_bin() {
    let e = Engine::new(Arc::new(precise_trace()));
    let rt = e.row_table(RowTableKind::CpuPrecise);
    let req = RowTableRequest {
        columns: vec![rt.column("New Process").unwrap()],
        ..RowTableRequest::default()
    };
    // Bins [0,100) [100,200) [200,300).
    let bins = GraphBins {
        range: TimeRange {
            start_ns: 0,
            end_ns: 300,
        },
        bins: 3,
        top: 10,
    };
    let by = |m: Measure| -> Vec<(String, Vec<i64>)> {
        let g = rt.graph(&req, &bins, m).unwrap();
        g.series.into_iter().map(|s| (s.label, s.values)).collect()
    };
    let names = |v: &[(String, Vec<i64>)]| v.iter().map(|x| x.0.clone()).collect::<Vec<_>>();
    let count = by(Measure::Count);
    assert_eq!(names(&count).len(), 2);
    assert!(names(&count)[0].starts_with("a.exe"), "{count:?}");
    assert_eq!(count[0].1, [0, 1, 1]);
    assert_eq!(count[1].1, [0, 1, 0]);
    let weight = by(Measure::Weight);
    // a.exe (40 + 25 = 65) outweighs b.exe (60).
    assert_eq!(weight[0].1, [0, 40, 25]);
    assert_eq!(weight[1].1, [0, 60, 0]);
    let waits = rt.defs.iter().position(|d| d.name == "Waits").unwrap();
    let w = by(Measure::Column(waits));
    // b.exe's only wait is unknown: no series.
    assert_eq!(w, [(count[0].0.clone(), vec![0, 5, 7])]);
    // A range that leaves out the last switch: [100, 200) in one bin.
    let inner = GraphBins {
        range: TimeRange {
            start_ns: 100,
            end_ns: 200,
        },
        bins: 1,
        top: 1,
    };
    let g = rt.graph(&req, &inner, Measure::Weight).unwrap();
    assert_eq!(g.series[0].values, [60]);
    assert_eq!(g.other.unwrap().values, [40]);
    // Lifetime tables have spans, not series.
    assert!(e
        .row_table(RowTableKind::Processes)
        .graph(&RowTableRequest::default(), &bins, Measure::Count)
        .is_err());
}

#[test]
fn lifetime_spans_one_per_row_in_table_order() {
    let mut t = Trace::default();
    t.info.duration_ns = 1000;
    let x = t.strings.intern("x.exe");
    let y = t.strings.intern("y.exe");
    // x.exe twice: 100-300 and 200-(alive at the end); y.exe from before the trace to 50.
    let p0 = t.processes.push(1, x, 100) as usize;
    let p1 = t.processes.push(2, x, 200) as usize;
    let p2 = t.processes.push(3, y, OPEN) as usize;
    t.processes.end[p0] = 300;
    t.processes.end[p1] = OPEN;
    t.processes.end[p2] = 50;
    let e = Engine::new(Arc::new(t));
    let rt = e.row_table(RowTableKind::Processes);
    let by_name = RowTableRequest {
        columns: vec![rt.column("Process Name").unwrap()],
        sort: SortBy {
            column: ValueColumn::Label,
            descending: false,
        },
        ..RowTableRequest::default()
    };
    let (spans, omitted) = rt.spans(&by_name).unwrap();
    assert_eq!(omitted, 0);
    let got: Vec<(&str, Option<i64>, Option<i64>)> = spans
        .iter()
        .map(|s| (s.label.as_str(), s.start_ns, s.end_ns))
        .collect();
    assert_eq!(got, [("x.exe", Some(100), None), ("y.exe", None, Some(50))]);
    // One row per process, by PID descending, limited to 2.
    let by_process = RowTableRequest {
        columns: vec![rt.column("Process").unwrap()],
        sort: SortBy {
            column: ValueColumn::Label,
            descending: true,
        },
        limit: 2,
        ..RowTableRequest::default()
    };
    let (spans, omitted) = rt.spans(&by_process).unwrap();
    assert_eq!(omitted, 1);
    let table = rt.query(&by_process).unwrap();
    assert_eq!(
        spans.iter().map(|s| s.key).collect::<Vec<_>>(),
        table.rows.iter().map(|r| r.key).collect::<Vec<_>>()
    );
    assert_eq!(spans.len(), 2);
    // Under a path: the processes named x.exe.
    let name = rt.column("Process Name").unwrap();
    let x_key = rt.keys_of_label(name, "x.exe")[0];
    let req = RowTableRequest {
        columns: vec![name, rt.column("Process").unwrap()],
        path: vec![x_key],
        sort: SortBy {
            column: ValueColumn::Label,
            descending: false,
        },
        ..RowTableRequest::default()
    };
    let (spans, _) = rt.spans(&req).unwrap();
    let mut got: Vec<(Option<i64>, Option<i64>)> =
        spans.iter().map(|s| (s.start_ns, s.end_ns)).collect();
    got.sort();
    assert_eq!(got, [(Some(100), Some(300)), (Some(200), None)]);
}

#[test]
fn event_table_series_over_many_chunks_equal_a_naive_count() {
    // 200,003 switches (several parallel chunks): row i at time i, a.exe
    // when i % 3 == 0, else b.exe; run i % 7.
    let mut t = Trace::default();
    let a = t.strings.intern("a.exe");
    let b = t.strings.intern("b.exe");
    let pa = t.processes.push(10, a, 0);
    let pb = t.processes.push(20, b, 0);
    let ta = t.threads.push(11, pa, 0);
    let tb = t.threads.push(21, pb, 0);
    let n = 200_003usize;
    let c = &mut t.cswitches;
    for i in 0..n {
        let new = if i % 3 == 0 { ta } else { tb };
        c.time.push(i as i64);
        c.cpu.push(0);
        c.new_thread.push(new);
        c.old_thread.push(if new == ta { tb } else { ta });
        c.old_wait_reason.push(0);
        c.old_state.push(5);
        c.new_priority.push(8);
        c.old_priority.push(8);
        c.new_wait_time_raw.push(0);
        c.wait_ns.push(UNKNOWN);
        c.ready_ns.push(UNKNOWN);
        c.ready_event.push(NONE);
        c.run_ns.push((i % 7) as i64);
        c.stack.push(NONE);
    }
    let e = Engine::new(Arc::new(t));
    let rt = e.row_table(RowTableKind::CpuPrecise);
    let req = RowTableRequest {
        columns: vec![rt.column("New Process").unwrap()],
        ..RowTableRequest::default()
    };
    let (bins, end) = (7usize, 150_000i64);
    let g = rt
        .graph(
            &req,
            &GraphBins {
                range: TimeRange {
                    start_ns: 1000,
                    end_ns: end,
                },
                bins,
                top: 10,
            },
            Measure::Weight,
        )
        .unwrap();
    let mut want = [vec![0i64; bins], vec![0i64; bins]];
    for i in 1000..end as usize {
        let b = (i - 1000) * bins / (end as usize - 1000);
        want[usize::from(i % 3 != 0)][b] += (i % 7) as i64;
    }
    for s in &g.series {
        let w = if s.label.starts_with("a.exe") {
            &want[0]
        } else {
            &want[1]
        };
        assert_eq!(&s.values, w, "{}", s.label);
    }
    assert_eq!(g.series.len(), 2);
}

#[test]
fn event_table_with_more_keys_than_one_pass_bins_keeps_the_top_and_other() {
    // 5,000 processes (more than the one-pass limit of 4,096 keys), six
    // switches each: row i at time i for process i % 5000, run p + 1, so
    // process p weighs 6 (p + 1): the top three are 4999, 4998, 4997.
    let mut t = Trace::default();
    let name = t.strings.intern("p.exe");
    let threads: Vec<u32> = (0..5000u32)
        .map(|p| {
            let pr = t.processes.push(p + 1, name, 0);
            t.threads.push(100_000 + p, pr, 0)
        })
        .collect();
    let n = 30_000usize;
    let c = &mut t.cswitches;
    for i in 0..n {
        let p = i % 5000;
        c.time.push(i as i64);
        c.cpu.push(0);
        c.new_thread.push(threads[p]);
        c.old_thread.push(threads[(p + 1) % 5000]);
        c.old_wait_reason.push(0);
        c.old_state.push(5);
        c.new_priority.push(8);
        c.old_priority.push(8);
        c.new_wait_time_raw.push(0);
        c.wait_ns.push(UNKNOWN);
        c.ready_ns.push(UNKNOWN);
        c.ready_event.push(NONE);
        c.run_ns.push(p as i64 + 1);
        c.stack.push(NONE);
    }
    let e = Engine::new(Arc::new(t));
    let rt = e.row_table(RowTableKind::CpuPrecise);
    let req = RowTableRequest {
        columns: vec![rt.column("New Process").unwrap()],
        ..RowTableRequest::default()
    };
    let bins = 5;
    let g = rt
        .graph(
            &req,
            &GraphBins {
                range: TimeRange {
                    start_ns: 0,
                    end_ns: n as i64,
                },
                bins,
                top: 3,
            },
            Measure::Weight,
        )
        .unwrap();
    let naive = |want: &dyn Fn(usize) -> bool| {
        let mut v = vec![0i64; bins];
        for i in 0..n {
            if want(i % 5000) {
                v[i * bins / n] += (i % 5000) as i64 + 1;
            }
        }
        v
    };
    let labels: Vec<&str> = g.series.iter().map(|s| s.label.as_str()).collect();
    assert_eq!(labels, ["p.exe (5000)", "p.exe (4999)", "p.exe (4998)"]);
    for (s, p) in g.series.iter().zip([4999, 4998, 4997]) {
        assert_eq!(s.values, naive(&|q| q == p), "{}", s.label);
        assert_eq!(s.total, 6 * (p as i64 + 1));
    }
    let other = g.other.unwrap();
    assert_eq!(other.label, "Other (4997 rows)");
    assert_eq!(other.values, naive(&|q| q < 4997));
}
