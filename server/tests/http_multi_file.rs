//! Issue 13 part 4 in the server: `etlscope open a b ...` serves one trace
//! of several files, with every member's events; its id does not depend on
//! the order of the files; every member is checked for changes and healed
//! for; an upload of a zip of several `.etl` is one trace too. Expected
//! event counts are the reference census of each member
//! (`expected::CONTAINER_MEMBERS`, from tests/reference).

mod common;
#[path = "../../crates/etl/tests/expected/mod.rs"]
mod expected;

use common::{extract_members, real_traces_dir, request, temp_dir, zip_of, Server};
use serde_json::Value;
use std::path::PathBuf;

const DIAGSESSION: &str = "vs-dotnetcore31.diagsession";

fn member_events() -> u64 {
    expected::CONTAINER_MEMBERS
        .iter()
        .filter(|m| m.0 == DIAGSESSION)
        .map(|m| m.4)
        .sum()
}

fn only_trace(server: &Server) -> Value {
    let (_, list) = server.json("GET", "/api/traces", "");
    let traces = list["traces"].as_array().unwrap();
    assert_eq!(traces.len(), 1, "{list}");
    traces[0].clone()
}

fn strs(files: &[PathBuf]) -> Vec<&str> {
    files.iter().map(|f| f.to_str().unwrap()).collect()
}

#[test]
fn open_serves_several_files_as_one_trace() {
    let Some(dir) = real_traces_dir() else { return };
    let mine = temp_dir("multi-open-mine");
    let files = extract_members(&dir.join(DIAGSESSION), &mine);
    assert_eq!(files.len(), 4);
    let data = temp_dir("multi-open-data");
    let server = Server::start_command("open", &data, &strs(&files));
    let e = only_trace(&server);
    let id = e["id"].as_str().unwrap().to_string();
    let total: u64 = files
        .iter()
        .map(|f| std::fs::metadata(f).unwrap().len())
        .sum();
    assert_eq!(e["size"], total, "{e}");
    let listed: Vec<(String, u64)> = e["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["name"].as_str().unwrap().to_string(),
                f["size"].as_u64().unwrap(),
            )
        })
        .collect();
    let given: Vec<(String, u64)> = files
        .iter()
        .map(|f| {
            let name = f.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::metadata(f).unwrap().len())
        })
        .collect();
    assert_eq!(listed, given);
    assert!(!e.to_string().contains(mine.to_str().unwrap()), "{e}");
    let v = server.wait_ready(&id, 120);
    assert_eq!(v["summary"]["events"], member_events(), "{v}");
    // The kernel session's 250 processes (README of the traces).
    assert_eq!(v["summary"]["processes"], 250, "{v}");
    // The members, with the reference census's buffers of each.
    let members: Vec<(String, u64, u64)> = v["summary"]["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["name"].as_str().unwrap().to_string(),
                m["buffers"].as_u64().unwrap(),
                m["bytes"].as_u64().unwrap(),
            )
        })
        .collect();
    let want: Vec<(String, u64, u64)> = expected::CONTAINER_MEMBERS
        .iter()
        .filter(|m| m.0 == DIAGSESSION)
        .zip(&given)
        .map(|(m, (name, size))| {
            assert!(m.1.ends_with(&format!("/{name}")));
            (name.clone(), u64::from(m.2), *size)
        })
        .collect();
    assert_eq!(members, want);
    drop(server);

    // The same files in another order, through `serve --trace`: the same
    // trace, found in the catalog.
    let mut reversed = files.clone();
    reversed.reverse();
    let set = std::env::join_paths(&reversed).unwrap();
    let server = Server::start(&data, &["--trace", set.to_str().unwrap()]);
    assert_eq!(only_trace(&server)["id"], id.as_str());
    drop(server);
    // PerfView's naming: `open diaghub.etl` alone brings the other three.
    let server = Server::start_command("open", &data, &[files[0].to_str().unwrap()]);
    assert_eq!(only_trace(&server)["id"], id.as_str());
    drop(server);

    // One member rewritten (a different size): the trace is refused with
    // that member named, not read half-changed.
    let changed = &files[3];
    let mut bytes = std::fs::read(changed).unwrap();
    bytes.truncate(bytes.len() / 2);
    std::fs::write(changed, &bytes).unwrap();
    let server = Server::start(&data, &[]);
    let error = wait_failed(&server, &id);
    assert!(error.contains("diaghub.user_paged.1.etl"), "{error}");
    assert!(error.contains("changed since it was added"), "{error}");
    drop(server);

    // One member gone: the start-up heal marks the trace missing.
    std::fs::remove_file(&files[1]).unwrap();
    let server = Server::start(&data, &[]);
    let e = only_trace(&server);
    assert_eq!(e["status"], "missing", "{e}");
    let error = e["error"].as_str().unwrap_or("");
    assert!(error.contains("diaghub.kernel.1.etl"), "{error}");
    assert!(!error.contains("diaghub.etl"), "{error}");
    // Deleting it leaves the user's files as they are.
    let before: Vec<Vec<u8>> = [&files[0], &files[2], &files[3]]
        .iter()
        .map(|f| std::fs::read(f).unwrap())
        .collect();
    let (s, b) = request(
        &server.addr,
        "DELETE",
        &format!("/api/traces/{id}"),
        b"",
        &[],
    );
    assert_eq!(s, 204, "{b}");
    let after: Vec<Vec<u8>> = [&files[0], &files[2], &files[3]]
        .iter()
        .map(|f| std::fs::read(f).unwrap())
        .collect();
    assert!(before == after, "a file of the user's changed");
    drop(server);
    std::fs::remove_dir_all(&data).ok();
    std::fs::remove_dir_all(&mine).ok();
}

fn wait_failed(server: &Server, id: &str) -> String {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let (_, v) = server.json("GET", &format!("/api/traces/{id}"), "");
        if v["status"] == "failed" {
            return v["error"].as_str().unwrap_or("").to_string();
        }
        assert!(std::time::Instant::now() < deadline, "not failed: {v}");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// A damaged file among those opened costs only its own events; the
/// trace's diagnostics name it.
#[test]
fn open_with_a_damaged_member_reads_the_others() {
    let Some(dir) = real_traces_dir() else { return };
    let mine = temp_dir("multi-damaged-mine");
    let files = extract_members(&dir.join(DIAGSESSION), &mine);
    let broken = mine.join("broken.etl");
    std::fs::write(&broken, [0x5au8; 4096]).unwrap();
    let data = temp_dir("multi-damaged-data");
    let given = [files[0].clone(), broken];
    let server = Server::start_command(
        "open",
        &data,
        &[
            "--no-companions",
            given[0].to_str().unwrap(),
            given[1].to_str().unwrap(),
        ],
    );
    let id = only_trace(&server)["id"].as_str().unwrap().to_string();
    let v = server.wait_ready(&id, 120);
    let main = expected::CONTAINER_MEMBERS
        .iter()
        .find(|m| m.0 == DIAGSESSION && m.1.ends_with("/diaghub.etl"))
        .unwrap();
    assert_eq!(v["summary"]["events"], main.4, "{v}");
    let diags = v["summary"]["diagnostics"].to_string();
    assert!(diags.contains("broken.etl is not read"), "{diags}");
    drop(server);
    std::fs::remove_dir_all(&data).ok();
    std::fs::remove_dir_all(&mine).ok();
}

/// An upload of a zip of several `.etl` (built here from the four members)
/// is one trace with every member's events.
#[test]
fn an_uploaded_zip_of_several_etl_is_one_trace() {
    let Some(dir) = real_traces_dir() else { return };
    let mine = temp_dir("multi-zip-mine");
    let files = extract_members(&dir.join(DIAGSESSION), &mine);
    let zip = zip_of(&files);
    let data = temp_dir("multi-zip-data");
    let server = Server::start(&data, &[]);
    let (s, b) = server.post("/api/traces?name=four.zip", &zip);
    assert_eq!(s, 201, "{b}");
    let id = serde_json::from_str::<Value>(&b).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let v = server.wait_ready(&id, 120);
    assert_eq!(v["summary"]["events"], member_events(), "{v}");
    let names: Vec<&str> = v["summary"]["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    let want: Vec<String> = files
        .iter()
        .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, want);
    drop(server);
    std::fs::remove_dir_all(&data).ok();
    std::fs::remove_dir_all(&mine).ok();
}
