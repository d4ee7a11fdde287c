//! Runs each benchmark query of `benches/queries.rs` in a loop and prints
//! wall time and process CPU time per query (CPU time stays meaningful on
//! a loaded machine). Usage: `cargo run --release -p query --example
//! query_profile -- [samples] [iterations] [query-name-filter]`.

use query::synthetic::{self, Shape};
use query::*;
use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

/// User + system CPU time of this process in seconds, from /proc.
fn cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    // Fields after the parenthesised command name; utime and stime are 14 and 15.
    let rest = stat.rsplit(')').next().unwrap_or("");
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = f.get(11).and_then(|x| x.parse().ok()).unwrap_or(0.0)
        + f.get(12).and_then(|x| x.parse().ok()).unwrap_or(0.0);
    ticks / 100.0
}

fn table(columns: &[Column], path: &[u32]) -> TableRequest {
    TableRequest {
        columns: columns.to_vec(),
        filters: Filters::default(),
        path: path.to_vec(),
        sort: SortBy::default(),
        limit: 100,
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args
        .get(1)
        .and_then(|x| x.parse().ok())
        .unwrap_or(10_000_000);
    let iters: usize = args.get(2).and_then(|x| x.parse().ok()).unwrap_or(20);
    let only = args.get(3).cloned().unwrap_or_default();
    let e = Engine::new(Arc::new(synthetic::trace(&Shape::bench(n))));
    let ps = [Column::Process, Column::Stack];
    let top = e.table(&table(&ps, &[])).unwrap().rows[0].key;
    let node = e.table(&table(&ps, &[top])).unwrap().rows[0].key;
    let module = e.table(&table(&[Column::Module], &[])).unwrap().rows[0].key;
    let end = e.trace().samples.time.last().copied().unwrap_or(0) + 1;
    type Query<'a> = (&'static str, Box<dyn Fn() + 'a>);
    let queries: Vec<Query> = vec![
        (
            "regroup Process,Module",
            Box::new(|| {
                black_box(
                    e.table(&table(&[Column::Process, Column::Module], &[]))
                        .unwrap(),
                );
            }),
        ),
        (
            "regroup Function,Thread ID",
            Box::new(|| {
                black_box(
                    e.table(&table(&[Column::Function, Column::ThreadId], &[]))
                        .unwrap(),
                );
            }),
        ),
        (
            "expand process",
            Box::new(|| {
                black_box(e.table(&table(&ps, &[top])).unwrap());
            }),
        ),
        (
            "expand stack node",
            Box::new(|| {
                black_box(e.table(&table(&ps, &[top, node])).unwrap());
            }),
        ),
        (
            "flame graph",
            Box::new(|| {
                let req = FlameRequest {
                    min_fraction: 0.0005,
                    ..FlameRequest::default()
                };
                black_box(e.flame(&req).unwrap());
            }),
        ),
        (
            "butterfly module",
            Box::new(|| {
                let req = ButterflyRequest {
                    target: ButterflyTarget::Module(module),
                    by: NeighborBy::Function,
                    filters: Filters::default(),
                };
                black_box(e.butterfly(&req).unwrap());
            }),
        ),
        (
            "timeline 1000 bins",
            Box::new(|| {
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
                black_box(e.timeline(&req).unwrap());
            }),
        ),
    ];
    for (name, q) in &queries {
        if !name.contains(only.as_str()) {
            continue;
        }
        q();
        let (w0, c0) = (Instant::now(), cpu_seconds());
        for _ in 0..iters {
            q();
        }
        let wall = w0.elapsed().as_secs_f64() * 1e3 / iters as f64;
        let cpu = (cpu_seconds() - c0) * 1e3 / iters as f64;
        println!("{name:<28} {n:>9} samples: wall {wall:7.1} ms  cpu {cpu:7.1} ms/query");
    }
}
