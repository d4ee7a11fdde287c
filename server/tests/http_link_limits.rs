//! Issue 31, points 1 and 6: short links cannot fill the disk. On a token
//! server creating one needs the token; every client is rate-limited
//! (`--links-per-minute`, 429 with `Retry-After`); the store is capped
//! (`--max-links`, `--max-links-mb`, 507) and each target too
//! (`--max-link-bytes`); targets name views of this app, never API paths,
//! whatever their percent-escapes say.

mod common;

use common::{request, temp_dir, Server};
use serde_json::Value;
use std::path::Path;
use std::time::Instant;

const TOKEN: &str = "links-t0k";
const TRACE: &str = "0123456789abcdef0123456789abcdef";

/// catalog.sqlite and its write-ahead log, in bytes.
fn catalog_bytes(data: &Path) -> u64 {
    ["catalog.sqlite", WAL]
        .iter()
        .map(|f| file_bytes(data, f))
        .sum()
}

const WAL: &str = "catalog.sqlite-wal";

fn file_bytes(data: &Path, name: &str) -> u64 {
    std::fs::metadata(data.join(name)).map_or(0, |m| m.len())
}

/// SQLite's write-ahead log is checkpointed into catalog.sqlite every 1,000
/// pages (4 MiB) and then reused, not shrunk: it adds up to that (and a
/// transaction's pages) on top of what the links hold.
const WAL_BOUND: u64 = 5 * 1024 * 1024;

/// A distinct view target of `len` bytes (the `n` keeps them apart).
fn target(n: usize, len: usize) -> String {
    let head = format!("/t/{TRACE}?v=2&view=table&t=cpu-sampled&n={n}&o=");
    format!("{head}{}", "a".repeat(len.saturating_sub(head.len())))
}

struct Answer {
    status: u16,
    head: String,
    body: Value,
}

fn post_link(s: &Server, target: &str, headers: &[(&str, &str)]) -> Answer {
    let body = serde_json::json!({ "target": target }).to_string();
    let mut all = vec![("X-Etlscope", "1")];
    all.extend_from_slice(headers);
    let text = common::exchange(
        &s.addr,
        &common::head(&s.addr, "POST", "/api/links", body.len(), &all),
        body.as_bytes(),
    );
    let head = text
        .split_once("\r\n\r\n")
        .map_or(text.as_str(), |(h, _)| h)
        .to_ascii_lowercase();
    let (status, b) = common::parse_response(&text);
    let body = serde_json::from_str(&b).unwrap_or(Value::Null);
    Answer { status, head, body }
}

fn bearer() -> String {
    format!("Bearer {TOKEN}")
}

/// How many answers had each status, e.g. "200 x 60, 429 x 240".
fn tally(statuses: &[u16]) -> String {
    let mut m = std::collections::BTreeMap::new();
    for s in statuses {
        *m.entry(*s).or_insert(0) += 1;
    }
    m.iter()
        .map(|(s, n)| format!("{s} x {n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[test]
fn anonymous_links_are_refused_on_a_token_server() {
    let data = temp_dir("links-anon");
    let s = Server::start(&data, &["--token", TOKEN]);
    let before = catalog_bytes(&data);
    let t0 = Instant::now();
    let statuses: Vec<u16> = (0..300)
        .map(|i| {
            let a = post_link(&s, &target(i, 60_000), &[]);
            if a.status == 401 {
                assert_eq!(a.body["error"]["code"], "unauthorized", "{}", a.body);
            }
            a.status
        })
        .collect();
    let grew = catalog_bytes(&data).saturating_sub(before);
    eprintln!(
        "# 300 anonymous POST /api/links of 60,000-byte targets on a --token server: {} in {:.1} s; catalog grew {grew} bytes",
        tally(&statuses),
        t0.elapsed().as_secs_f64()
    );
    assert!(statuses.iter().all(|&st| st == 401), "{}", tally(&statuses));
    assert!(grew < 64 * 1024, "catalog grew {grew} bytes");
    // With the token (either header) a link is made, and the UI's reads still work.
    let a = post_link(&s, &target(0, 100), &[("Authorization", &bearer())]);
    assert_eq!(a.status, 200, "{}", a.body);
    let b = post_link(&s, &target(0, 100), &[("X-Etlscope-Token", TOKEN)]);
    assert_eq!(b.status, 200, "{}", b.body);
    assert_eq!(a.body["id"], b.body["id"], "identical targets share one id");
    let (st, v) = s.json(
        "GET",
        &format!("/api/links/{}", a.body["id"].as_str().unwrap()),
        "",
    );
    assert_eq!(st, 200, "reads stay open without --private-reads: {v}");
    drop(s);
    std::fs::remove_dir_all(&data).ok();
}

#[test]
fn a_link_flood_with_the_token_is_rate_limited_and_its_growth_bounded() {
    let data = temp_dir("links-rate");
    // The defaults: 60 links a minute per client, targets up to 65,534 bytes.
    let s = Server::start(&data, &["--token", TOKEN]);
    let before = file_bytes(&data, "catalog.sqlite");
    let t0 = Instant::now();
    let mut statuses = Vec::new();
    for i in 0..300 {
        let a = post_link(&s, &target(i, 60_000), &[("Authorization", &bearer())]);
        if a.status == 429 {
            assert_eq!(a.body["error"]["code"], "rate_limited", "{}", a.body);
            let retry: u64 = a
                .head
                .lines()
                .find_map(|l| l.strip_prefix("retry-after: "))
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or_else(|| panic!("429 without Retry-After: {}", a.head));
            assert!((1..=60).contains(&retry), "Retry-After {retry}");
        }
        statuses.push(a.status);
    }
    let secs = t0.elapsed().as_secs_f64();
    let grew = file_bytes(&data, "catalog.sqlite").saturating_sub(before);
    let wal = file_bytes(&data, WAL);
    let kept = statuses.iter().filter(|&&st| st == 200).count();
    eprintln!(
        "# 300 authorized POST /api/links of distinct 60,000-byte targets: {} in {secs:.1} s; catalog.sqlite grew {grew} bytes ({:.1} MB), its WAL is {wal} bytes",
        tally(&statuses),
        grew as f64 / 1e6
    );
    // A burst of 60, then one a second.
    assert!(
        (60..=61 + secs as usize).contains(&kept),
        "{}",
        tally(&statuses)
    );
    assert!(
        statuses.iter().all(|&st| st == 200 || st == 429),
        "{}",
        tally(&statuses)
    );
    // Bounded by what was kept (each at most 65,534 bytes) plus SQLite's pages.
    let bound = kept as u64 * 65_534 + 1024 * 1024;
    assert!(
        grew <= bound,
        "catalog.sqlite grew {grew} bytes, bound {bound}"
    );
    assert!(wal <= WAL_BOUND, "WAL {wal} bytes");
    // A target over --max-link-bytes is refused as such.
    let a = post_link(&s, &target(999, 70_000), &[("Authorization", &bearer())]);
    assert_eq!(a.status, 400, "{}", a.body);
    drop(s);
    std::fs::remove_dir_all(&data).ok();
}

#[test]
fn the_link_store_is_capped_in_bytes_and_in_count() {
    let data = temp_dir("links-cap");
    let s = Server::start(
        &data,
        &[
            "--token",
            TOKEN,
            "--max-links-mb",
            "1",
            "--links-per-minute",
            "1000",
        ],
    );
    let before = catalog_bytes(&data);
    let auth = bearer();
    let mut statuses = Vec::new();
    let mut first_id = None;
    for i in 0..60 {
        let a = post_link(&s, &target(i, 60_000), &[("Authorization", &auth)]);
        if a.status == 507 {
            assert_eq!(a.body["error"]["code"], "links_full", "{}", a.body);
        }
        if i == 0 {
            first_id = a.body["id"].as_str().map(str::to_string);
        }
        statuses.push(a.status);
    }
    let grew = catalog_bytes(&data).saturating_sub(before);
    eprintln!(
        "# --max-links-mb 1, 60 authorized POST /api/links of distinct 60,000-byte targets: {}; catalog.sqlite and its WAL grew {grew} bytes",
        tally(&statuses)
    );
    // 17 targets of 60,000 bytes fit in 1 MiB, the 18th does not.
    assert_eq!(
        statuses.iter().filter(|&&st| st == 200).count(),
        17,
        "{}",
        tally(&statuses)
    );
    assert_eq!(
        statuses.iter().filter(|&&st| st == 507).count(),
        43,
        "{}",
        tally(&statuses)
    );
    assert!(
        grew <= 2 * 1024 * 1024 + WAL_BOUND,
        "catalog and WAL grew {grew} bytes"
    );
    // A full store still answers a target it keeps: same id, no new bytes.
    let a = post_link(&s, &target(0, 60_000), &[("Authorization", &auth)]);
    assert_eq!(a.status, 200, "{}", a.body);
    assert_eq!(a.body["id"].as_str(), first_id.as_deref());
    drop(s);
    std::fs::remove_dir_all(&data).ok();

    // The count cap, kept across a restart (the usage is read from the catalog).
    let data = temp_dir("links-count");
    let args = ["--max-links", "5", "--links-per-minute", "1000"];
    let s = Server::start(&data, &args);
    let statuses: Vec<u16> = (0..8)
        .map(|i| post_link(&s, &target(i, 100), &[]).status)
        .collect();
    assert_eq!(statuses, [200, 200, 200, 200, 200, 507, 507, 507]);
    drop(s);
    let s = Server::start(&data, &args);
    assert_eq!(post_link(&s, &target(100, 100), &[]).status, 507);
    assert_eq!(post_link(&s, &target(4, 100), &[]).status, 200);
    drop(s);
    std::fs::remove_dir_all(&data).ok();
}

#[test]
fn link_targets_name_views_never_api_paths() {
    let data = temp_dir("links-views");
    let s = Server::start(&data, &[]);
    let other = "fedcba9876543210fedcba9876543210";
    for bad in [
        "/t/%2e%2e/%2e%2e/api/traces",
        "/t/%2E%2E%2F%2E%2E%2Fapi%2Ftraces",
        "/t/.%2e/api/traces",
        "/t/%2e/api",
        &format!("/t/{TRACE}/../../api/traces"),
        &format!("/t/{TRACE}%2f..%2f..%2fapi%2ftraces"),
        &format!("/compare/{TRACE}/%2e%2e?t=images"),
        &format!("/compare/%2e%2e/%2e%2e/api/traces/{TRACE}"),
        "/api/traces",
        "/v/0123456789abcdef",
        "/",
        "/index.html",
        &format!("/t/{TRACE}/extra"),
        "/t/not-an-id?v=2",
        &format!("/t/{TRACE}%00?v=2"),
        &format!("/t/{TRACE}?v=2#frag"),
    ] {
        let body = serde_json::json!({ "target": bad }).to_string();
        let (st, v) = request(&s.addr, "POST", "/api/links", body.as_bytes(), &[]);
        assert_eq!(st, 400, "{bad} accepted: {v}");
        let v: Value = serde_json::from_str(&v).unwrap();
        assert_eq!(v["error"]["code"], "bad_request", "{bad}: {v}");
    }
    for good in [
        format!("/t/{TRACE}"),
        format!("/t/{TRACE}?v=2&view=table&t=cpu-sampled&o=pid:4%401/fn:a.dll%2B1f"),
        "/t/%30123456789abcdef0123456789abcdef?v=2".to_string(),
        format!("/compare/{TRACE}/{other}?t=images&view=table"),
    ] {
        let body = serde_json::json!({ "target": good }).to_string();
        let (st, v) = request(&s.addr, "POST", "/api/links", body.as_bytes(), &[]);
        assert_eq!(st, 200, "{good} refused: {v}");
    }
    drop(s);
    std::fs::remove_dir_all(&data).ok();
}
