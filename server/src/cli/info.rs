//! `etlscope info FILE [--json]`.

use anyhow::Context;
use etl::census::Census;
use etl::logfile::filetime_to_iso8601;
use etl::EtlFile;
use serde_json::{json, Map, Value};
use std::path::Path;

pub fn run(path: &Path, as_json: bool) -> anyhow::Result<()> {
    let file = EtlFile::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let census = Census::of(&file);
    let v = summary_json(&file, &census);
    if as_json {
        println!("{}", serde_json::to_string_pretty(&v)?);
    } else {
        print_text(path, &v);
    }
    Ok(())
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
        "header_types": c.header_types,
        "kernel_hooks": hooks,
        "providers": providers,
        "provider_event_ids": provider_ids,
        "errors": errors,
    })
}

fn print_text(path: &Path, v: &Value) {
    println!("{}", path.display());
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
        println!("  {key:<20} {}", v[key]);
    }
    println!("  header types:");
    if let Some(m) = v["header_types"].as_object() {
        for (k, n) in m {
            println!("    {k:<18} {n}");
        }
    }
    println!("  kernel hooks:");
    if let Some(m) = v["kernel_hooks"].as_object() {
        for (k, n) in m {
            println!("    {k:<18} {n}");
        }
    }
    println!("  providers:");
    if let Some(m) = v["providers"].as_object() {
        for (k, n) in m {
            println!("    {k} {n}");
        }
    }
    if let Some(errs) = v["errors"].as_array() {
        for e in errs {
            println!("  error at offset {}: {}", e["offset"], e["message"]);
        }
    }
}
