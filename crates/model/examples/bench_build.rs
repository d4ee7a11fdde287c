//! Model build benchmark: time, ns per event, peak heap and bytes per sample.
//!
//! cargo run --release -p model --example bench_build -- FILE [ITERATIONS]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// Counts live and peak heap bytes (memory-mapped file pages are not heap).
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            let now = LIVE.fetch_add(l.size(), Ordering::Relaxed) + l.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) };
        LIVE.fetch_sub(l.size(), Ordering::Relaxed);
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, l, new) };
        if !q.is_null() {
            if new > l.size() {
                let now = LIVE.fetch_add(new - l.size(), Ordering::Relaxed) + new - l.size();
                PEAK.fetch_max(now, Ordering::Relaxed);
            } else {
                LIVE.fetch_sub(l.size() - new, Ordering::Relaxed);
            }
        }
        q
    }
}

#[global_allocator]
static A: Counting = Counting;

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
        PEAK.store(LIVE.load(Ordering::Relaxed), Ordering::Relaxed);
        let base = LIVE.load(Ordering::Relaxed);
        let t = Instant::now();
        let mut steps = model::ingest::steps::StepTimes::on(testdata::process_cpu_ms);
        let trace = model::build_with_steps(
            &file,
            &model::progress::BuildProgress::default(),
            &mut steps,
        );
        eprintln!("steps (CPU/wall ms): {}", steps.line());
        times.push(t.elapsed().as_secs_f64());
        let peak = PEAK.load(Ordering::Relaxed) - base;
        let kept = LIVE.load(Ordering::Relaxed) - base;
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
