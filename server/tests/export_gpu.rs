//! GPU Utilization and Frame Times through `etlscope export`, `etlscope
//! info` and `/graph`, on a trace our writer makes from a list this test
//! chooses; every expected value is computed here from that list. Layouts
//! (crates/synth/src/gpu.rs): Microsoft-Windows-DxgKrnl's manifest (the
//! built-in pack), ids as PresentMon lists them. A DMA packet runs from the
//! head of its engine's queue (its DmaPacket Start, or the previous
//! completion on that engine when later) to its DmaPacket Info, for the
//! process of its context (Context Start's, else the first QueuePacket
//! Start's); a frame is the time from one Present of a window to the next.

mod common;

use common::{temp_dir, Server};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::Path;
use synth::gpu::{schedule, write_gpu, GpuEvents, Packet, RawEvent};

/// `common::export_json` on one file: its rows.
fn export(file: &Path, args: &[&str]) -> Vec<Value> {
    let mut a = vec![file.to_str().unwrap()];
    a.extend(args);
    match common::export_json(&a) {
        Value::Array(rows) => rows,
        other => panic!("export printed {other}, not rows"),
    }
}

fn ns(v: &Value) -> i64 {
    (v.as_f64().unwrap() * 1e9).round() as i64
}

/// The demo's processes, engines and contexts, with a schedule of our own.
fn events() -> GpuEvents {
    let mut m = synth::gpu::demo_gpu(0, 0);
    m.packets = schedule(&m.contexts, 150, 17_000, 21_000);
    // Presents of two windows of the game and one of the browser, uneven.
    let mut t = 2_000i64;
    for k in 0..90i64 {
        t += 120_000 + (k * 7_919) % 90_000;
        let (pid, tid, window) = match k % 3 {
            0 | 1 => (4100, 4104, 0x100 + (k % 2) as u64),
            _ => (5200, 5204, 0x200),
        };
        m.presents.push(synth::gpu::Present {
            time: t,
            pid,
            tid,
            window,
        });
    }
    m
}

/// Process label, engine name, start and end (ns) of each packet the GPU ran.
fn runs(m: &GpuEvents) -> Vec<(String, String, i64, i64)> {
    let mut by_node: BTreeMap<u32, Vec<&Packet>> = BTreeMap::new();
    for p in &m.packets {
        let c = m.contexts.iter().find(|c| c.handle == p.context).unwrap();
        by_node.entry(c.node).or_default().push(p);
    }
    let mut out = Vec::new();
    for (node, mut ps) in by_node {
        ps.sort_by_key(|p| p.completed);
        let engine = &m.engines.iter().find(|e| e.node == node).unwrap().name;
        let mut last = i64::MIN;
        for p in ps {
            let c = m.contexts.iter().find(|c| c.handle == p.context).unwrap();
            let g = m.processes.iter().find(|g| g.pid == c.pid).unwrap();
            let start = p.queued.max(last);
            last = p.completed;
            out.push((
                format!("{} ({})", g.exe, g.pid),
                engine.clone(),
                start * 100,
                p.completed * 100,
            ));
        }
    }
    out.sort_by_key(|r| (r.2, r.3));
    out
}

#[test]
fn gpu_utilization_and_frame_times_as_written() {
    let dir = temp_dir("export-gpu");
    let file = dir.join("gpu.etl");
    let m = events();
    std::fs::write(&file, write_gpu(&m).unwrap()).unwrap();

    // Every packet, then the GPU time per engine and process.
    let want = runs(&m);
    let rows = export(&file, &["--table", "gpu-utilization", "--rows"]);
    assert_eq!(rows.len(), want.len());
    let mut got: Vec<(String, String, i64, i64)> = (rows.iter())
        .map(|r| {
            (
                r["Process"].as_str().unwrap().to_string(),
                r["Engine"].as_str().unwrap().to_string(),
                ns(&r["Start Time"]),
                ns(&r["End Time"]),
            )
        })
        .collect();
    got.sort_by_key(|r| (r.2, r.3));
    assert_eq!(got, want);
    let mut per: BTreeMap<(String, String), (u64, i64)> = BTreeMap::new();
    for w in &want {
        let e = per.entry((w.1.clone(), w.0.clone())).or_default();
        e.0 += 1;
        e.1 += w.3 - w.2;
    }
    let rows = export(
        &file,
        &["--table", "gpu-utilization", "--group", "Engine,Process"],
    );
    let got: BTreeMap<(String, String), (u64, i64)> = (rows.iter())
        .map(|r| {
            (
                (
                    r["Engine"].as_str().unwrap().to_string(),
                    r["Process"].as_str().unwrap().to_string(),
                ),
                (r["Count"].as_u64().unwrap(), ns(&r["Duration"])),
            )
        })
        .collect();
    assert_eq!(got, per);
    eprintln!(
        "{} packets; GPU time per (engine, process) (packets, ns): {per:?}",
        want.len()
    );

    // Frame Times: per process and window, the gaps between its presents.
    let mut last: BTreeMap<(u32, u64), i64> = BTreeMap::new();
    let mut frames: BTreeMap<(String, u64), (u64, i64, i64)> = BTreeMap::new();
    for p in &m.presents {
        if let Some(prev) = last.insert((p.pid, p.window), p.time) {
            let g = m.processes.iter().find(|g| g.pid == p.pid).unwrap();
            let e = (frames.entry((format!("{} ({})", g.exe, g.pid), p.window))).or_default();
            let d = (p.time - prev) * 100;
            e.0 += 1;
            e.1 += d;
            e.2 = e.2.max(d);
        }
    }
    let rows = export(
        &file,
        &[
            "--table",
            "frame-times",
            "--group",
            "Process,Window",
            "--values",
            "Count,Frame Time,Frame Time:max",
        ],
    );
    let got: BTreeMap<(String, u64), (u64, i64, i64)> = (rows.iter())
        .map(|r| {
            let w = r["Window"].as_str().unwrap().trim_start_matches("0x");
            (
                (
                    r["Process"].as_str().unwrap().to_string(),
                    u64::from_str_radix(w, 16).unwrap(),
                ),
                (
                    r["Count"].as_u64().unwrap(),
                    ns(&r["Frame Time"]),
                    ns(&r["Frame Time:max"]),
                ),
            )
        })
        .collect();
    assert_eq!(got, frames);
    eprintln!("frames per (process, window) (count, ns, max ns): {frames:?}");

    let out = std::process::Command::new(common::binary())
        .args(["info", file.to_str().unwrap(), "--json"])
        .output()
        .unwrap();
    let info: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(info["tables"]["gpu-utilization"]["events"], m.packets.len());
    assert_eq!(info["tables"]["frame-times"]["events"], m.presents.len());

    // `/graph`: each engine's share of every bin is at most 100 %, and its
    // shares add up to its GPU time.
    let server = Server::start(&dir.join("data"), &[file.to_str().unwrap()]);
    let (_, list) = server.json("GET", "/api/traces", "");
    let id = list["traces"][0]["id"].as_str().unwrap().to_string();
    let ready = server.wait_ready(&id, 60);
    let counts = &ready["summary"]["table_rows"];
    assert_eq!(counts["gpu-utilization"], want.len(), "{ready}");
    assert_eq!(
        counts["frame-times"],
        frames.values().map(|f| f.0).sum::<u64>()
    );
    let body = json!({"table": "gpu-utilization", "columns": ["Engine"], "bins": 40, "top": 10});
    let (s, g) = server.json(
        "POST",
        &format!("/api/traces/{id}/graph"),
        &body.to_string(),
    );
    assert_eq!(s, 200, "{g}");
    assert_eq!(g["unit"], "%", "{g}");
    assert_eq!(g["measure"], "Utilization (%)");
    let bin_ns = g["bin_s"].as_f64().unwrap() * 1e9;
    let mut busy: BTreeMap<String, i64> = BTreeMap::new();
    for w in &want {
        *busy.entry(w.1.clone()).or_default() += w.3 - w.2;
    }
    let series = g["series"].as_array().unwrap();
    assert_eq!(series.len(), busy.len(), "{g}");
    for s in series {
        let v: Vec<f64> = (s["values"].as_array().unwrap().iter())
            .map(|x| x.as_f64().unwrap())
            .collect();
        assert!(v.iter().all(|&x| x <= 100.0 + 1e-9), "{s}");
        let label = s["label"].as_str().unwrap();
        // Bins are whole ns, within 1 ns of `bin_s`: at most 1 ns off per bin.
        let total_ns = v.iter().sum::<f64>() * bin_ns / 100.0;
        assert!(
            (total_ns - busy[label] as f64).abs() <= v.len() as f64,
            "{label}: {total_ns} vs {busy:?}"
        );
    }
    eprintln!("graph: bins of {bin_ns} ns, GPU ns per engine {busy:?}");
}

/// DxgKrnl events with payloads too short, handles never announced, zero
/// sequences, packets that never complete (more than an engine's queue
/// keeps), completions of packets never queued: the tables keep only what
/// the good events make, nothing fails.
#[test]
fn bad_dxgkrnl_payloads_leave_the_good_rows() {
    let dir = temp_dir("export-gpu-bad");
    let file = dir.join("bad.etl");
    let mut m = synth::gpu::demo_gpu(0, 0);
    m.packets = schedule(&m.contexts, 20, 20_000, 10_000);
    let ctx = m.contexts[0].handle;
    let mut raw = Vec::new();
    let mut at = 500_000i64;
    // Every event id we read, at every payload length up to 48 bytes.
    for id in [27u16, 28, 29, 30, 31, 32, 175, 177, 178, 184, 250] {
        for len in 0..48usize {
            at += 10;
            let payload: Vec<u8> = (0..len).map(|i| (i * 37 + id as usize) as u8).collect();
            raw.push(RawEvent {
                time: at,
                id,
                version: 1,
                pid: 4100,
                payload,
            });
        }
    }
    // More packets queued than an engine's queue keeps, never completed.
    for k in 0..1_500u32 {
        at += 10;
        let mut start = ctx.to_le_bytes().to_vec();
        start.extend((ctx | 0x20).to_le_bytes());
        start.extend(0u32.to_le_bytes());
        start.extend(u64::from(k).to_le_bytes());
        start.extend((100_000 + k).to_le_bytes());
        start.extend([0; 12]);
        raw.push(RawEvent {
            time: at,
            id: 175,
            version: 1,
            pid: 4,
            payload: start,
        });
    }
    // A completion of a packet never queued, and one of an unknown context.
    let mut info = ctx.to_le_bytes().to_vec();
    info.extend(0u32.to_le_bytes());
    info.extend(9u64.to_le_bytes());
    info.extend(99_999u32.to_le_bytes());
    info.extend(1u32.to_le_bytes());
    raw.push(RawEvent {
        time: at + 10,
        id: 177,
        version: 1,
        pid: 4,
        payload: info.clone(),
    });
    info[..8].copy_from_slice(&0xDEADu64.to_le_bytes());
    raw.push(RawEvent {
        time: at + 20,
        id: 177,
        version: 1,
        pid: 4,
        payload: info,
    });
    m.raw = raw;
    std::fs::write(&file, write_gpu(&m).unwrap()).unwrap();
    let want = runs(&GpuEvents {
        raw: Vec::new(),
        ..m.clone()
    });
    let rows = export(&file, &["--table", "gpu-utilization", "--rows"]);
    let mut got: Vec<(String, String, i64, i64)> = (rows.iter())
        .filter(|r| r["Start Time"].as_f64().unwrap() < 0.05)
        .map(|r| {
            (
                r["Process"].as_str().unwrap().to_string(),
                r["Engine"].as_str().unwrap().to_string(),
                ns(&r["Start Time"]),
                ns(&r["End Time"]),
            )
        })
        .collect();
    got.sort_by_key(|r| (r.2, r.3));
    assert_eq!(got, want);
    export(&file, &["--table", "frame-times", "--rows"]);
    eprintln!(
        "{} good packets kept among {} bad events; {} rows in all",
        want.len(),
        m.raw.len(),
        rows.len()
    );
}
