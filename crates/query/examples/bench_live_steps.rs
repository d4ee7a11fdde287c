//! Per-step cost of live snapshots: replays FILE through the live path and,
//! every EVERY events, copies the records, builds the snapshot resumed from
//! the previous one's state and the query index over it (extended from the
//! previous index), as the server does, printing each step's CPU time (this process's, rayon's workers
//! included: it does not depend on other processes' load) and wall time.
//!
//! cargo run --release -p query --example bench_live_steps -- FILE [EVERY]

use model::ingest::live::{LiveBuilder, LiveState};
use model::ingest::steps::StepTimes;
use model::ingest::FileMeta;
use query::index::live::Kept;
use query::Engine;
use std::sync::Arc;
use testdata::process_cpu_ms as cpu_ms;

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: bench_live_steps FILE [EVERY]");
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
    let mut seed = None;
    let mut snapshot = |live: &mut LiveBuilder, last: bool| {
        let mut steps = StepTimes::on(cpu_ms);
        let input = live.snapshot_input();
        steps.mark("copy");
        let b = input.build_after_timed(std::mem::take(&mut checkpoint), &mut steps);
        checkpoint = b.next;
        let trace = Arc::new(b.trace);
        let engine = match seed.take() {
            Some(s) if b.resumed > 0 => {
                let kept = Kept {
                    samples: b.resumed,
                    threads: b.resumed_threads,
                    stacks: b.resumed_stacks,
                };
                Engine::extending(&s, trace, kept)
            }
            _ => Engine::new(trace),
        };
        seed = Some(engine.live_seed());
        drop(engine);
        steps.mark("query index");
        let (cpu, wall) = steps
            .steps
            .iter()
            .fold((0.0, 0.0), |(c, w), s| (c + s.2, w + s.1));
        println!(
            "{}{} events: total CPU {cpu:.0} ms / wall {wall:.0} ms (resumed {} samples); CPU/wall ms: {}",
            if last { "finished, " } else { "" },
            live.events(),
            b.resumed,
            steps.line()
        );
    };
    file.for_each_event_in_order(|e| {
        live.push(e, 0);
        if live.events() >= next {
            next += every;
            snapshot(&mut live, false);
        }
    });
    snapshot(&mut live, true);
}
