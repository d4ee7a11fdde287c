//! `POST /api/symbols`: an uploaded PDB lands in the data directory in
//! symstore layout and the loaded trace that recorded its identity gets
//! its frames named (names from llvm-pdbutil's listing of the fixture PDB,
//! see common/fixture_trace.rs). Token, bad names, non-PDBs and the size
//! limit are refused.

mod common;

use common::{fixture_trace, request, temp_dir, Server};
use serde_json::Value;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

const TOKEN: &str = "s3cret";

fn post(server: &Server, path: &str, body: &[u8], token: bool) -> (u16, Value) {
    let auth = format!("Bearer {TOKEN}");
    let headers: Vec<(&str, &str)> = if token {
        vec![("Authorization", auth.as_str())]
    } else {
        vec![]
    };
    let (s, b) = request(&server.addr, "POST", path, body, &headers);
    let v = serde_json::from_str(&b).unwrap_or_else(|e| panic!("POST {path}: {e}: {b}"));
    (s, v)
}

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

/// Wait until symbol lookup is done with fixture.dll in status `want`.
fn wait_fixture_status(server: &Server, id: &str, want: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let (s, v) = server.json("GET", &format!("/api/traces/{id}/symbols"), "");
        assert_eq!(s, 200, "{v}");
        let m = v["modules"]
            .as_array()
            .and_then(|ms| ms.iter().find(|m| m["module"] == "fixture.dll"))
            .cloned();
        if let Some(m) = m {
            if v["status"] == "done" && m["status"] == want {
                return m;
            }
        }
        assert!(Instant::now() < deadline, "no {want:?} status: {v}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn uploaded_pdb_names_the_loaded_trace() {
    let data = temp_dir("pdb-upload");
    let server = Server::start(&data, &["--token", TOKEN, "--max-upload-mb", "1"]);
    let (trace, want) = fixture_trace::write();
    let (s, v) = post(&server, "/api/traces?name=fixture.etl", &trace, true);
    assert_eq!(s, 201, "{v}");
    let id = v["id"].as_str().unwrap().to_string();
    server.wait_ready(&id, 60);
    let m = wait_fixture_status(&server, &id, "not found");
    assert_eq!(m["resolved_frames"], 0, "{m}");
    let samples: u64 = want.values().sum();
    let unnamed: BTreeMap<String, u64> = [("fixture.dll!?".to_string(), samples)].into();
    assert_eq!(function_column(&server, &id), unnamed);

    let pdb = std::fs::read(fixture_trace::fixtures().join("fixture.pdb")).unwrap();
    // Refused: no token, a name that is not a plain *.pdb, not a PDB, too big.
    let (s, v) = post(&server, "/api/symbols?name=fixture.pdb", &pdb, false);
    assert_eq!(s, 401, "{v}");
    for bad in ["../fixture.pdb", "fixture.dll", ""] {
        let (s, v) = post(&server, &format!("/api/symbols?name={bad}"), &pdb, true);
        assert_eq!(s, 400, "{bad}: {v}");
    }
    let (s, v) = post(&server, "/api/symbols?name=fixture.pdb", &trace, true);
    assert_eq!(
        (s, v["error"]["code"].as_str()),
        (400, Some("not_a_pdb")),
        "{v}"
    );
    let (s, v) = post(
        &server,
        "/api/symbols?name=fixture.pdb",
        &vec![0u8; 2 << 20],
        true,
    );
    assert_eq!(s, 413, "{v}");
    assert_eq!(function_column(&server, &id), unnamed);

    // Any case of the name is stored lower-cased, where lookups find it.
    let (s, v) = post(&server, "/api/symbols?name=Fixture.PDB", &pdb, true);
    assert_eq!(s, 201, "{v}");
    let key = fixture_trace::symstore_key("fixture.pdb");
    assert_eq!(v["path"], format!("fixture.pdb/{key}/fixture.pdb"), "{v}");
    assert_eq!(v["resymbolizing"], serde_json::json!([id]), "{v}");
    let stored = data
        .join("symbols")
        .join("fixture.pdb")
        .join(&key)
        .join("fixture.pdb");
    assert_eq!(std::fs::read(&stored).unwrap(), pdb);
    let m = wait_fixture_status(&server, &id, "loaded");
    assert_eq!(m["resolved_frames"], m["frames"], "{m}");
    assert_eq!(function_column(&server, &id), want);

    // The wrong-GUID PDB of the same name is stored under its own key and
    // re-names nothing (no loaded trace recorded its identity).
    let variant = std::fs::read(fixture_trace::fixtures().join("variant/fixture.pdb")).unwrap();
    let (s, v) = post(&server, "/api/symbols?name=fixture.pdb", &variant, true);
    assert_eq!(s, 201, "{v}");
    assert_eq!(v["resymbolizing"], serde_json::json!([]), "{v}");
    assert_ne!(v["path"], format!("fixture.pdb/{key}/fixture.pdb"), "{v}");
    assert_eq!(function_column(&server, &id), want);
    drop(server);
    std::fs::remove_dir_all(&data).ok();
}
