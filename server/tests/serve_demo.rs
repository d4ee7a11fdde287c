//! `etlscope serve --demo` serves the demo trace embedded in the binary,
//! written into the data directory with its PDBs, so that a binary copied
//! anywhere (here: into a scratch folder, away from its source tree) shows
//! the investigation with named frames.

mod common;

use common::{temp_dir, Server};

#[test]
fn a_copied_binary_serves_the_embedded_demo_with_its_symbols() {
    let scratch = temp_dir("serve-demo");
    let bin = scratch.join(if cfg!(windows) {
        "etlscope.exe"
    } else {
        "etlscope"
    });
    std::fs::copy(common::binary(), &bin).unwrap();
    let data = scratch.join("data");
    std::env::set_var("ETLSCOPE_BIN", &bin);
    let srv = Server::start(&data, &["--demo"]);
    let (_, list) = srv.json("GET", "/api/traces", "");
    let traces = list["traces"].as_array().unwrap();
    // The demo, and the same scenario without the shell extension to compare with.
    let mut names: Vec<&str> = traces.iter().map(|t| t["name"].as_str().unwrap()).collect();
    names.sort();
    assert_eq!(
        names,
        ["explorer-fixed.etl", "explorer-overlay.etl"],
        "{list}"
    );
    let demo = traces
        .iter()
        .find(|t| t["name"] == "explorer-overlay.etl")
        .unwrap();
    let id = demo["id"].as_str().unwrap().to_string();
    let written = data.join("demo/explorer-overlay.etl");
    let committed =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../traces/explorer-overlay.etl");
    assert_eq!(
        std::fs::read(&written).unwrap(),
        std::fs::read(committed).unwrap()
    );
    srv.wait_ready(&id, 120);
    // The symbol lookup finds the PDBs written beside it: the blog's frame is named.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let (_, s) = srv.json("GET", &format!("/api/traces/{id}/symbols"), "");
        if s["status"] == "done" {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "symbols not done: {s}"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let body = r#"{"columns":["Function"],"limit":100000}"#;
    let (status, t) = srv.json("POST", &format!("/api/traces/{id}/table"), body);
    assert_eq!(status, 200, "{t}");
    let labels: Vec<&str> = t["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["label"].as_str())
        .collect();
    assert!(
        labels.contains(&"windows.storage.dll!CFSFolder::_GetOverlayInfo")
            || labels.iter().any(|l| l.ends_with("!Process32NextW")),
        "named frames: {:?}",
        &labels[..labels.len().min(10)]
    );
}
