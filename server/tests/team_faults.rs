//! Faults of a team server, with a fixed seed (issue 36, acceptance): 24
//! kill -9 of replicas during uploads, ingests and queries lose no trace and
//! leave none half-visible, and no orphan object once swept; PostgreSQL
//! restarted (stopped while an upload's body is half sent, then started):
//! that upload and the requests in the window get 503 with Retry-After,
//! nothing is lost or half visible, and the replica reconnects by itself.
#![cfg(all(unix, feature = "team"))]

mod common;

use common::team::Backends;
use common::{fixture_trace, Server};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::time::{Duration, Instant};

const SEED: u64 = 0x3636_3636_dead_beef;
const ROUNDS: usize = 24;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// One request that tolerates the server dying under it: None then.
fn try_request(addr: &str, method: &str, path: &str, body: &[u8]) -> Option<(u16, String, String)> {
    let mut s = std::net::TcpStream::connect(addr).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(60))).ok();
    let head = common::head(addr, method, path, body.len(), &[("X-Etlscope", "1")]);
    s.write_all(head.as_bytes()).ok()?;
    let _ = s.write_all(body);
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    let text = String::from_utf8_lossy(&raw).into_owned();
    let status = text.split(' ').nth(1)?.parse().ok()?;
    let (h, b) = text.split_once("\r\n\r\n")?;
    Some((status, h.to_string(), b.to_string()))
}

fn id_of(bytes: &[u8]) -> String {
    Sha256::digest(bytes)[..16]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The fixture trace followed by `n` seeded bytes (skipped by the reader):
/// a distinct trace of the same content.
fn body(rng: &mut Rng, trace: &[u8]) -> Vec<u8> {
    let n = 64 * 1024 + rng.below(512 * 1024) as usize;
    let mut b = trace.to_vec();
    b.extend((0..n).map(|_| rng.next() as u8));
    b
}

/// Waits (20 s at most) until the store holds exactly the objects of the
/// traces `listed`: a replica started with no grace period removes the
/// objects no catalog row names.
fn swept_to(b: &Backends, listed: &[String]) {
    let sweeper = b.replica_env(&[], &[("ETLSCOPE_ORPHAN_GRACE_SECS", "0")]);
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut rows: Vec<String> = listed.iter().map(|id| format!("{id}.etl")).collect();
    rows.sort();
    loop {
        let objects: Vec<String> =
            b.s3.objects(&b.prefix)
                .into_iter()
                .map(|(n, _)| n)
                .collect();
        if objects == rows {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "objects {objects:?} != rows {rows:?}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    drop(sweeper);
}

fn processes(r: &Server, id: &str) -> Value {
    let (s, v) = r.json(
        "POST",
        &format!("/api/traces/{id}/table"),
        r#"{"columns": ["Process"], "limit": 1000}"#,
    );
    assert_eq!(s, 200, "{v}");
    v["rows"].clone()
}

#[test]
fn kill_9_of_replicas_during_upload_ingest_and_query_loses_nothing() {
    let Some(b) = Backends::start("faults") else {
        return;
    };
    let mut replicas: Vec<Server> = (0..3).map(|_| b.replica(&[])).collect();
    let mut rng = Rng(SEED);
    let (trace, _) = fixture_trace::write();
    // id -> the answer to its upload (None: the replica died first).
    let mut uploads: BTreeMap<String, Option<u16>> = BTreeMap::new();
    let mut kills = 0;
    for round in 0..ROUNDS {
        let target = rng.below(3) as usize;
        let victim = rng.below(3) as usize;
        let delay = Duration::from_millis(rng.below(60));
        let addr = replicas[target].addr.clone();
        let (method, path, payload, id) = match round % 3 {
            // An upload.
            0 => {
                let bytes = body(&mut rng, &trace);
                let id = id_of(&bytes);
                (
                    "POST",
                    "/api/traces?name=f.etl".to_string(),
                    bytes,
                    Some(id),
                )
            }
            // An ingest (a replica's first query of a trace) or a query.
            _ => {
                let known: Vec<&String> = uploads.keys().collect();
                let Some(id) = known.get(rng.below(known.len().max(1) as u64) as usize) else {
                    continue;
                };
                let q = br#"{"columns": ["Process"]}"#.to_vec();
                ("POST", format!("/api/traces/{id}/table"), q, None)
            }
        };
        let worker = std::thread::spawn(move || try_request(&addr, method, &path, &payload));
        std::thread::sleep(delay);
        let _ = replicas[victim].child.kill();
        let _ = replicas[victim].child.wait();
        kills += 1;
        let answer = worker.join().unwrap();
        if let Some(id) = id {
            let status = answer.map(|(s, _, _)| s);
            assert!(
                matches!(status, None | Some(200 | 201)),
                "round {round}: upload answered {status:?}"
            );
            uploads.insert(id, status);
        }
        replicas[victim] = b.replica(&[]);
    }
    assert!(kills >= 20, "{kills} kills");
    eprintln!("faults: {kills} kills, uploads {uploads:?}");

    // Every trace listed is whole and ready on every replica, with the same
    // numbers; every upload that was answered is listed.
    let (_, list) = replicas[0].json("GET", "/api/traces", "");
    let listed: Vec<String> = list["traces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap().to_string())
        .collect();
    for (id, status) in &uploads {
        if status.is_some() {
            assert!(listed.contains(id), "answered upload {id} is lost");
        }
    }
    for id in &listed {
        let want = {
            replicas[0].wait_ready(id, 60);
            processes(&replicas[0], id)
        };
        for r in &replicas[1..] {
            r.wait_ready(id, 60);
            assert_eq!(processes(r, id), want, "{id} differs between replicas");
        }
    }
    // No orphan object once swept (an upload killed between the two).
    swept_to(&b, &listed);
}

#[test]
fn a_postgres_restart_is_503_with_retry_after_then_heals_by_itself() {
    let Some(b) = Backends::start("pgrestart") else {
        return;
    };
    let r = b.replica(&[]);
    let (trace, _) = fixture_trace::write();
    let (s, v) = r.post("/api/traces?name=a.etl", &trace);
    assert_eq!(s, 201, "{v}");
    let id = serde_json::from_str::<Value>(&v).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    r.wait_ready(&id, 60);
    let want = processes(&r, &id);

    // An upload under way when PostgreSQL stops: half its body sent, then
    // the stop, then the rest.
    let mut cut = trace.clone();
    cut.extend_from_slice(&[9; 256 * 1024]);
    let mut upload = std::net::TcpStream::connect(&r.addr).unwrap();
    upload
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    let head = common::head(
        &r.addr,
        "POST",
        "/api/traces?name=cut.etl",
        cut.len(),
        &[("X-Etlscope", "1")],
    );
    upload.write_all(head.as_bytes()).unwrap();
    let half = cut.len() / 2;
    upload.write_all(&cut[..half]).unwrap();
    upload.flush().unwrap();
    std::thread::sleep(Duration::from_millis(300));

    b.pg.ctl_stop();
    // ... its answer, once the rest is sent: 503 with Retry-After.
    let _ = upload.write_all(&cut[half..]);
    let mut raw = Vec::new();
    let _ = upload.read_to_end(&mut raw);
    let answer = String::from_utf8_lossy(&raw);
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    assert!(
        answer.to_ascii_lowercase().contains("retry-after: "),
        "{answer}"
    );
    let mut other = trace.clone();
    other.extend_from_slice(&[7; 4096]);
    for (method, path, body) in [
        ("POST", "/api/traces?name=b.etl", other.as_slice()),
        ("GET", "/api/traces", &[][..]),
        ("GET", &format!("/api/traces/{id}") as &str, &[][..]),
    ] {
        let (s, head, body_text) = try_request(&r.addr, method, path, body).expect("an answer");
        assert_eq!(s, 503, "{method} {path}: {body_text}");
        assert!(
            head.to_ascii_lowercase().contains("retry-after: "),
            "{method} {path}: {head}"
        );
    }
    b.pg.ctl_start();
    // Back: the same replica reconnects by itself; nothing was lost.
    let (s, v) = r.post("/api/traces?name=b.etl", &other);
    assert_eq!(s, 201, "{v}");
    let (_, list) = r.json("GET", "/api/traces", "");
    assert_eq!(list["traces"].as_array().unwrap().len(), 2, "{list}");
    assert_eq!(processes(&r, &id), want);
    // The upload cut by the stop is not half visible: not listed, no API,
    // and its bytes (if they reached the store) are swept as an orphan.
    let cut_id = id_of(&cut);
    assert!(!list.to_string().contains(&cut_id), "{list}");
    let (s, _) = r.get(&format!("/api/traces/{cut_id}"));
    assert_eq!(s, 404);
    let listed: Vec<String> = list["traces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap().to_string())
        .collect();
    swept_to(&b, &listed);
    eprintln!(
        "PostgreSQL stopped mid-upload: {}",
        answer.lines().next().unwrap_or("")
    );
}
