//! Issue 40, point 3: notes on views. A note is kept with its trace and
//! view, listed, read one by one (a link opens it), changed and deleted by
//! its author only (the key its browser got, or on a token server the token
//! it was written with); writes are refused cross-site, without the token
//! on a token server, over the text limit (`--max-note-kb`), past the
//! notes of a trace (`--notes-per-trace`) and the client's rate
//! (`--notes-per-minute`). Hostile text is kept verbatim as a JSON string
//! (the UI renders it as text) and a 1 MB one is refused with its limit.

mod common;

use common::{raw_request, request, temp_dir, Server};
use serde_json::{json, Value};

const TOKEN: &str = "notes-t0k";

fn trace_bytes() -> Vec<u8> {
    std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../traces/explorer-fixed.etl"
    ))
    .unwrap()
}

/// (status, JSON body or Null) of a request the UI would send, plus `headers`.
fn call(
    s: &Server,
    method: &str,
    path: &str,
    body: &str,
    headers: &[(&str, &str)],
) -> (u16, Value) {
    let (st, b) = request(&s.addr, method, path, body.as_bytes(), headers);
    (st, serde_json::from_str(&b).unwrap_or(Value::Null))
}

fn upload(s: &Server, headers: &[(&str, &str)]) -> String {
    let (st, b) = request(
        &s.addr,
        "POST",
        "/api/traces?name=t.etl",
        &trace_bytes(),
        headers,
    );
    assert_eq!(st, 201, "{b}");
    serde_json::from_str::<Value>(&b).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string()
}

fn note_body(text: &str) -> String {
    json!({ "text": text, "view": "v=2&view=table&t=cpu-sampled&r=1.5-2.5", "author": "Ann" })
        .to_string()
}

fn message(v: &Value) -> String {
    v["error"]["message"].as_str().unwrap_or("").to_string()
}

#[test]
fn notes_are_kept_listed_linked_and_changed_by_their_author_only() {
    let dir = temp_dir("etlscope-notes");
    let s = Server::start(&dir, &[]);
    let trace = upload(&s, &[]);
    let notes = format!("/api/traces/{trace}/notes");

    // Written: the note, its edit key (only here), never the key's hash.
    let hostile = "<img src=x onerror=alert(1)><script>alert(2)</script> *em* `code` https://example.com/?a=<b>";
    let (st, made) = call(&s, "POST", &notes, &note_body(hostile), &[]);
    assert_eq!(st, 201, "{made}");
    let id = made["id"].as_str().unwrap().to_string();
    let key = made["key"].as_str().unwrap().to_string();
    assert_eq!(id.len(), 32);
    assert_eq!(
        made["text"], hostile,
        "kept verbatim; the UI renders it as text"
    );
    assert_eq!(made["view"], "v=2&view=table&t=cpu-sampled&r=1.5-2.5");
    assert_eq!(
        (made["author"].as_str(), made["trace"].as_str()),
        (Some("Ann"), Some(trace.as_str()))
    );
    assert!(made.get("key_hash").is_none() && made.get("author_token").is_none());

    // Listed for everyone (a second client), without the key.
    let (st, list) = call(&s, "GET", &notes, "", &[]);
    assert_eq!(st, 200, "{list}");
    let listed = &list["notes"][0];
    assert_eq!(listed["id"], id.as_str());
    assert_eq!(listed["text"], hostile);
    assert!(listed.get("key").is_none(), "{listed}");
    assert_eq!(listed["editable"], false);
    assert_eq!(list["limits"]["max_text_bytes"], 65536);
    let (st, one) = call(&s, "GET", &format!("/api/notes/{id}"), "", &[]);
    assert_eq!((st, &one["text"]), (200, &json!(hostile)));
    let (st, counts) = call(&s, "GET", "/api/note-counts", "", &[]);
    assert_eq!(
        (st, &counts["counts"][&trace]),
        (200, &json!(1)),
        "{counts}"
    );

    // A link opens the note: its view with note=ID, kept as a short link.
    let target = format!("/t/{trace}?{}&note={id}", made["view"].as_str().unwrap());
    let (st, link) = call(
        &s,
        "POST",
        "/api/links",
        &json!({ "target": target }).to_string(),
        &[],
    );
    assert_eq!(st, 200, "{link}");
    let (st, back) = call(
        &s,
        "GET",
        &format!("/api/links/{}", link["id"].as_str().unwrap()),
        "",
        &[],
    );
    assert_eq!((st, back["target"].as_str()), (200, Some(target.as_str())));

    // The author rule: no key or a wrong one is 403; the key changes it.
    let path = format!("/api/notes/{id}");
    let edit = json!({ "text": "edited" }).to_string();
    for headers in [vec![], vec![("X-Etlscope-Note-Key", "0123")]] {
        let (st, v) = call(&s, "PUT", &path, &edit, &headers);
        assert_eq!(
            (st, v["error"]["code"].as_str()),
            (403, Some("not_author")),
            "{v}"
        );
        let (st, _) = call(&s, "DELETE", &path, "", &headers);
        assert_eq!(st, 403);
    }
    let mine = [("X-Etlscope-Note-Key", key.as_str())];
    let (st, v) = call(&s, "PUT", &path, &edit, &mine);
    assert_eq!(
        (st, v["text"].as_str(), v["view"].as_str()),
        (200, Some("edited"), made["view"].as_str()),
        "{v}"
    );

    // Refused writes: each with a clear error, nothing kept.
    let mb = "<b>".repeat(350_000);
    let (st, v) = call(&s, "POST", &notes, &note_body(&mb), &[]);
    assert_eq!(st, 413, "{v}");
    assert!(message(&v).contains("--max-note-kb 64"), "{v}");
    let (st, v) = call(&s, "POST", &notes, &note_body(&"a".repeat(65_537)), &[]);
    assert_eq!(st, 413, "{v}");
    assert!(message(&v).contains("65537 bytes, more than 65536"), "{v}");
    for (body, why) in [
        (note_body("  \n "), "empty"),
        (note_body("a\u{7}b"), "control character"),
        (
            json!({ "text": "x", "view": "v=2#frag" }).to_string(),
            "bad view",
        ),
        (
            json!({ "text": "x", "author": "a".repeat(81) }).to_string(),
            "longer than 80",
        ),
        (
            json!({ "text": "x", "evil": 1 }).to_string(),
            "unknown field",
        ),
        ("{".to_string(), "bad note"),
    ] {
        let (st, v) = call(&s, "POST", &notes, &body, &[]);
        assert_eq!(st, 400, "{why}: {v}");
        assert!(message(&v).contains(why), "{why}: {v}");
    }
    let (st, _) = call(
        &s,
        "POST",
        "/api/traces/0123456789abcdef0123456789abcdef/notes",
        &note_body("x"),
        &[],
    );
    assert_eq!(st, 404);
    let (st, _) = call(&s, "GET", "/api/notes/nonsense", "", &[]);
    assert_eq!(st, 404);

    // Cross-site writes are refused before anything else.
    let body = note_body("from another site");
    let (st, _) = raw_request(&s.addr, "POST", &notes, body.as_bytes(), &[]);
    assert_eq!(st, 403, "no X-Etlscope header");
    let (st, _) = call(
        &s,
        "POST",
        &notes,
        &body,
        &[("Sec-Fetch-Site", "cross-site")],
    );
    assert_eq!(st, 403, "a cross-site fetch");
    let (st, _) = raw_request(
        &s.addr,
        "DELETE",
        &path,
        b"",
        &[("X-Etlscope-Note-Key", key.as_str())],
    );
    assert_eq!(st, 403, "a cross-site delete, even with the key");
    assert_eq!(
        call(&s, "GET", &notes, "", &[]).1["notes"]
            .as_array()
            .unwrap()
            .len(),
        1
    );

    // Deleted by its author; a deleted trace takes its notes with it.
    let (st, _) = call(&s, "DELETE", &path, "", &mine);
    assert_eq!(st, 204);
    assert_eq!(call(&s, "GET", &path, "", &[]).0, 404);
    assert_eq!(call(&s, "POST", &notes, &note_body("again"), &[]).0, 201);
    assert_eq!(
        call(&s, "DELETE", &format!("/api/traces/{trace}"), "", &[]).0,
        204
    );
    assert_eq!(call(&s, "GET", &notes, "", &[]).0, 410);
    assert_eq!(
        call(&s, "GET", "/api/note-counts", "", &[]).1["counts"],
        json!({})
    );
}

#[test]
fn notes_per_trace_rate_and_size_limits_hold() {
    let dir = temp_dir("etlscope-notes-limits");
    let flags = [
        "--notes-per-trace",
        "3",
        "--notes-per-minute",
        "5",
        "--max-note-kb",
        "1",
    ];
    let s = Server::start(&dir, &flags);
    let trace = upload(&s, &[]);
    let notes = format!("/api/traces/{trace}/notes");
    for _ in 0..3 {
        assert_eq!(call(&s, "POST", &notes, &note_body("n"), &[]).0, 201);
    }
    let (st, v) = call(&s, "POST", &notes, &note_body("n"), &[]);
    assert_eq!(
        (st, v["error"]["code"].as_str()),
        (507, Some("notes_full")),
        "{v}"
    );
    assert!(message(&v).contains("--notes-per-trace"), "{v}");
    // The fifth write of the minute is the last of the burst; the sixth waits.
    assert_eq!(call(&s, "POST", &notes, &note_body("n"), &[]).0, 507);
    let (st, head_and_body) = {
        let body = note_body("n");
        let text = common::exchange(
            &s.addr,
            &common::head(&s.addr, "POST", &notes, body.len(), &[("X-Etlscope", "1")]),
            body.as_bytes(),
        );
        (common::parse_response(&text).0, text)
    };
    assert_eq!(st, 429, "{head_and_body}");
    assert!(
        head_and_body.to_ascii_lowercase().contains("retry-after: "),
        "{head_and_body}"
    );
    assert!(
        head_and_body.contains("--notes-per-minute"),
        "{head_and_body}"
    );
    // --max-note-kb 1: 1025 bytes are one too many.
    let (st, v) = call(&s, "POST", &notes, &note_body(&"a".repeat(1025)), &[]);
    assert_eq!(st, 413, "{v}");
    assert!(
        message(&v).contains("1025 bytes, more than 1024 (--max-note-kb 1)"),
        "{v}"
    );
    assert_eq!(
        call(&s, "GET", &notes, "", &[]).1["notes"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
}

#[test]
fn on_a_token_server_only_token_holders_write_and_the_writing_token_edits() {
    let dir = temp_dir("etlscope-notes-token");
    let bearer = format!("Bearer {TOKEN}");
    let auth = [("Authorization", bearer.as_str())];
    let (trace, id, key) = {
        let s = Server::start(&dir, &["--token", TOKEN]);
        let trace = upload(&s, &auth);
        let notes = format!("/api/traces/{trace}/notes");
        let (st, v) = call(&s, "POST", &notes, &note_body("no token"), &[]);
        assert_eq!(
            (st, v["error"]["code"].as_str()),
            (401, Some("unauthorized")),
            "{v}"
        );
        let (st, made) = call(&s, "POST", &notes, &note_body("team note"), &auth);
        assert_eq!(st, 201, "{made}");
        let id = made["id"].as_str().unwrap().to_string();
        // Reads stay open (no --private-reads); the token's notes are its holders'.
        let (_, anon) = call(&s, "GET", &notes, "", &[]);
        assert_eq!(anon["notes"][0]["editable"], false);
        let (_, holder) = call(&s, "GET", &notes, "", &auth);
        assert_eq!(holder["notes"][0]["editable"], true);
        let path = format!("/api/notes/{id}");
        let edit = json!({ "text": "edited by a teammate" }).to_string();
        assert_eq!(call(&s, "PUT", &path, &edit, &[]).0, 401);
        let (st, v) = call(&s, "PUT", &path, &edit, &auth);
        assert_eq!(
            (st, v["text"].as_str()),
            (200, Some("edited by a teammate")),
            "{v}"
        );
        (trace, id, made["key"].as_str().unwrap().to_string())
    };
    // Another token later: its holders did not write the note; its key still changes it.
    let s = Server::start(&dir, &["--token", "another-t0k"]);
    let other = [("Authorization", "Bearer another-t0k")];
    let path = format!("/api/notes/{id}");
    let edit = json!({ "text": "x" }).to_string();
    let (st, v) = call(&s, "PUT", &path, &edit, &other);
    assert_eq!(
        (st, v["error"]["code"].as_str()),
        (403, Some("not_author")),
        "{v}"
    );
    let with_key = [other[0], ("X-Etlscope-Note-Key", key.as_str())];
    assert_eq!(call(&s, "PUT", &path, &edit, &with_key).0, 200);
    assert_eq!(call(&s, "DELETE", &path, "", &with_key).0, 204);
    assert_eq!(
        call(&s, "GET", &format!("/api/traces/{trace}/notes"), "", &[]).1["notes"],
        json!([])
    );
}
