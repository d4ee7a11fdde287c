//! Regions of Interest and Marks through `etlscope export` (issue 37).
//!
//! Regions: a regions file this test writes over the CLR's GC start/stop
//! events of a real trace (Microsoft-Windows-DotNETRuntime GCStart id 1 /
//! GCEnd id 2, version 1, paired by process and the payload's Count, its
//! first u32): instance count, times and durations, and the CPU Usage
//! (Sampled) samples inside them, each computed here from `etlscope dump`'s
//! raw events and `export --rows`, not from the regions code.
//! Marks: a trace our writer makes (`synth::memory_events::mark`, PerfInfo
//! hook 0x0F22 with a UTF-16 label), its rows checked against what it wrote.

mod common;

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn run(args: &[&str]) -> String {
    let out = Command::new(common::binary()).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn json(args: &[&str]) -> Vec<Value> {
    let mut a = args.to_vec();
    a.extend(["--format", "json"]);
    serde_json::from_str(&run(&a)).unwrap()
}

const CLR: &str = "e13c0d23-ccbc-4e12-931b-d9cc2eee27e4";

fn gc_regions(dir: &Path) -> PathBuf {
    let xml = format!(
        r#"<?xml version='1.0' encoding='utf-8'?>
<InstrumentationManifest><Instrumentation><Regions>
 <RegionRoot Guid="{{11111111-0000-0000-0000-000000000000}}" Name="CLR">
  <Region Guid="{{11111111-0000-0000-0000-000000000001}}" Name="GC">
   <Start><Event Provider="{{{CLR}}}" Id="1" Version="1"/></Start>
   <Stop><Event Provider="{{{CLR}}}" Id="2" Version="1"/></Stop>
   <Match><Event PID="true"><Payload FieldName="Count"/></Event></Match>
  </Region>
 </RegionRoot>
</Regions></Instrumentation></InstrumentationManifest>"#
    );
    let f = dir.join("gc.regions.xml");
    std::fs::write(&f, xml).unwrap();
    f
}

/// (pid, count, seconds) of a GC start or stop.
type GcEvent = (u64, u32, f64);

/// Each GC start (id 1 v1) and stop (id 2 v1), from the raw events.
fn gc_events(trace: &Path) -> (Vec<GcEvent>, Vec<GcEvent>) {
    let text = run(&["dump", trace.to_str().unwrap(), "--provider", CLR]);
    let (mut starts, mut stops) = (Vec::new(), Vec::new());
    for line in text.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        let (id, version) = (v["id"].as_u64().unwrap(), v["version"].as_u64().unwrap());
        if version != 1 || !(id == 1 || id == 2) {
            continue;
        }
        let hex = v["payload"].as_str().unwrap();
        let b: Vec<u8> = (0..8)
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
            .collect();
        let count = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        let e = (
            v["pid"].as_u64().unwrap(),
            count,
            v["time_s"].as_f64().unwrap(),
        );
        if id == 1 {
            starts.push(e)
        } else {
            stops.push(e)
        }
    }
    (starts, stops)
}

/// What `serve --regions` answers for the regions table.
struct HttpRegions {
    summary_rows: u64,
    group_count: u64,
    group_duration: f64,
    /// (label, start, end) of each instance's bar, in the table's order.
    spans: Vec<(String, f64, f64)>,
}

fn regions_over_http(trace: &Path, regions: &Path) -> HttpRegions {
    let data = common::temp_dir("regions-http");
    // `--regions=FILE` in one word: the test server counts file arguments as traces.
    let flag = format!("--regions={}", regions.display());
    let server = common::Server::start(&data, &[&flag]);
    let (s, b) = server.post("/api/traces?name=x64.etl", &std::fs::read(trace).unwrap());
    assert_eq!(s, 201, "{b}");
    let id = serde_json::from_str::<Value>(&b).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let entry = server.wait_ready(&id, 120);
    let (s, table) = server.json(
        "POST",
        &format!("/api/traces/{id}/table"),
        r#"{"table": "regions", "columns": ["Region"], "values": ["Duration"]}"#,
    );
    assert_eq!(s, 200, "{table}");
    let (s, graph) = server.json(
        "POST",
        &format!("/api/traces/{id}/graph"),
        r#"{"table": "regions", "columns": ["Instance"], "sort": {"by": "Start Time", "descending": false}, "values": ["Start Time"], "limit": 2000}"#,
    );
    assert_eq!(s, 200, "{graph}");
    let row = &table["rows"][0];
    assert_eq!(row["label"], "CLR/GC");
    HttpRegions {
        summary_rows: entry["summary"]["table_rows"]["regions"].as_u64().unwrap(),
        group_count: row["count"].as_u64().unwrap(),
        group_duration: row["values"]["Duration"].as_f64().unwrap(),
        spans: graph["spans"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| {
                (
                    x["label"].as_str().unwrap().to_string(),
                    x["start_s"].as_f64().unwrap(),
                    x["end_s"].as_f64().unwrap(),
                )
            })
            .collect(),
    }
}

/// The samples' Time and Region columns (`export --rows`, TSV).
fn sample_times_and_regions(tsv: &str) -> Vec<(f64, String)> {
    let mut lines = tsv.lines();
    let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
    let col = |name: &str| header.iter().position(|&h| h == name).unwrap();
    let (time, region) = (col("Time"), col("Region"));
    lines
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (f[time].parse().unwrap(), f[region].to_string())
        })
        .collect()
}

#[test]
fn gc_regions_of_a_real_trace_and_their_samples() {
    let Some(dir) = testdata::real_traces_dir() else {
        return;
    };
    let trace = dir.join("perfview-net452-x64.etl");
    let tmp = common::temp_dir("regions-gc");
    let regions = gc_regions(&tmp);
    let (t, r) = (trace.to_str().unwrap(), regions.to_str().unwrap());

    // Each command loads the trace (about a second here): all at once, and
    // the server (point 1's HTTP tables) meanwhile.
    let (events, rows, samples, filtered, http) = std::thread::scope(|s| {
        let http = s.spawn(|| regions_over_http(&trace, &regions));
        let events = s.spawn(|| gc_events(&trace));
        let rows = s.spawn(|| json(&["--regions", r, "export", t, "--table", "regions", "--rows"]));
        let samples = s.spawn(|| {
            let tsv = run(&[
                "--regions",
                r,
                "export",
                t,
                "--table",
                "cpu-sampled",
                "--rows",
                "--format",
                "tsv",
            ]);
            sample_times_and_regions(&tsv)
        });
        let filtered = s.spawn(|| {
            json(&[
                "--regions",
                r,
                "export",
                t,
                "--table",
                "cpu-sampled",
                "--filter",
                "Region=CLR/GC",
                "--values",
                "Count",
            ])
        });
        (
            events.join().unwrap(),
            rows.join().unwrap(),
            samples.join().unwrap(),
            filtered.join().unwrap(),
            http.join().unwrap(),
        )
    });

    // Expected instances: each start with the first later stop of its process and Count.
    let (starts, stops) = events;
    let mut want: Vec<(f64, f64)> = starts
        .iter()
        .filter_map(|&(pid, count, s)| {
            stops
                .iter()
                .find(|&&(p, c, e)| p == pid && c == count && e >= s)
                .map(|&(_, _, e)| (s, e))
        })
        .collect();
    want.sort_by(|a, b| a.partial_cmp(b).unwrap());
    assert!(want.len() > 100, "{} GCs", want.len());

    assert_eq!(rows.len(), want.len());
    for (row, (s, e)) in rows.iter().zip(&want) {
        assert_eq!(row["Region"], "CLR/GC");
        let (rs, re, d) = (
            row["Start Time"].as_f64().unwrap(),
            row["Stop Time"].as_f64().unwrap(),
            row["Duration"].as_f64().unwrap(),
        );
        // dump prints 100 ns ticks' seconds (7 decimals).
        assert!(
            (rs - s).abs() < 2e-7 && (re - e).abs() < 2e-7,
            "{row} vs {s} {e}"
        );
        assert!((d - (e - s)).abs() < 3e-7, "{row}");
    }
    let total: f64 = want.iter().map(|(s, e)| e - s).sum();

    // Samples inside `[start, stop)` of any instance, from the samples' own
    // times; the Region column names exactly those, and the filter keeps them.
    let ranges: Vec<(f64, f64)> = rows
        .iter()
        .map(|r| {
            (
                r["Start Time"].as_f64().unwrap(),
                r["Stop Time"].as_f64().unwrap(),
            )
        })
        .collect();
    let mut inside = 0;
    for (x, region) in &samples {
        let within = ranges.iter().any(|&(s, e)| s <= *x && *x < e);
        inside += usize::from(within);
        let want = if within { "CLR/GC" } else { "" };
        assert_eq!(region, want, "sample at {x}");
    }
    assert!(inside > 0);
    assert_eq!(
        filtered[0]["Count"].as_u64(),
        Some(inside as u64),
        "{filtered:?}"
    );

    // The HTTP API serves the same table: its row count in the summary, the
    // group's count and summed duration, one span per instance.
    assert_eq!(http.summary_rows, want.len() as u64);
    assert_eq!(http.group_count, want.len() as u64);
    assert!(
        (http.group_duration - total).abs() < 1e-5,
        "{}",
        http.group_duration
    );
    assert_eq!(http.spans.len(), want.len());
    for (k, ((s, e), (label, hs, he))) in want.iter().zip(&http.spans).enumerate() {
        assert_eq!(label, &format!("#{} CLR/GC", k + 1));
        assert!((hs - s).abs() < 2e-7 && (he - e).abs() < 2e-7, "{label}");
    }
    eprintln!(
        "GC regions: {} instances, {total:.6} s in all, {inside} of {} samples inside",
        want.len(),
        samples.len()
    );
}

#[test]
fn a_bad_regions_file_names_file_and_line() {
    let tmp = common::temp_dir("regions-bad");
    let f = tmp.join("bad.xml");
    std::fs::write(&f, "<InstrumentationManifest>\n<Instrumentation><Regions>\n<Region Name='x'/>\n</Regions></Instrumentation></InstrumentationManifest>").unwrap();
    let out = Command::new(common::binary())
        .args(["--regions", f.to_str().unwrap(), "info", "nope.etl"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.xml") && err.contains("line 3") && err.contains("Guid"),
        "{err}"
    );
}

#[test]
fn marks_from_the_writer() {
    use synth::memory_events::{mark, write_memory_events, MemoryEvents, Proc};
    let tmp = common::temp_dir("marks");
    let labels = ["Profiling_Start", "step 2: ünïcode", "Profiling_Stop"];
    let m = MemoryEvents {
        processes: vec![Proc {
            pid: 100,
            exe: "a.exe".into(),
            tids: vec![101],
        }],
        raw: labels
            .iter()
            .enumerate()
            .map(|(k, l)| mark(1_000_000 * (k as i64 + 1) * 7, 100, 101, l))
            .collect(),
        ..MemoryEvents::default()
    };
    let f = tmp.join("marks.etl");
    std::fs::write(&f, write_memory_events(&m).unwrap()).unwrap();
    let rows = json(&["export", f.to_str().unwrap(), "--table", "marks", "--rows"]);
    assert_eq!(rows.len(), labels.len(), "{rows:?}");
    for (row, (k, l)) in rows.iter().zip(labels.iter().enumerate()) {
        assert_eq!(row["Label"], *l);
        assert_eq!(row["Process"], "a.exe (100)");
        assert_eq!(row["Thread"], 101);
        // The writer's ticks are 100 ns from its ts0 (the trace's time zero).
        let want = 1e-7 * (1_000_000 * (k as i64 + 1) * 7) as f64;
        assert!((row["Time"].as_f64().unwrap() - want).abs() < 1e-6, "{row}");
    }
    // The HTTP API serves the same table.
    let server = common::Server::start(&tmp.join("data"), &[f.to_str().unwrap()]);
    let (_, list) = server.json("GET", "/api/traces", "");
    let id = list["traces"][0]["id"].as_str().unwrap().to_string();
    let entry = server.wait_ready(&id, 60);
    assert_eq!(entry["summary"]["table_rows"]["marks"], labels.len());
    let (s, v) = server.json(
        "POST",
        &format!("/api/traces/{id}/table"),
        r#"{"table": "marks", "columns": ["Label"], "values": ["Time"], "limit": 100}"#,
    );
    assert_eq!(s, 200, "{v}");
    let mut got: Vec<(String, f64)> = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["label"].as_str().unwrap().to_string(),
                r["values"]["Time"].as_f64().unwrap(),
            )
        })
        .collect();
    got.sort_by(|a, b| a.1.total_cmp(&b.1));
    let want: Vec<(String, f64)> = rows
        .iter()
        .map(|r| {
            (
                r["Label"].as_str().unwrap().to_string(),
                r["Time"].as_f64().unwrap(),
            )
        })
        .collect();
    assert_eq!(got, want);
}

/// The event tables (File I/O, Disk I/O, Hard Faults, Network) get the
/// Region of each row from its start time, as WPA keys them by region: the
/// test finds each row's instance itself from the Regions of Interest rows.
#[test]
fn event_tables_get_the_region_of_their_rows() {
    let Some(dir) = testdata::real_traces_dir() else {
        return;
    };
    let trace = dir.join("perfview-net452-x64.etl");
    let tmp = common::temp_dir("regions-events");
    let regions = gc_regions(&tmp);
    let (t, r) = (trace.to_str().unwrap(), regions.to_str().unwrap());
    let instances: Vec<(f64, f64)> =
        json(&["--regions", r, "export", t, "--table", "regions", "--rows"])
            .iter()
            .map(|r| {
                (
                    r["Start Time"].as_f64().unwrap(),
                    r["Stop Time"].as_f64().unwrap(),
                )
            })
            .collect();
    assert!(instances.len() > 100);
    let tables = [
        ("file-io", "Start Time"),
        ("disk-io", "Init Time"),
        ("hard-faults", "Start Time"),
        ("network", "Time"),
    ];
    let instances = &instances;
    let results: Vec<(usize, usize)> = std::thread::scope(|s| {
        let jobs: Vec<_> = tables
            .iter()
            .map(|&(table, time)| {
                s.spawn(move || {
                    let tsv = run(&[
                        "--regions",
                        r,
                        "export",
                        t,
                        "--table",
                        table,
                        "--rows",
                        "--format",
                        "tsv",
                    ]);
                    let mut lines = tsv.lines();
                    let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
                    let col = |name: &str| {
                        header
                            .iter()
                            .position(|&h| h == name)
                            .unwrap_or_else(|| panic!("{table}: no {name} in {header:?}"))
                    };
                    let (tc, rc) = (col(time), col("Region"));
                    let (mut rows, mut inside) = (0, 0);
                    for l in lines {
                        let f: Vec<&str> = l.split('\t').collect();
                        let x: f64 = f[tc].parse().unwrap();
                        let within = instances.iter().any(|&(s, e)| s <= x && x < e);
                        let want = if within { "CLR/GC" } else { "" };
                        assert_eq!(f[rc], want, "{table} row at {x}");
                        rows += 1;
                        inside += usize::from(within);
                    }
                    let grouped = json(&[
                        "--regions",
                        r,
                        "export",
                        t,
                        "--table",
                        table,
                        "--filter",
                        "Region=CLR/GC",
                        "--values",
                        "Count",
                    ]);
                    let filtered = grouped
                        .first()
                        .and_then(|g| g["Count"].as_u64())
                        .unwrap_or(0);
                    assert_eq!(
                        filtered, inside as u64,
                        "{table}: Region=CLR/GC {grouped:?}"
                    );
                    (rows, inside)
                })
            })
            .collect();
        jobs.into_iter().map(|j| j.join().unwrap()).collect()
    });
    for ((table, _), (rows, inside)) in tables.iter().zip(&results) {
        assert!(*rows > 0, "{table} has no rows");
        eprintln!("{table}: {inside} of {rows} rows inside a GC");
    }
}
