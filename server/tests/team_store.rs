//! Trace bytes in a real S3-compatible server (s3s-fs) and the catalog in a
//! real PostgreSQL, both on loopback (issue 36 point 2): an upload goes to
//! the store in parts, any replica loads it from the store on a miss, the
//! local cache stays under --cache-gb, a delete removes the object, and a
//! stopped store gets uploads a 503 while loaded traces keep answering.
#![cfg(all(unix, feature = "team"))]

mod common;

use common::request;
use common::team::Backends;
use serde_json::Value;
use std::time::{Duration, Instant};

/// A zip (stored, so its size is what is sent) whose one member `name` is
/// the fixture trace followed by `mib` MiB of pseudo-random bytes, which
/// the reader skips as trailing bytes.
fn zip_with_padded_member(name: &str, mib: usize, _level: i64) -> Vec<u8> {
    use std::io::Write;
    let (trace, _) = common::fixture_trace::write();
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut out = std::io::Cursor::new(Vec::new());
    let mut z = zip::ZipWriter::new(&mut out);
    let opts = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Stored)
        .large_file(true);
    z.start_file(name, opts).unwrap();
    z.write_all(&trace).unwrap();
    let mut block = vec![0u8; 1 << 20];
    for _ in 0..mib {
        for b in block.chunks_mut(8) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            b.copy_from_slice(&x.to_le_bytes()[..b.len()]);
        }
        z.write_all(&block).unwrap();
    }
    z.finish().unwrap();
    out.into_inner()
}

fn upload(r: &common::Server, name: &str, body: &[u8]) -> (u16, Value) {
    let (s, b) = r.post(&format!("/api/traces?name={name}"), body);
    let v = serde_json::from_str(&b).unwrap_or_else(|e| panic!("{e}: {b}"));
    (s, v)
}

fn processes(r: &common::Server, id: &str) -> Value {
    let (s, v) = r.json(
        "POST",
        &format!("/api/traces/{id}/table"),
        r#"{"columns": ["Process"], "limit": 1000}"#,
    );
    assert_eq!(s, 200, "{v}");
    v["rows"].clone()
}

fn dir_bytes(dir: &std::path::Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|d| {
            d.flatten()
                .filter_map(|e| e.metadata().ok())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0)
}

/// A 20 MiB upload (three 8 MiB parts) through replica A lands in the
/// bucket whole under its id; replica B, with an empty cache, loads it from
/// the store and answers the same numbers.
#[test]
fn an_upload_goes_to_the_store_and_any_replica_loads_it() {
    let Some(b) = Backends::start("store") else {
        return;
    };
    let a = b.replica(&[]);
    let body = zip_with_padded_member("big.etl", 20, 0);
    assert!(
        body.len() > 16 << 20,
        "{} bytes: more than two parts",
        body.len()
    );
    let (s, v) = upload(&a, "big.etl.zip", &body);
    assert_eq!(s, 201, "{v}");
    let id = v["id"].as_str().unwrap().to_string();
    let objects = b.s3.objects(&b.prefix);
    assert_eq!(
        objects,
        vec![(format!("{id}.etl.zip"), body.len() as u64)],
        "one object, whole, named by the id"
    );
    a.wait_ready(&id, 60);
    let want = processes(&a, &id);

    let replica_b = b.replica(&[]);
    replica_b.wait_ready(&id, 60);
    assert_eq!(processes(&replica_b, &id), want);
    // The same bytes again, through B: the existing entry, no second object.
    let (s, _) = upload(&replica_b, "again.etl.zip", &body);
    assert_eq!(s, 200);
    assert_eq!(b.s3.objects(&b.prefix).len(), 1);

    // Deleted through B: gone from the catalog and the bucket.
    let (s, _) = request(
        &replica_b.addr,
        "DELETE",
        &format!("/api/traces/{id}"),
        &[],
        &[],
    );
    assert_eq!(s, 204);
    assert_eq!(b.s3.objects(&b.prefix), vec![]);
    let (s, _) = a.get(&format!("/api/traces/{id}"));
    assert_ne!(s, 200, "the other replica no longer lists it");
}

/// Three 12 MiB traces through one replica whose cache holds 30 MiB: the
/// cache never holds more, and an evicted trace is fetched again on use.
#[test]
fn the_cache_stays_under_cache_gb() {
    let Some(b) = Backends::start("cache") else {
        return;
    };
    let cache = common::temp_dir("etlscope-cache");
    let cache_arg = cache.to_string_lossy().into_owned();
    // 30 MiB, in GiB.
    let r = b.replica(&["--cache-dir", &cache_arg, "--cache-gb", "0.0293"]);
    let mut ids = Vec::new();
    for i in 0..3 {
        let body = zip_with_padded_member(&format!("t{i}.etl"), 12, 0);
        let (s, v) = upload(&r, &format!("t{i}.etl.zip"), &body);
        assert_eq!(s, 201, "{v}");
        ids.push(v["id"].as_str().unwrap().to_string());
        assert!(
            dir_bytes(&cache) <= 30 << 20,
            "cache holds {} bytes",
            dir_bytes(&cache)
        );
    }
    for id in &ids {
        r.wait_ready(id, 60);
    }
    assert_eq!(b.s3.objects(&b.prefix).len(), 3);
    let cached = std::fs::read_dir(&cache).unwrap().count();
    assert_eq!(cached, 2, "the least recently used file left the cache");
    // A new replica on the same cache folder fetches the evicted one.
    drop(r);
    let r = b.replica(&["--cache-dir", &cache_arg, "--cache-gb", "0.0293"]);
    let first = &ids[0];
    r.wait_ready(first, 60);
    assert!(dir_bytes(&cache) <= 30 << 20);
    assert!(cache.join(format!("{first}.etl.zip")).is_file());
    drop(r);
    std::fs::remove_dir_all(&cache).ok();
}

/// The store stopped: an upload gets 503 with Retry-After, a loaded trace
/// keeps answering, nothing is marked failed; back, the upload succeeds.
#[test]
fn a_stopped_store_refuses_uploads_with_503_and_heals() {
    let Some(mut b) = Backends::start("s3stop") else {
        return;
    };
    let r = b.replica(&[]);
    let body = zip_with_padded_member("one.etl", 1, 0);
    let (s, v) = upload(&r, "one.etl.zip", &body);
    assert_eq!(s, 201, "{v}");
    let id = v["id"].as_str().unwrap().to_string();
    r.wait_ready(&id, 60);
    let want = processes(&r, &id);

    b.s3.stop();
    let other = zip_with_padded_member("two.etl", 2, 0);
    let started = Instant::now();
    let text = common::exchange(
        &r.addr,
        &common::head(
            &r.addr,
            "POST",
            "/api/traces?name=two.etl.zip",
            other.len(),
            &[("X-Etlscope", "1")],
        ),
        &other,
    );
    let (s, body_text) = common::parse_response(&text);
    assert_eq!(s, 503, "{body_text}");
    assert!(
        text.to_ascii_lowercase().contains("retry-after: "),
        "{}",
        &text[..text.len().min(400)]
    );
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(processes(&r, &id), want, "the loaded trace keeps answering");
    let (_, list) = r.json("GET", "/api/traces", "");
    for t in list["traces"].as_array().unwrap() {
        assert_ne!(t["status"], "failed", "{t}");
    }

    b.s3.resume();
    let (s, v) = upload(&r, "two.etl.zip", &other);
    assert_eq!(s, 201, "{v}");
    r.wait_ready(v["id"].as_str().unwrap(), 60);
}
