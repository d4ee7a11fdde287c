//! A table's graph binned in its own pass over the rows
//! (`RowTable::query_graphed`) equals the graph asked on its own
//! (`RowTable::graph`) on random File I/O tables: every level, path,
//! filter, range, measure and bin count below, and the table beside it
//! equals `query`'s.

use model::Trace;
use query::synthetic;
use query::*;
use std::sync::Arc;

/// A synthetic File I/O trace with random sizes and durations (the
/// writer's has none), so that weight and Size graphs have values.
fn trace(rows: usize, paths: usize, seed: u64) -> Trace {
    let mut t = synthetic::file_io_trace(rows, paths, seed);
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for i in 0..t.file_io.len() {
        t.file_io.size[i] = next() % 70_000;
        // Some rows without a duration (weight 0).
        t.file_io.duration_ns[i] = (next() % 5_000_000) as i64 * i64::from(next() % 4 != 0);
    }
    t
}

/// Compares the graph of every request shape; returns how many of them
/// were binned in the table's scan.
fn compare_all(rt: &RowTable, duration: i64) -> (usize, usize) {
    let col = |n: &str| rt.column(n).unwrap();
    let (process, path, thread, ty) =
        (col("Process"), col("File Path"), col("Thread"), col("Type"));
    let size = rt.defs.iter().position(|d| d.name == "Size").unwrap();
    let values: Vec<ValueSpec> = ["Start Time:min", "Size:sum"]
        .iter()
        .map(|s| rt.value_spec(s).unwrap())
        .collect();
    let first_process = rt.query(&RowTableRequest {
        columns: vec![process],
        ..RowTableRequest::default()
    });
    let rows = first_process.unwrap().rows;
    let (p0, p1) = (rows[0].key, rows[1].key);
    let mid = TimeRange {
        start_ns: duration / 5,
        end_ns: duration * 3 / 4,
    };
    let whole = TimeRange {
        start_ns: 0,
        end_ns: duration,
    };
    let (mut binned, mut all) = (0, 0);
    for columns in [
        vec![process, path],
        vec![process],
        vec![thread, process],
        vec![path, process],
        vec![ty, path],
    ] {
        for under in [vec![], vec![p0]] {
            // Under a process of a table grouped by Process first, and a
            // level there is (below the last column there is no graph).
            if !under.is_empty() && (columns[0] != process || columns.len() < 2) {
                continue;
            }
            for (filters, range, bins_range) in [
                (vec![], None, whole),
                (vec![], None, mid),
                (
                    vec![RowFilter {
                        column: process,
                        values: vec![p1],
                        exclude: true,
                    }],
                    Some(mid),
                    mid,
                ),
                // The table's range wider than the graph's: rows outside
                // the graph's are not binned.
                (vec![], Some(whole), mid),
            ] {
                for (measure, bins, top) in [
                    (Measure::Count, 7, 3),
                    (Measure::Weight, 50, 10),
                    (Measure::Column(size), 13, 100),
                ] {
                    let req = RowTableRequest {
                        columns: columns.clone(),
                        filters: filters.clone(),
                        range,
                        path: under.clone(),
                        values: values.clone(),
                        limit: 5,
                        ..RowTableRequest::default()
                    };
                    let g = GraphBins {
                        range: bins_range,
                        bins,
                        top,
                    };
                    let (table, in_scan) = rt.query_graphed(&req, Some((&g, measure))).unwrap();
                    assert_eq!(table, rt.query(&req).unwrap(), "{req:?}");
                    all += 1;
                    let Some(in_scan) = in_scan else { continue };
                    binned += 1;
                    let alone = rt.graph(&req, &g, measure).unwrap();
                    assert!(
                        !alone.series.is_empty() || table.rows.is_empty(),
                        "nothing to compare: {req:?}"
                    );
                    assert_eq!(in_scan, alone, "{req:?} {g:?} {measure:?}");
                }
            }
        }
    }
    (binned, all)
}

#[test]
fn graphs_binned_in_the_tables_scan_equal_the_graph_asked_alone() {
    for seed in [1, 23] {
        // 300 paths: every level is binned in the scan.
        let t = Arc::new(trace(60_000, 300, seed));
        let duration = t.info.duration_ns;
        let e = Engine::new(Arc::clone(&t));
        let (binned, all) = compare_all(&e.row_table(RowTableKind::FileIo), duration);
        assert_eq!(binned, all, "seed {seed}: every level has few keys");
    }
}

#[test]
fn a_level_of_many_keys_is_left_to_the_graph_query() {
    // 6,000 paths: more than one pass bins; Process levels still are.
    let t = Arc::new(trace(200_000, 6_000, 5));
    let duration = t.info.duration_ns;
    let e = Engine::new(Arc::clone(&t));
    let rt = e.row_table(RowTableKind::FileIo);
    let (binned, all) = compare_all(&rt, duration);
    assert!(
        binned > 0 && binned < all,
        "{binned} of {all} binned in the scan"
    );
    let path = rt.column("File Path").unwrap();
    let g = GraphBins {
        range: TimeRange {
            start_ns: 0,
            end_ns: duration,
        },
        bins: 10,
        top: 10,
    };
    let req = RowTableRequest {
        columns: vec![path],
        ..RowTableRequest::default()
    };
    let (_, in_scan) = rt.query_graphed(&req, Some((&g, Measure::Count))).unwrap();
    assert!(in_scan.is_none());
}

#[test]
fn lifetime_tables_have_no_graph_in_the_scan() {
    let t = Arc::new(trace(1_000, 10, 3));
    let e = Engine::new(Arc::clone(&t));
    let rt = e.row_table(RowTableKind::Processes);
    let g = GraphBins {
        range: TimeRange {
            start_ns: 0,
            end_ns: t.info.duration_ns,
        },
        bins: 10,
        top: 10,
    };
    let req = RowTableRequest {
        columns: vec![rt.column("Process").unwrap()],
        ..RowTableRequest::default()
    };
    let (table, in_scan) = rt.query_graphed(&req, Some((&g, Measure::Count))).unwrap();
    assert_eq!(table, rt.query(&req).unwrap());
    assert!(in_scan.is_none());
}
