//! Issue 12, point 2: cross-site and DNS-rebinding defence on a server with
//! no token. A web page on another origin can send "simple" requests
//! (`text/plain` or `multipart/form-data` POSTs, HTML forms) without a
//! preflight; none of them may change anything. A request whose `Host` is
//! a foreign name (a rebinding page) is refused outright, reads included.

mod common;

use common::foreign_hosts::{FOREIGN_HOSTS, OWN_HOSTS};
use common::{fixture_trace, raw_request, request, temp_dir, Server};
use serde_json::Value;

/// (what, headers, body)
type Case<'a> = (&'a str, Vec<(&'a str, &'a str)>, &'a [u8]);

fn code(body: &str) -> String {
    let v: Value = serde_json::from_str(body).unwrap_or_else(|e| panic!("not JSON ({e}): {body}"));
    v["error"]["code"].as_str().unwrap_or_default().to_string()
}

fn listed(server: &Server) -> usize {
    let (_, list) = server.json("GET", "/api/traces", "");
    list["traces"].as_array().unwrap().len()
}

fn multipart(trace: &[u8]) -> Vec<u8> {
    let mut body = b"--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.etl\"\r\nContent-Type: application/octet-stream\r\n\r\n".to_vec();
    body.extend_from_slice(trace);
    body.extend_from_slice(b"\r\n--XyZ--\r\n");
    body
}

#[test]
fn simple_cross_origin_posts_change_nothing() {
    let data = temp_dir("xsite");
    let server = Server::start(&data, &[]);
    let (trace, _) = fixture_trace::write();
    // What a page served on another port of this machine can send.
    let evil = "http://127.0.0.1:9";
    let form = multipart(&trace);
    let cases: Vec<Case> = vec![
        (
            "text/plain from a page",
            vec![("Content-Type", "text/plain"), ("Origin", evil)],
            &trace,
        ),
        (
            "text/plain, no Origin",
            vec![("Content-Type", "text/plain")],
            &trace,
        ),
        (
            "multipart form from a page",
            vec![
                ("Content-Type", "multipart/form-data; boundary=XyZ"),
                ("Origin", evil),
            ],
            &form,
        ),
        (
            "multipart form, no Origin",
            vec![("Content-Type", "multipart/form-data; boundary=XyZ")],
            &form,
        ),
        (
            "form, same origin but no header",
            vec![("Content-Type", "application/x-www-form-urlencoded")],
            &trace,
        ),
    ];
    for (what, headers, body) in &cases {
        let (s, b) = raw_request(
            &server.addr,
            "POST",
            "/api/traces?name=x.etl",
            body,
            headers,
        );
        assert_eq!(s, 403, "{what}: {b}");
        assert!(!code(&b).is_empty(), "{what}: {b}");
    }
    let (s, b) = raw_request(
        &server.addr,
        "POST",
        "/api/symbols?name=a.pdb",
        b"x",
        &[("Content-Type", "text/plain")],
    );
    assert_eq!(s, 403, "symbols: {b}");
    assert_eq!(listed(&server), 0);

    // The marked request (what the UI sends) from the same origin works...
    let own = format!("http://{}", server.addr);
    let (s, b) = raw_request(
        &server.addr,
        "POST",
        "/api/traces?name=x.etl",
        &trace,
        &[("X-Etlscope", "1"), ("Origin", &own)],
    );
    assert_eq!(s, 201, "{b}");
    let id = serde_json::from_str::<Value>(&b).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    // ...but not from another origin, nor when the browser says cross-site.
    for (what, headers) in [
        (
            "foreign Origin",
            vec![("X-Etlscope", "1"), ("Origin", evil)],
        ),
        ("Origin null", vec![("X-Etlscope", "1"), ("Origin", "null")]),
        (
            "Sec-Fetch-Site",
            vec![("X-Etlscope", "1"), ("Sec-Fetch-Site", "cross-site")],
        ),
        ("no header", vec![]),
    ] {
        let (s, b) = raw_request(
            &server.addr,
            "DELETE",
            &format!("/api/traces/{id}"),
            b"",
            &headers,
        );
        assert_eq!(s, 403, "delete, {what}: {b}");
    }
    assert_eq!(listed(&server), 1);
    // Queries are POSTs too: a text/plain one is refused.
    let q = br#"{"columns": ["Process"]}"#;
    let (s, b) = raw_request(
        &server.addr,
        "POST",
        &format!("/api/traces/{id}/table"),
        q,
        &[("Content-Type", "text/plain")],
    );
    assert_eq!(s, 403, "{b}");
    let (s, b) = request(
        &server.addr,
        "DELETE",
        &format!("/api/traces/{id}"),
        b"",
        &[],
    );
    assert_eq!(s, 204, "{b}");
    std::fs::remove_dir_all(&data).ok();
}

#[test]
fn foreign_host_names_are_refused() {
    let data = temp_dir("rebind");
    let server = Server::start(
        &data,
        &[
            "--allowed-host",
            "etl.example",
            "--public-url",
            "https://etl.team.example/",
        ],
    );
    let port = server.addr.rsplit(':').next().unwrap().to_string();
    // Every class of foreign name (common/foreign_hosts.rs, shared with the
    // guard's unit test), with and without this server's port.
    for name in FOREIGN_HOSTS {
        for host in [name.to_string(), format!("{name}:{port}")] {
            if name.contains(':') && !name.starts_with('[') && host.ends_with(&format!(":{port}")) {
                continue; // already has a port (or a port trick of its own)
            }
            for path in ["/api/traces", "/", "/api/openapi.json"] {
                let (s, b) = raw_request(&server.addr, "GET", path, b"", &[("Host", &host)]);
                // hyper itself refuses a few malformed values with 400 first.
                if s == 400 && b.is_empty() {
                    continue;
                }
                assert_eq!(s, 403, "Host {host:?} {path}: {b}");
                assert_eq!(code(&b), "forbidden_host", "{b}");
            }
        }
    }
    let mut own: Vec<String> = OWN_HOSTS.iter().map(|h| h.to_string()).collect();
    own.extend([
        format!("localhost:{port}"),
        format!("127.0.0.1:{port}"),
        format!("[::1]:{port}"),
        format!("etl.example:{port}"),
        "etl.team.example".into(),
        "ETL.Team.Example.".into(),
    ]);
    for host in &own {
        let (s, b) = raw_request(&server.addr, "GET", "/api/traces", b"", &[("Host", host)]);
        assert_eq!(s, 200, "{host}: {b}");
    }
    // Behind the proxy of --public-url, that origin may change things.
    let (s, b) = raw_request(
        &server.addr,
        "DELETE",
        "/api/traces/0123456789abcdef0123456789abcdef",
        b"",
        &[
            ("Host", "etl.team.example"),
            ("Origin", "https://etl.team.example"),
            ("X-Etlscope", "1"),
        ],
    );
    assert_eq!(s, 404, "{b}");
    std::fs::remove_dir_all(&data).ok();
}
