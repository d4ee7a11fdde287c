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
    let together = time(runs, || {
        let f = etl::EtlFile::open_many(&paths).expect("open");
        model::build(&f).info.events
    });
    let apart = time(runs, || {
        paths
            .iter()
            .map(|p| {
                let f = etl::EtlFile::open(p).expect("open");
                model::build(&f).info.events
            })
            .sum::<u64>()
    });
    let f = etl::EtlFile::open_many(&paths).expect("open");
    let t = model::build(&f);
    println!(
        "{} files, {} events, {} images: as one trace {together:.1} ms, one after another {apart:.1} ms (median of {runs})",
        paths.len(),
        t.info.events,
        t.images.len()
    );
}
