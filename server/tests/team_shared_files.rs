//! Files uploaded through one replica serve every replica (issue 36): a
//! PDB (`POST /api/symbols`) goes to the object store and the catalog, the
//! replica holding a trace that needs it hears of it on the queue's channel,
//! fetches it into its own symbols folder and re-names the trace, and a
//! replica started afterwards finds it in the catalog when it names the
//! trace; a regions file (`PUT /api/regions/NAME`) is in the catalog, used
//! and deleted through any replica. Each replica has its own data folder
//! (nothing shared on disk), unlike the cluster harness's.
#![cfg(all(unix, feature = "team"))]

mod common;

use common::team::Backends;
use common::{fixture_trace, request, Server};
use serde_json::Value;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

fn function_column(r: &Server, id: &str) -> BTreeMap<String, u64> {
    let q = r#"{"columns": ["Function"], "limit": 100000}"#;
    let (s, v) = r.json("POST", &format!("/api/traces/{id}/table"), q);
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

/// fixture.dll's row once symbol lookup on `r` is done with status `want`.
fn wait_fixture_status(r: &Server, id: &str, want: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let (s, v) = r.json("GET", &format!("/api/traces/{id}/symbols"), "");
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

const REGIONS: &str = r#"<?xml version='1.0' encoding='utf-8'?>
<InstrumentationManifest><Instrumentation><Regions>
 <RegionRoot Guid="{11111111-0000-0000-0000-000000000000}" Name="Root">
  <Region Guid="{11111111-0000-0000-0000-000000000001}" Name="GC">
   <Start><Event Provider="{e13c0d23-ccbc-4e12-931b-d9cc2eee27e4}" Id="1" Version="1"/></Start>
   <Stop><Event Provider="{e13c0d23-ccbc-4e12-931b-d9cc2eee27e4}" Id="2" Version="1"/></Stop>
  </Region>
 </RegionRoot>
</Regions></Instrumentation></InstrumentationManifest>"#;

#[test]
fn a_pdb_and_a_regions_file_uploaded_through_one_replica_serve_every_replica() {
    let Some(b) = Backends::start("shared-files") else {
        return;
    };
    let (a, other) = (b.replica(&[]), b.replica(&[]));
    let (trace, want) = fixture_trace::write();
    let (s, body) = a.post("/api/traces?name=fixture.etl", &trace);
    assert_eq!(s, 201, "{body}");
    let id = serde_json::from_str::<Value>(&body).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    a.wait_ready(&id, 60);
    other.wait_ready(&id, 60);
    wait_fixture_status(&other, &id, "not found");

    let pdb = std::fs::read(fixture_trace::fixtures().join("fixture.pdb")).unwrap();
    let (s, body) = a.post("/api/symbols?name=fixture.pdb", &pdb);
    assert_eq!(s, 201, "{body}");
    // The other replica re-names the trace it holds, with its own copy.
    let m = wait_fixture_status(&other, &id, "loaded");
    assert_eq!(m["resolved_frames"], m["frames"], "{m}");
    assert_eq!(function_column(&other, &id), want);
    // A replica started afterwards finds the PDB in the catalog.
    let late = b.replica(&[]);
    late.wait_ready(&id, 60);
    let m = wait_fixture_status(&late, &id, "loaded");
    assert_eq!(m["resolved_frames"], m["frames"], "{m}");
    assert_eq!(function_column(&late, &id), want);

    // A regions file put through one replica is listed, used and deleted
    // through the others.
    let (s, body) = request(&a.addr, "PUT", "/api/regions/gc", REGIONS.as_bytes(), &[]);
    assert_eq!(s, 201, "{body}");
    let (s, v) = other.json("GET", "/api/regions", "");
    assert_eq!((s, &v["sets"][0]["name"]), (200, &Value::from("gc")), "{v}");
    let (s, body) = request(
        &other.addr,
        "POST",
        &format!("/api/traces/{id}/table"),
        br#"{"columns": ["Process"]}"#,
        &[("X-Etlscope-Regions", "gc")],
    );
    assert_eq!(s, 200, "{body}");
    let (s, body) = request(&late.addr, "GET", "/api/regions/gc", b"", &[]);
    assert_eq!((s, body.as_str()), (200, REGIONS));
    let (s, _) = request(&late.addr, "DELETE", "/api/regions/gc", b"", &[]);
    assert_eq!(s, 204);
    let (s, _) = request(&a.addr, "GET", "/api/regions/gc", b"", &[]);
    assert_eq!(s, 404);
}
