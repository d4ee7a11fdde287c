//! The event tables through the HTTP API (File I/O, Disk I/O, CPU Usage
//! (Precise), Generic Events) against `etlscope export`, the simple
//! row-at-a-time grouping of the same model: a second implementation.

mod common;

use common::{export_json, real_traces_dir, temp_dir, Server};
use serde_json::{json, Value};
use std::collections::BTreeMap;

fn rows(v: &Value) -> &Vec<Value> {
    v["rows"].as_array().unwrap()
}

fn counts(v: &Value) -> BTreeMap<String, u64> {
    rows(v)
        .iter()
        .map(|r| {
            (
                r["label"].as_str().unwrap().to_string(),
                r["count"].as_u64().unwrap(),
            )
        })
        .collect()
}

fn export_counts(file: &str, table: &str, group: &str, filters: &[&str]) -> BTreeMap<String, u64> {
    let mut args = vec![file, "--table", table, "--group", group];
    for f in filters {
        args.extend(["--filter", f]);
    }
    export_json(&args)
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r[group].as_str().unwrap().to_string(),
                r["Count"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn event_tables_match_export() {
    let Some(dir) = real_traces_dir() else { return };
    let data = temp_dir("event-tables");
    let file = dir.join("perfview-net452-x64.etl");
    let fname = file.to_str().unwrap();
    let server = Server::start(&data, &[]);
    let (s, b) = server.post("/api/traces?name=x64.etl", &std::fs::read(&file).unwrap());
    assert_eq!(s, 201, "{b}");
    let id = serde_json::from_str::<Value>(&b).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    server.wait_ready(&id, 120);
    let url = format!("/api/traces/{id}/table");
    let q = |body: Value| {
        let (s, v) = server.json("POST", &url, &body.to_string());
        assert_eq!(s, 200, "{body}: {v}");
        v
    };

    // The brief's figure: 562 creates over 102 paths, clrmain opened 69 times.
    let creates = q(
        json!({"table": "file-io", "columns": ["File Path"], "limit": 0,
        "filters": [{"column": "Type", "values": ["Create"]}]}),
    );
    let want = export_counts(fname, "file-io", "File Path", &["Type=Create"]);
    assert_eq!(counts(&creates), want);
    assert_eq!(creates["total"]["count"], 562);
    assert_eq!(rows(&creates).len(), 102);
    assert_eq!(
        rows(&creates)[0]["label"],
        r"C:\Windows\CSC\v2.0.6\namespace\clrmain"
    );
    assert_eq!(rows(&creates)[0]["count"], 69);
    assert!(rows(&creates)[0]["values"]["Size"].is_number());

    // Every event table grouped by a column, as export groups it.
    for (table, group) in [
        ("file-io", "Process"),
        ("file-io", "Type"),
        ("disk-io", "Path Name"),
        ("cpu-precise", "New Process"),
        ("generic", "Provider"),
    ] {
        let v = q(json!({"table": table, "columns": [group], "limit": 0}));
        assert_eq!(
            counts(&v),
            export_counts(fname, table, group, &[]),
            "{table}/{group}"
        );
    }

    // CPU Usage (ms) of CPU Precise is the summed run time, as export weighs it.
    let v = q(json!({"table": "cpu-precise", "columns": ["New Process"], "limit": 0}));
    let export = export_json(&[fname, "--table", "cpu-precise", "--group", "New Process"]);
    let want: BTreeMap<String, f64> = export
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let w = r["Weight (ms)"].as_f64().unwrap();
            (r["New Process"].as_str().unwrap().to_string(), w)
        })
        .collect();
    for r in rows(&v) {
        let w = want[r["label"].as_str().unwrap()];
        let got = r["weight_ms"].as_f64().unwrap();
        assert!((got - w).abs() < 1e-3 * w.max(1.0), "{r}: {w}");
        assert!(r["values"]["Waits (ms)"].is_number());
    }

    // The Stack column drills root to leaf; [self] rows end it; the
    // children of a row add up to it.
    let body = |path: Vec<Value>| {
        json!({"table": "file-io", "columns": ["Type", "Stack"], "limit": 0, "path": path,
               "filters": [{"column": "Type", "values": ["Create"]}]})
    };
    let mut path = vec![json!("Create")];
    let mut deepest = String::new();
    loop {
        let v = q(body(path.clone()));
        let sum: u64 = rows(&v).iter().map(|r| r["count"].as_u64().unwrap()).sum();
        assert_eq!(sum, v["parent"]["count"].as_u64().unwrap(), "{v}");
        assert_eq!(v["column"], "Stack");
        let top = rows(&v)
            .iter()
            .find(|r| r["key"].as_u64() != Some(4294967294));
        let Some(top) = top.filter(|r| r["expandable"] == true) else {
            break;
        };
        deepest = top["label"].as_str().unwrap().to_string();
        path.push(top["key"].clone());
    }
    assert!(
        path.len() > 3,
        "a Create stack should be several frames deep"
    );
    // Filter to a frame: every create whose stack passes through it.
    let v = q(json!({"table": "file-io", "columns": ["Type"], "limit": 0,
        "filters": [{"column": "Stack", "values": [deepest]}]}));
    assert!(v["total"]["count"].as_u64().unwrap() > 0);
    std::fs::remove_dir_all(&data).ok();
}
