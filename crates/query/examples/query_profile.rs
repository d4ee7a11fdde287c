//! Runs the benchmark queries (`synthetic::bench_queries`) in a loop and
//! prints wall time and process CPU time per query; CPU time stays
//! meaningful on a loaded machine. Usage: `cargo run --release -p query
//! --example query_profile -- [samples] [iterations] [name-filter] [distinct-stacks]`
//! (distinct stacks default to the bench shape's 100,000; the 10M writer
//! trace of the browser benchmark has about 1M, 2M stack rows).

use query::synthetic::{self, Shape};
use query::Engine;
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

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args
        .get(1)
        .and_then(|x| x.parse().ok())
        .unwrap_or(10_000_000);
    let iters: usize = args.get(2).and_then(|x| x.parse().ok()).unwrap_or(20);
    let only = args.get(3).cloned().unwrap_or_default();
    let mut shape = Shape::bench(n);
    if let Some(s) = args.get(4).and_then(|x| x.parse().ok()) {
        shape.stacks = s;
    }
    let t0 = Instant::now();
    let trace = synthetic::trace(&shape);
    let t1 = Instant::now();
    let (c0, w0) = (cpu_seconds(), Instant::now());
    let e = Engine::new(Arc::new(trace));
    println!(
        "{n} samples: trace built in {:.0} ms; engine index {:.0} ms wall, {:.0} ms cpu",
        (t1 - t0).as_secs_f64() * 1e3,
        w0.elapsed().as_secs_f64() * 1e3,
        (cpu_seconds() - c0) * 1e3
    );
    for range in [false, true] {
        for (name, q) in synthetic::bench_queries(&e, range) {
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
            let scope = if range { "90% range" } else { "whole trace" };
            println!("{name:<28} {scope:<12} wall {wall:7.1} ms  cpu {cpu:7.1} ms/query");
        }
    }
}
