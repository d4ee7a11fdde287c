//! Value columns through the HTTP API (`values` on /table) on the demo
//! trace, against `etlscope export` rows: the API groups as a tree (one
//! level per key column, crates/query row_tables), export by whole keys
//! (flat_table), so each checks the other.

mod common;

use common::{export_json, temp_dir, Server};
use serde_json::{json, Value};
use std::path::PathBuf;

fn demo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../traces/explorer-overlay.etl")
}

const EXPLORER: &str = "explorer.exe (6148)";
const VALUES: [&str; 5] = [
    "Load Time",
    "Unload Time",
    "Image Size",
    "File Version",
    "Image Path:unique",
];

#[test]
fn lifetime_values_by_process_image_equal_export_rows() {
    let data = temp_dir("http-values");
    let demo = demo();
    let server = Server::start(&data, &[demo.to_str().unwrap()]);
    let (s, list) = server.json("GET", "/api/traces", "");
    assert_eq!(s, 200);
    let id = list["traces"][0]["id"].as_str().unwrap().to_string();
    server.wait_ready(&id, 120);
    let url = format!("/api/traces/{id}/table");
    let q = |body: Value| {
        let (s, v) = server.json("POST", &url, &body.to_string());
        assert_eq!(s, 200, "{body}: {v}");
        v
    };
    let export = export_json(&[
        demo.to_str().unwrap(),
        "--table",
        "images",
        "--group",
        "Process,Image Path",
        "--values",
        &VALUES.join(","),
        "--filter",
        &format!("Process={EXPLORER}"),
    ]);
    let export = export.as_array().unwrap();
    assert_eq!(export.len(), 370);

    // One row per image of explorer.exe, with its values.
    let images = q(
        json!({"table": "images", "columns": ["Process", "Image Path"], "path": [EXPLORER],
        "values": VALUES, "sort": {"by": "File Version", "descending": false}, "limit": 100000}),
    );
    let rows = images["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 370);
    let names: Vec<&str> = images["value_columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, VALUES);
    for r in rows {
        let path = r["label"].as_str().unwrap();
        let e = export.iter().find(|e| e["Image Path"] == path).unwrap();
        for v in VALUES {
            assert_eq!(r["values"][v], e[v], "{path} {v}");
        }
    }
    // Sorted by File Version: the 11 unversioned images first.
    let unversioned = rows
        .iter()
        .take_while(|r| r["values"]["File Version"] == "")
        .count();
    assert_eq!(unversioned, 11);

    // The process row is the aggregate of its images.
    let top = q(
        json!({"table": "images", "columns": ["Process", "Image Path"], "values": VALUES, "limit": 100000,
        "filters": [{"column": "Process", "values": [EXPLORER]}]}),
    );
    let p = &top["rows"][0]["values"];
    let nums = |c: &'static str| export.iter().filter_map(move |e| e[c].as_f64());
    let size: u64 = export
        .iter()
        .map(|e| e["Image Size"].as_u64().unwrap())
        .sum();
    assert_eq!(p["Image Size"].as_u64(), Some(size));
    assert_eq!(p["Load Time"].as_f64(), nums("Load Time").reduce(f64::min));
    assert_eq!(
        p["Unload Time"].as_f64(),
        nums("Unload Time").reduce(f64::max)
    );
    assert_eq!(p["Image Path:unique"].as_u64(), Some(370));
    // Many versions: the count of distinct ones.
    let versions: std::collections::BTreeSet<&str> = export
        .iter()
        .map(|e| e["File Version"].as_str().unwrap())
        .collect();
    assert_eq!(p["File Version"].as_u64(), Some(versions.len() as u64));

    // Old column names still answer (links made before WPA's names).
    let old =
        q(json!({"table": "images", "columns": ["Size"], "limit": 1, "values": ["Load (s):min"]}));
    assert_eq!(old["column"], "Image Size");
    let (s, v) = server.json(
        "POST",
        &url,
        &json!({"table": "images", "columns": ["Process"], "values": ["Image Path:sum"]})
            .to_string(),
    );
    assert_eq!(s, 400, "{v}");

    // CPU Usage (Sampled): % Weight of 16 s on 4 CPUs, also when filtered.
    let cpu = q(
        json!({"columns": ["Process Name"], "range": {"start_s": 7.0, "end_s": 23.0},
        "filters": [{"column": "Process Name", "values": ["explorer.exe"]}],
        "values": ["Count", "Weight", "% Weight"]}),
    );
    let row = &cpu["rows"][0];
    let w = row["values"]["Weight"].as_f64().unwrap();
    assert!((w - row["weight_ms"].as_f64().unwrap() / 1e3).abs() < 1e-9);
    let pct = row["values"]["% Weight"].as_f64().unwrap();
    assert!(
        (pct - w * 100.0 / (16.0 * 4.0)).abs() < 1e-9,
        "{pct} vs {w}"
    );
    assert_eq!(row["percent"], row["values"]["% Weight"]);

    // Any column of CPU Usage (Sampled) as a value: each process row equals
    // export's row for it, and sorting by Time:min puts the earliest first.
    let sampled = [
        "Thread ID:unique",
        "Time",
        "Time:max",
        "Module",
        "Weight:max",
        "CPU:avg",
    ];
    let export = export_json(&[
        demo.to_str().unwrap(),
        "--table",
        "cpu-sampled",
        "--range",
        "7-23",
        "--group",
        "Process",
        "--values",
        &sampled.join(","),
    ]);
    let export = export.as_array().unwrap();
    let cpu = q(
        json!({"columns": ["Process", "Stack"], "range": {"start_s": 7.0, "end_s": 23.0},
        "values": sampled, "sort": {"by": "Time", "descending": false}, "limit": 100000}),
    );
    let names: Vec<&str> = cpu["value_columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, sampled);
    let rows = cpu["rows"].as_array().unwrap();
    assert_eq!(rows.len(), export.len());
    for r in rows {
        let e = export.iter().find(|e| e["Process"] == r["label"]).unwrap();
        for v in sampled {
            assert_eq!(r["values"][v], e[v], "{} {v}", r["label"]);
        }
    }
    let firsts: Vec<f64> = rows
        .iter()
        .map(|r| r["values"]["Time"].as_f64().unwrap())
        .collect();
    assert!(firsts.windows(2).all(|w| w[0] <= w[1]), "{firsts:?}");
    let (s, v) = server.json(
        "POST",
        &url,
        &json!({"columns": ["Process"], "values": ["Stack"]}).to_string(),
    );
    assert_eq!(s, 400, "{v}");
}
