//! Issue 31, point 5: the statuses the library lists after a fault are the
//! truth. A trace whose ingest a SIGKILL cut, restarted on a nearly full
//! disk (the catalog cannot be written), ends `ready` or `failed` with a
//! reason, never `ingesting` for ever; a killed `open --replay` is not
//! `live` after a restart; a trace of two files served by reference with
//! one of them truncated (or rewritten) is listed `failed` naming the file,
//! not `ready` until its first query fails. And a disk too full to open
//! the catalog at start is not taken for a damaged catalog (set aside, its
//! names lost to the rebuild).

mod common;

use common::small_disk::small_disk;
use common::{binary, fixture_trace, temp_dir, Server};
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// The id the server gives these bytes: the first 128 bits of their SHA-256.
fn id_of(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)[..16]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The trace's entry as the library lists it (listing never starts an
/// ingest, unlike a GET of the trace).
fn listed(server: &Server, id: &str) -> Value {
    let (s, v) = server.json("GET", "/api/traces", "");
    assert_eq!(s, 200, "{v}");
    v["traces"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["id"] == id)
        .unwrap_or_else(|| panic!("{id} not listed: {v}"))
        .clone()
}

/// Poll the listing until the trace is `ready`, `failed` or `missing` (or
/// fail after `secs`); returns that entry and every status seen on the way.
fn settled(server: &Server, id: &str, secs: u64) -> (Value, Vec<String>) {
    let until = Instant::now() + Duration::from_secs(secs);
    let mut seen: Vec<String> = Vec::new();
    loop {
        let e = listed(server, id);
        let status = e["status"].as_str().unwrap_or("").to_string();
        if seen.last() != Some(&status) {
            seen.push(status.clone());
        }
        if ["ready", "failed", "missing"].contains(&status.as_str()) {
            return (e, seen);
        }
        assert!(
            Instant::now() < until,
            "still {status:?} after {secs} s (statuses seen: {seen:?}): {e}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Fill the disk of `dir` with one file, then give `leave` bytes back.
fn fill(dir: &Path, leave: u64) -> PathBuf {
    let path = dir.join("filler");
    let mut f = std::fs::File::create(&path).unwrap();
    for chunk in [64 << 10, 4 << 10] {
        let block = vec![0u8; chunk];
        while f.write_all(&block).is_ok() {}
    }
    let len = f.metadata().unwrap().len();
    f.set_len(len.saturating_sub(leave)).unwrap();
    path
}

/// The catalog's own record of the trace's status.
fn catalog_status(data: &Path, id: &str) -> String {
    let c = rusqlite::Connection::open(data.join("catalog.sqlite")).unwrap();
    c.query_row("SELECT status FROM traces WHERE id = ?1", [id], |r| {
        r.get(0)
    })
    .unwrap()
}

#[test]
fn an_ingest_cut_by_a_kill_on_a_nearly_full_disk_ends_ready_or_failed() {
    let Some(disk) = small_disk("8m") else { return };
    let data = disk.0.join("data");
    let (bytes, _) = fixture_trace::write();
    let id = id_of(&bytes);
    let server = Server::start(&data, &[]);
    let (s, b) = server.post("/api/traces?name=full.etl", &bytes);
    assert_eq!(s, 201, "{b}");
    server.wait_ready(&id, 60);
    drop(server); // SIGKILL
    {
        // As a kill in the middle of its ingest leaves it; all in the main
        // file, so that the restart's journal needs new room on the disk.
        let c = rusqlite::Connection::open(data.join("catalog.sqlite")).unwrap();
        c.execute("UPDATE traces SET status = 'ingesting'", [])
            .unwrap();
        c.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
            .unwrap();
    }
    // Room to open the catalog (its 32 KiB shared-memory index) and little more.
    let filler = fill(&disk.0, 36 << 10);
    for round in 0..2 {
        let server = Server::start(&data, &[]);
        let (e, seen) = settled(&server, &id, 15);
        eprintln!("round {round}: statuses listed {seen:?}");
        let ok = e["status"] == "ready"
            || (e["status"] == "failed" && !e["error"].as_str().unwrap_or("").is_empty());
        assert!(ok, "round {round}: {e}");
        if round == 1 {
            // Room again: the next listing writes the truth to the catalog.
            std::fs::remove_file(&filler).unwrap();
            assert_eq!(listed(&server, &id)["status"], e["status"]);
            drop(server);
            assert_eq!(catalog_status(&data, &id), e["status"].as_str().unwrap());
        }
    }
}

#[test]
fn a_killed_replay_is_not_live_after_a_restart() {
    let data = temp_dir("status-replay-data");
    let mine = temp_dir("status-replay-mine");
    let (bytes, _) = fixture_trace::write();
    let file = mine.join("replayed.etl");
    std::fs::write(&file, &bytes).unwrap();
    let id = id_of(&bytes);
    let server = Server::start_command("open", &data, &["--replay", "1", file.to_str().unwrap()]);
    let until = Instant::now() + Duration::from_secs(10);
    while listed(&server, &id)["status"] != "live" {
        assert!(Instant::now() < until, "{}", listed(&server, &id));
        std::thread::sleep(Duration::from_millis(20));
    }
    drop(server); // SIGKILL: the replay never finished
    let server = Server::start(&data, &[]);
    let (e, seen) = settled(&server, &id, 15);
    assert_eq!(e["status"], "ready", "{e}");
    assert!(!seen.iter().any(|s| s == "live"), "{seen:?}");
    drop(server);
    std::fs::remove_dir_all(&data).ok();
    std::fs::remove_dir_all(&mine).ok();
}

#[test]
fn a_two_file_trace_with_a_truncated_file_is_not_listed_ready() {
    let data = temp_dir("status-two-data");
    let mine = temp_dir("status-two-mine");
    let (base, _) = fixture_trace::write();
    let files: Vec<PathBuf> = ["first.etl", "second.etl"]
        .iter()
        .zip(1u8..)
        .map(|(name, tail)| {
            let mut b = base.clone();
            b.extend(std::iter::repeat_n(tail, 16));
            let p = mine.join(name);
            std::fs::write(&p, b).unwrap();
            p
        })
        .collect();
    let args: Vec<&str> = files.iter().map(|f| f.to_str().unwrap()).collect();
    let server = Server::start_command("open", &data, &args);
    let (_, list) = server.json("GET", "/api/traces", "");
    let id = list["traces"][0]["id"].as_str().unwrap().to_string();
    server.wait_ready(&id, 60);
    drop(server); // SIGKILL

    let second = std::fs::read(&files[1]).unwrap();
    std::fs::write(&files[1], &second[..second.len() / 2]).unwrap();
    let server = Server::start(&data, &[]);
    let e = listed(&server, &id);
    let error = e["error"].as_str().unwrap_or("");
    assert!(
        (e["status"] == "failed" || e["status"] == "missing") && error.contains("second.etl"),
        "a truncated file, listed as: {e}"
    );
    // The same bytes put back are a rewrite (its modification time moved):
    // still refused, as the file may have changed in between.
    std::fs::write(&files[1], &second).unwrap();
    let e = listed(&server, &id);
    let error = e["error"].as_str().unwrap_or("");
    assert!(
        e["status"] == "failed" && error.contains("second.etl"),
        "a rewritten file, listed as: {e}"
    );
    drop(server);

    // Opening the files again adds them anew (the same content, the same id).
    let server = Server::start_command("open", &data, &args);
    server.wait_ready(&id, 60);
    assert_eq!(listed(&server, &id)["status"], "ready");
    drop(server);
    std::fs::remove_dir_all(&data).ok();
    std::fs::remove_dir_all(&mine).ok();
}

#[test]
fn a_full_disk_at_start_leaves_the_catalog_as_it_is() {
    let Some(disk) = small_disk("8m") else { return };
    let data = disk.0.join("data");
    let (bytes, _) = fixture_trace::write();
    let id = id_of(&bytes);
    let server = Server::start(&data, &[]);
    let (s, b) = server.post("/api/traces?name=kept.etl", &bytes);
    assert_eq!(s, 201, "{b}");
    server.wait_ready(&id, 60);
    drop(server); // SIGKILL
                  // Closed cleanly since (no journal): opening it needs new room.
    rusqlite::Connection::open(data.join("catalog.sqlite"))
        .unwrap()
        .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
        .unwrap();
    let filler = fill(&disk.0, 0);
    let mut child = Command::new(binary())
        .args(["serve", "--addr", "127.0.0.1:0", "--data-dir"])
        .arg(&data)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let until = Instant::now() + Duration::from_secs(20);
    while child.try_wait().unwrap().is_none() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let out = child.wait_with_output().unwrap();
    eprintln!("on a full disk: {}", String::from_utf8_lossy(&out.stderr));
    let aside: Vec<String> = std::fs::read_dir(&data)
        .unwrap()
        .flatten()
        .map(|f| f.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("broken"))
        .collect();
    assert!(aside.is_empty(), "the catalog was set aside: {aside:?}");
    std::fs::remove_file(&filler).unwrap();
    let server = Server::start(&data, &[]);
    assert_eq!(listed(&server, &id)["name"], "kept.etl");
    drop(server);
}
