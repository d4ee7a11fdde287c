//! Reader benchmark for one trace file (see docs/BENCHMARKS.md):
//! (a) every event, in parallel over buffers, touching each payload;
//! (b) decompression alone (compressed files), parallel and single-thread;
//! (c) peak heap over open + (a), from a counting global allocator
//!     (memory-mapped pages are not heap and do not count);
//! (d) the time-ordered merge of all events (single thread), for reference.
//!
//! cargo run --release -p etl --example bench_read -- FILE [--iterations N] [--no-ordered]
//!
//! Prints a readable report and one `RESULT key=value ...` line for scripts.

use etl::EtlFile;
use rayon::prelude::*;
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;
use testdata::counting_alloc;

#[global_allocator]
static ALLOC: testdata::Counting = testdata::Counting;

#[derive(Default, Clone, Copy)]
struct Totals {
    events: u64,
    event_bytes: u64,
    /// Sum over payloads of their length and first byte: keeps the walk honest.
    touch: u64,
    errors: u64,
}

fn read_all(file: &EtlFile) -> Totals {
    let parts = file.par_map_buffers(|r| {
        let mut t = Totals::default();
        match r {
            Ok(b) => {
                t.event_bytes = b.data.len() as u64;
                for e in b.events() {
                    match e {
                        Ok(e) => {
                            t.events += 1;
                            t.touch += e.payload.len() as u64
                                + e.payload.first().copied().unwrap_or(0) as u64;
                        }
                        Err(_) => t.errors += 1,
                    }
                }
            }
            Err(_) => t.errors += 1,
        }
        t
    });
    parts.into_iter().fold(Totals::default(), |a, t| Totals {
        events: a.events + t.events,
        event_bytes: a.event_bytes + t.event_bytes,
        touch: a.touch.wrapping_add(t.touch),
        errors: a.errors + t.errors,
    })
}

/// Decompress every compressed buffer, nothing else; returns bytes produced.
fn decompress_all(file: &EtlFile, parallel: bool) -> u64 {
    let one = |scratch: &mut Vec<u8>, info: &etl::buffer::BufferInfo| -> u64 {
        if !info.header.is_compressed() {
            return 0;
        }
        file.buffer_data(info, scratch)
            .map_or(0, |d| d.len() as u64)
    };
    if parallel {
        file.buffers().par_iter().map_init(Vec::new, one).sum()
    } else {
        let mut scratch = Vec::new();
        file.buffers().iter().map(|i| one(&mut scratch, i)).sum()
    }
}

/// Wall and CPU seconds of the first run and the best (least wall) run.
#[derive(Clone, Copy)]
struct Timing {
    first_wall: f64,
    first_cpu: f64,
    wall: f64,
    cpu: f64,
}

/// Run `f` `n` times; returns the timing and the last result.
fn timed<T>(n: usize, mut f: impl FnMut() -> T) -> (Timing, T) {
    let run = |f: &mut dyn FnMut() -> T| {
        let t = Instant::now();
        let (r, cpu) = with_cpu(f);
        (t.elapsed().as_secs_f64(), cpu, r)
    };
    let (wall, cpu, mut last) = run(&mut f);
    let mut tm = Timing {
        first_wall: wall,
        first_cpu: cpu,
        wall,
        cpu,
    };
    for _ in 1..n.max(1) {
        let (wall, cpu, r) = run(&mut f);
        if wall < tm.wall {
            tm.wall = wall;
            tm.cpu = cpu;
        }
        last = r;
    }
    (tm, last)
}

const MB: f64 = 1e6;

/// CPU time of this process so far, all threads, in seconds: the sum of the
/// per-thread run times in /proc/self/task/*/schedstat (Linux; ns precision).
/// Threads that have exited are not counted, so call it while rayon's pool lives.
fn cpu_s() -> Option<f64> {
    let mut ns = 0u64;
    for t in std::fs::read_dir("/proc/self/task").ok()? {
        let path = t.ok()?.path().join("schedstat");
        let s = std::fs::read_to_string(path).ok()?;
        ns += s.split_whitespace().next()?.parse::<u64>().ok()?;
    }
    Some(ns as f64 / 1e9)
}

/// Run `f`, returning its result and the CPU seconds it used.
fn with_cpu<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let before = cpu_s().unwrap_or(0.0);
    let r = f();
    (r, cpu_s().unwrap_or(0.0) - before)
}

fn main() -> ExitCode {
    let mut path = None;
    let mut iterations = 3usize;
    let mut ordered = true;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--iterations" => iterations = args.next().and_then(|v| v.parse().ok()).unwrap_or(3),
            "--no-ordered" => ordered = false,
            _ => path = Some(a),
        }
    }
    let Some(path) = path else {
        eprintln!("usage: bench_read FILE [--iterations N] [--no-ordered]");
        return ExitCode::FAILURE;
    };
    let base_heap = counting_alloc::reset_peak();
    let t = Instant::now();
    let (opened, open_cpu) = with_cpu(|| EtlFile::open(Path::new(&path)));
    let file = match opened {
        Ok(f) => f,
        Err(e) => {
            eprintln!("{path}: {e}");
            return ExitCode::FAILURE;
        }
    };
    let open_s = t.elapsed().as_secs_f64();
    let file_bytes = file.file_len();
    let compressed = file
        .buffers()
        .iter()
        .filter(|b| b.header.is_compressed())
        .count();
    let threads = rayon::current_num_threads();

    let (tm, totals) = timed(iterations, || read_all(&file));
    let (first_s, read_s) = (tm.first_wall, tm.wall);
    let peak = counting_alloc::peak().saturating_sub(base_heap);
    let ev_mbps = totals.event_bytes as f64 / MB / read_s;
    println!("file: {path}");
    println!(
        "  {} bytes, {} buffers ({} compressed), {} events, {} bytes of events; {threads} threads",
        file_bytes,
        file.buffers().len(),
        compressed,
        totals.events,
        totals.event_bytes
    );
    println!(
        "  open (index buffers): {:.3} s wall, {:.3} s CPU",
        open_s, open_cpu
    );
    println!(
        "  (a) first pass (maps pages in): {:.3} s wall, {:.3} s CPU; open + first pass = {:.0} MB/s of file",
        first_s,
        tm.first_cpu,
        file_bytes as f64 / MB / (open_s + first_s)
    );
    println!(
        "  (a) all events, parallel, best of {iterations}: {:.3} s wall ({:.3} s CPU) = {:.0} MB/s of event bytes, {:.0} MB/s of file, {:.2} M events/s (errors {}, touch {})",
        read_s,
        tm.cpu,
        ev_mbps,
        file_bytes as f64 / MB / read_s,
        totals.events as f64 / 1e6 / read_s,
        totals.errors,
        totals.touch
    );
    println!(
        "  (c) peak heap over open + (a): {} bytes = {:.3}% of the file",
        peak,
        100.0 * peak as f64 / file_bytes.max(1) as f64
    );
    let mut result = format!(
        "RESULT file_bytes={file_bytes} events={} event_bytes={} open_s={open_s:.4} open_cpu_s={open_cpu:.4} first_s={first_s:.4} first_cpu_s={:.4} read_s={read_s:.4} read_cpu_s={:.4} read_event_mbps={ev_mbps:.1} events_per_s={:.0} peak_heap={peak}",
        totals.events,
        totals.event_bytes,
        tm.first_cpu,
        tm.cpu,
        totals.events as f64 / read_s
    );
    if compressed > 0 {
        let (par, out) = timed(iterations, || decompress_all(&file, true));
        let (one, _) = timed(iterations, || decompress_all(&file, false));
        let (par_s, one_s) = (par.wall, one.wall);
        println!(
            "  (b) decompression alone: parallel {:.3} s wall ({:.3} s CPU) = {:.0} MB/s out; single thread {:.3} s wall ({:.3} s CPU) = {:.0} MB/s out ({} bytes)",
            par_s,
            par.cpu,
            out as f64 / MB / par_s,
            one_s,
            one.cpu,
            out as f64 / MB / one_s,
            out
        );
        result += &format!(
            " decompress_par_mbps={:.1} decompress_1t_mbps={:.1} decompress_1t_cpu_s={:.4}",
            out as f64 / MB / par_s,
            out as f64 / MB / one_s,
            one.cpu
        );
    }
    if ordered {
        let t = Instant::now();
        let mut n = 0u64;
        let diags = file.for_each_event_in_order(|_| n += 1);
        let s = t.elapsed().as_secs_f64();
        println!(
            "  (d) time-ordered merge, one thread: {:.3} s = {:.2} M events/s ({} events, {} diagnostics)",
            s,
            n as f64 / 1e6 / s,
            n,
            diags.len()
        );
        result += &format!(" ordered_s={s:.4}");
    }
    println!("{result}");
    ExitCode::SUCCESS
}
