//! `etlscope compare traces/explorer-overlay.etl traces/explorer-fixed.etl`:
//! every delta is the difference of the two traces' `etlscope export` rows
//! (matched here by plain loops), and the shell extension's removal puts
//! explorer.exe and tishell64_26_0_39450.dll at the top of the loss column.

mod common;

use common::export_json;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;

fn trace(name: &str) -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../traces")
        .join(name);
    p.to_str().unwrap().to_string()
}

fn compare(extra: &[&str]) -> Vec<Value> {
    let out = Command::new(common::binary())
        .arg("compare")
        .args([trace("explorer-overlay.etl"), trace("explorer-fixed.etl")])
        .args(extra)
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice::<Value>(&out.stdout)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

/// Export rows of one trace as key -> Count.
fn counts(file: &str, group: &str, extra: &[&str]) -> BTreeMap<String, f64> {
    let mut args = vec![file, "--table", "cpu-sampled", "--group", group];
    args.extend(extra);
    let v = export_json(&args);
    let mut m = BTreeMap::new();
    for r in v.as_array().unwrap() {
        *m.entry(r[group].as_str().unwrap().to_string())
            .or_insert(0.0) += r["Count"].as_f64().unwrap();
    }
    m
}

fn check(group: &str, top: &str) {
    let rows = compare(&["--table", "cpu-sampled", "--group", group]);
    let base = counts(&trace("explorer-overlay.etl"), group, &[]);
    let new = counts(&trace("explorer-fixed.etl"), group, &[]);
    assert_eq!(rows[0][group], top, "largest loss first");
    let mut seen = 0;
    for r in &rows {
        let k = r[group].as_str().unwrap();
        let b = base.get(k).copied().unwrap_or(0.0);
        let n = new.get(k).copied().unwrap_or(0.0);
        assert_eq!(r["Count (baseline)"].as_f64(), Some(b), "{k}");
        assert_eq!(r["Count (comparison)"].as_f64(), Some(n), "{k}");
        assert_eq!(r["Count (delta)"].as_f64(), Some(n - b), "{k}");
        if b != 0.0 {
            let p = r["Count (delta %)"].as_f64().unwrap();
            assert!((p - (n - b) * 100.0 / b).abs() < 1e-9, "{k}");
        }
        seen += 1;
    }
    let keys: std::collections::BTreeSet<&String> = base.keys().chain(new.keys()).collect();
    assert_eq!(seen, keys.len(), "one row per key of either trace");
}

#[test]
fn explorer_loses_the_shell_extensions_samples() {
    check("Process Name", "explorer.exe");
}

#[test]
fn the_shell_extension_tops_the_module_losses() {
    check("Module", "tishell64_26_0_39450.dll");
}

#[test]
fn normalising_by_time_scales_the_baseline() {
    // 7-23 s on the baseline against 7-15 s on the comparison: half the time.
    let rows = compare(&[
        "--table",
        "cpu-sampled",
        "--group",
        "Process Name",
        "--range-base",
        "7-23",
        "--range-new",
        "7-15",
        "--normalize",
        "time",
    ]);
    let base = counts(
        &trace("explorer-overlay.etl"),
        "Process Name",
        &["--range", "7-23"],
    );
    let new = counts(
        &trace("explorer-fixed.etl"),
        "Process Name",
        &["--range", "7-15"],
    );
    let r = rows
        .iter()
        .find(|r| r["Process Name"] == "explorer.exe")
        .unwrap();
    let b = base["explorer.exe"] * 8.0 / 16.0;
    assert!((r["Count (baseline)"].as_f64().unwrap() - b).abs() < 1e-9);
    let d = new["explorer.exe"] - b;
    assert!((r["Count (delta)"].as_f64().unwrap() - d).abs() < 1e-9);
}
