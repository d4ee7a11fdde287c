//! Row-table levels of many text keys (File Path over thousands of paths,
//! the flat-array scan and the graph's two-pass top series) against a
//! naive grouping of the trace's own File I/O arrays written here.

use model::Trace;
use query::synthetic;
use query::*;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

const ROWS: usize = 300_000;
const PATHS: usize = 6_000;

fn trace() -> Trace {
    synthetic::file_io_trace(ROWS, PATHS, 11)
}

/// Per path text: count, min time, max time of the rows `keep` keeps.
fn naive(t: &Trace, keep: impl Fn(usize) -> bool) -> BTreeMap<String, (u64, i64, i64)> {
    let f = &t.file_io;
    let mut m: BTreeMap<String, (u64, i64, i64)> = BTreeMap::new();
    for i in (0..f.len()).filter(|&i| keep(i)) {
        let e = m
            .entry(t.strings.get(f.path[i]).to_string())
            .or_insert((0, i64::MAX, i64::MIN));
        e.0 += 1;
        e.1 = e.1.min(f.time[i]);
        e.2 = e.2.max(f.time[i]);
    }
    m
}

fn values(rt: &RowTable) -> Vec<ValueSpec> {
    ["Count", "Start Time:min", "Start Time:max"]
        .iter()
        .map(|s| rt.value_spec(s).unwrap())
        .collect()
}

/// Count (the Count column summed) and the Start Time Min/Max per row.
fn check(rows: &[Row], want: &BTreeMap<String, (u64, i64, i64)>) {
    assert_eq!(rows.len(), want.len());
    for r in rows {
        let w = want[&r.label];
        assert_eq!(r.count, w.0, "{}", r.label);
        assert_eq!(r.first_ns, w.1, "{}", r.label);
        assert_eq!(r.last_ns, w.2, "{}", r.label);
        assert_eq!(
            r.values,
            vec![
                CellValue::Number(w.0 as i64),
                CellValue::Number(w.1),
                CellValue::Number(w.2)
            ],
            "{}",
            r.label
        );
    }
}

#[test]
fn file_path_level_over_thousands_of_paths_equals_a_naive_grouping() {
    let t = Arc::new(trace());
    let e = Engine::new(Arc::clone(&t));
    let rt = e.row_table(RowTableKind::FileIo);
    let (process, path) = (
        rt.column("Process").unwrap(),
        rt.column("File Path").unwrap(),
    );
    let sorted = |mut rows: Vec<Row>| {
        rows.sort_by(|a, b| a.label.cmp(&b.label));
        rows
    };

    // Top level: File Path first, every row.
    let r = rt
        .query(&RowTableRequest {
            columns: vec![path, process],
            values: values(&rt),
            ..RowTableRequest::default()
        })
        .unwrap();
    assert_eq!(r.total.count, ROWS as u64);
    assert!(r.rows.iter().all(|x| x.expandable));
    check(&sorted(r.rows), &naive(&t, |_| true));

    // Under process 3 (Process first), with a range and a filter dropping
    // process 5's rows: only process 3's rows in the range.
    let p3 = rt.keys_of_label(process, &t.process_text(3))[0];
    let p5 = rt.keys_of_label(process, &t.process_text(5))[0];
    let (lo, hi) = (1_000_000i64, 20_000_000i64);
    let r = rt
        .query(&RowTableRequest {
            columns: vec![process, path],
            path: vec![p3],
            range: Some(TimeRange {
                start_ns: lo,
                end_ns: hi,
            }),
            filters: vec![RowFilter {
                column: process,
                values: vec![p5],
                exclude: true,
            }],
            values: values(&rt),
            ..RowTableRequest::default()
        })
        .unwrap();
    let f = &t.file_io;
    let in_range = |i: usize| f.time[i] >= lo && f.time[i] < hi;
    let want = naive(&t, |i| f.process[i] == 3 && in_range(i));
    assert_eq!(
        r.total.count,
        (0..f.len())
            .filter(|&i| in_range(i) && f.process[i] != 5)
            .count() as u64
    );
    assert_eq!(r.parent.count, want.values().map(|w| w.0).sum::<u64>());
    assert!(r.rows.iter().all(|x| !x.expandable));
    check(&sorted(r.rows), &want);
}

#[test]
fn file_path_graph_keeps_the_naive_top_paths_and_sums_the_rest_into_other() {
    let t = Arc::new(trace());
    let e = Engine::new(Arc::clone(&t));
    let rt = e.row_table(RowTableKind::FileIo);
    let req = RowTableRequest {
        columns: vec![rt.column("File Path").unwrap()],
        ..RowTableRequest::default()
    };
    let (bins, start, end) = (10usize, 500_000i64, 25_000_000i64);
    let g = rt
        .graph(
            &req,
            &GraphBins {
                range: TimeRange {
                    start_ns: start,
                    end_ns: end,
                },
                bins,
                top: 5,
            },
            Measure::Count,
        )
        .unwrap();
    // Naive: per path its count per bin, bin = (t - start) * bins / span.
    let f = &t.file_io;
    let mut per: BTreeMap<String, Vec<i64>> = BTreeMap::new();
    for i in (0..f.len()).filter(|&i| f.time[i] >= start && f.time[i] < end) {
        let b = ((f.time[i] - start) as i128 * bins as i128 / (end - start) as i128) as usize;
        per.entry(t.strings.get(f.path[i]).to_string())
            .or_insert_with(|| vec![0; bins])[b] += 1;
    }
    assert!(per.len() > 4096, "more paths than one pass bins");
    let mut order: Vec<(&String, i64)> = per.iter().map(|(k, v)| (k, v.iter().sum())).collect();
    // Ties between equal totals go by key (first seen): compare totals only.
    order.sort_by_key(|b| std::cmp::Reverse(b.1));
    assert_eq!(g.series.len(), 5);
    for (s, w) in g.series.iter().zip(&order) {
        assert_eq!(s.total, w.1);
        assert_eq!(s.values, per[&s.label], "{}", s.label);
    }
    let other = g.other.unwrap();
    assert_eq!(other.label, format!("Other ({} rows)", per.len() - 5));
    let mut rest = vec![0i64; bins];
    for (k, v) in &per {
        if !g.series.iter().any(|s| &s.label == k) {
            rest.iter_mut().zip(v).for_each(|(x, y)| *x += y);
        }
    }
    assert_eq!(other.values, rest);
}

/// Per key of `key`: its rows' File Path texts, Process texts and times.
type Naive2 = BTreeMap<String, (BTreeSet<String>, BTreeSet<String>, Vec<i64>)>;

fn naive_by(t: &Trace, key: impl Fn(usize) -> String) -> Naive2 {
    let f = &t.file_io;
    let mut m: Naive2 = BTreeMap::new();
    for i in 0..f.len() {
        let e = m.entry(key(i)).or_default();
        e.0.insert(t.strings.get(f.path[i]).to_string());
        e.1.insert(t.process_text(f.process[i]));
        e.2.push(f.duration_ns[i]);
    }
    m
}

/// Unique Count / Single of text columns (counted in bitmaps per group),
/// Sum, Avg and Count of a number column, on both flat levels, against a
/// naive grouping; and a limit keeps the rows a full sort would.
#[test]
fn distinct_texts_sums_and_averages_of_flat_levels_equal_a_naive_grouping() {
    let t = Arc::new(trace());
    let e = Engine::new(Arc::clone(&t));
    let rt = e.row_table(RowTableKind::FileIo);
    let (process, path) = (
        rt.column("Process").unwrap(),
        rt.column("File Path").unwrap(),
    );
    let specs = [
        "File Path:unique",
        "File Path:single",
        "Process:single",
        "Process:unique",
        // A sum of start times means nothing (refused): durations add up.
        "Duration:sum",
        "Duration:avg",
        "Duration:count",
    ];
    let values: Vec<ValueSpec> = specs.iter().map(|s| rt.value_spec(s).unwrap()).collect();
    let f = &t.file_io;
    let single = |s: &BTreeSet<String>| match s.len() {
        1 => CellValue::Text(s.iter().next().unwrap().clone()),
        n => CellValue::Count(n as u64),
    };
    for (columns, want) in [
        (
            vec![process, path],
            naive_by(&t, |i| t.process_text(f.process[i])),
        ),
        (
            vec![path, process],
            naive_by(&t, |i| t.strings.get(f.path[i]).to_string()),
        ),
    ] {
        let r = rt
            .query(&RowTableRequest {
                columns: columns.clone(),
                values: values.clone(),
                ..RowTableRequest::default()
            })
            .unwrap();
        assert_eq!(r.rows.len(), want.len());
        for row in &r.rows {
            let (paths, procs, times) = &want[&row.label];
            let sum: i64 = times.iter().sum();
            assert_eq!(
                row.values,
                vec![
                    CellValue::Count(paths.len() as u64),
                    single(paths),
                    single(procs),
                    CellValue::Count(procs.len() as u64),
                    CellValue::Number(sum),
                    CellValue::Float(sum as f64 / times.len() as f64),
                    CellValue::Count(times.len() as u64),
                ],
                "{}",
                row.label
            );
        }
        // The 50 busiest (ties by key) of a limit are those of every row, in order.
        let top = |limit| {
            rt.query(&RowTableRequest {
                columns: columns.clone(),
                values: values.clone(),
                sort: SortBy {
                    column: ValueColumn::Count,
                    descending: true,
                },
                limit,
                ..RowTableRequest::default()
            })
            .unwrap()
        };
        let (all, cut) = (top(0), top(50.min(want.len() - 1)));
        let mut naive: Vec<(&String, usize)> = want.iter().map(|(k, v)| (k, v.2.len())).collect();
        naive.sort_by_key(|x| std::cmp::Reverse(x.1));
        assert_eq!(cut.omitted, want.len() - cut.rows.len());
        for (a, b) in cut.rows.iter().zip(&all.rows) {
            assert_eq!((a.key, &a.label, a.count), (b.key, &b.label, b.count));
        }
        for (a, w) in cut.rows.iter().zip(&naive) {
            assert_eq!(a.count, w.1 as u64);
        }
    }
}
