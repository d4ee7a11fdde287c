//! Every table family through the HTTP API's `export` with `"rows": true`
//! (the real server on loopback, one line per row, nothing grouped),
//! against figures found without the product's column code: the stdlib
//! Python reference (tests/reference/model_reference.py, its output
//! committed in crates/model/tests/expected/), hand decodes of the real
//! traces' payloads (crates/model/tests/event_tables_real.rs names each
//! field and offset), and for CPU Usage (Precise), which no public trace
//! holds, the writer's own inputs. A pair of columns swapped in a table's
//! declaration, a column read from the wrong field or a row attributed to
//! the wrong process fails here, where the API-against-export tests pass
//! (both run the same column code).

mod common;

use common::{real_traces_dir, request, temp_dir, Server};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

#[allow(dead_code)]
#[path = "../../crates/model/tests/expected/shutdown_perfdiag.rs"]
mod perfdiag;

#[allow(dead_code)]
#[path = "../../crates/model/tests/expected/perfview_net452.rs"]
mod net452;

/// A server holding the one trace `file`, and that trace's id.
fn serve(file: &Path) -> (Server, String, std::path::PathBuf) {
    let data = temp_dir("independent");
    let f = file.to_str().expect("utf-8 path");
    let server = Server::start(&data, &[f]);
    let (_, list) = server.json("GET", "/api/traces", "");
    let id = list["traces"][0]["id"].as_str().expect("an id").to_string();
    server.wait_ready(&id, 300);
    (server, id, data)
}

/// `POST /api/traces/ID/export {"table", "rows": true, "format": "tsv"}`,
/// each line as a JSON object (an empty cell is null, a number a number).
fn rows(s: &(Server, String, std::path::PathBuf), table: &str) -> Vec<Value> {
    let body = serde_json::json!({"table": table, "rows": true, "format": "tsv"}).to_string();
    let (status, text) = request(
        &s.0.addr,
        "POST",
        &format!("/api/traces/{}/export", s.1),
        body.as_bytes(),
        &[("Content-Type", "application/json")],
    );
    assert_eq!(status, 200, "{table}: {text}");
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("a header").split('\t').collect();
    lines
        .map(|l| {
            let cells = header.iter().zip(l.split('\t')).map(|(h, c)| {
                let v = if c.is_empty() {
                    Value::Null
                } else if let Ok(i) = c.parse::<i64>() {
                    Value::from(i)
                } else if let Ok(f) = c.parse::<f64>() {
                    Value::from(f)
                } else {
                    Value::String(c.to_string())
                };
                (h.to_string(), v)
            });
            Value::Object(cells.collect())
        })
        .collect()
}

/// A text cell; an empty one reads as null in the TSV.
fn text<'a>(r: &'a Value, col: &str) -> &'a str {
    match r.get(col) {
        Some(Value::String(s)) => s,
        Some(Value::Null) => "",
        _ => panic!("{col} of {r}"),
    }
}

/// `(process, rows, rows with `a` set, rows with `b` set)` per process label.
fn set_per_process(rows: &[Value], a: &str, b: &str) -> BTreeMap<String, (u32, u32, u32)> {
    let mut m: BTreeMap<String, (u32, u32, u32)> = BTreeMap::new();
    for r in rows {
        let e = m.entry(text(r, "Process").to_string()).or_default();
        e.0 += 1;
        e.1 += u32::from(!r[a].is_null());
        e.2 += u32::from(!r[b].is_null());
    }
    m
}

/// The pid of a `name (pid)` label.
fn pid_of(label: &str) -> u32 {
    label
        .rsplit_once('(')
        .and_then(|(_, p)| p.trim_end_matches(')').parse().ok())
        .unwrap_or_else(|| panic!("no pid in {label:?}"))
}

#[test]
fn processes_threads_images_match_the_python_reference() {
    let Some(dir) = real_traces_dir() else { return };
    let f = serve(&dir.join("shutdown-perfdiag-kernel.etl"));

    // Processes: start and end set exactly where the reference saw them.
    let procs = rows(&f, "processes");
    assert_eq!(procs.len(), perfdiag::PROCESSES.len());
    for &(pid, name, start, end) in perfdiag::PROCESSES {
        let r = procs
            .iter()
            .find(|r| r["PID"].as_u64() == Some(u64::from(pid)) && text(r, "Process Name") == name)
            .unwrap_or_else(|| panic!("no process {name} ({pid})"));
        assert_eq!(
            r["Start Time"].is_null(),
            start.is_none(),
            "{name} ({pid}) Start Time: {r}"
        );
        assert_eq!(
            r["End Time"].is_null(),
            end.is_none(),
            "{name} ({pid}) End Time: {r}"
        );
        // An exit code only for a process that ended in the trace.
        assert_eq!(
            r["Exit Code"].is_null(),
            end.is_none(),
            "{name} ({pid}) Exit Code: {r}"
        );
    }
    // End times keep the reference's order and spacing (raw ticks / 10^7).
    let ends: Vec<(i64, f64)> = perfdiag::PROCESSES
        .iter()
        .filter_map(|&(pid, name, _, end)| {
            let r = procs.iter().find(|r| {
                r["PID"].as_u64() == Some(u64::from(pid)) && text(r, "Process Name") == name
            })?;
            Some((end?, r["End Time"].as_f64()?))
        })
        .collect();
    let (raw0, s0) = ends[0];
    for &(raw, s) in &ends {
        let want = (raw - raw0) as f64 / 1e7;
        assert!((s - s0 - want).abs() < 1e-6, "End Time {s} vs raw {raw}");
    }

    // Threads and images: per owning pid, how many, how many started/loaded
    // and ended/unloaded inside the trace.
    for (table, start, end, want) in [
        (
            "threads",
            "Start Time",
            "End Time",
            perfdiag::THREADS_PER_PID,
        ),
        (
            "images",
            "Load Time",
            "Unload Time",
            perfdiag::IMAGES_PER_PID,
        ),
    ] {
        let got = set_per_process(&rows(&f, table), start, end);
        let by_pid: BTreeMap<u32, (u32, u32, u32)> =
            got.iter().fold(BTreeMap::new(), |mut m, (p, &(n, a, b))| {
                let e = m.entry(pid_of(p)).or_insert((0, 0, 0));
                *e = (e.0 + n, e.1 + a, e.2 + b);
                m
            });
        for &(pid, n, started, ended) in want {
            assert_eq!(
                by_pid.get(&pid).copied(),
                Some((n, started, ended)),
                "{table} of pid {pid}: (rows, {start} set, {end} set)"
            );
        }
    }
}

#[test]
fn cpu_sampled_matches_the_python_reference() {
    let Some(dir) = real_traces_dir() else { return };
    let f = serve(&dir.join("perfview-net452-x64.etl"));
    let samples = rows(&f, "cpu-sampled");
    assert_eq!(samples.len(), net452::SAMPLES);
    let mut per_process: BTreeMap<&str, u64> = BTreeMap::new();
    let mut per_thread: BTreeMap<(&str, u64), u64> = BTreeMap::new();
    for r in &samples {
        *per_process.entry(text(r, "Process")).or_default() += 1;
        let tid = r["Thread ID"].as_u64().unwrap_or(u64::MAX);
        *per_thread.entry((text(r, "Process"), tid)).or_default() += 1;
    }
    let want: BTreeMap<&str, u64> = net452::PER_PROCESS.iter().copied().collect();
    assert_eq!(per_process, want);
    for &(p, tid, _, n) in net452::PER_THREAD {
        let got = per_thread.get(&(p, u64::from(tid))).copied();
        assert_eq!(got, Some(n), "{p} thread {tid}");
    }
    // The sampling interval (1 ms here, from the trace's SampledProfileInterval) is every sample's Weight.
    let times_increase = samples
        .windows(2)
        .all(|w| w[0]["Time"].as_f64() <= w[1]["Time"].as_f64());
    assert!(times_increase, "rows in time order");
    for r in &samples {
        let w = r["Weight"].as_f64().unwrap_or(f64::NAN);
        assert!((w - 0.001).abs() < 1e-9, "Weight {w}: {r}");
    }
}

#[test]
fn file_disk_and_generic_rows_match_hand_decodes() {
    let Some(dir) = real_traces_dir() else { return };
    let f = serve(&dir.join("perfview-net452-x64.etl"));
    // File I/O: 562 Kernel-File creates (event id 12), 102 paths, the busiest three.
    let file = rows(&f, "file-io");
    assert!(file.iter().all(|r| text(r, "Type") == "Create"));
    assert_eq!(file.len(), 562);
    let mut per_path: BTreeMap<&str, u64> = BTreeMap::new();
    for r in &file {
        *per_path.entry(text(r, "File Path")).or_default() += 1;
    }
    assert_eq!(per_path.len(), 102);
    assert_eq!(per_path[r"C:\Windows\CSC\v2.0.6\namespace\clrmain"], 69);
    assert_eq!(per_path[r"C:\Windows\system32\catroot"], 56);
    assert_eq!(per_path[r"C:\Windows\system32\catroot2"], 56);

    // Disk I/O: 1,208 reads (0x010A), 21 writes (0x010B), 2 flushes (0x010E);
    // TransferSize (@8) per direction, HighResResponseTime (@40) summed over
    // reads and writes.
    let disk = rows(&f, "disk-io");
    let per_type = |ty: &str| disk.iter().filter(|r| text(r, "IO Type") == ty).count();
    assert_eq!(
        (per_type("Read"), per_type("Write"), per_type("Flush")),
        (1208, 21, 2)
    );
    let bytes = |ty: &str| -> u64 {
        disk.iter()
            .filter(|r| text(r, "IO Type") == ty)
            .map(|r| r["Size"].as_u64().unwrap_or(0))
            .sum()
    };
    assert_eq!((bytes("Read"), bytes("Write")), (19_564_544, 286_720));
    let service: f64 = disk
        .iter()
        .filter(|r| matches!(text(r, "IO Type"), "Read" | "Write"))
        .map(|r| r["Disk Service Time"].as_f64().unwrap_or(0.0))
        .sum();
    let want = 21_847_246.0 / 1e7; // the trace's clock runs at 10^7 ticks a second
    assert!((service - want).abs() < 1e-4, "{service} vs {want}");
    let named = disk
        .iter()
        .filter(|r| {
            matches!(text(r, "IO Type"), "Read" | "Write") && !text(r, "Path Name").is_empty()
        })
        .count();
    assert_eq!(named, 1229);

    // Generic Events: the census total less the events the other tables take.
    let generic = rows(&f, "generic");
    assert_eq!(generic.len(), 179_474 - 110_922);
    let rundown = generic
        .iter()
        .filter(|r| text(r, "Provider") == "Microsoft-Windows-DotNETRuntimeRundown")
        .count();
    assert_eq!(rundown, 33_011);
}

#[test]
fn cpu_precise_matches_the_writers_switches() {
    // `etlscope synth switches`: the switches it writes follow from the seed
    // (crates/synth/src/switches.rs); the same draws give each new thread.
    const SWITCHES: usize = 300;
    let dir = common::temp_dir("independent-precise");
    let file = dir.join("switches.etl");
    let bytes = synth::switches::write_switches(7, SWITCHES).expect("write");
    std::fs::write(&file, bytes).expect("save");
    let f = serve(&file);
    let procs = [(100u64, "a.exe", [101u64, 102]), (200, "b.exe", [201, 202])];
    let mut rng = synth::prng::Rng::new(7);
    let mut want = Vec::new();
    for _ in 0..SWITCHES {
        let (pid, exe, tids) = procs[rng.below(2) as usize];
        let tid = tids[rng.below(2) as usize];
        let with_stack = rng.below(5) != 0;
        if with_stack {
            let depth = 1 + rng.below(6);
            for _ in 0..depth {
                rng.below(3);
                rng.below(8);
            }
        }
        want.push((format!("{exe} ({pid})"), tid, with_stack));
    }
    let got = rows(&f, "cpu-precise");
    assert_eq!(got.len(), SWITCHES);
    for (i, (r, (proc, tid, with_stack))) in got.iter().zip(&want).enumerate() {
        assert_eq!(text(r, "New Process"), proc, "switch {i}: {r}");
        assert_eq!(r["New Thread Id"].as_u64(), Some(*tid), "switch {i}: {r}");
        // 1,000 ticks of 100 ns after the trace start, then one every 1 ms.
        let t = r["Switch-In Time"].as_f64().unwrap_or(f64::NAN);
        assert!(
            (t - (0.0001 + 0.001 * i as f64)).abs() < 1e-9,
            "switch {i} at {t}"
        );
        assert_eq!(
            !text(r, "New Thread Stack").is_empty(),
            *with_stack,
            "switch {i}: {r}"
        );
        if i > 0 {
            assert_eq!(
                r["Old Thread Id"].as_u64(),
                Some(want[i - 1].1),
                "switch {i}: {r}"
            );
            assert_eq!(text(r, "Old Process"), want[i - 1].0, "switch {i}: {r}");
        }
        if i + 1 < SWITCHES {
            // On the CPU until the next switch, 1 ms later.
            let u = r["CPU Usage"].as_f64().unwrap_or(f64::NAN);
            assert!((u - 0.001).abs() < 1e-9, "switch {i} CPU Usage {u}");
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}
