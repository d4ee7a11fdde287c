//! `/graph` on the demo trace: the series of CPU Usage (Sampled) by
//! process over 7-23 s hold the figure the README derives by hand
//! (explorer.exe 42,300 samples of 1 ms), the event table's per-bin
//! counts add up to `etlscope export`'s rows (flat_table, other code), and
//! the Processes spans are export's Start/End Time per process.

mod common;

use common::{export_json, temp_dir, Server};
use serde_json::{json, Value};
use std::path::PathBuf;

fn demo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../traces/explorer-overlay.etl")
}

fn sum(v: &Value) -> f64 {
    v["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .sum()
}

#[test]
fn graph_series_and_spans_match_the_tables() {
    let data = temp_dir("http-graph");
    let demo = demo();
    let d = demo.to_str().unwrap();
    let server = Server::start(&data, &[d]);
    let (_, list) = server.json("GET", "/api/traces", "");
    let id = list["traces"][0]["id"].as_str().unwrap().to_string();
    server.wait_ready(&id, 120);
    let url = format!("/api/traces/{id}/graph");
    let q = |body: Value| {
        let (s, v) = server.json("POST", &url, &body.to_string());
        assert_eq!(s, 200, "{body}: {v}");
        v
    };
    let g = q(
        json!({"columns": ["Process", "Stack"], "range": {"start_s": 7.0, "end_s": 23.0}, "bins": 16, "top": 3}),
    );
    assert_eq!(g["kind"], "series");
    assert_eq!(g["column"], "Process");
    assert_eq!(g["bin_s"].as_f64().unwrap(), 1.0);
    let first = &g["series"][0];
    assert_eq!(first["label"], "explorer.exe (6148)");
    assert_eq!(
        first["id"].as_str().unwrap().split('@').next(),
        Some("pid:6148")
    );
    assert!((sum(first) - 42_300.0).abs() < 1e-6, "{}", sum(first));
    assert!((first["total"].as_f64().unwrap() - 42_300.0).abs() < 1e-6);
    assert_eq!(g["series"].as_array().unwrap().len(), 3);

    // File I/O by Type: per-bin counts of each type add to export's count.
    let g = q(
        json!({"table": "file-io", "columns": ["Type", "File Path"], "measure": "count", "top": 100}),
    );
    let rows = export_json(&[d, "--table", "file-io", "--group", "Type"]);
    let rows = rows.as_array().unwrap();
    let series = g["series"].as_array().unwrap();
    assert_eq!(series.len(), rows.len());
    for r in rows {
        let s = series.iter().find(|s| s["label"] == r["Type"]).unwrap();
        assert_eq!(sum(s), r["Count"].as_f64().unwrap(), "{r}");
    }
    // A measure the table lacks is refused.
    let (s, _) = server.json(
        "POST",
        &url,
        &json!({"table": "file-io", "columns": ["Type"], "measure": "File Path"}).to_string(),
    );
    assert_eq!(s, 400);

    // Processes: one span per process, export's Start/End Time.
    let g = q(
        json!({"table": "processes", "columns": ["Process"], "sort": {"by": "label", "descending": false}}),
    );
    assert_eq!(g["kind"], "spans");
    let want = export_json(&[
        d,
        "--table",
        "processes",
        "--group",
        "Process",
        "--values",
        "Start Time,End Time",
    ]);
    let want = want.as_array().unwrap();
    let spans = g["spans"].as_array().unwrap();
    assert_eq!(spans.len(), want.len());
    for w in want {
        let s = spans.iter().find(|s| s["label"] == w["Process"]).unwrap();
        assert_eq!(s["start_s"], w["Start Time"], "{w}");
        assert_eq!(s["end_s"], w["End Time"], "{w}");
    }
    drop(server);
    std::fs::remove_dir_all(&data).ok();
}

/// The real PerfView trace (File I/O, Disk I/O and generic events), from
/// `ETLSCOPE_REAL_TRACES` (default `../shared/traces`); `None` outside CI
/// when it is missing.
fn real_trace() -> Option<PathBuf> {
    let dir = std::env::var_os("ETLSCOPE_REAL_TRACES").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/traces"),
        PathBuf::from,
    );
    let p = dir.join("perfview-net452-x64.etl");
    let ci = std::env::var("CI").is_ok_and(|v| !["", "0", "false"].contains(&v.trim()));
    if !p.exists() {
        assert!(!ci, "{} is missing", p.display());
        eprintln!(
            "!!! SKIPPING: {} is missing (set ETLSCOPE_REAL_TRACES) !!!",
            p.display()
        );
        return None;
    }
    Some(p)
}

/// `/table` with `graph` answers, for event tables whose level has few
/// keys, exactly what `/graph` answers for the same body (its `range` the
/// graph's); the rows are `/table`'s without it.
#[test]
fn a_tables_graph_equals_the_graph_query() {
    let Some(trace) = real_trace() else { return };
    let data = temp_dir("http-graph-in-table");
    let server = Server::start(&data, &[trace.to_str().unwrap()]);
    let (_, list) = server.json("GET", "/api/traces", "");
    let id = list["traces"][0]["id"].as_str().unwrap().to_string();
    server.wait_ready(&id, 120);
    let post = |what: &str, body: &Value| {
        let (s, v) = server.json(
            "POST",
            &format!("/api/traces/{id}/{what}"),
            &body.to_string(),
        );
        assert_eq!(s, 200, "{what} {body}: {v}");
        v
    };
    let mut compared = 0;
    for (table, columns, measure) in [
        ("file-io", json!(["Type", "File Path"]), json!("count")),
        ("file-io", json!(["Process", "Type"]), json!("Size")),
        ("disk-io", json!(["IO Type", "Process"]), json!("weight")),
        ("generic", json!(["Provider", "Task Name"]), json!("count")),
        ("cpu-precise", json!(["New Process"]), json!("weight")),
    ] {
        for (range, graph_range) in [
            (Value::Null, json!({"start_s": 0.5, "end_s": 7.0})),
            (
                json!({"start_s": 1.0, "end_s": 4.0}),
                json!({"start_s": 1.0, "end_s": 4.0}),
            ),
        ] {
            let mut body =
                json!({"table": table, "columns": columns, "values": ["Count"], "limit": 5});
            if !range.is_null() {
                body["range"] = range.clone();
            }
            let plain = post("table", &body);
            let graph = json!({"range": graph_range, "bins": 25, "top": 3, "measure": measure});
            body["graph"] = graph.clone();
            let mut with = post("table", &body);
            let Some(in_table) = with.as_object_mut().and_then(|m| m.remove("graph")) else {
                panic!("{body}: no graph in the answer");
            };
            assert_eq!(with, plain, "{body}");
            let alone = json!({"table": table, "columns": columns, "range": graph_range,
                "bins": 25, "top": 3, "measure": measure});
            assert_eq!(in_table, post("graph", &alone), "{body}");
            let n = in_table["series"].as_array().unwrap().len();
            eprintln!("{table} {columns} {range}: {n} series");
            compared += usize::from(n > 0);
        }
    }
    assert!(compared >= 6, "only {compared} graphs had series");
}
