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
        json!({"table": "file-io", "columns": ["File Path"], "limit": 100000,
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
        ("hard-faults", "File Path"),
        ("hard-faults", "Process"),
        ("network", "Process"),
        ("network", "Remote Address"),
    ] {
        let v = q(json!({"table": table, "columns": [group], "limit": 100000}));
        assert_eq!(
            counts(&v),
            export_counts(fname, table, group, &[]),
            "{table}/{group}"
        );
    }

    // CPU Usage (ms) of CPU Precise is the summed run time, as export weighs it.
    // (No real trace here has context switches, so this is empty today;
    // query's row_table_cpu_precise test checks the sums on hand-made rows.)
    let v = q(json!({"table": "cpu-precise", "columns": ["New Process"], "limit": 100000}));
    let export = export_json(&[fname, "--table", "cpu-precise", "--group", "New Process"]);
    let want: BTreeMap<String, f64> = export
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            // export prints durations in seconds.
            let w = r["CPU Usage"].as_f64().unwrap() * 1e3;
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
        json!({"table": "file-io", "columns": ["Type", "Stack"], "limit": 100000, "path": path,
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
    let v = q(
        json!({"table": "file-io", "columns": ["Type"], "limit": 100000,
        "filters": [{"column": "Stack", "values": [deepest]}]}),
    );
    assert!(v["total"]["count"].as_u64().unwrap() > 0);
    std::fs::remove_dir_all(&data).ok();
}

/// The UI author's wishes on the sampled views: "stack contains" filters,
/// flame modules and no-stack exclusion, butterfly targets by row key,
/// symbol counts in the summary.
#[test]
fn sampled_filters_flame_modules_butterfly_keys_and_symbol_summary() {
    let Some(dir) = real_traces_dir() else { return };
    let data = temp_dir("sampled-wishes");
    let file = dir.join("perfview-net452-x64.etl");
    let server = Server::start(&data, &[]);
    let (s, b) = server.post("/api/traces?name=x64.etl", &std::fs::read(&file).unwrap());
    assert_eq!(s, 201, "{b}");
    let id = serde_json::from_str::<Value>(&b).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let entry = server.wait_ready(&id, 120);
    let post = |what: &str, body: Value| {
        let (s, v) = server.json(
            "POST",
            &format!("/api/traces/{id}/{what}"),
            &body.to_string(),
        );
        assert_eq!(s, 200, "{body}: {v}");
        v
    };

    // (a) A frame three levels down the busiest stack of Test.x64.exe: the
    // samples whose stack contains its function are the butterfly's
    // inclusive count of that function (computed by a different scan; its
    // func key read from the per-process flame graph's box on the same
    // path), and include the samples under that exact call node.
    let mut path = vec![json!("Test.x64.exe (3676)")];
    let mut labels = vec!["Test.x64.exe (3676)".to_string()];
    let mut frame = Value::Null;
    for _ in 0..3 {
        let v = post(
            "table",
            json!({"columns": ["Process", "Stack"], "path": path, "limit": 1}),
        );
        frame = rows(&v)[0].clone();
        path.push(frame["key"].clone());
        labels.push(frame["label"].as_str().unwrap().to_string());
    }
    let g = post("flame", json!({"min_fraction": 0.0, "per_process": true}));
    let mut on_path: Vec<String> = Vec::new();
    let mut func = None;
    for (i, d) in g["depth"].as_array().unwrap().iter().enumerate() {
        let d = d.as_u64().unwrap() as usize;
        on_path.truncate(d.saturating_sub(1));
        if d == 0 {
            continue;
        }
        on_path.push(g["label"][i].as_str().unwrap().to_string());
        if on_path == labels {
            func = Some(g["func"][i].clone());
        }
    }
    let func = func.expect("the drilled path is a flame box");
    let contains = |column: &str, value: Value| {
        post(
            "table",
            json!({"columns": ["Process"], "limit": 100000,
            "filters": [{"column": column, "values": [value], "contains": true}]}),
        )["total"]["count"]
            .as_u64()
            .unwrap()
    };
    let by_node = contains("Stack", frame["key"].clone());
    let fly = post("butterfly", json!({"kind": "function", "target": func}));
    assert_eq!(by_node, fly["inclusive"]["count"].as_u64().unwrap());
    assert_eq!(contains("Function", func.clone()), by_node);
    assert!(by_node >= frame["count"].as_u64().unwrap());
    // A label names every function shown so (modules of one name loaded
    // twice give two keys): at least the node's function.
    let label = frame["label"].as_str().unwrap();
    assert!(contains("Stack", json!(label)) >= by_node);
    let module = label.split('!').next().unwrap();
    assert!(contains("Module", json!(module)) >= by_node);

    // (b) Each flame box names its module, the module its label starts with;
    // leaving out samples without a stack walk leaves at most the model's
    // samples_with_stack (one-frame walks go too; query's real_trace test
    // counts them exactly).
    let g = post("flame", json!({"min_fraction": 0.0}));
    let labels = g["label"].as_array().unwrap();
    let modules = g["module"].as_array().unwrap();
    assert_eq!(labels.len(), modules.len());
    for (l, m) in labels.iter().zip(modules).skip(1) {
        let (l, m) = (l.as_str().unwrap(), m.as_str().unwrap());
        // Managed (JIT) frames have no module: `?`, and their label is the bare name.
        assert!(
            l == "n/a" || m == "?" || l.starts_with(&format!("{m}!")),
            "{l} vs {m}"
        );
    }
    let g = post("flame", json!({"exclude_no_stack": true}));
    let kept = g["total"]["count"].as_u64().unwrap();
    let walked = entry["summary"]["samples_with_stack"].as_u64().unwrap();
    assert!(
        kept <= walked && kept > walked * 9 / 10,
        "{kept} of {walked}"
    );
    assert!(!g["label"].as_array().unwrap().contains(&json!("n/a")));

    // (c) Butterfly targets by the keys of Function and Module rows.
    for (kind, col) in [("function", "Function"), ("module", "Module")] {
        let v = post("table", json!({"columns": [col], "limit": 3}));
        for r in rows(&v) {
            let fly = post("butterfly", json!({"kind": kind, "target": r["key"]}));
            assert_eq!(fly["target"]["label"], r["label"], "{kind}");
            assert!(fly["self"]["count"].as_u64().unwrap() >= r["count"].as_u64().unwrap());
        }
    }

    // (d) The summary carries the symbol lookup's state.
    let (_, sum) = server.json("GET", &format!("/api/traces/{id}/summary"), "");
    let st = sum["symbols"]["status"].as_str().unwrap();
    assert!(["pending", "running", "done"].contains(&st), "{sum}");
    std::fs::remove_dir_all(&data).ok();
}
