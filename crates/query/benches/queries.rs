//! Query latency on synthetic traces of issue 4's shape (100k distinct
//! stacks, 1,000 threads, 500 modules) at 1M and 10M samples. The trace is
//! built directly as a `model::Trace` (the ETL writer for traces this size
//! is being written in parallel) and the engine is built once, outside the
//! timed loop. Run: `cargo bench -p query --bench queries`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use query::synthetic::{self, Shape};
use query::*;
use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

fn table(columns: &[Column], path: &[u32]) -> TableRequest {
    TableRequest {
        columns: columns.to_vec(),
        filters: Filters::default(),
        path: path.to_vec(),
        sort: SortBy::default(),
        limit: 100,
    }
}

fn bench(c: &mut Criterion) {
    for &n in &[1_000_000usize, 10_000_000] {
        let t0 = Instant::now();
        let trace = synthetic::trace(&Shape::bench(n));
        let built = t0.elapsed();
        let t1 = Instant::now();
        let e = Engine::new(Arc::new(trace));
        eprintln!(
            "{n} samples: trace {built:?}, engine index {:?} ({} stack rows, {} call nodes, {} func keys)",
            t1.elapsed(),
            e.trace().stacks.len(),
            e.call_tree().len(),
            e.funcs().len()
        );
        let label = format!("{}M", n / 1_000_000);
        let mut g = c.benchmark_group("query");
        g.sample_size(10)
            .warm_up_time(Duration::from_millis(500))
            .measurement_time(Duration::from_secs(2));

        let pm = [Column::Process, Column::Module];
        g.bench_function(BenchmarkId::new("regroup Process,Module", &label), |b| {
            b.iter(|| black_box(e.table(&table(&pm, &[])).unwrap()))
        });
        let ft = [Column::Function, Column::ThreadId];
        g.bench_function(
            BenchmarkId::new("regroup Function,Thread ID", &label),
            |b| b.iter(|| black_box(e.table(&table(&ft, &[])).unwrap())),
        );
        // Expand the busiest process, then the busiest stack node in it.
        let ps = [Column::Process, Column::Stack];
        let top = e.table(&table(&ps, &[])).unwrap().rows[0].key;
        g.bench_function(BenchmarkId::new("expand process", &label), |b| {
            b.iter(|| black_box(e.table(&table(&ps, &[top])).unwrap()))
        });
        let node = e.table(&table(&ps, &[top])).unwrap().rows[0].key;
        g.bench_function(BenchmarkId::new("expand stack node", &label), |b| {
            b.iter(|| black_box(e.table(&table(&ps, &[top, node])).unwrap()))
        });
        g.bench_function(BenchmarkId::new("flame graph", &label), |b| {
            let req = FlameRequest {
                min_fraction: 0.0005,
                ..FlameRequest::default()
            };
            b.iter(|| black_box(e.flame(&req).unwrap()))
        });
        let module = e.table(&table(&[Column::Module], &[])).unwrap().rows[0].key;
        g.bench_function(BenchmarkId::new("butterfly module", &label), |b| {
            let req = ButterflyRequest {
                target: ButterflyTarget::Module(module),
                by: NeighborBy::Function,
                filters: Filters::default(),
            };
            b.iter(|| black_box(e.butterfly(&req).unwrap()))
        });
        let end = e.trace().samples.time.last().copied().unwrap_or(0) + 1;
        g.bench_function(BenchmarkId::new("timeline 1000 bins", &label), |b| {
            let req = TimelineRequest {
                range: TimeRange {
                    start_ns: 0,
                    end_ns: end,
                },
                bins: 1000,
                by: SeriesBy::Process,
                top: 10,
                filters: Filters::default(),
            };
            b.iter(|| black_box(e.timeline(&req).unwrap()))
        });
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
