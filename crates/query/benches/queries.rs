//! Query latency on synthetic traces of issue 4's shape (100k distinct
//! stacks, 1,000 threads, 500 modules) at 1M and 10M samples, over the
//! whole trace and over the middle 90 % (which forces a scan of the
//! samples). The trace is built directly as a `model::Trace` (an ETL
//! writer for traces this size is being written in parallel); the engine is
//! built once, outside the timed loop. Run: `cargo bench -p query --bench
//! queries`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use query::synthetic::{self, Shape};
use query::Engine;
use std::sync::Arc;
use std::time::Duration;

fn bench(c: &mut Criterion) {
    for &n in &[1_000_000usize, 10_000_000] {
        let e = Engine::new(Arc::new(synthetic::trace(&Shape::bench(n))));
        let mut g = c.benchmark_group("query");
        g.sample_size(10)
            .warm_up_time(Duration::from_millis(300))
            .measurement_time(Duration::from_secs(1));
        for range in [false, true] {
            let scope = if range { "90%" } else { "all" };
            for (name, q) in synthetic::bench_queries(&e, range) {
                let id = BenchmarkId::new(name, format!("{}M {scope}", n / 1_000_000));
                g.bench_function(id, |b| b.iter(&q));
            }
        }
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
