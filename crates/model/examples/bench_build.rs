//! Model build benchmark: time, ns per event, peak heap and bytes per sample.
//!
//! cargo run --release -p model --example bench_build -- FILE [ITERATIONS]

use std::time::Instant;
use testdata::counting_alloc;

#[global_allocator]
static A: testdata::Counting = testdata::Counting;

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: bench_build FILE [ITERATIONS]");
        std::process::exit(2);
    };
    let iterations: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(3);
    let file = match etl::EtlFile::open(std::path::Path::new(&path)) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(1);
        }
    };
    let mut times = Vec::new();
    let mut last = None;
    for _ in 0..iterations {
        drop(last.take());
        let base = counting_alloc::reset_peak();
        let t = Instant::now();
        let mut steps = model::ingest::steps::StepTimes::on(testdata::process_cpu_ms);
        let trace = model::build_with_steps(
            &file,
            &model::progress::BuildProgress::default(),
            &mut steps,
        );
        eprintln!("steps (CPU/wall ms): {}", steps.line());
        times.push(t.elapsed().as_secs_f64());
        let peak = counting_alloc::peak() - base;
        let kept = counting_alloc::live() - base;
        last = Some((trace, peak, kept));
    }
    let Some((trace, peak, kept)) = last else {
        return;
    };
    times.sort_by(f64::total_cmp);
    let median = times[times.len() / 2];
    let events = trace.info.events;
    let samples = trace.samples.len();
    println!(
        "{path}: {} MB, {events} events, {samples} samples ({} with stack), {} stacks, {} frames, {} threads, {} modules",
        file.file_len() / 1_000_000,
        trace.info.samples_with_stack,
        trace.stacks.len(),
        trace.frames.len(),
        trace.threads.len(),
        trace.modules.len(),
    );
    println!(
        "build: median {median:.3} s of {iterations} ({:.1} ns/event, {:.2} M events/s); peak heap {:.1} MB during build, {:.1} MB kept; sample columns {} bytes/sample; kept heap {:.1} bytes/sample",
        median * 1e9 / events.max(1) as f64,
        events as f64 / median / 1e6,
        peak as f64 / 1e6,
        kept as f64 / 1e6,
        model::samples::SampleTable::BYTES_PER_SAMPLE,
        kept as f64 / samples.max(1) as f64,
    );
}
