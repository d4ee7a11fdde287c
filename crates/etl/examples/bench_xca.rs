//! Our MS-XCA decoder beside the crates.io decoders of the same format
//! (rust-lzxpress `data::decompress`, xpress_rs `LZ77Decompressor`) on every
//! compressed buffer of the given traces: same output, time, and what each
//! does with the damaged inputs kept in tests/fuzz-regressions/xca.
//!
//!     cargo run --release -p etl --example bench_xca -- [--runs N] TRACE...

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::time::Instant;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let mut runs = 7;
    let mut files: Vec<PathBuf> = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a == "--runs" {
            runs = args.next().and_then(|n| n.parse().ok()).unwrap_or(7);
        } else {
            files.push(a.into());
        }
    }
    // (compressed bytes, decompressed length) of every compressed buffer.
    let mut inputs: Vec<(Vec<u8>, usize)> = Vec::new();
    for f in &files {
        let file = etl::EtlFile::open(f).expect("open");
        for b in file.buffers().iter().filter(|b| b.header.is_compressed()) {
            let raw = file.bytes_of(b).get(b.data_range()).unwrap_or(&[]).to_vec();
            inputs.push((raw, b.header.payload_len()));
        }
    }
    let total_in: usize = inputs.iter().map(|i| i.0.len()).sum();
    let total_out: usize = inputs.iter().map(|i| i.1).sum();
    println!(
        "{} compressed buffers, {} bytes in, {} bytes out, median of {runs}",
        inputs.len(),
        total_in,
        total_out
    );

    // Same output as ours, for every buffer.
    let mut ours_out = Vec::new();
    for (raw, want) in &inputs {
        let mut out = vec![0u8; *want];
        let n = etl::xca::decompress(raw, &mut out).expect("ours decodes");
        out.truncate(n);
        ours_out.push(out);
    }
    let agree = |name: &str, f: &dyn Fn(&[u8]) -> Option<Vec<u8>>| {
        let same = inputs
            .iter()
            .zip(&ours_out)
            .filter(|((raw, _), ours)| {
                f(raw).is_some_and(|o| o.get(..ours.len()) == Some(&ours[..]))
            })
            .count();
        println!(
            "{name:<14} same output as ours on {same} of {} buffers",
            inputs.len()
        );
    };
    let lzx = |raw: &[u8]| lzxpress::data::decompress(raw).ok();
    let xpr = |raw: &[u8]| {
        xpress_rs::lz77::LZ77Decompressor::new(raw.to_vec())
            .decompress()
            .ok()
    };
    agree("rust-lzxpress", &lzx);
    agree("xpress_rs", &xpr);

    let time = |f: &dyn Fn()| {
        median(
            (0..runs)
                .map(|_| {
                    let t = Instant::now();
                    f();
                    t.elapsed().as_secs_f64() * 1e3
                })
                .collect(),
        )
    };
    let ours = time(&|| {
        // One scratch buffer, as the reader keeps one per thread.
        let mut s = Vec::<u8>::new();
        for (raw, want) in &inputs {
            s.clear();
            s.resize(*want, 0);
            std::hint::black_box(etl::xca::decompress(raw, &mut s).ok());
        }
    });
    let a = time(&|| {
        for (raw, _) in &inputs {
            std::hint::black_box(lzx(raw));
        }
    });
    let b = time(&|| {
        for (raw, _) in &inputs {
            std::hint::black_box(xpr(raw));
        }
    });
    let mbs = |ms: f64| total_out as f64 / 1e6 / (ms / 1e3);
    println!("ours           {ours:8.1} ms  {:7.0} MB/s out", mbs(ours));
    println!("rust-lzxpress  {a:8.1} ms  {:7.0} MB/s out", mbs(a));
    println!("xpress_rs      {b:8.1} ms  {:7.0} MB/s out", mbs(b));

    // Damaged inputs: an error is fine, a panic is not.
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fuzz-regressions/xca");
    let mut damaged: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .map(|d| {
            d.flatten()
                .map(|e| {
                    (
                        e.file_name().to_string_lossy().into_owned(),
                        std::fs::read(e.path()).unwrap_or_default(),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    damaged.sort();
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    for (name, bytes) in &damaged {
        let mut out = vec![0u8; 1 << 20];
        let ours = catch_unwind(AssertUnwindSafe(|| {
            etl::xca::decompress(bytes, &mut out).is_ok()
        }));
        let a = catch_unwind(AssertUnwindSafe(|| lzx(bytes).is_some()));
        let b = catch_unwind(AssertUnwindSafe(|| xpr(bytes).is_some()));
        let say = |r: std::thread::Result<bool>| match r {
            Ok(true) => "decodes",
            Ok(false) => "error",
            Err(_) => "PANICS",
        };
        println!(
            "{name:<32} ours {:<8} rust-lzxpress {:<8} xpress_rs {}",
            say(ours),
            say(a),
            say(b)
        );
    }
    std::panic::set_hook(hook);
}
