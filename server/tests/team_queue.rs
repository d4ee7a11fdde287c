//! Issue 36, scope point 3: PostgreSQL carries the ingest queue. An upload
//! through replica A is A's job; A's progress reaches the clients of
//! replica B (LISTEN/NOTIFY into B's progress stream); A killed (-9) in the
//! middle of the read leaves its job, which B takes once A's lease runs out
//! and finishes: B's stream ends `ready`, and the catalog says so.
#![cfg(all(unix, feature = "team"))]

mod common;

use common::team::Backends;
use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The events of `GET /api/traces/{id}/progress` on `addr`, as they come.
fn progress_events(addr: &str, id: &str) -> mpsc::Receiver<Value> {
    let (tx, rx) = mpsc::channel();
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(90))).ok();
    let head = format!(
        "GET /api/traces/{id}/progress HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    );
    s.write_all(head.as_bytes()).unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(s).lines().map_while(Result::ok) {
            if let Some(data) = line.strip_prefix("data:") {
                if let Ok(v) = serde_json::from_str::<Value>(data.trim()) {
                    if tx.send(v).is_err() {
                        return;
                    }
                }
            }
        }
    });
    rx
}

#[test]
fn a_killed_replicas_ingest_job_is_taken_by_another_and_every_replica_sees_progress() {
    let Some(dir) = common::real_traces_dir() else {
        return;
    };
    let Some(b) = Backends::start("queue") else {
        return;
    };
    let mut a = b.replica(&[]);
    let other = b.replica(&[]);
    let body = std::fs::read(dir.join("perfview-net452-x64.etl")).unwrap();
    let (s, v) = a.post("/api/traces?name=q.etl", &body);
    assert_eq!(s, 201, "{v}");
    let id = serde_json::from_str::<Value>(&v).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let t0 = Instant::now();
    let events = progress_events(&other.addr, &id);

    // A's progress, heard by the other replica's stream; then A is killed.
    let from_a = loop {
        let ev = events
            .recv_timeout(Duration::from_secs(60))
            .expect("no progress event");
        let holder = ev["progress"]["replica"].as_str().unwrap_or("");
        if holder.starts_with(&format!("{}/", a.addr)) {
            break ev;
        }
        assert_ne!(
            ev["status"], "ready",
            "read before A's progress was heard: {ev}"
        );
    };
    a.child.kill().unwrap();
    a.child.wait().unwrap();
    let killed = t0.elapsed();

    // The other replica takes the job once A's lease (3 s) runs out.
    let mut last = from_a.clone();
    let mut own = 0;
    while last["status"] != "ready" {
        last = events
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("the stream stopped at {last}"));
        assert_ne!(last["status"], "failed", "{last}");
        if last["status"] == "ingesting" && last["progress"].get("replica").is_none() {
            own += 1;
        }
    }
    let done = t0.elapsed();
    eprintln!(
        "# A's progress heard on B at {:.1} s ({from_a}); A killed; B's stream: {own} events of its own read, ready at {:.1} s",
        killed.as_secs_f64(),
        done.as_secs_f64()
    );
    assert!(own > 0, "the other replica never read it itself");
    let v = other.wait_ready(&id, 60);
    assert_eq!(v["status"], "ready", "{v}");
    assert!(v["summary"]["samples"].as_u64().unwrap_or(0) > 0, "{v}");
    assert!(done < Duration::from_secs(60), "{done:?}");
}
