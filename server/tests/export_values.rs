//! `etlscope export` with value columns on the demo trace. Expected values
//! are computed here from the rows export lists without grouping (one per
//! image, no aggregation), so the grouping and aggregation under test is
//! checked against a naive version of itself that shares no code with it.

mod common;

use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};

fn demo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../traces/explorer-overlay.etl")
}

fn etlscope(args: &[&str]) -> std::process::Output {
    Command::new(common::binary()).args(args).output().unwrap()
}

fn export(args: &[&str]) -> Vec<Map<String, Value>> {
    let demo = demo();
    let mut all = vec!["export", demo.to_str().unwrap(), "--format", "json"];
    all.extend_from_slice(args);
    let out = etlscope(&all);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v.as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_object().unwrap().clone())
        .collect()
}

fn csv(args: &[&str]) -> String {
    let demo = demo();
    let mut all = vec!["export", demo.to_str().unwrap()];
    all.extend_from_slice(args);
    let out = etlscope(&all);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// `10.0.19041.1093` after `10.0.19041.110`: the leading dotted numbers.
fn version_key(v: &str) -> Vec<u64> {
    v.split(|c: char| !c.is_ascii_digit() && c != '.')
        .next()
        .unwrap_or("")
        .split('.')
        .filter_map(|p| p.parse().ok())
        .collect()
}

#[test]
fn lifetime_by_process_image_shows_each_images_values() {
    let listed = export(&["--table", "images"]);
    // Naive grouping of the listed rows by (Process, Image Path).
    let mut want: BTreeMap<(String, String), Vec<&Map<String, Value>>> = BTreeMap::new();
    for r in &listed {
        let key = (
            r["Process"].as_str().unwrap().to_string(),
            r["Image Path"].as_str().unwrap().to_string(),
        );
        want.entry(key).or_default().push(r);
    }
    let grouped = export(&[
        "--table",
        "images",
        "--group",
        "Process,Image Path",
        "--values",
        "Count,Load Time,Unload Time,Image Size,File Version,Image Size:max",
    ]);
    assert_eq!(grouped.len(), want.len());
    let nums = |rows: &[&Map<String, Value>], c: &str| -> Vec<f64> {
        rows.iter().filter_map(|r| r[c].as_f64()).collect()
    };
    let opt = |v: Option<f64>| v.map_or(Value::Null, |x| serde_json::json!(x));
    for g in &grouped {
        let key = (
            g["Process"].as_str().unwrap().to_string(),
            g["Image Path"].as_str().unwrap().to_string(),
        );
        let rows = &want[&key];
        assert_eq!(g["Count"].as_u64().unwrap() as usize, rows.len());
        let load = nums(rows, "Load Time").into_iter().reduce(f64::min);
        let unload = nums(rows, "Unload Time").into_iter().reduce(f64::max);
        assert_eq!(g["Load Time"], opt(load), "{key:?}");
        assert_eq!(g["Unload Time"], opt(unload), "{key:?}");
        let sizes: Vec<u64> = rows
            .iter()
            .map(|r| r["Image Size"].as_u64().unwrap())
            .collect();
        assert_eq!(g["Image Size"].as_u64().unwrap(), sizes.iter().sum::<u64>());
        assert_eq!(g["Image Size:max"].as_u64(), sizes.iter().max().copied());
        let versions: std::collections::BTreeSet<&str> = rows
            .iter()
            .map(|r| r["File Version"].as_str().unwrap())
            .collect();
        match versions.len() {
            1 => assert_eq!(g["File Version"], *versions.iter().next().unwrap()),
            n => assert_eq!(g["File Version"].as_u64(), Some(n as u64)),
        }
    }
    // explorer.exe: one row per image, the 11 unversioned first by File Version.
    let explorer = export(&[
        "--table",
        "images",
        "--group",
        "Process,Image Path",
        "--values",
        "File Version,Image Size",
        "--filter",
        "Process=explorer.exe (6148)",
        "--sort",
        "File Version:asc",
    ]);
    assert_eq!(explorer.len(), 370);
    let versions: Vec<&str> = explorer
        .iter()
        .map(|r| r["File Version"].as_str().unwrap())
        .collect();
    assert!(
        versions[..11].iter().all(|v| v.is_empty()),
        "{:?}",
        &versions[..12]
    );
    assert!(versions[11..].iter().all(|v| !v.is_empty()));
    let keys: Vec<Vec<u64>> = versions[11..].iter().map(|v| version_key(v)).collect();
    assert!(keys.windows(2).all(|w| w[0] <= w[1]), "version order");
}

#[test]
fn default_values_limits_and_csv() {
    // Without --values each table shows its default value columns.
    let procs = export(&["--table", "processes", "--group", "Process Name"]);
    let cols: Vec<&str> = procs[0].keys().map(|k| k.as_str()).collect();
    assert_eq!(
        cols,
        [
            "Process Name",
            "Count",
            "Start Time",
            "End Time",
            "Duration"
        ]
    );
    let cpu = export(&[
        "--table",
        "cpu-sampled",
        "--group",
        "Process Name",
        "--range",
        "7-23",
        "--limit",
        "2",
    ]);
    assert_eq!(cpu.len(), 2);
    let cols: Vec<&str> = cpu[0].keys().map(|k| k.as_str()).collect();
    assert_eq!(cols, ["Process Name", "Count", "Weight", "% Weight"]);
    // % Weight: a share of 16 s on 4 CPUs; Weight in seconds.
    let w = cpu[0]["Weight"].as_f64().unwrap();
    let pct = cpu[0]["% Weight"].as_f64().unwrap();
    assert!((pct - w * 100.0 / 64.0).abs() < 1e-9, "{pct} vs {w}");
    // CSV: plain digits, no thousands separators or units.
    let text = csv(&["--table", "file-io", "--group", "Type", "--values", "Count"]);
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("Type,Count"));
    let create = lines.find(|l| l.starts_with("Create,")).unwrap();
    let n: u64 = create["Create,".len()..].parse().unwrap();
    assert!(n > 1000, "{create}");
    // An empty result still prints its header.
    let empty = csv(&[
        "--table",
        "file-io",
        "--group",
        "Type",
        "--filter",
        "Type=NoSuchType",
    ]);
    assert_eq!(empty, "Type,Count,Size,Duration\n");
    // Sorting by a value column, descending by default.
    let by_size = export(&[
        "--table",
        "images",
        "--group",
        "Image Name",
        "--values",
        "Image Size:max",
        "--sort",
        "Image Size:max",
    ]);
    let sizes: Vec<u64> = by_size
        .iter()
        .map(|r| r["Image Size:max"].as_u64().unwrap())
        .collect();
    assert!(sizes.windows(2).all(|w| w[0] >= w[1]));
    // A text column cannot be summed.
    let out = etlscope(&[
        "export",
        demo().to_str().unwrap(),
        "--table",
        "images",
        "--group",
        "Process",
        "--values",
        "Image Path:sum",
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("needs numbers"));
}

#[test]
fn a_closed_pipe_ends_quietly() {
    let mut child = Command::new(common::binary())
        .args([
            "export",
            demo().to_str().unwrap(),
            "--table",
            "cpu-sampled",
            "--group",
            "Process,Stack",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 16];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap();
    // The reader is gone (as `| head -1` leaves it).
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        !err.contains("panicked") && !err.to_lowercase().contains("broken pipe"),
        "{err}"
    );
}

#[test]
fn a_truncated_trace_warns_on_stderr() {
    let bytes = std::fs::read(demo()).unwrap();
    let cut = std::env::temp_dir().join(format!("etlscope-truncated-{}.etl", std::process::id()));
    std::fs::write(&cut, &bytes[..bytes.len() * 3 / 8]).unwrap();
    let out = etlscope(&[
        "export",
        cut.to_str().unwrap(),
        "--table",
        "processes",
        "--group",
        "Process Name",
    ]);
    let _ = std::fs::remove_file(&cut);
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("warning: the trace is incomplete"), "{err}");
    // The complete trace does not warn.
    let out = etlscope(&[
        "export",
        demo().to_str().unwrap(),
        "--table",
        "processes",
        "--group",
        "Process Name",
    ]);
    assert!(!String::from_utf8_lossy(&out.stderr).contains("warning"));
}
