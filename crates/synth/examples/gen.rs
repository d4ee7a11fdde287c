//! Generate a benchmark trace of about a given size.
//!
//! cargo run --release -p synth --example gen -- --bytes 1G [--compressed]
//!     [--pointer-size 4] [--cpus N] [--seed S] -o FILE
//! cargo run --release -p synth --example gen -- --samples 10000000 --stacks 100000
//!     --threads 1000 --modules 500 -o FILE

use std::fs::File;
use std::io::BufWriter;
use std::process::ExitCode;
use std::time::Instant;
use synth::{write_bench, write_bench_bytes, BenchParams};

fn parse_size(s: &str) -> Option<u64> {
    let s = s.trim();
    let (num, mul) = match s.chars().last()? {
        'k' | 'K' => (&s[..s.len() - 1], 1u64 << 10),
        'm' | 'M' => (&s[..s.len() - 1], 1 << 20),
        'g' | 'G' => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    let v: f64 = num.parse().ok()?;
    Some((v * mul as f64) as u64)
}

fn run() -> Result<(), String> {
    let mut params = BenchParams::default();
    let mut bytes = None;
    let mut samples: Option<u64> = None;
    let mut out = None;
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut val = || it.next().ok_or_else(|| format!("{a} needs a value"));
        match a.as_str() {
            "--bytes" => bytes = Some(parse_size(&val()?).ok_or("bad --bytes")?),
            "--compressed" => params.compress = true,
            "--pointer-size" => {
                params.pointer_size = val()?.parse().map_err(|_| "bad --pointer-size")?
            }
            "--cpus" => params.cpus = val()?.parse().map_err(|_| "bad --cpus")?,
            "--seed" => params.seed = val()?.parse().map_err(|_| "bad --seed")?,
            "--samples" => samples = Some(val()?.parse().map_err(|_| "bad --samples")?),
            "--stacks" => params.distinct_stacks = val()?.parse().map_err(|_| "bad --stacks")?,
            "--threads" => params.threads = val()?.parse().map_err(|_| "bad --threads")?,
            "--modules" => params.modules = val()?.parse().map_err(|_| "bad --modules")?,
            "-o" | "--output" => out = Some(val()?),
            _ => return Err(format!("unknown argument {a}")),
        }
    }
    let out = out.ok_or("usage: gen --bytes SIZE [--compressed] [--pointer-size 4|8] -o FILE")?;
    let file = File::create(&out).map_err(|e| format!("{out}: {e}"))?;
    let sink = BufWriter::with_capacity(1 << 20, file);
    let t = Instant::now();
    let (_, s) = match (bytes, samples) {
        (_, Some(n)) => {
            params.samples = n;
            write_bench(sink, &params)
        }
        (Some(b), None) => write_bench_bytes(sink, &params, b),
        (None, None) => return Err("--bytes or --samples is required".into()),
    }
    .map_err(|e| format!("{out}: {e}"))?;
    let secs = t.elapsed().as_secs_f64();
    println!(
        "{out}: {} bytes, {} buffers, {} events, {} bytes of events, {:.1} s",
        s.bytes, s.buffers, s.events, s.event_bytes, secs
    );
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("gen: {e}");
            ExitCode::FAILURE
        }
    }
}
