//! Notes' per-client rate (`--notes-per-minute`) behind a reverse proxy:
//! with `--trusted-proxy` the client is the last `X-Forwarded-For` address
//! the proxy appended, as for short links, so clients behind one nginx do
//! not share one allowance; without it the header is the client's own say
//! and not believed. (Not an `http_*` file: through the cluster's nginx
//! every test client is 127.0.0.1, whatever it sends.)

mod common;

use common::{request, temp_dir, Server};
use serde_json::{json, Value};

fn upload(s: &Server) -> String {
    let trace = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../traces/explorer-fixed.etl"
    ))
    .unwrap();
    let (st, b) = request(&s.addr, "POST", "/api/traces?name=t.etl", &trace, &[]);
    assert_eq!(st, 201, "{b}");
    serde_json::from_str::<Value>(&b).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string()
}

/// The status of a new note sent as if through a proxy naming `forwarded`.
fn note_from(s: &Server, trace: &str, forwarded: &str) -> u16 {
    let body = json!({ "text": "n", "view": "v=2&view=table", "author": "Ann" }).to_string();
    let path = format!("/api/traces/{trace}/notes");
    request(
        &s.addr,
        "POST",
        &path,
        body.as_bytes(),
        &[("X-Forwarded-For", forwarded)],
    )
    .0
}

#[test]
fn behind_a_trusted_proxy_each_forwarded_client_has_its_own_note_rate() {
    let dir = temp_dir("etlscope-notes-proxy");
    let flags = ["--notes-per-minute", "2", "--trusted-proxy", "127.0.0.1"];
    let s = Server::start(&dir, &flags);
    let trace = upload(&s);
    assert_eq!(note_from(&s, &trace, "10.0.0.1"), 201);
    assert_eq!(note_from(&s, &trace, "10.0.0.1"), 201);
    assert_eq!(note_from(&s, &trace, "10.0.0.1"), 429, "past A's rate");
    // An earlier address is the client's own say: still A.
    assert_eq!(note_from(&s, &trace, "10.9.9.9, 10.0.0.1"), 429);
    assert_eq!(note_from(&s, &trace, "10.0.0.2"), 201, "B has its own rate");
    drop(s);

    // Not a trusted proxy: the header is not believed, one peer is one client.
    let s = Server::start(&dir, &["--notes-per-minute", "2"]);
    assert_eq!(note_from(&s, &trace, "10.0.0.3"), 201);
    assert_eq!(note_from(&s, &trace, "10.0.0.4"), 201);
    assert_eq!(note_from(&s, &trace, "10.0.0.5"), 429);
    drop(s);
    std::fs::remove_dir_all(&dir).ok();
}
