//! Multi-file traces: the model of several files read as one trace (one time
//! line, images joined across files) against the models of the same files
//! built one after another. Median of N runs each, same process, files in
//! the page cache.
//!
//!     cargo run --release -p model --example bench_members -- [--runs N] FILE...

use std::path::{Path, PathBuf};
use std::time::Instant;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn time<T>(runs: usize, mut f: impl FnMut() -> T) -> f64 {
    let v = (0..runs)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(f());
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    median(v)
}

fn main() {
    let mut runs = 5;
    let mut files: Vec<PathBuf> = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a == "--runs" {
            runs = args.next().and_then(|n| n.parse().ok()).unwrap_or(5);
        } else {
            files.push(a.into());
        }
    }
    if files.is_empty() {
        eprintln!("usage: bench_members [--runs N] FILE...");
        std::process::exit(2);
    }
    let paths: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    // Reading: every event in time order, the files merged into one time
    // line, against each file read in its own time order, one after another.
    let read_together = || {
        let f = etl::EtlFile::open_many(&paths).expect("open");
        let mut n = 0u64;
        f.for_each_event_in_order(|_| n += 1);
        n
    };
    let read_apart = || {
        paths
            .iter()
            .map(|p| {
                let f = etl::EtlFile::open(p).expect("open");
                let mut n = 0u64;
                f.for_each_event_in_order(|_| n += 1);
                n
            })
            .sum::<u64>()
    };
    let build_together = || {
        let f = etl::EtlFile::open_many(&paths).expect("open");
        model::build(&f).info.events
    };
    let build_apart = || {
        paths
            .iter()
            .map(|p| {
                let f = etl::EtlFile::open(p).expect("open");
                model::build(&f).info.events
            })
            .sum::<u64>()
    };
    // Interleaved, so that the load of a shared machine falls on both alike.
    let (mut rt, mut ra, mut bt, mut ba) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for _ in 0..runs {
        rt.push(time(1, read_together));
        ra.push(time(1, read_apart));
        bt.push(time(1, build_together));
        ba.push(time(1, build_apart));
    }
    let f = etl::EtlFile::open_many(&paths).expect("open");
    let t = model::build(&f);
    println!(
        "{} files, {} events, {} images (median of {runs}, interleaved):",
        paths.len(),
        t.info.events,
        t.images.len()
    );
    println!(
        "  read in time order: as one trace {:.1} ms, one after another {:.1} ms",
        median(rt),
        median(ra)
    );
    println!(
        "  model build: as one trace {:.1} ms, one after another {:.1} ms",
        median(bt),
        median(ba)
    );
}
