//! Stack tag sets over HTTP on the demo trace: upload the hand-written
//! `fixtures/stacktags/test.stacktags`, group CPU Usage (Sampled) by its
//! Stack Tag column, and compare with a naive tagger run here over the
//! stacks `etlscope export` prints; the set survives a restart and is
//! deleted. The tagger shares no code with the server.

mod common;

use common::{export_json, request, temp_dir, Server};
use serde_json::Value;
use std::collections::BTreeMap;

const FILE: &str = include_str!("../../fixtures/stacktags/test.stacktags");
const DEMO: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../traces/explorer-overlay.etl"
);

/// WPA's rule over the fixture's entry points.
fn naive_tag(stack: &str) -> String {
    common::naive_tagger::naive_tag(&common::naive_tagger::FIXTURE_ENTRIES, stack)
}

fn wait_symbols(server: &Server, id: &str) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    loop {
        let (_, s) = server.json("GET", &format!("/api/traces/{id}/symbols"), "");
        if s["status"] == "done" {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "symbols not done: {s}"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

fn tagged_table(server: &Server, id: &str, set: &str, body: &str) -> (u16, Value) {
    let (s, b) = request(
        &server.addr,
        "POST",
        &format!("/api/traces/{id}/table"),
        body.as_bytes(),
        &[("X-Etlscope-Stack-Tags", set)],
    );
    (s, serde_json::from_str(&b).unwrap_or(Value::Null))
}

#[test]
fn uploaded_set_tags_stacks_like_the_naive_tagger() {
    let data = temp_dir("stacktags");
    let server = Server::start(&data, &[DEMO]);
    let (_, list) = server.json("GET", "/api/traces", "");
    let id = list["traces"][0]["id"].as_str().expect("an id").to_string();
    server.wait_ready(&id, 120);
    wait_symbols(&server, &id);

    let (s, set) = server.json("PUT", "/api/stacktags/test", FILE);
    assert_eq!(s, 201, "{set}");
    assert_eq!(set["entries"], 7);
    assert_eq!(set["ignored"], serde_json::json!(["HintTag"]));
    let (s, _) = server.json("PUT", "/api/stacktags/..%2Fx", FILE);
    assert_eq!(s, 400);
    let (s, e) = server.json("PUT", "/api/stacktags/broken", "<Tag Name=\"x\">");
    assert_eq!(s, 400, "{e}");

    let body = r#"{"columns":["Stack Tag"],"limit":1000}"#;
    let (s, t) = tagged_table(&server, &id, "test", body);
    assert_eq!(s, 200, "{t}");
    let got: BTreeMap<String, u64> = t["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| {
            (
                r["label"].as_str().unwrap_or("").to_string(),
                r["count"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    let mut want: BTreeMap<String, u64> = BTreeMap::new();
    for row in export_json(&[DEMO, "--table", "cpu-sampled", "--group", "Stack"])
        .as_array()
        .expect("rows")
    {
        let stack = row["Stack"].as_str().unwrap_or("");
        *want.entry(naive_tag(stack)).or_default() += row["Count"].as_u64().unwrap_or(0);
    }
    eprintln!("stack tags on the demo: {want:?}");
    assert_eq!(got, want);
    assert!(want.len() >= 5, "{want:?}");

    // Without the header the built-in set answers.
    let (s, t) = server.json("POST", &format!("/api/traces/{id}/table"), body);
    assert_eq!(s, 200, "{t}");
    assert!(t["rows"]
        .as_array()
        .is_some_and(|r| r.iter().any(|r| r["label"] == "Windows\\Kernel")));

    let (s, listed) = server.json("GET", "/api/stacktags", "");
    assert_eq!(s, 200);
    let names: Vec<&str> = listed["sets"]
        .as_array()
        .expect("sets")
        .iter()
        .filter_map(|s| s["name"].as_str())
        .collect();
    assert_eq!(names, ["default", "test"]);
    let (s, xml) = server.get("/api/stacktags/test");
    assert_eq!((s, xml.as_str()), (200, FILE));
    drop(server);

    // Kept in the data directory: a restarted server still has it.
    let server = Server::start(&data, &[DEMO]);
    let (_, listed) = server.json("GET", "/api/stacktags", "");
    assert_eq!(listed["sets"][1]["name"], "test", "{listed}");
    let (s, _) = request(&server.addr, "DELETE", "/api/stacktags/test", b"", &[]);
    assert_eq!(s, 204);
    let (s, _) = request(&server.addr, "DELETE", "/api/stacktags/default", b"", &[]);
    assert_eq!(s, 400);
    let (_, list) = server.json("GET", "/api/traces", "");
    let id = list["traces"][0]["id"].as_str().expect("an id").to_string();
    server.wait_ready(&id, 120);
    let (s, _) = tagged_table(&server, &id, "test", body);
    assert_eq!(s, 400);
    drop(server);
    std::fs::remove_dir_all(&data).ok();
}
