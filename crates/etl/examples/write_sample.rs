//! Write a small synthetic trace with the event kinds the Python peer
//! `etl-parser` understands (system, compact, perfinfo, full trace header,
//! EventHeader with extended items), for `scripts/check-etl-parser.sh`.
//!
//! cargo run -p etl --example write_sample --features writer -- OUT.etl
//!     [--pointer-size 4|8] [--cpus N] [--events N] [--buffer-size BYTES]
//!     [--seed S] [--compressed]

use etl::writer::{
    ClassicHeader, EtlWriter, EventHeaderFields, ExtendedData, KernelHeader, Record, WriterConfig,
};
use etl::Guid;
use std::fs::File;
use std::io::BufWriter;
use std::process::ExitCode;

struct Args {
    out: String,
    config: WriterConfig,
    events: u64,
    seed: u64,
}

fn parse_args() -> Result<Args, String> {
    let mut out = None;
    let mut config = WriterConfig {
        cpus: 4,
        buffer_size: 16 * 1024,
        logger_name: "write_sample".into(),
        ..WriterConfig::default()
    };
    let mut events = 5000u64;
    let mut seed = 1u64;
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut num = |name: &str| -> Result<u64, String> {
            it.next()
                .and_then(|v| v.parse().ok())
                .ok_or_else(|| format!("{name} needs a number"))
        };
        match a.as_str() {
            "--pointer-size" => config.pointer_size = num("--pointer-size")? as u8,
            "--cpus" => config.cpus = num("--cpus")? as u16,
            "--events" => events = num("--events")?,
            "--buffer-size" => config.buffer_size = num("--buffer-size")? as u32,
            "--seed" => seed = num("--seed")?,
            "--compressed" => config.compress = true,
            s if !s.starts_with("--") && out.is_none() => out = Some(s.to_string()),
            s => return Err(format!("unknown argument {s}")),
        }
    }
    Ok(Args {
        out: out.ok_or("usage: write_sample OUT.etl [options]")?,
        config,
        events,
        seed,
    })
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("write_sample: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let args = parse_args()?;
    let file = File::create(&args.out).map_err(|e| format!("{}: {e}", args.out))?;
    let mut w =
        EtlWriter::new(BufWriter::new(file), args.config.clone()).map_err(|e| e.to_string())?;
    let cfg = args.config;
    let p = cfg.pointer_size as usize;
    let mut s = args.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let provider = Guid::parse("0d1e8a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b").unwrap();
    let classic = Guid::parse("b3e675d7-2554-4f18-830b-2762732560de").unwrap();
    let mut ts = cfg.ts0;
    for i in 0..args.events {
        ts += 1 + (next() % 5000) as i64;
        let cpu = (next() % cfg.cpus as u64) as u16;
        let r = next();
        let tid = 1000 + (r % 50) as u32;
        let pid = 100 + (r % 7) as u32;
        let payload: Vec<u8> = (0..(next() % 96) as usize).map(|_| next() as u8).collect();
        let frames: Vec<u64> = (0..1 + next() % 12).map(|_| next()).collect();
        let frames32: Vec<u32> = frames.iter().map(|&f| f as u32).collect();
        let kh = KernelHeader {
            hook_id: 0x0F2E,
            version: 2,
            pid,
            tid,
        };
        let write =
            |w: &mut EtlWriter<_>, rec: Record<'_>| w.write(cpu, &rec).map_err(|e| e.to_string());
        match i % 6 {
            0 => {
                // SampledProfile: IP, ThreadId, Count, flags.
                let mut pl = vec![0u8; p + 8];
                pl[..8.min(p)].copy_from_slice(&next().to_le_bytes()[..p]);
                pl[p..p + 4].copy_from_slice(&tid.to_le_bytes());
                pl[p + 4..p + 6].copy_from_slice(&1u16.to_le_bytes());
                write(&mut w, Record::perfinfo(ts, 0x0F2E, 2, &pl))?
            }
            1 => write(
                &mut w,
                Record::system(
                    ts,
                    KernelHeader {
                        hook_id: 0x0501,
                        ..kh
                    },
                    &payload,
                ),
            )?,
            2 => write(
                &mut w,
                Record::compact(
                    ts,
                    KernelHeader {
                        hook_id: 0x0524,
                        ..kh
                    },
                    &payload,
                ),
            )?,
            3 => {
                let h = ClassicHeader {
                    guid: classic,
                    opcode: 36,
                    level: 4,
                    version: 2,
                    pid,
                    tid,
                };
                write(&mut w, Record::full(ts, h, &payload))?
            }
            _ => {
                let items64 = [ExtendedData::StackTrace64 {
                    match_id: 0,
                    frames: &frames,
                }];
                let items32 = [
                    ExtendedData::RelatedActivityId(provider),
                    ExtendedData::StackTrace32 {
                        match_id: 0,
                        frames: &frames32,
                    },
                ];
                let wow64 = i % 6 == 5;
                let f = EventHeaderFields {
                    provider,
                    id: (i % 40) as u16,
                    level: 4,
                    keyword: 0x10,
                    pid,
                    tid,
                    extended: if wow64 { &items32 } else { &items64 },
                    ..Default::default()
                };
                let mut rec = Record::event(ts, f, &payload);
                if wow64 {
                    rec = rec.with_pointer_size(4);
                }
                write(&mut w, rec)?
            }
        }
    }
    let (_, summary) = w.finish().map_err(|e| e.to_string())?;
    println!(
        "{}: {} buffers, {} events, {} bytes",
        args.out, summary.buffers, summary.events, summary.bytes
    );
    Ok(())
}
