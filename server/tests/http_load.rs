//! A bounded load test: 32 concurrent clients issue 5,000 mixed queries
//! while 8 clients upload; every request must succeed. Prints p50/p99
//! latencies (recorded in docs/BENCHMARKS.md).

mod common;

use common::{real_traces_dir, request, temp_dir, Server};
use serde_json::Value;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

const CLIENTS: usize = 32;
const QUERIES: usize = 5_000;
const UPLOADS: usize = 8;

#[test]
fn mixed_queries_and_uploads_under_load() {
    let Some(dir) = real_traces_dir() else { return };
    let data = temp_dir("load");
    let server = Server::start(&data, &[]);
    let body = std::fs::read(dir.join("perfview-net452-x64.etl")).unwrap();
    let (s, b) = server.post("/api/traces?name=x64.etl", &body);
    assert_eq!(s, 201, "{b}");
    let id = serde_json::from_str::<Value>(&b).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    server.wait_ready(&id, 120);

    let queries: Vec<(&str, String)> = vec![
        (
            "table",
            r#"{"columns": ["Process", "Stack"], "limit": 50}"#.into(),
        ),
        (
            "table",
            r#"{"columns": ["Process", "Stack"], "path": ["Test.x64.exe (3676)"], "limit": 50}"#
                .into(),
        ),
        (
            "table",
            r#"{"columns": ["Module", "Function"], "range": {"start_s": 2, "end_s": 6}}"#.into(),
        ),
        (
            "table",
            r#"{"table": "images", "columns": ["File Version"]}"#.into(),
        ),
        ("flame", r#"{"min_fraction": 0.001}"#.into()),
        (
            "butterfly",
            r#"{"kind": "module", "target": "clr.dll"}"#.into(),
        ),
        ("timeline", r#"{"bins": 400}"#.into()),
    ];
    let queries = Arc::new(queries);
    let next = Arc::new(AtomicUsize::new(0));
    let errors = Arc::new(AtomicUsize::new(0));
    let addr = server.addr.clone();
    let started = Instant::now();
    let mut handles = Vec::new();
    for _ in 0..CLIENTS {
        let (q, next, errors, addr, id) = (
            queries.clone(),
            next.clone(),
            errors.clone(),
            addr.clone(),
            id.clone(),
        );
        handles.push(std::thread::spawn(move || {
            let mut lat = Vec::new();
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= QUERIES {
                    return lat;
                }
                let (kind, body) = &q[i % q.len()];
                let t = Instant::now();
                let (s, b) = request(
                    &addr,
                    "POST",
                    &format!("/api/traces/{id}/{kind}"),
                    body.as_bytes(),
                    &[],
                );
                lat.push(t.elapsed().as_secs_f64() * 1e3);
                if s != 200 {
                    eprintln!("{kind} {body}: {s} {b}");
                    errors.fetch_add(1, Ordering::Relaxed);
                }
            }
        }));
    }
    let mut uploads = Vec::new();
    for u in 0..UPLOADS {
        let (addr, errors) = (addr.clone(), errors.clone());
        // Distinct bytes per upload: a real trace plus a different tail.
        let mut bytes = std::fs::read(dir.join("shutdown-perfdiag-kernel.etl")).unwrap();
        bytes.extend(std::iter::repeat_n(u as u8 + 1, 16));
        uploads.push(std::thread::spawn(move || {
            let (s, b) = request(
                &addr,
                "POST",
                &format!("/api/traces?name=u{u}.etl"),
                &bytes,
                &[],
            );
            if s != 201 {
                eprintln!("upload {u}: {s} {b}");
                errors.fetch_add(1, Ordering::Relaxed);
            }
        }));
    }
    let mut lat: Vec<f64> = handles
        .into_iter()
        .flat_map(|h| h.join().unwrap())
        .collect();
    for u in uploads {
        u.join().unwrap();
    }
    let secs = started.elapsed().as_secs_f64();
    lat.sort_by(f64::total_cmp);
    let pct = |p: f64| lat[((lat.len() as f64 * p) as usize).min(lat.len() - 1)];
    println!(
        "load: {} queries + {UPLOADS} uploads from {CLIENTS} clients in {secs:.2} s ({:.0} queries/s): p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms, errors {}",
        lat.len(),
        lat.len() as f64 / secs,
        pct(0.50),
        pct(0.99),
        lat[lat.len() - 1],
        errors.load(Ordering::Relaxed)
    );
    assert_eq!(errors.load(Ordering::Relaxed), 0);
    assert_eq!(lat.len(), QUERIES);
    let (_, list) = server.json("GET", "/api/traces", "");
    assert_eq!(list["traces"].as_array().unwrap().len(), 1 + UPLOADS);
    std::fs::remove_dir_all(&data).ok();
}
