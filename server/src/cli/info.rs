//! `etlscope info FILE... [--json]`.

use etl::census::Census;
use etl::logfile::filetime_to_iso8601;
use etl::EtlFile;
use serde_json::{json, Map, Value};
use std::path::PathBuf;

pub fn run(paths: &[PathBuf], as_json: bool, companions: bool) -> anyhow::Result<()> {
    let super::files::Opened { file, shown, .. } = super::files::open(paths, companions)?;
    let census = Census::of(&file);
    let mut v = summary_json(&file, &census);
    v["decoding"] = decoding_json(&etl::decode::schema::coverage::coverage(&file));
    v["tables"] = super::info_tables::tables_json(&census);
    let mut out = String::new();
    if as_json {
        out = serde_json::to_string_pretty(&v)?;
        out.push('\n');
    } else {
        print_text(&mut out, &shown, &v);
    }
    // A closed pipe (`| head`) is the reader's choice, not an error.
    match std::io::Write::write_all(&mut std::io::stdout().lock(), out.as_bytes()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        r => Ok(r?),
    }
}

/// Each file of the trace with its buffers, bytes and events.
fn members_json(file: &EtlFile, c: &Census) -> Vec<Value> {
    file.members()
        .into_iter()
        .enumerate()
        .map(|(i, m)| {
            let events = c.events_per_member.get(i).copied().unwrap_or(0);
            json!({"name": m.name, "buffers": m.buffers, "bytes": m.bytes, "events": events})
        })
        .collect()
}

/// Events left as undecoded hex (no decoder, TraceLogging schema, schema in
/// the trace or CLR schema of ours), in all and per provider.
fn decoding_json(c: &etl::decode::schema::Coverage) -> Value {
    json!({
        "events": c.events,
        "hex_only_events": c.hex_only,
        "hex_only_share": c.hex_share(),
        "trace_schemas": c.trace_schemas,
        "hex_only_by_provider": c.hex_only_by_provider,
        "by_provider": by_provider_json(c),
    })
}

/// Per provider: its name, events, and how many each source decoded
/// (`trace`, `table`, `user pack`, `built-in pack`, `decoder`, `no
/// payload`) or left as `hex`.
fn by_provider_json(c: &etl::decode::schema::Coverage) -> Value {
    let m: Map<String, Value> = c
        .by_provider
        .iter()
        .map(|(k, by)| {
            let events: u64 = by.values().sum();
            let v = json!({
                "name": c.provider_names.get(k),
                "events": events,
                "hex": by.get("hex").copied().unwrap_or(0),
                "decoded_by": by.iter().filter(|(s, _)| **s != "hex").map(|(s, n)| (s.to_string(), json!(n))).collect::<Map<String, Value>>(),
            });
            (k.clone(), v)
        })
        .collect();
    Value::Object(m)
}

pub fn summary_json(file: &EtlFile, c: &Census) -> Value {
    let lf = file.logfile();
    let hooks: Map<String, Value> = c
        .kernel_hooks
        .iter()
        .map(|(h, n)| (format!("{h:#06x}"), json!(n)))
        .collect();
    let providers: Map<String, Value> = c
        .providers
        .iter()
        .map(|(g, n)| (g.to_string(), json!(n)))
        .collect();
    let provider_ids: Map<String, Value> = c
        .provider_ids
        .iter()
        .map(|((g, id), n)| (format!("{g}/{id}"), json!(n)))
        .collect();
    let errors: Vec<Value> = c
        .errors
        .iter()
        .map(|d| json!({"offset": d.offset, "message": d.message}))
        .collect();
    json!({
        "buffers": c.buffers,
        "compressed_buffers": c.compressed_buffers,
        "skipped_buffers": c.skipped_buffers,
        "events": c.events,
        "lost_events": c.lost_events,
        "lost_buffers": c.lost_buffers,
        "pointer_size": lf.map(|l| l.pointer_size),
        "cpus": lf.map(|l| l.number_of_processors),
        "start_time": lf.map(|l| filetime_to_iso8601(l.start_time)),
        "duration_s": c.duration_s(file),
        "os_version": lf.map(|l| format!("{}.{} build {}", l.major_version, l.minor_version, l.provider_version)),
        "clock_type": lf.map(|l| l.clock_type),
        "ticks_per_second": file.ticks_per_second(),
        "cpu_speed_mhz": lf.map(|l| l.cpu_speed_mhz),
        "logger_name": lf.map(|l| l.logger_name.clone()),
        "container_member": file.container_member(),
        "members": members_json(file, c),
        "header_types": c.header_types,
        "kernel_hooks": hooks,
        "providers": providers,
        "provider_event_ids": provider_ids,
        "errors": errors,
        "system_config": system_config_json(file),
    })
}

fn system_config_json(file: &EtlFile) -> Value {
    let (c, strings) = model::ingest::read_system_config(file);
    crate::sysconfig_json::summary(&c, &strings)
}

fn print_text(out: &mut String, shown: &str, v: &Value) {
    say!(out, "{shown}");
    for key in [
        "start_time",
        "duration_s",
        "os_version",
        "cpus",
        "pointer_size",
        "buffers",
        "compressed_buffers",
        "skipped_buffers",
        "events",
        "lost_events",
        "lost_buffers",
    ] {
        say!(out, "  {key:<20} {}", v[key]);
    }
    let d = &v["decoding"];
    say!(
        out,
        "  {:<20} {} of {} ({:.2}%)",
        "hex_only_events",
        d["hex_only_events"],
        d["events"],
        d["hex_only_share"].as_f64().unwrap_or(0.0) * 100.0
    );
    if let Some(members) = v["members"].as_array().filter(|m| m.len() > 1) {
        say!(out, "  members:");
        for m in members {
            say!(
                out,
                "    {} ({} buffers, {} events)",
                m["name"].as_str().unwrap_or(""),
                m["buffers"],
                m["events"]
            );
        }
    }
    super::info_text::print_system_config(out, &v["system_config"]);
    super::info_tables::print_tables(out, &v["tables"]);
    say!(out, "  header types:");
    if let Some(m) = v["header_types"].as_object() {
        for (k, n) in m {
            say!(out, "    {k:<18} {n}");
        }
    }
    say!(out, "  kernel hooks:");
    if let Some(m) = v["kernel_hooks"].as_object() {
        for (k, n) in m {
            say!(out, "    {k:<18} {n}");
        }
    }
    say!(out, "  providers:");
    if let Some(m) = v["providers"].as_object() {
        for (k, n) in m {
            say!(out, "    {k} {n}");
        }
    }
    if let Some(m) = d["hex_only_by_provider"]
        .as_object()
        .filter(|m| !m.is_empty())
    {
        say!(out, "  hex-only events by provider:");
        for (k, n) in m {
            say!(out, "    {k} {n}");
        }
    }
    if let Some(m) = d["by_provider"].as_object() {
        say!(out, "  decoded by provider (source: events):");
        for (k, p) in m {
            let who = match p["name"].as_str() {
                Some(n) => format!("{n} ({k})"),
                None => k.clone(),
            };
            let by: Vec<String> = p["decoded_by"]
                .as_object()
                .into_iter()
                .flatten()
                .map(|(s, n)| format!("{s} {n}"))
                .chain((p["hex"].as_u64().unwrap_or(0) > 0).then(|| format!("hex {}", p["hex"])))
                .collect();
            say!(out, "    {who}: {}", by.join(", "));
        }
    }
    if let Some(errs) = v["errors"].as_array() {
        for e in errs {
            say!(out, "  error at offset {}: {}", e["offset"], e["message"]);
        }
    }
}
