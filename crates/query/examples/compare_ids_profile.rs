//! Times `ids::compare` (and the cut to 500 rows, as `POST
//! /api/compare` asks) on two synthetic traces of `Shape::bench(N)`,
//! seeds 42 and 43, per grouping (`ETLSCOPE_GROUPS="Process Name;Module"`,
//! default the four of issue 17), with the process's CPU time beside;
//! `ETLSCOPE_ROUNDS` times each (default 2: the first fills the engines'
//! per-trace compare caches, the next are requests as a server answers them).

use query::compare::ids::{self, Side};
use query::synthetic::{self, Shape};
use query::Engine;
use std::sync::Arc;
use std::time::Instant;

fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let f: Vec<&str> = stat
        .rsplit(')')
        .next()
        .unwrap_or("")
        .split_whitespace()
        .collect();
    let ticks = |i: usize| f.get(i).and_then(|x| x.parse::<f64>().ok()).unwrap_or(0.0);
    (ticks(11) + ticks(12)) / 100.0
}

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(2_000_000);
    let engine = |seed| {
        let t = synthetic::trace(&Shape {
            seed,
            ..Shape::bench(n)
        });
        Engine::new(Arc::new(t))
    };
    let (b, e) = (engine(42), engine(43));
    let groups = std::env::var("ETLSCOPE_GROUPS")
        .unwrap_or_else(|_| "Process Name;Module;Function;Process,Stack".into());
    let rounds: usize = std::env::var("ETLSCOPE_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(2);
    let groups: Vec<&str> = groups.split(';').collect();
    for (round, g) in (0..rounds).flat_map(|r| groups.iter().map(move |g| (r + 1, *g))) {
        let keys: Vec<String> = g.split(',').map(|s| s.to_string()).collect();
        let (t0, c0) = (Instant::now(), cpu_seconds());
        let side = |engine| Side {
            engine,
            range: None,
        };
        let Some(c) = ids::compare(side(&b), side(&e), "cpu-sampled", &keys, None, 1.0) else {
            println!("{g}: not covered");
            continue;
        };
        let total = c.len();
        let (table, _) = c.into_table(500);
        println!(
            "round {round}, {g}: {total} rows ({} returned) in {:.0} ms, CPU {:.2} s",
            table.rows.len(),
            t0.elapsed().as_secs_f64() * 1e3,
            cpu_seconds() - c0
        );
    }
    println!(
        "per-trace compare caches: {} and {} bytes",
        b.compare_cache_bytes(),
        e.compare_cache_bytes()
    );
}
