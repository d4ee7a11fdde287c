//! The Symbols panel's API: a trace served without its PDB lists fixture.dll
//! as not found with where it looked; its own symbol path (PUT, kept in the
//! catalog across a restart) and a Load name its frames in place, with the
//! names llvm-pdbutil lists for the fixture PDB (common/fixture_trace.rs).

mod common;

use common::{fixture_trace, temp_dir, Server};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

fn function_column(server: &Server, id: &str) -> BTreeMap<String, u64> {
    let q = r#"{"columns": ["Function"], "limit": 100000}"#;
    let (s, v) = server.json("POST", &format!("/api/traces/{id}/table"), q);
    assert_eq!(s, 200, "{v}");
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

/// The symbol state once no lookup runs, and its fixture.dll row.
fn settled(server: &Server, id: &str) -> (Value, Value) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let (s, v) = server.json("GET", &format!("/api/traces/{id}/symbols"), "");
        assert_eq!(s, 200, "{v}");
        if v["status"] == "done" {
            let m = v["modules"]
                .as_array()
                .and_then(|ms| ms.iter().find(|m| m["module"] == "fixture.dll"))
                .cloned()
                .unwrap_or_else(|| panic!("no fixture.dll row: {v}"));
            return (v, m);
        }
        assert!(Instant::now() < deadline, "lookup never ended: {v}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_traces_own_symbol_path_and_load_name_its_frames() {
    let data = temp_dir("symui-data");
    let mine = temp_dir("symui-trace");
    let pdbs = temp_dir("symui-pdbs");
    let (trace, want) = fixture_trace::write();
    let file = mine.join("fixture.etl");
    std::fs::write(&file, &trace).unwrap();
    std::fs::copy(
        fixture_trace::fixtures().join("fixture.pdb"),
        pdbs.join("fixture.pdb"),
    )
    .unwrap();
    let file_arg = file.to_str().unwrap();
    let server = Server::start(&data, &[file_arg]);
    let (_, list) = server.json("GET", "/api/traces", "");
    let id = list["traces"][0]["id"].as_str().unwrap().to_string();
    server.wait_ready(&id, 60);

    let (v, m) = settled(&server, &id);
    assert_eq!(m["status"], "not found", "{m}");
    assert_eq!(m["pdb_name"], "fixture.pdb", "{m}");
    let uploads = data.join("symbols").display().to_string();
    // The uploads folder, then the PDB path the image recorded (fixture_trace.rs writes it).
    assert_eq!(
        m["searched"],
        json!([uploads, r"C:\build\fixture.pdb"]),
        "{m}"
    );
    assert_eq!(
        (&v["symbol_path"], &v["default_symbol_path"]),
        (&Value::Null, &Value::Null)
    );
    let samples: u64 = want.values().sum();
    let unnamed: BTreeMap<String, u64> = [("fixture.dll!?".to_string(), samples)].into();
    assert_eq!(function_column(&server, &id), unnamed);

    let sym = format!("/api/traces/{id}/symbols");
    let (s, v) = server.json("PUT", &sym, r#"{"symbol_path": "a\u0007b"}"#);
    assert_eq!(s, 400, "{v}");
    let own = pdbs.display().to_string();
    let (s, v) = server.json("PUT", &sym, &json!({ "symbol_path": own }).to_string());
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["symbol_path"], own.as_str());
    let (s, v) = server.json("POST", &format!("{sym}/load"), "");
    assert_eq!(s, 202, "{v}");
    let (_, m) = settled(&server, &id);
    assert_eq!(m["status"], "loaded", "{m}");
    assert_eq!(m["resolved_frames"], m["frames"], "{m}");
    assert_eq!(function_column(&server, &id), want);
    drop(server);

    // The path is the trace's, in the catalog: the next ingest uses it.
    let server = Server::start(&data, &[file_arg]);
    server.wait_ready(&id, 60);
    let (v, m) = settled(&server, &id);
    assert_eq!(v["symbol_path"], own.as_str(), "{v}");
    assert_eq!(m["status"], "loaded", "{m}");
    assert_eq!(function_column(&server, &id), want);
    // Cleared: the server's path (none) again.
    let (s, v) = server.json("PUT", &sym, r#"{"symbol_path": null}"#);
    assert_eq!((s, &v["symbol_path"]), (200, &Value::Null), "{v}");
    drop(server);
    for d in [data, mine, pdbs] {
        std::fs::remove_dir_all(d).ok();
    }
}
