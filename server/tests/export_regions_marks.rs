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

#[test]
fn gc_regions_of_a_real_trace_and_their_samples() {
    let Some(dir) = testdata::real_traces_dir() else {
        return;
    };
    let trace = dir.join("perfview-net452-x64.etl");
    let tmp = common::temp_dir("regions-gc");
    let regions = gc_regions(&tmp);
    let (t, r) = (trace.to_str().unwrap(), regions.to_str().unwrap());

    // Expected instances: each start with the first later stop of its process and Count.
    let (starts, stops) = gc_events(&trace);
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

    let rows = json(&["--regions", r, "export", t, "--table", "regions", "--rows"]);
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
    let grouped = json(&[
        "--regions",
        r,
        "export",
        t,
        "--table",
        "regions",
        "--group",
        "Region",
    ]);
    assert_eq!(grouped[0]["Count"].as_u64(), Some(want.len() as u64));
    assert!((grouped[0]["Duration"].as_f64().unwrap() - total).abs() < 1e-5);

    // Samples inside `[start, stop)` of any instance, from the samples' own
    // times (TSV: the Time column of every sample).
    let ranges: Vec<(f64, f64)> = rows
        .iter()
        .map(|r| {
            (
                r["Start Time"].as_f64().unwrap(),
                r["Stop Time"].as_f64().unwrap(),
            )
        })
        .collect();
    let csv = run(&[
        "export",
        t,
        "--table",
        "cpu-sampled",
        "--rows",
        "--format",
        "tsv",
    ]);
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
    let time_col = header.iter().position(|&h| h == "Time").unwrap();
    let times: Vec<f64> = lines
        .map(|l| l.split('\t').nth(time_col).unwrap().parse().unwrap())
        .collect();
    let inside = times
        .iter()
        .filter(|&&x| ranges.iter().any(|&(s, e)| s <= x && x < e))
        .count();
    let samples = times;
    assert!(inside > 0);
    let filtered = json(&[
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
    ]);
    assert_eq!(
        filtered[0]["Count"].as_u64(),
        Some(inside as u64),
        "{filtered:?}"
    );
    let outside = json(&[
        "--regions",
        r,
        "export",
        t,
        "--table",
        "cpu-sampled",
        "--filter",
        "Region!=CLR/GC",
        "--values",
        "Count",
    ]);
    assert_eq!(
        outside[0]["Count"].as_u64(),
        Some((samples.len() - inside) as u64)
    );
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
}
