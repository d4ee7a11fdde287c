//! Short links (`POST /api/links`, `GET /v/{id}`): the same view gives the
//! same id, the id redirects to exactly the stored view, only views of this
//! app are kept, the links outlive a restart, and long view links still open.

mod common;

use common::{exchange, head, raw_request, Server};
use sha2::{Digest, Sha256};

fn create(s: &Server, target: &str) -> (u16, serde_json::Value) {
    s.json(
        "POST",
        "/api/links",
        &serde_json::json!({ "target": target }).to_string(),
    )
}

/// The Location header of a raw response.
fn location(text: &str) -> Option<String> {
    let head = text.split("\r\n\r\n").next()?;
    head.lines()
        .find_map(|l| {
            l.strip_prefix("location: ")
                .or_else(|| l.strip_prefix("Location: "))
        })
        .map(str::to_string)
}

#[test]
fn a_short_link_redirects_to_the_view_it_was_made_of() {
    let dir = common::temp_dir("etlscope-links");
    // A view as deep as a `*`-expanded PerfView tree: tens of kilobytes of paths.
    let open: String = (0..1200)
        .map(|i| {
            format!(
                "&o=pid:4242@1/fn:clr.dll%2B{i:x}/fn:ntdll.dll%2B{:x}",
                i * 7
            )
        })
        .collect();
    let long = format!("/t/0123456789abcdef0123456789abcdef?v=2&view=table&t=cpu-sampled{open}");
    assert!(long.len() > 50_000, "{}", long.len());
    let id;
    {
        let s = Server::start(&dir, &[]);
        let (st, v) = create(&s, &long);
        assert_eq!(st, 200, "{v}");
        id = v["id"].as_str().unwrap().to_string();
        // Content-addressed, computed here independently of the server.
        let digest: String = Sha256::digest(long.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(id, digest[..16]);
        assert_eq!(v["path"], format!("/v/{id}"));
        assert_eq!(create(&s, &long).1["id"], id.as_str(), "same view, same id");
        let other = create(&s, "/t/0123456789abcdef0123456789abcdef?v=2").1;
        assert_ne!(other["id"], id.as_str());

        let (st, v) = s.json("GET", &format!("/api/links/{id}"), "");
        assert_eq!(st, 200);
        assert_eq!(v["target"], long.as_str());

        // The long form opens: view pages take URIs far over the 8 KiB API limit.
        let (st, body) = s.get(&long);
        assert_eq!(st, 200, "{}", &body[..body.len().min(200)]);
        assert!(
            body.contains("<html") || body.contains("<!doctype"),
            "not the UI"
        );
        let (st, _) = s.get(&format!("/api/traces?pad={}", "a".repeat(9000)));
        assert_eq!(st, 414, "the API keeps its limit");
    }
    // The catalog keeps links across a restart.
    let s = Server::start(&dir, &[]);
    let text = exchange(
        &s.addr,
        &head(&s.addr, "GET", &format!("/v/{id}"), 0, &[]),
        b"",
    );
    assert!(
        text.starts_with("HTTP/1.1 303"),
        "{}",
        &text[..text.len().min(300)]
    );
    assert_eq!(location(&text).as_deref(), Some(long.as_str()));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn only_views_of_this_app_become_links_and_unknown_ids_are_404() {
    let dir = common::temp_dir("etlscope-links-bad");
    let s = Server::start(&dir, &[]);
    for bad in [
        "https://evil.example/t/x",
        "//evil.example/t/x",
        "/api/traces",
        "/t/../api/traces",
        "/t/x?a=b c",
    ] {
        let (st, v) = create(&s, bad);
        assert_eq!(st, 400, "{bad}: {v}");
        assert_eq!(v["error"]["code"], "bad_request");
    }
    let (st, v) = s.json("POST", "/api/links", r#"{"target": "/t/x", "extra": 1}"#);
    assert_eq!(st, 400, "unknown fields are refused: {v}");
    // A cross-site form post (no X-Etlscope header) writes nothing.
    let (st, _) = raw_request(
        &s.addr,
        "POST",
        "/api/links",
        br#"{"target": "/t/x?v=2"}"#,
        &[("Content-Type", "application/json")],
    );
    assert_eq!(st, 403);
    for unknown in ["0000000000000000", "nothex!!"] {
        let (st, _) = s.get(&format!("/v/{unknown}"));
        assert_eq!(st, 404, "{unknown}");
    }
    let (st, _) = s.get("/v/../../etc/passwd");
    assert!(
        (400..500).contains(&st),
        "a path out of /v/ is refused: {st}"
    );
    let (st, v) = s.json("GET", "/api/links/0000000000000000", "");
    assert_eq!(st, 404, "{v}");
    let _ = std::fs::remove_dir_all(&dir);
}
