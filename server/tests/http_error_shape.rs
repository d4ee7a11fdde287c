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

/// Send `head` from a thread of its own (the server may answer and close
/// before reading all of it) and return what came back.
fn exchange_flood(addr: &str, head: String) -> String {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(std::time::Duration::from_secs(30)))
        .ok();
    let mut w = s.try_clone().expect("clone");
    let writer = std::thread::spawn(move || {
        let _ = w.write_all(head.as_bytes());
    });
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    let _ = writer.join();
    String::from_utf8_lossy(&raw).into_owned()
}

/// Issue 31, point 6: hyper's own limits (more headers than it parses, a
/// head over its buffer, a URI over 65,534 bytes) answer in the JSON shape
/// too, not with an empty body.
#[test]
fn request_heads_over_any_limit_get_the_json_error() {
    let data = temp_dir("shape-heads");
    let server = Server::start(&data, &[]);
    let filler = |n: usize| -> String { (0..n).map(|i| format!("X-Filler-{i}: v\r\n")).collect() };
    let big = format!("X-Big: {}\r\n", "a".repeat(1 << 20));
    let long_view = format!(
        "/t/0123456789abcdef0123456789abcdef?v=2&o={}",
        "a".repeat(70_000)
    );
    let cases = [
        (
            "101 headers",
            "/api/traces".to_string(),
            filler(101),
            431,
            "headers_too_large",
        ),
        (
            "300 headers",
            "/api/traces".to_string(),
            filler(300),
            431,
            "headers_too_large",
        ),
        (
            "5,000 headers",
            "/api/traces".to_string(),
            filler(5000),
            431,
            "headers_too_large",
        ),
        (
            "a 1 MiB header",
            "/api/traces".to_string(),
            big.clone(),
            431,
            "headers_too_large",
        ),
        (
            "a 1 MiB header on a view",
            "/t/0123456789abcdef0123456789abcdef".to_string(),
            big,
            431,
            "headers_too_large",
        ),
        (
            "a 70,000-byte view URI",
            long_view,
            String::new(),
            414,
            "uri_too_long",
        ),
    ];
    for (what, path, extra, want, code) in cases {
        let head = format!(
            "GET {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n{extra}\r\n",
            server.addr
        );
        let text = exchange_flood(&server.addr, head);
        let (status, body) = common::parse_response(&text);
        let headers = text
            .split_once("\r\n\r\n")
            .map_or(text.as_str(), |(h, _)| h)
            .to_ascii_lowercase();
        eprintln!("# {what}: {status}, body {body:?}");
        assert_eq!(status, want, "{what}: {text}");
        let a = Answer {
            status,
            headers,
            body,
        };
        let (got, _) = error_of(&a, what);
        assert_eq!(got, code, "{what}");
        assert!(
            a.headers.contains("x-content-type-options: nosniff"),
            "{what}: {}",
            a.headers
        );
    }
    // The server still serves.
    let a = send(&server, "GET", "/api/traces", b"", &[]);
    assert_eq!(a.status, 200);
    std::fs::remove_dir_all(&data).ok();
}
