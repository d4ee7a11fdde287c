//! A delete through one replica is a delete on every replica (issue 36
//! point 6): the trace's API, its viewer page and its short links answer
//! 410 Gone (a tombstone in the shared catalog), not 404, on the replica
//! that still held it loaded too; the same bytes uploaded again restore it.
#![cfg(all(unix, feature = "team"))]

mod common;

use common::team::Backends;
use common::{exchange, fixture_trace, head, request, Server};
use serde_json::Value;

fn status_of(r: &Server, method: &str, path: &str, body: &[u8]) -> u16 {
    request(&r.addr, method, path, body, &[]).0
}

#[test]
fn a_delete_on_one_replica_is_410_on_every_replica() {
    let Some(b) = Backends::start("delete") else {
        return;
    };
    let (a, other) = (b.replica(&[]), b.replica(&[]));
    let (trace, _) = fixture_trace::write();
    let (s, body) = a.post("/api/traces?name=t.etl", &trace);
    assert_eq!(s, 201, "{body}");
    let id = serde_json::from_str::<Value>(&body).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    a.wait_ready(&id, 60);
    other.wait_ready(&id, 60);
    // A link made on one replica opens on the other.
    let (s, link) = a.json(
        "POST",
        "/api/links",
        &format!(r#"{{"target": "/t/{id}?v=2&view=table"}}"#),
    );
    assert_eq!(s, 200, "{link}");
    let link = link["id"].as_str().unwrap().to_string();
    let text = exchange(
        &other.addr,
        &head(&other.addr, "GET", &format!("/v/{link}"), 0, &[]),
        b"",
    );
    assert!(
        text.starts_with("HTTP/1.1 303"),
        "{}",
        &text[..text.len().min(200)]
    );

    let (s, _) = request(
        &other.addr,
        "DELETE",
        &format!("/api/traces/{id}"),
        &[],
        &[],
    );
    assert_eq!(s, 204);
    let table = br#"{"columns": ["Process"]}"#;
    for r in [&a, &other] {
        assert_eq!(status_of(r, "GET", &format!("/api/traces/{id}"), b""), 410);
        assert_eq!(
            status_of(r, "GET", &format!("/api/traces/{id}/summary"), b""),
            410
        );
        assert_eq!(
            status_of(r, "POST", &format!("/api/traces/{id}/table"), table),
            410
        );
        assert_eq!(status_of(r, "GET", &format!("/t/{id}"), b""), 410);
        assert_eq!(status_of(r, "GET", &format!("/v/{link}"), b""), 410);
        assert_eq!(status_of(r, "GET", &format!("/api/links/{link}"), b""), 410);
        // An id never seen stays 404.
        assert_eq!(
            status_of(
                r,
                "GET",
                "/api/traces/0123456789abcdef0123456789abcdef",
                b""
            ),
            404
        );
    }
    assert_eq!(b.s3.objects(&b.prefix), vec![], "the object is gone too");
    // The same bytes again: the trace is back, everywhere.
    let (s, _) = other.post("/api/traces?name=t.etl", &trace);
    assert_eq!(s, 201);
    a.wait_ready(&id, 60);
    assert_eq!(status_of(&a, "GET", &format!("/v/{link}"), b""), 303);
}
