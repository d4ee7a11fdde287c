//! Issue 12, point 1: a trace served by reference (`etlscope serve FILE`,
//! `open FILE`) is the user's own file. Deleting it through the API removes
//! it from the library only: the file stays byte-identical. An uploaded
//! trace (a file the server wrote into `--data-dir`) is deleted with it.

mod common;

use common::{fixture_trace, request, temp_dir, Server};
use serde_json::Value;

#[test]
fn deleting_a_trace_served_by_reference_keeps_the_users_file() {
    let data = temp_dir("byref-data");
    let mine = temp_dir("byref-mine");
    let (bytes, _) = fixture_trace::write();
    let file = mine.join("my-trace.etl");
    std::fs::write(&file, &bytes).unwrap();

    let server = Server::start(&data, &[file.to_str().unwrap()]);
    let (_, list) = server.json("GET", "/api/traces", "");
    let id = list["traces"][0]["id"].as_str().unwrap().to_string();
    server.wait_ready(&id, 60);

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
    let (s, _) = server.get(&format!("/api/traces/{id}"));
    assert_eq!(s, 404);

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
