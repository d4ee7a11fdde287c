//! Issue 12, point 5 at the acceptance's scale (ignored by default: sized
//! for release builds). With `--memory-budget-mb 512`, six stored traces
//! of 110 MB reloaded at once, and a small zip whose member is 1.5 GB, keep
//! the server's peak RSS (VmHWM, from /proc) under 1.25x the budget, and
//! every query answers. Run:
//!
//! ```sh
//! cargo test --release -p etlscope --test memory_at_scale -- --ignored --nocapture
//! ```

mod common;

use common::{binary, request, status_kib, temp_dir, zip_with_padded_member, Server};
use serde_json::Value;
use std::time::{Duration, Instant};

const BUDGET_MB: u64 = 512;

#[test]
#[ignore = "minutes with a debug binary: run with ETLSCOPE_BIN set to a release build"]
fn six_large_traces_reloaded_at_once_stay_under_the_budget() {
    let work = temp_dir("scale");
    let base = work.join("base.etl");
    let out = std::process::Command::new(binary())
        .args([
            "synth",
            "bench",
            "--bytes",
            "110000000",
            "--seed",
            "12",
            "-o",
        ])
        .arg(&base)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bytes = std::fs::read(&base).unwrap();
    let data = work.join("data");
    let budget = BUDGET_MB.to_string();
    let server = Server::start(&data, &["--memory-budget-mb", &budget]);
    let mut ids = Vec::new();
    for i in 0..6u8 {
        let mut b = bytes.clone();
        b.extend(std::iter::repeat_n(i + 1, 16));
        let (s, body) = server.post(&format!("/api/traces?name=big{i}.etl"), &b);
        assert_eq!(s, 201, "{body}");
        ids.push(
            serde_json::from_str::<Value>(&body).unwrap()["id"]
                .as_str()
                .unwrap()
                .to_string(),
        );
    }
    drop(bytes);
    for id in &ids {
        server.wait_ready(id, 600);
    }
    drop(server);

    // A fresh process: nothing loaded. All six asked for at once.
    let server = Server::start(&data, &["--memory-budget-mb", &budget]);
    let pid = server.child.id();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let watcher = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            let (mut anon, mut file) = (0, 0);
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                anon = status_kib(pid, "RssAnon:").max(anon);
                file = status_kib(pid, "RssFile:").max(file);
                std::thread::sleep(Duration::from_millis(5));
            }
            (anon >> 10, file >> 10)
        })
    };
    let threads: Vec<_> = ids
        .iter()
        .cloned()
        .map(|id| {
            let addr = server.addr.clone();
            std::thread::spawn(move || {
                let until = Instant::now() + Duration::from_secs(600);
                loop {
                    let (s, b) = request(
                        &addr,
                        "POST",
                        &format!("/api/traces/{id}/table"),
                        br#"{"columns": ["Process"]}"#,
                        &[],
                    );
                    if s == 200 {
                        return serde_json::from_str::<Value>(&b).unwrap()["total"].clone();
                    }
                    assert!(s == 409 && Instant::now() < until, "{id}: {s} {b}");
                }
            })
        })
        .collect();
    let totals: Vec<Value> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    let peak = status_kib(pid, "VmHWM:") >> 10;
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let (anon, file) = watcher.join().unwrap();
    eprintln!(
        "peak RSS {peak} MiB (anonymous {anon} MiB, file-backed {file} MiB) under a budget of {BUDGET_MB} MiB"
    );
    assert!(totals.windows(2).all(|w| w[0] == w[1]), "{totals:?}");
    assert!(
        peak * 4 < BUDGET_MB * 5,
        "peak RSS {peak} MiB is over 1.25x the budget of {BUDGET_MB} MiB"
    );
    drop(server);
    std::fs::remove_dir_all(&work).ok();
}

/// The fixture trace, then `mib` MiB of a repeated 16 KiB block the reader
/// skips, deflated.
fn zip_with_member_of(mib: usize) -> Vec<u8> {
    zip_with_padded_member("huge.etl", mib, 9)
}

#[test]
#[ignore = "minutes in a debug build: run with cargo test --release"]
fn a_small_zip_with_a_huge_member_stays_under_the_budget() {
    let zip = zip_with_member_of(1536);
    eprintln!("zip of {} MB for a 1.5 GiB member", zip.len() >> 20);
    let data = temp_dir("scale-zip");
    let budget = BUDGET_MB.to_string();
    let server = Server::start(&data, &["--memory-budget-mb", &budget]);
    let pid = server.child.id();
    let (s, b) = server.post("/api/traces?name=huge.etl.zip", &zip);
    assert_eq!(s, 201, "{b}");
    let id = serde_json::from_str::<Value>(&b).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    // Its member needs far more than the budget to read: refused, with the figures.
    let until = Instant::now() + Duration::from_secs(600);
    let entry = loop {
        let (_, list) = server.json("GET", "/api/traces", "");
        let e = list["traces"][0].clone();
        if e["status"] == "failed" || e["status"] == "ready" {
            break e;
        }
        assert!(Instant::now() < until, "{e}");
        std::thread::sleep(Duration::from_millis(100));
    };
    let peak = status_kib(pid, "VmHWM:") >> 10;
    eprintln!("peak RSS {peak} MiB under a budget of {BUDGET_MB} MiB; {entry}");
    assert_eq!(entry["status"], "failed", "{entry}");
    let msg = entry["error"].as_str().unwrap();
    assert!(msg.contains("memory budget of 512 MiB"), "{msg}");
    let (s, v) = server.json(
        "POST",
        &format!("/api/traces/{id}/table"),
        r#"{"columns": ["Process"]}"#,
    );
    assert_eq!(s, 422, "{v}");
    let (s, _) = server.json("GET", "/api/traces", "");
    assert_eq!(s, 200, "still serving");
    assert!(
        peak * 4 < BUDGET_MB * 5,
        "peak RSS {peak} MiB is over 1.25x the budget of {BUDGET_MB} MiB"
    );
    assert_eq!(
        std::fs::read_dir(data.join("tmp")).unwrap().count(),
        0,
        "scratch file left"
    );
    drop(server);
    std::fs::remove_dir_all(&data).ok();
}
