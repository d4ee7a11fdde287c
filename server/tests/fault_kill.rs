//! Issue 12 acceptance: the server is killed (SIGKILL) at random points of
//! upload, ingest and delete (fixed seed, 24 kills) and restarted on the
//! same data dir each time. Afterwards: every upload the server confirmed
//! is listed and answers the same numbers as before; every confirmed delete
//! stays deleted; a request cut by the kill either happened or did not,
//! never half (a listed trace becomes ready, an unlisted one has no file);
//! no file in `traces/` lacks a row and `tmp/` is empty.

mod common;

use common::{fixture_trace, head, temp_dir, Server};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

const KILLS: usize = 24;
const SEED: u64 = 0x5eed_0012;

/// xorshift64*: the same kill points on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A request that may be cut by the kill: None when no full answer came.
fn try_request(addr: &str, method: &str, path: &str, body: &[u8]) -> Option<(u16, String)> {
    let mut s = TcpStream::connect(addr).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(60))).ok();
    s.write_all(head(addr, method, path, body.len(), &[("X-Etlscope", "1")]).as_bytes())
        .ok()?;
    s.write_all(body).ok()?;
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    let text = String::from_utf8_lossy(&raw).into_owned();
    let status = text.split(' ').nth(1)?.parse().ok()?;
    let (_, body) = text.split_once("\r\n\r\n")?;
    Some((status, body.to_string()))
}

/// The id the server gives these bytes: the first 128 bits of their SHA-256.
fn id_of(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)[..16]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Distinct traces: small fixture variants and larger benchmark ones (whose
/// ingest takes long enough to be killed in the middle).
fn bodies() -> Vec<Vec<u8>> {
    let (small, _) = fixture_trace::write();
    let mut out = Vec::new();
    for i in 0..6u8 {
        let mut b = small.clone();
        b.extend(std::iter::repeat_n(i + 1, 16));
        out.push(b);
    }
    for seed in 1..=3u64 {
        let params = synth::BenchParams {
            seed,
            samples: 100_000,
            ..synth::BenchParams::default()
        };
        let (c, _) = synth::write_bench(std::io::Cursor::new(Vec::new()), &params).unwrap();
        out.push(c.into_inner());
    }
    out
}

fn numbers(server: &Server, id: &str) -> Value {
    let (s, v) = server.json(
        "POST",
        &format!("/api/traces/{id}/table"),
        r#"{"columns": ["Process"], "limit": 100000}"#,
    );
    assert_eq!(s, 200, "{id}: {v}");
    v["rows"].clone()
}

struct Book {
    /// Confirmed uploads (201/200) not deleted since: id -> body index.
    confirmed: BTreeMap<String, usize>,
    /// Confirmed deletes.
    deleted: BTreeSet<String>,
    /// Each trace's numbers the first time they were seen.
    numbers: BTreeMap<String, Value>,
}

/// The invariants after a restart; returns the ids listed.
fn check(server: &Server, data: &std::path::Path, book: &mut Book, full: bool) -> BTreeSet<String> {
    let (s, list) = server.json("GET", "/api/traces", "");
    assert_eq!(s, 200, "{list}");
    let listed: BTreeSet<String> = list["traces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_str().unwrap().to_string())
        .collect();
    for id in book.confirmed.keys() {
        assert!(listed.contains(id), "confirmed upload {id} lost: {list}");
    }
    for id in &book.deleted {
        assert!(
            !listed.contains(id),
            "confirmed delete {id} came back: {list}"
        );
    }
    for id in &listed {
        // Listed means whole: it becomes ready and answers as before (every
        // round for new traces, at the end for all: ingests cost time).
        if !full && book.numbers.contains_key(id) {
            continue;
        }
        server.wait_ready(id, 120);
        let got = numbers(server, id);
        let want = book
            .numbers
            .entry(id.clone())
            .or_insert_with(|| got.clone());
        assert_eq!(&got, want, "{id} answers differently after a restart");
    }
    let stored: BTreeSet<String> = std::fs::read_dir(data.join("traces"))
        .unwrap()
        .flatten()
        .map(|f| {
            let n = f.file_name().to_string_lossy().into_owned();
            n.split('.').next().unwrap_or_default().to_string()
        })
        .collect();
    assert_eq!(stored, listed, "files in traces/ and listed traces differ");
    assert_eq!(
        std::fs::read_dir(data.join("tmp")).unwrap().count(),
        0,
        "tmp/ not emptied"
    );
    listed
}

#[test]
fn sigkill_during_upload_ingest_and_delete_loses_nothing() {
    let data = temp_dir("fault");
    let bodies = bodies();
    let ids: Vec<String> = bodies.iter().map(|b| id_of(b)).collect();
    let mut rng = Rng(SEED);
    let mut book = Book {
        confirmed: BTreeMap::new(),
        deleted: BTreeSet::new(),
        numbers: BTreeMap::new(),
    };
    let mut kinds = BTreeMap::new();
    for round in 0..KILLS {
        let server = Server::start(&data, &[]);
        let listed = check(&server, &data, &mut book, round % 8 == 7);
        let addr = server.addr.clone();
        // Delete what is listed, or upload what is not; kill after a random delay.
        let kind = match rng.below(3) {
            0 if !listed.is_empty() => "delete",
            1 => "ingest",
            _ => "upload",
        };
        *kinds.entry(kind).or_insert(0) += 1;
        // Kill points: inside the upload's body, rename and insert; inside the
        // delete; at a random point of an ingest that starts after a confirmed upload.
        let delay = Duration::from_millis(match kind {
            "upload" => rng.below(30),
            "delete" => rng.below(4),
            _ => rng.below(600),
        });
        let (method, path, body, id) = if kind == "delete" {
            let pick = rng.below(listed.len() as u64) as usize;
            let id = listed.iter().nth(pick).unwrap().clone();
            ("DELETE", format!("/api/traces/{id}"), Vec::new(), id)
        } else {
            // "ingest": a large trace, killed while it is read.
            let i = if kind == "ingest" {
                6 + rng.below(3) as usize
            } else {
                rng.below(6) as usize
            };
            (
                "POST",
                format!("/api/traces?name=r{round}.etl"),
                bodies[i].clone(),
                ids[i].clone(),
            )
        };
        let worker = std::thread::spawn(move || try_request(&addr, method, &path, &body));
        let worker = if kind == "ingest" {
            let answer = worker.join().unwrap();
            std::thread::spawn(move || answer)
        } else {
            worker
        };
        std::thread::sleep(delay);
        drop(server); // SIGKILL
        let answer = worker.join().unwrap();
        eprintln!(
            "round {round}: {kind} {id}: {:?} after {delay:?}",
            answer.as_ref().map(|a| a.0)
        );
        match (method, answer) {
            ("POST", Some((201 | 200, _))) => {
                book.confirmed.insert(id.clone(), 0);
                book.deleted.remove(&id);
            }
            ("DELETE", Some((204, _))) => {
                book.confirmed.remove(&id);
                book.deleted.insert(id);
            }
            // Cut: may have happened or not. It must not stay in a book it left.
            (_, None) => {
                book.confirmed.remove(&id);
                book.deleted.remove(&id);
            }
            (m, Some((s, b))) => panic!("{m} {id}: {s} {b}"),
        }
    }
    let server = Server::start(&data, &[]);
    check(&server, &data, &mut book, true);
    eprintln!("kills by kind: {kinds:?}");
    assert!(kinds.len() == 3, "every kind of kill happened: {kinds:?}");
    drop(server);
    std::fs::remove_dir_all(&data).ok();
}
