//! Issue 36, scale on one machine: three replicas behind nginx, each with
//! `--memory-budget-mb 100`, keep three traces loaded at once that one such
//! budget cannot: holding one (its `memory_bytes`) and reading another
//! (83 MiB) is more than 100 MiB, so one replica would drop a trace to read
//! the next. Every trace is served by the replica nginx routes it to, read
//! there once and never again over three rounds of queries (the replicas'
//! load counters, `loads` in GET /api/traces/{id}). The traces are uploaded through nginx
//! (all to the replica of this client's address) and are ready on the
//! replica each one's requests go to.
#![cfg(all(unix, feature = "team"))]

mod common;

use common::cluster::Nginx;
use common::team::Backends;
use common::{request, Server};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// Holds one of these traces and the reading of another, never two
/// loaded at once.
const BUDGET: [&str; 2] = ["--memory-budget-mb", "100"];

/// What reading one of these traces reserves: 64 MiB, and its samples and
/// the rest of the 24 MiB its buffers decompress to (the figure
/// http_memory.rs reads in the server's refusal).
const READ_MIB: u64 = 83;

/// The id the server gives these bytes (the first 16 bytes of their SHA-256).
fn id_of(bytes: &[u8]) -> String {
    Sha256::digest(bytes)[..16]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn port_of(s: &Server) -> u16 {
    s.addr
        .rsplit(':')
        .next()
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no port in {}", s.addr))
}

/// (reads that served it, held now, its model's bytes) on replica `r`.
fn loads(r: &Server, id: &str) -> (u64, bool, u64) {
    let (s, v) = r.json("GET", &format!("/api/traces/{id}"), "");
    assert_eq!(s, 200, "{v}");
    let n = v["loads"]
        .as_u64()
        .unwrap_or_else(|| panic!("no loads: {v}"));
    let bytes = v["summary"]["memory_bytes"].as_u64().unwrap_or(0);
    (n, v.get("summary").is_some(), bytes)
}

#[test]
fn three_replicas_keep_three_traces_that_one_budget_cannot_hold() {
    let Some(dir) = common::real_traces_dir() else {
        return;
    };
    let Some(b) = Backends::start("scale") else {
        return;
    };
    let base = std::fs::read(dir.join("perfview-net452-x64.etl")).unwrap();
    let variant = |k: u8| {
        let mut v = base.clone();
        v.extend(std::iter::repeat_n(k, 16));
        v
    };
    let replicas: Vec<Server> = (0..3).map(|_| b.replica(&BUDGET)).collect();
    let ports: Vec<u16> = replicas.iter().map(port_of).collect();
    let nginx = Nginx::start(&ports, &BUDGET, true);
    let addr = nginx.addr();

    // Three variants whose ids nginx routes to three different replicas
    // (asked before they exist: the 404 comes from the replica routed to).
    let mut chosen: Vec<(Vec<u8>, String, usize)> = Vec::new();
    for k in 1..=200u8 {
        let body = variant(k);
        let id = id_of(&body);
        let port = nginx.routed_port(&format!("/api/traces/{id}"));
        let owner = ports.iter().position(|p| *p == port).unwrap();
        if chosen.iter().all(|c| c.2 != owner) {
            chosen.push((body, id, owner));
        }
        if chosen.len() == 3 {
            break;
        }
    }
    assert_eq!(chosen.len(), 3, "no three ids on three replicas");

    // Uploaded through nginx (all three reach the replica of this client's
    // address), then ready where nginx routes each.
    let t0 = std::time::Instant::now();
    for (i, (body, id, _)) in chosen.iter().enumerate() {
        let (s, v) = request(
            &addr,
            "POST",
            &format!("/api/traces?name=v{i}.etl"),
            body,
            &[],
        );
        assert_eq!(s, 201, "{v}");
        let v: Value = serde_json::from_str(&v).unwrap();
        assert_eq!(v["id"].as_str(), Some(id.as_str()), "{v}");
    }
    // Read once where they were taken, to record that they are ready (the
    // list asks the catalog; it never starts a read).
    let until = std::time::Instant::now() + std::time::Duration::from_secs(120);
    loop {
        let (_, list) = request(&addr, "GET", "/api/traces", b"", &[]);
        let list: Value = serde_json::from_str(&list).unwrap();
        let ready = list["traces"]
            .as_array()
            .is_some_and(|t| t.len() == 3 && t.iter().all(|e| e["status"] == "ready"));
        if ready {
            break;
        }
        assert!(std::time::Instant::now() < until, "not ready: {list}");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    // Then opened: each loads on the replica nginx routes it to.
    let front = Server {
        child: std::process::Command::new("true").spawn().unwrap(),
        addr: addr.clone(),
        log: Default::default(),
        cluster: None,
    };
    for (_, id, _) in &chosen {
        front.wait_ready(id, 120);
    }
    // Queried in turn, three rounds: each answer from memory.
    let table = br#"{"columns": ["Process"]}"#;
    for _ in 0..3 {
        for (_, id, _) in &chosen {
            let (s, v) = request(
                &addr,
                "POST",
                &format!("/api/traces/{id}/table"),
                table,
                &[],
            );
            assert_eq!(s, 200, "{v}");
        }
    }
    let mut figures = Vec::new();
    let mut bytes = 0;
    for (_, id, owner) in &chosen {
        let (n, held, b) = loads(&replicas[*owner], id);
        bytes = bytes.max(b);
        figures.push(format!(
            "replica {owner}: {id} loaded {n}x, held {held}, {b} bytes"
        ));
        assert_eq!((n, held), (1, true), "{figures:?}");
    }
    eprintln!(
        "# 3 traces on 3 replicas (--memory-budget-mb 100 each), ready and queried 3 rounds in {:.1} s: {figures:?}; the largest {bytes} bytes",
        t0.elapsed().as_secs_f64()
    );
    // One replica could not hold one of them while reading another.
    assert!(bytes > 0, "{figures:?}");
    assert!(
        bytes + (READ_MIB << 20) > 100 << 20,
        "{bytes} bytes and a read fit in one budget"
    );
}
