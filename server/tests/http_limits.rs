//! Issue 12, point 7: slow and oversized clients. A request head must
//! arrive within the header timeout, a body must keep coming (idle
//! timeout), only so many connections are served at once (heads still
//! arriving have places of their own, see http_slow_clients.rs), a body whose
//! declared length is over the limit is refused before it is read (no
//! `100 Continue`), and size flags that overflow are refused at start.

mod common;

use common::{head, temp_dir, Server};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What the server sends on a connection within `secs` (until it closes).
fn read_for(s: &mut TcpStream, secs: u64) -> String {
    s.set_read_timeout(Some(Duration::from_millis(200)))
        .unwrap();
    let until = Instant::now() + Duration::from_secs(secs);
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    while Instant::now() < until {
        match s.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e)
                if e.kind() == std::io::ErrorKind::WouldBlock
                    || e.kind() == std::io::ErrorKind::TimedOut => {}
            Err(_) => break,
        }
    }
    String::from_utf8_lossy(&got).into_owned()
}

#[test]
fn an_over_limit_declared_length_gets_413_before_the_body() {
    let data = temp_dir("limits-413");
    let server = Server::start(&data, &["--max-upload-mb", "1"]);
    for path in ["/api/traces?name=big.etl", "/api/symbols?name=big.pdb"] {
        let mut s = TcpStream::connect(&server.addr).unwrap();
        let h = head(
            &server.addr,
            "POST",
            path,
            10 << 30,
            &[("X-Etlscope", "1"), ("Expect", "100-continue")],
        );
        s.write_all(h.as_bytes()).unwrap();
        // No body is sent: the answer must come anyway, and be the refusal.
        let got = read_for(&mut s, 10);
        assert!(got.starts_with("HTTP/1.1 413"), "{path}: {got:?}");
        assert!(!got.contains("100 Continue"), "{path}: {got:?}");
        assert!(got.contains(r#""code":"too_large""#), "{path}: {got:?}");
    }
    std::fs::remove_dir_all(&data).ok();
}

#[test]
fn slow_heads_and_stalled_bodies_are_cut_off() {
    let data = temp_dir("limits-slow");
    let server = Server::start(
        &data,
        &["--header-timeout-secs", "1", "--body-timeout-secs", "1"],
    );
    // Half a request head, then nothing (slowloris).
    let mut s = TcpStream::connect(&server.addr).unwrap();
    s.write_all(b"GET /api/traces HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        .unwrap();
    let started = Instant::now();
    let _ = read_for(&mut s, 10);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "the slow head kept its connection"
    );

    // A body that stops after 10 of 1000 bytes.
    let mut s = TcpStream::connect(&server.addr).unwrap();
    let h = head(
        &server.addr,
        "POST",
        "/api/traces?name=slow.etl",
        1000,
        &[("X-Etlscope", "1")],
    );
    s.write_all(h.as_bytes()).unwrap();
    s.write_all(&[0u8; 10]).unwrap();
    let got = read_for(&mut s, 10);
    assert!(got.starts_with("HTTP/1.1 408"), "{got:?}");
    assert!(got.contains(r#""code":"timeout""#), "{got:?}");
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(
        std::fs::read_dir(data.join("tmp")).unwrap().count(),
        0,
        "a temp file was left"
    );
    std::fs::remove_dir_all(&data).ok();
}

#[test]
fn connections_over_the_cap_wait_for_a_free_one() {
    let data = temp_dir("limits-cap");
    let server = Server::start(
        &data,
        &[
            "--max-connections",
            "2",
            "--header-timeout-secs",
            "5",
            "--body-timeout-secs",
            "2",
        ],
    );
    // Silent connections are still sending their heads: they take none of
    // the places of connections served (issue 31).
    let silent: Vec<TcpStream> = (0..4)
        .map(|_| TcpStream::connect(&server.addr).unwrap())
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    let started = Instant::now();
    let (s, b) = server.get("/api/traces");
    assert_eq!(s, 200, "{b}");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "silent heads held up a whole request: {:?}",
        started.elapsed()
    );
    // Two uploads whose bodies stall take both places until the body
    // timeout (408) frees them.
    let stalled: Vec<TcpStream> = (0..2)
        .map(|_| {
            let mut s = TcpStream::connect(&server.addr).unwrap();
            let h = head(
                &server.addr,
                "POST",
                "/api/traces?name=stall.etl",
                1000,
                &[("X-Etlscope", "1")],
            );
            s.write_all(h.as_bytes()).unwrap();
            s.write_all(&[0u8; 10]).unwrap();
            s
        })
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    let started = Instant::now();
    let (s, b) = server.get("/api/traces");
    let waited = started.elapsed();
    assert_eq!(s, 200, "{b}");
    assert!(
        waited >= Duration::from_millis(1200),
        "served at once ({waited:?}): no cap"
    );
    assert!(waited < Duration::from_secs(10), "waited {waited:?}");
    drop((silent, stalled));
    std::fs::remove_dir_all(&data).ok();
}

#[test]
fn oversized_size_flags_are_refused_at_start() {
    // 2^44 MiB is 2^64 bytes: it used to wrap to a limit of 0.
    for flag in ["--max-upload-mb", "--memory-budget-mb"] {
        let data = temp_dir("limits-flags");
        let mut child = Command::new(common::binary())
            .args(["serve", "--addr", "127.0.0.1:0", "--data-dir"])
            .arg(&data)
            .args([flag, "17592186044416"])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // A server that wrongly starts is stopped after a while.
        let until = Instant::now() + Duration::from_secs(20);
        while child.try_wait().unwrap().is_none() && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(50));
        }
        child.kill().ok();
        let out = child.wait_with_output().unwrap();
        std::fs::remove_dir_all(&data).ok();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{flag}: {err}");
        assert!(
            err.contains(&flag[2..]) && err.contains("too large"),
            "{flag}: {err}"
        );
    }
}
