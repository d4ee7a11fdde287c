//! Issue 12, point 6: the stored trace files are the truth and the catalog
//! heals at start. A catalog truncated to 0 bytes, deleted, or garbled is
//! rebuilt with every stored trace listed again (and a log line saying so);
//! a row whose file vanished is marked `missing` until the same bytes are
//! uploaded again; a row left `ingesting` by a stop is ingested again.

mod common;

use common::{fixture_trace, temp_dir, Server};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;
use std::time::{Duration, Instant};

/// Three distinct small traces (the fixture trace with different tails).
fn traces() -> Vec<Vec<u8>> {
    let (base, _) = fixture_trace::write();
    (1..=3u8)
        .map(|t| {
            let mut b = base.clone();
            b.extend(std::iter::repeat_n(t, 16));
            b
        })
        .collect()
}

fn listed(server: &Server) -> Vec<Value> {
    let (s, v) = server.json("GET", "/api/traces", "");
    assert_eq!(s, 200, "{v}");
    v["traces"].as_array().unwrap().clone()
}

fn ids(server: &Server) -> BTreeSet<String> {
    listed(server)
        .iter()
        .map(|e| e["id"].as_str().unwrap().to_string())
        .collect()
}

/// A data dir holding the three traces, uploaded and ingested; their ids.
fn library(data: &Path) -> BTreeSet<String> {
    let server = Server::start(data, &[]);
    for (i, t) in traces().iter().enumerate() {
        let (s, b) = server.post(&format!("/api/traces?name=t{i}.etl"), t);
        assert_eq!(s, 201, "{b}");
    }
    let ids = ids(&server);
    for id in &ids {
        server.wait_ready(id, 60);
    }
    assert_eq!(ids.len(), 3);
    ids
}

/// Every trace answers a query again.
fn all_answer(server: &Server, ids: &BTreeSet<String>) {
    for id in ids {
        server.wait_ready(id, 60);
        let (s, v) = server.json(
            "POST",
            &format!("/api/traces/{id}/table"),
            r#"{"columns": ["Process"]}"#,
        );
        assert_eq!(s, 200, "{v}");
    }
}

fn wait_log(server: &Server, needle: &str) {
    let until = Instant::now() + Duration::from_secs(10);
    while !server.log.lock().unwrap().contains(needle) {
        assert!(
            Instant::now() < until,
            "no log line with {needle:?}: {}",
            server.log.lock().unwrap()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn an_emptied_deleted_or_garbled_catalog_is_rebuilt() {
    let data = temp_dir("heal");
    let want = library(&data);
    let catalog = data.join("catalog.sqlite");
    let damage: [(&str, &dyn Fn()); 3] = [
        ("truncated to 0 bytes", &|| {
            std::fs::File::create(&catalog).unwrap();
        }),
        ("deleted", &|| std::fs::remove_file(&catalog).unwrap()),
        ("garbled", &|| {
            // Without its journal, whose pages would otherwise stand in for the lost ones.
            for j in ["catalog.sqlite-wal", "catalog.sqlite-shm"] {
                let _ = std::fs::remove_file(data.join(j));
            }
            std::fs::write(&catalog, vec![0x5a; 8192]).unwrap()
        }),
    ];
    for (what, f) in damage {
        f();
        let server = Server::start(&data, &[]);
        assert_eq!(ids(&server), want, "catalog {what}");
        wait_log(&server, "catalog rebuilt");
        if what == "garbled" {
            wait_log(&server, "cannot be read");
        }
        all_answer(&server, &want);
    }
    std::fs::remove_dir_all(&data).ok();
}

#[test]
fn vanished_files_are_marked_and_restored_by_the_same_bytes() {
    let data = temp_dir("heal-missing");
    let want = library(&data);
    let gone = want.iter().next().unwrap().clone();
    std::fs::remove_file(data.join("traces").join(format!("{gone}.etl"))).unwrap();
    let server = Server::start(&data, &[]);
    assert_eq!(ids(&server), want);
    let entry = listed(&server)
        .into_iter()
        .find(|e| e["id"] == gone.as_str())
        .unwrap();
    assert_eq!(entry["status"], "missing", "{entry}");
    let (s, b) = server.post(
        &format!("/api/traces/{gone}/table"),
        br#"{"columns": ["Process"]}"#,
    );
    assert_eq!(s, 422, "{b}");
    // The same bytes again restore it, under its old name.
    let bytes = traces().into_iter().find(|t| ids_of(t) == gone).unwrap();
    let (s, b) = server.post("/api/traces?name=again.etl", &bytes);
    assert_eq!(s, 201, "{b}");
    let v = server.wait_ready(&gone, 60);
    assert!(v["name"].as_str().unwrap().starts_with('t'), "{v}");
    all_answer(&server, &want);
    std::fs::remove_dir_all(&data).ok();
}

/// The id the server gives these bytes: the first 128 bits of their SHA-256.
fn ids_of(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)[..16]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[test]
fn a_stale_ingesting_row_is_resumed_at_start() {
    let data = temp_dir("heal-stale");
    let want = library(&data);
    {
        let c = rusqlite::Connection::open(data.join("catalog.sqlite")).unwrap();
        c.execute("UPDATE traces SET status = 'ingesting'", [])
            .unwrap();
    }
    let server = Server::start(&data, &[]);
    // Listing never starts an ingest: only the resume at start can make them ready.
    let until = Instant::now() + Duration::from_secs(60);
    loop {
        let statuses: Vec<String> = listed(&server)
            .iter()
            .map(|e| e["status"].as_str().unwrap().to_string())
            .collect();
        if statuses.iter().all(|s| s == "ready") {
            break;
        }
        assert!(Instant::now() < until, "not resumed: {statuses:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
    all_answer(&server, &want);
    std::fs::remove_dir_all(&data).ok();
}

/// Issue 31, point 4: a stored file deleted behind the server's back while
/// its trace is loaded is stored again by an upload of the same bytes (not
/// answered with the old entry and nothing stored), so a later catalog
/// rebuild, which knows only the files, still lists it.
#[test]
fn a_file_deleted_while_loaded_is_stored_again_by_the_same_bytes() {
    let data = temp_dir("heal-loaded");
    let bytes = traces().remove(0);
    let id = ids_of(&bytes);
    let server = Server::start(&data, &[]);
    let (s, b) = server.post("/api/traces?name=loaded.etl", &bytes);
    assert_eq!(s, 201, "{b}");
    server.wait_ready(&id, 60);
    let stored = data.join("traces").join(format!("{id}.etl"));
    std::fs::remove_file(&stored).unwrap();

    let (s, b) = server.post("/api/traces?name=again.etl", &bytes);
    assert!(s == 201 || s == 200, "{s} {b}");
    assert!(
        std::fs::read(&stored).is_ok_and(|got| got == bytes),
        "the re-upload did not store the file again ({s} {b})"
    );
    let v = server.wait_ready(&id, 60);
    assert_eq!(v["name"], "loaded.etl", "{v}");
    all_answer(&server, &BTreeSet::from([id.clone()]));
    drop(server);

    // The catalog lost: rebuilt from traces/, the trace is still there.
    for f in ["catalog.sqlite", "catalog.sqlite-wal", "catalog.sqlite-shm"] {
        let _ = std::fs::remove_file(data.join(f));
    }
    let server = Server::start(&data, &[]);
    assert_eq!(ids(&server), BTreeSet::from([id.clone()]));
    all_answer(&server, &BTreeSet::from([id]));
    drop(server);
    std::fs::remove_dir_all(&data).ok();
}

/// A stored file cut short on disk (while the server was stopped) is listed
/// `failed` saying so, not `ready`; the same bytes again store it again.
#[test]
fn a_stored_file_changed_on_disk_is_failed_until_the_same_bytes_come_again() {
    let data = temp_dir("heal-changed");
    let bytes = traces().remove(1);
    let id = ids_of(&bytes);
    let server = Server::start(&data, &[]);
    let (s, b) = server.post("/api/traces?name=cut.etl", &bytes);
    assert_eq!(s, 201, "{b}");
    server.wait_ready(&id, 60);
    drop(server);
    let stored = data.join("traces").join(format!("{id}.etl"));
    std::fs::write(&stored, &bytes[..bytes.len() / 2]).unwrap();

    let server = Server::start(&data, &[]);
    let e = listed(&server)
        .into_iter()
        .find(|e| e["id"] == id.as_str())
        .unwrap();
    assert_eq!(e["status"], "failed", "{e}");
    assert!(
        e["error"]
            .as_str()
            .unwrap()
            .contains("upload the same file again"),
        "{e}"
    );
    let (s, b) = server.post("/api/traces?name=again.etl", &bytes);
    assert_eq!(s, 201, "{b}");
    assert!(std::fs::read(&stored).is_ok_and(|got| got == bytes));
    let v = server.wait_ready(&id, 60);
    assert_eq!(v["name"], "cut.etl", "{v}");
    drop(server);
    std::fs::remove_dir_all(&data).ok();
}
