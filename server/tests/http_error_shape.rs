//! Issue 12, point 8: every error the server returns has the documented
//! JSON shape (`{"error": {"code", "message"}}`), routing and body-limit
//! errors included (404, 405, 413, 414, 431); every response has
//! `X-Content-Type-Options: nosniff` and `Referrer-Policy: no-referrer`,
//! API responses a `Cache-Control`; `limit: 0` is refused rather than
//! meaning "every row"; error messages quote only a short excerpt.

mod common;

use common::{exchange, fixture_trace, head, temp_dir, Server};
use serde_json::Value;

/// (what, method, path, body, extra headers, expected status)
type Case<'a> = (
    &'a str,
    &'a str,
    &'a str,
    &'a [u8],
    &'a [(&'a str, &'a str)],
    u16,
);

struct Answer {
    status: u16,
    headers: String,
    body: String,
}

fn send(server: &Server, method: &str, path: &str, body: &[u8], extra: &[(&str, &str)]) -> Answer {
    let mut hd = vec![("X-Etlscope", "1")];
    hd.extend_from_slice(extra);
    let text = exchange(
        &server.addr,
        &head(&server.addr, method, path, body.len(), &hd),
        body,
    );
    let h = text
        .split_once("\r\n\r\n")
        .map_or(text.as_str(), |(h, _)| h);
    let (status, body) = common::parse_response(&text);
    Answer {
        status,
        headers: h.to_ascii_lowercase(),
        body,
    }
}

fn error_of(a: &Answer, what: &str) -> (String, String) {
    assert!(
        a.headers.contains("content-type: application/json"),
        "{what}: {}",
        a.headers
    );
    let v: Value = serde_json::from_str(&a.body)
        .unwrap_or_else(|e| panic!("{what}: not JSON ({e}): {}", a.body));
    let code = v["error"]["code"]
        .as_str()
        .unwrap_or_else(|| panic!("{what}: {v}"))
        .to_string();
    let message = v["error"]["message"]
        .as_str()
        .unwrap_or_else(|| panic!("{what}: {v}"))
        .to_string();
    assert!(!message.is_empty(), "{what}: {v}");
    (code, message)
}

#[test]
fn every_error_has_the_json_shape_and_every_response_the_headers() {
    let data = temp_dir("shape");
    let server = Server::start(&data, &[]);
    let (trace, _) = fixture_trace::write();
    let (s, b) = server.post("/api/traces?name=f.etl", &trace);
    assert_eq!(s, 201, "{b}");
    let id = serde_json::from_str::<Value>(&b).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    server.wait_ready(&id, 60);
    let table = format!("/api/traces/{id}/table");
    let long_path = format!("/api/traces?x={}", "a".repeat(10_000));
    let many: Vec<(String, String)> = (0..120)
        .map(|i| (format!("X-Filler-{i}"), "v".into()))
        .collect();
    let many: Vec<(&str, &str)> = many.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let big_body = vec![b' '; 3 << 20];
    let cases: Vec<Case> = vec![
        ("unknown API path", "GET", "/api/nope", b"", &[], 404),
        ("unknown asset", "GET", "/nope.js", b"", &[], 404),
        ("wrong method", "PUT", "/api/traces", b"", &[], 405),
        (
            "wrong method on a trace",
            "PATCH",
            "/api/traces/0123456789abcdef0123456789abcdef",
            b"",
            &[],
            405,
        ),
        (
            "query body over the limit",
            "POST",
            &table,
            &big_body,
            &[],
            413,
        ),
        ("URI too long", "GET", &long_path, b"", &[], 414),
        ("too many headers", "GET", "/api/traces", b"", &many, 431),
        ("bad JSON", "POST", &table, b"{nope", &[], 400),
        ("bad id", "GET", "/api/traces/xyz", b"", &[], 400),
    ];
    for (what, method, path, body, extra, want) in cases {
        let a = send(&server, method, path, body, extra);
        assert_eq!(a.status, want, "{what}: {}", a.body);
        error_of(&a, what);
        assert!(
            a.headers.contains("x-content-type-options: nosniff"),
            "{what}: {}",
            a.headers
        );
        assert!(
            a.headers.contains("referrer-policy: no-referrer"),
            "{what}: {}",
            a.headers
        );
    }
    for path in ["/api/traces", &format!("/api/traces/{id}"), "/"] {
        let a = send(&server, "GET", path, b"", &[]);
        assert_eq!(a.status, 200, "{path}");
        assert!(
            a.headers.contains("x-content-type-options: nosniff"),
            "{path}: {}",
            a.headers
        );
        assert!(
            a.headers.contains("referrer-policy: no-referrer"),
            "{path}: {}",
            a.headers
        );
        if path.starts_with("/api/") {
            assert!(
                a.headers.contains("cache-control: no-store"),
                "{path}: {}",
                a.headers
            );
        }
    }
    std::fs::remove_dir_all(&data).ok();
}

#[test]
fn limit_zero_is_not_every_row_and_messages_are_short() {
    let data = temp_dir("shape-limit");
    let server = Server::start(&data, &[]);
    let (trace, _) = fixture_trace::write();
    let (_, b) = server.post("/api/traces?name=f.etl", &trace);
    let id = serde_json::from_str::<Value>(&b).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    server.wait_ready(&id, 60);
    let table = format!("/api/traces/{id}/table");
    for limit in ["0", "100001", "18446744073709551615"] {
        let body = format!(r#"{{"columns": ["Function"], "limit": {limit}}}"#);
        let a = send(&server, "POST", &table, body.as_bytes(), &[]);
        assert_eq!(a.status, 400, "limit {limit}: {}", a.body);
        let (_, m) = error_of(&a, "limit");
        assert!(m.contains("100000"), "limit {limit}: {m}");
    }
    for body in [
        r#"{"columns": ["Function"]}"#,
        r#"{"columns": ["Function"], "limit": 100000}"#,
    ] {
        let (s, v) = server.json("POST", &table, body);
        assert_eq!(s, 200, "{body}: {v}");
    }
    let (_, v) = server.json("POST", &table, r#"{"columns": ["Function"], "limit": 1}"#);
    assert_eq!(v["rows"].as_array().unwrap().len(), 1, "{v}");

    let huge = "Q".repeat(100_000);
    for body in [
        format!(r#"{{"columns": ["{huge}"]}}"#),
        format!(r#"{{"table": "{huge}", "columns": []}}"#),
        format!(r#"{{"columns": ["Process"], "{huge}": 1}}"#),
        format!(r#"{{"columns": ["Process"], "path": ["{huge}"]}}"#),
    ] {
        let a = send(&server, "POST", &table, body.as_bytes(), &[]);
        assert!((400..500).contains(&a.status), "{}", a.status);
        let (_, m) = error_of(&a, "echo");
        assert!(
            m.chars().count() <= 420,
            "a {}-char message echoes the input",
            m.chars().count()
        );
    }
    std::fs::remove_dir_all(&data).ok();
}
