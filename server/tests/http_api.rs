//! The real binary on 127.0.0.1: upload every real trace (.etl, PerfView's
//! .etl.zip, Visual Studio's .diagsession), list, query,
//! restart, and query again (issue 6 acceptance).

mod common;

use common::{export_json, real_traces_dir, temp_dir, Server};
use serde_json::Value;
use std::collections::BTreeMap;

fn per_process(v: &Value) -> BTreeMap<String, u64> {
    v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["label"].as_str().unwrap().to_string(),
                r["count"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn upload_list_query_restart_query() {
    let Some(dir) = real_traces_dir() else { return };
    let data = temp_dir("api");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.extension()
                .is_some_and(|x| x == "etl" || x == "zip" || x == "diagsession")
        })
        .collect();
    files.sort();
    // Every trace the folder holds, whatever their number: more are added
    // from the field over time.
    assert!(
        files.iter().any(|f| f.ends_with("perfview-net452-x64.etl")),
        "perfview-net452-x64.etl missing from {}",
        dir.display()
    );

    let server = Server::start(&data, &[]);
    let mut ids = BTreeMap::new();
    for f in &files {
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        let body = std::fs::read(f).unwrap();
        let (s, b) = server.post(&format!("/api/traces?name={name}&uploader=test"), &body);
        assert_eq!(s, 201, "{name}: {b}");
        let v: Value = serde_json::from_str(&b).unwrap();
        ids.insert(name, v["id"].as_str().unwrap().to_string());
    }
    // A second upload of the same bytes returns the existing entry.
    let again = std::fs::read(&files[0]).unwrap();
    let (s, b) = server.post("/api/traces?name=again.etl", &again);
    assert_eq!(s, 200, "{b}");
    let (_, list) = server.json("GET", "/api/traces", "");
    assert_eq!(list["traces"].as_array().unwrap().len(), files.len());
    for id in ids.values() {
        let v = server.wait_ready(id, 120);
        assert_eq!(v["summary"]["skipped_buffers"], 0, "{v}");
    }

    let x64 = &ids["perfview-net452-x64.etl"];
    let query = r#"{"columns": ["Process"], "limit": 100000}"#;
    let (s, v) = server.json("POST", &format!("/api/traces/{x64}/table"), query);
    assert_eq!(s, 200, "{v}");
    let got = per_process(&v);
    let export = export_json(&[
        dir.join("perfview-net452-x64.etl").to_str().unwrap(),
        "--table",
        "cpu-sampled",
        "--group",
        "Process",
    ]);
    let want: BTreeMap<String, u64> = export
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["Process"].as_str().unwrap().to_string(),
                r["Count"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(got, want);
    assert_eq!(got.values().sum::<u64>(), 79_528);

    drop(server);
    let server = Server::start(&data, &[]);
    let (_, list) = server.json("GET", "/api/traces", "");
    assert_eq!(
        list["traces"].as_array().unwrap().len(),
        files.len(),
        "{list}"
    );
    let (s, v) = server.json("POST", &format!("/api/traces/{x64}/table"), query);
    assert_eq!(s, 200, "{v}");
    assert_eq!(per_process(&v), want);
    std::fs::remove_dir_all(&data).ok();
}
