//! Issue 12, point 1: a trace served by reference (`etlscope serve FILE`,
//! `open FILE`) is the user's own file. Deleting it through the API removes
//! it from the library only: the file stays byte-identical. An uploaded
//! trace (a file the server wrote into `--data-dir`) is deleted with it.

mod common;

use common::{fixture_trace, request, temp_dir, Server};
use serde_json::Value;
use std::path::PathBuf;

/// A file of the user's (the fixture trace, outside the data dir) served by
/// reference and ingested: (data dir, the user's folder, the file, its
/// bytes, the server, the trace's id).
fn serve_users_file(tag: &str) -> (PathBuf, PathBuf, PathBuf, Vec<u8>, Server, String) {
    let data = temp_dir(&format!("{tag}-data"));
    let mine = temp_dir(&format!("{tag}-mine"));
    let (bytes, _) = fixture_trace::write();
    let file = mine.join("my-trace.etl");
    std::fs::write(&file, &bytes).unwrap();
    let server = Server::start(&data, &[file.to_str().unwrap()]);
    let (_, list) = server.json("GET", "/api/traces", "");
    let id = list["traces"][0]["id"].as_str().unwrap().to_string();
    server.wait_ready(&id, 60);
    (data, mine, file, bytes, server, id)
}

#[test]
fn deleting_a_trace_served_by_reference_keeps_the_users_file() {
    let (data, mine, file, bytes, server, id) = serve_users_file("byref");

    let (s, b) = request(
        &server.addr,
        "DELETE",
        &format!("/api/traces/{id}"),
        b"",
        &[],
    );
    assert_eq!(s, 204, "{b}");
    assert_eq!(
        std::fs::read(&file).unwrap(),
        bytes,
        "the user's file changed"
    );
    let (_, list) = server.json("GET", "/api/traces", "");
    assert_eq!(list["traces"].as_array().unwrap().len(), 0, "{list}");
    // Deleted: 410 Gone (issue 36's tombstone), until it is added again.
    let (s, _) = server.get(&format!("/api/traces/{id}"));
    assert_eq!(s, 410);

    // Restarting on the same file and data dir lists it again, still intact.
    drop(server);
    let server = Server::start(&data, &[file.to_str().unwrap()]);
    server.wait_ready(&id, 60);
    assert_eq!(std::fs::read(&file).unwrap(), bytes);
    drop(server);
    std::fs::remove_dir_all(&data).ok();
    std::fs::remove_dir_all(&mine).ok();
}

#[test]
fn deleting_an_upload_removes_only_its_stored_file() {
    let data = temp_dir("upload-del");
    let server = Server::start(&data, &[]);
    let (bytes, _) = fixture_trace::write();
    let (s, b) = server.post("/api/traces?name=up.etl", &bytes);
    assert_eq!(s, 201, "{b}");
    let id = serde_json::from_str::<Value>(&b).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let stored = data.join("traces").join(format!("{id}.etl"));
    assert!(stored.is_file());
    // A file of the user's that happens to sit in traces/ is not the server's.
    let stranger = data.join("traces").join("notes.txt");
    std::fs::write(&stranger, b"mine").unwrap();
    server.wait_ready(&id, 60);
    let (s, b) = request(
        &server.addr,
        "DELETE",
        &format!("/api/traces/{id}"),
        b"",
        &[],
    );
    assert_eq!(s, 204, "{b}");
    assert!(!stored.exists(), "the stored upload is still there");
    assert_eq!(std::fs::read(&stranger).unwrap(), b"mine");
    std::fs::remove_dir_all(&data).ok();
}

/// Issue 19, point 6: a file served by reference that the user truncates is
/// refused with a clear error when it is read again, and the server keeps
/// serving: it never maps a file that shrank since it was added.
#[test]
fn a_served_file_truncated_since_it_was_added_is_refused_not_read() {
    let (data, mine, file, bytes, server, id) = serve_users_file("byref-trunc");
    drop(server);

    // Cut the file to half, between two reads of it.
    let f = std::fs::OpenOptions::new().write(true).open(&file).unwrap();
    f.set_len(bytes.len() as u64 / 2).unwrap();
    drop(f);

    // Started again on the same data dir, the library still lists the
    // trace; asking for it reads it again, which is refused with the reason.
    let server = Server::start(&data, &[]);
    let (s, v) = server.get(&format!("/api/traces/{id}/summary"));
    assert!(s == 200 || s >= 400, "{s} {v}");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let entry = loop {
        let (s, v) = server.json("GET", &format!("/api/traces/{id}"), "");
        assert_eq!(s, 200, "{v}");
        if v["status"] != "ingesting" && v["status"] != "pending" {
            break v;
        }
        assert!(std::time::Instant::now() < deadline, "{v}");
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    assert_eq!(entry["status"], "failed", "{entry}");
    let error = entry["error"].as_str().unwrap_or("");
    assert!(error.contains("changed since it was added"), "{error}");
    let (s, _) = server.get("/api/traces");
    assert_eq!(s, 200, "the server keeps serving");
    assert_eq!(std::fs::read(&file).unwrap().len(), bytes.len() / 2);
    drop(server);
    std::fs::remove_dir_all(&data).ok();
    std::fs::remove_dir_all(&mine).ok();
}
