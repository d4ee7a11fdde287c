//! Issue 31, point 2: slow clients must not starve everyone. One address
//! holds 600 connections that each sent half a request head and stalled
//! (reopening any the server closes) while a normal client on the same
//! address makes one complete request after another on fresh connections:
//! every request is answered, with p95 under a second. Loopback only, so
//! the attacker and the normal client share 127.0.0.1 (the hard case: no
//! per-address budget can tell them apart).

mod common;

use common::{head, temp_dir, Server};
use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const STALLED: usize = 600;
/// How long the attack lasts; the normal client runs inside it.
const ATTACK: Duration = Duration::from_secs(12);
/// A request not answered within this counts as unanswered.
const REQUEST_LIMIT: Duration = Duration::from_secs(5);
/// At most this many normal requests (they are sequential, and take
/// milliseconds when served).
const MAX_REQUESTS: usize = 2000;

/// Half a request head: the blank line never comes.
const PARTIAL: &[u8] = b"GET /api/traces HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ";

/// One stalled connection, or `None` until it could be opened.
fn open_stalled(addr: &SocketAddr) -> Option<TcpStream> {
    let mut s = TcpStream::connect_timeout(addr, Duration::from_millis(200)).ok()?;
    s.write_all(PARTIAL).ok()?;
    s.set_nonblocking(true).ok()?;
    Some(s)
}

/// Whether the server closed `s` (or reset it).
fn closed(s: &mut TcpStream) -> bool {
    let mut buf = [0u8; 512];
    match s.read(&mut buf) {
        Ok(0) => true,
        Ok(_) => false,
        Err(e) => e.kind() != ErrorKind::WouldBlock,
    }
}

/// Holds `STALLED` half-sent heads until `stop`, reopening closed ones;
/// returns how many times it (re)opened one.
fn attack(addr: SocketAddr, stop: Arc<AtomicBool>, opened: Arc<AtomicU64>) {
    let mut socks: Vec<Option<TcpStream>> = (0..STALLED).map(|_| None).collect();
    let until = Instant::now() + ATTACK + Duration::from_secs(5);
    while !stop.load(Ordering::Relaxed) && Instant::now() < until {
        for slot in socks.iter_mut() {
            if stop.load(Ordering::Relaxed) {
                return;
            }
            if slot.as_mut().is_some_and(closed) {
                *slot = None;
            }
            if slot.is_none() {
                *slot = open_stalled(&addr);
                if slot.is_some() {
                    opened.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// One complete `GET /api/traces` on a fresh connection: its status and
/// how long it took, or `None` when no answer came within `REQUEST_LIMIT`.
fn timed_get(addr: &str) -> (Option<u16>, Duration) {
    let started = Instant::now();
    let status = (|| {
        let sock: SocketAddr = addr.parse().ok()?;
        let mut s = TcpStream::connect_timeout(&sock, REQUEST_LIMIT).ok()?;
        s.set_read_timeout(Some(REQUEST_LIMIT)).ok()?;
        s.write_all(head(addr, "GET", "/api/traces", 0, &[]).as_bytes())
            .ok()?;
        let mut got = Vec::new();
        let mut buf = [0u8; 8192];
        while started.elapsed() < REQUEST_LIMIT {
            match s.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => got.extend_from_slice(&buf[..n]),
                Err(_) => break,
            }
        }
        let text = String::from_utf8_lossy(&got);
        text.split(' ').nth(1)?.parse().ok()
    })();
    (status, started.elapsed())
}

#[test]
fn a_normal_client_is_served_while_one_address_holds_600_stalled_heads() {
    let data = temp_dir("slow-clients");
    let server = Server::start(&data, &[]);
    let addr: SocketAddr = server.addr.parse().unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let opened = Arc::new(AtomicU64::new(0));
    let attacker = {
        let (stop, opened) = (stop.clone(), opened.clone());
        std::thread::spawn(move || attack(addr, stop, opened))
    };
    // Let the attack take hold: all 600 opened at least once.
    let started = Instant::now();
    while opened.load(Ordering::Relaxed) < STALLED as u64
        && started.elapsed() < Duration::from_secs(5)
    {
        std::thread::sleep(Duration::from_millis(50));
    }
    let attack_ends = started + ATTACK;
    let mut times = Vec::new();
    let mut unanswered = 0;
    let mut statuses = std::collections::BTreeMap::new();
    while Instant::now() + Duration::from_secs(1) < attack_ends && times.len() < MAX_REQUESTS {
        let (status, took) = timed_get(&server.addr);
        match status {
            Some(s) => *statuses.entry(s).or_insert(0) += 1,
            None => unanswered += 1,
        }
        times.push(took);
        std::thread::sleep(Duration::from_millis(20));
    }
    stop.store(true, Ordering::Relaxed);
    attacker.join().unwrap();
    times.sort();
    let pct = |p: f64| {
        times
            .get(((times.len() as f64 * p).ceil() as usize).saturating_sub(1))
            .copied()
            .unwrap_or_default()
    };
    let (p50, p95, max) = (pct(0.50), pct(0.95), pct(1.0));
    eprintln!(
        "normal requests {} (statuses {statuses:?}, unanswered {unanswered}): p50 {p50:?}, p95 {p95:?}, max {max:?}; stalled heads (re)opened {}",
        times.len(),
        opened.load(Ordering::Relaxed)
    );
    assert!(
        opened.load(Ordering::Relaxed) >= STALLED as u64,
        "the attack never held {STALLED} heads"
    );
    assert_eq!(unanswered, 0, "requests went unanswered");
    assert!(p95 < Duration::from_secs(1), "p95 {p95:?}");
    assert!(times.len() >= 5, "only {} normal requests", times.len());
    assert_eq!(
        statuses.keys().collect::<Vec<_>>(),
        vec![&200],
        "{statuses:?}"
    );
    drop(server);
    std::fs::remove_dir_all(&data).ok();
}
