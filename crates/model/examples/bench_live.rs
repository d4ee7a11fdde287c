//! Live snapshot benchmark: replays FILE through the live path and, every
//! EVERY events, builds the snapshot from scratch and resumed from the
//! previous snapshot's checkpoint, one after the other (same moment, same
//! load), printing both times in ms of the process's CPU time and of wall
//! time. The query index the server adds on top is not included.
//!
//! cargo run --release -p model --example bench_live -- FILE [EVERY]

use model::ingest::live::{LiveBuilder, LiveState};
use model::ingest::FileMeta;
use std::time::Instant;
use testdata::process_cpu_ms as cpu_ms;

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: bench_live FILE [EVERY]");
        std::process::exit(2);
    };
    let every: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(500_000);
    let file = etl::EtlFile::open(std::path::Path::new(&path)).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(1);
    });
    let mut live = LiveBuilder::new(FileMeta::of(&file));
    let mut next = every;
    let mut checkpoint = LiveState::default();
    println!(
        "events\tscratch_cpu_ms\tscratch_wall_ms\tresumed_cpu_ms\tresumed_wall_ms\tresumed_samples"
    );
    file.for_each_event_in_order(|e| {
        live.push(e, 0);
        if live.events() < next {
            return;
        }
        next += every;
        let (c, w) = (cpu_ms(), Instant::now());
        drop(live.snapshot_input().build());
        let scratch = (cpu_ms() - c, w.elapsed().as_secs_f64() * 1e3);
        let (c, w) = (cpu_ms(), Instant::now());
        let b = live
            .snapshot_input()
            .build_after(std::mem::take(&mut checkpoint));
        let resumed = (cpu_ms() - c, w.elapsed().as_secs_f64() * 1e3);
        checkpoint = b.next;
        println!(
            "{}\t{:.0}\t{:.0}\t{:.0}\t{:.0}\t{}",
            live.events(),
            scratch.0,
            scratch.1,
            resumed.0,
            resumed.1,
            b.resumed
        );
    });
}
