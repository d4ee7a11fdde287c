//! Issue 15, point 3: `etlscope open` hashes a trace next to its read
//! instead of before listening, and the id stays what older versions gave
//! the same bytes (the first 128 bits of their SHA-256), so catalogs they
//! wrote keep naming their traces.

mod common;

use common::{fixture_trace, temp_dir, Server};

/// The id older versions give these bytes, computed here on its own.
fn sha256_id(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)[..16]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn listed_ids(server: &Server) -> Vec<String> {
    let (_, list) = server.json("GET", "/api/traces", "");
    list["traces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_catalog_entry_made_before_opens_under_its_old_id() {
    let data = temp_dir("open-id-data");
    let mine = temp_dir("open-id-mine");
    let (bytes, _) = fixture_trace::write();
    let want = sha256_id(&bytes);

    // The entry as an upload made it (hashed as it arrives, as before).
    let server = Server::start(&data, &[]);
    let (s, b) = server.post("/api/traces?name=old.etl", &bytes);
    assert_eq!(s, 201, "{b}");
    let v: serde_json::Value = serde_json::from_str(&b).unwrap();
    assert_eq!(v["id"], want.as_str(), "{v}");
    let events = server.wait_ready(&want, 60)["summary"]["events"].clone();
    drop(server);

    // Opening the same bytes from the user's folder finds that entry.
    let file = mine.join("same-bytes.etl");
    std::fs::write(&file, &bytes).unwrap();
    let server = Server::start_command("open", &data, &[file.to_str().unwrap()]);
    assert_eq!(listed_ids(&server), vec![want.clone()]);
    let v = server.wait_ready(&want, 60);
    assert_eq!(v["summary"]["events"], events, "{v}");
    drop(server);

    // And a restart with no file given still opens it.
    let server = Server::start(&data, &[]);
    assert_eq!(listed_ids(&server), vec![want.clone()]);
    server.wait_ready(&want, 60);
    drop(server);
    std::fs::remove_dir_all(&data).ok();
    std::fs::remove_dir_all(&mine).ok();
}

#[test]
fn a_file_opened_fresh_gets_the_sha256_of_its_bytes() {
    let data = temp_dir("open-id-fresh");
    let mine = temp_dir("open-id-fresh-mine");
    let (bytes, _) = fixture_trace::write();
    let file = mine.join("t.etl");
    std::fs::write(&file, &bytes).unwrap();
    let server = Server::start_command("open", &data, &[file.to_str().unwrap()]);
    let want = sha256_id(&bytes);
    assert_eq!(listed_ids(&server), vec![want.clone()]);
    server.wait_ready(&want, 60);
    drop(server);
    std::fs::remove_dir_all(&data).ok();
    std::fs::remove_dir_all(&mine).ok();
}
