//! `etlscope dump FILE [--limit N] [--provider GUID | --hook 0xNNNN]`.

use anyhow::{bail, Context};
use etl::Guid;
use serde_json::json;
use std::io::Write;
use std::path::PathBuf;

pub fn run(
    paths: &[PathBuf],
    companions: bool,
    limit: Option<u64>,
    provider: Option<&str>,
    hook: Option<&str>,
) -> anyhow::Result<()> {
    let file = super::files::open(paths, companions)?.file;
    let provider = match provider {
        Some(p) => Some(Guid::parse(p).with_context(|| format!("bad provider GUID {p:?}"))?),
        None => None,
    };
    let hook = match hook {
        Some(h) => {
            let t = h.trim_start_matches("0x").trim_start_matches("0X");
            match u16::from_str_radix(t, 16) {
                Ok(v) => Some(v),
                Err(_) => bail!("bad hook id {h:?}: expected hex like 0x0f2e"),
            }
        }
        None => None,
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut n = 0u64;
    let limit = limit.unwrap_or(u64::MAX);
    let mut io_err = None;
    let ts0 = file.ts0();
    let tps = file.ticks_per_second();
    let diags = file.for_each_event_in_order(|e| {
        if n >= limit || io_err.is_some() {
            return;
        }
        if provider.is_some() && e.provider != provider || hook.is_some() && e.hook_id != hook {
            return;
        }
        n += 1;
        let v = json!({
            "time_s": e.timestamp.saturating_sub(ts0) as f64 / tps,
            "timestamp": e.timestamp,
            "header": e.header_type.name(),
            "cpu": e.cpu,
            "pid": e.pid,
            "tid": e.tid,
            "hook": e.hook_id.map(|h| format!("{h:#06x}")),
            "provider": e.provider.map(|g| g.to_string()),
            "id": e.event_id,
            "opcode": e.opcode,
            "version": e.version,
            "level": e.level,
            "task": e.task,
            "keyword": format!("{:#x}", e.keyword),
            "pointer_size": e.pointer_size,
            "extended": e.extended_items().map(|i| i.ext_type).collect::<Vec<_>>(),
            "payload": hex(e.payload),
        });
        if let Err(err) = writeln!(out, "{v}") {
            io_err = Some(err);
        }
    });
    out.flush().ok();
    for d in diags {
        eprintln!("warning: {d}");
    }
    match io_err {
        Some(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(()),
    }
}

fn hex(b: &[u8]) -> String {
    const H: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(b.len() * 2);
    for &x in b {
        s.push(H[(x >> 4) as usize] as char);
        s.push(H[(x & 15) as usize] as char);
    }
    s
}
