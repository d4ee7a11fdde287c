//! Row-table regroup latency on 10 million File I/O rows (issue 14): the
//! table and the graph above it for the regroups `perf-values.test.mjs`
//! drives, with Count, Start Time (Min) and Start Time (Max) as values. The
//! trace is built directly as a `model::Trace` (`synthetic::file_io_trace`,
//! the shape of `etlscope synth bench --file-creates N --file-paths
//! 100000`). Run: `cargo bench -p query --bench row_tables`
//! (`ETLSCOPE_BENCH_FILE_IO=N` for another row count).

use criterion::{criterion_group, criterion_main, Criterion};
use query::{
    synthetic, Engine, GraphBins, Measure, RowTableKind, RowTableRequest, SortBy, TimeRange,
    ValueColumn,
};
use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

fn bench(c: &mut Criterion) {
    let rows = std::env::var("ETLSCOPE_BENCH_FILE_IO")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000_000usize);
    let e = Engine::new(Arc::new(synthetic::file_io_trace(rows, 100_000, 7)));
    let rt = e.row_table(RowTableKind::FileIo);
    let col = |n: &str| rt.column(n).expect("column");
    let values: Vec<_> = ["Count", "Start Time:min", "Start Time:max"]
        .iter()
        .map(|s| rt.value_spec(s).expect("value column"))
        .collect();
    let req = |columns: Vec<usize>| RowTableRequest {
        columns,
        values: values.clone(),
        sort: SortBy {
            column: ValueColumn::Count,
            descending: true,
        },
        limit: 500,
        ..RowTableRequest::default()
    };
    let bins = GraphBins {
        range: TimeRange {
            start_ns: 0,
            end_ns: rows as i64 * 100 + 100,
        },
        bins: 500,
        top: 10,
    };
    let mut g = c.benchmark_group("row_tables");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    for (name, columns) in [
        ("Process,File Path", vec![col("Process"), col("File Path")]),
        ("File Path,Process", vec![col("File Path"), col("Process")]),
    ] {
        let r = req(columns);
        g.bench_function(format!("table {name} {}M", rows / 1_000_000), |b| {
            b.iter(|| black_box(rt.query(&r).ok()))
        });
        // What the page asks for: the table with its graph binned in the
        // same pass (a level of few keys), 300 bins of the row count.
        let in_scan = GraphBins { bins: 300, ..bins };
        g.bench_function(format!("table+graph {name} {}M", rows / 1_000_000), |b| {
            b.iter(|| black_box(rt.query_graphed(&r, Some((&in_scan, Measure::Count))).ok()))
        });
        g.bench_function(format!("graph {name} {}M", rows / 1_000_000), |b| {
            b.iter(|| black_box(rt.graph(&r, &bins, Measure::Weight).ok()))
        });
    }
    // File Path dragged to the values: Process groups with its Single (distinct paths).
    let mut r = req(vec![col("Process")]);
    r.values
        .push(rt.value_spec("File Path:single").expect("value column"));
    g.bench_function(
        format!("table Process, File Path:single {}M", rows / 1_000_000),
        |b| b.iter(|| black_box(rt.query(&r).ok())),
    );
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
