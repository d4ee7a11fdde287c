//! A server whose stdout is closed (a script read its URL and went away)
//! keeps serving and stops cleanly on SIGTERM, without a panic about the
//! broken pipe.
#![cfg(unix)]

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

#[test]
fn a_closed_stdout_does_not_panic_the_server() {
    let data = common::temp_dir("closed-stdout");
    let mut child = Command::new(common::binary())
        .args(["serve", "--addr", "127.0.0.1:0", "--data-dir"])
        .arg(&data)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start etlscope");
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    // The reader (and so the pipe) is gone now.
    let addr = first
        .split("http://")
        .nth(1)
        .and_then(|r| r.split('/').next())
        .expect("an address")
        .to_string();
    let (status, _) = common::request(&addr, "GET", "/api/traces", &[], &[]);
    assert_eq!(status, 200);
    // SIGTERM: the server says "etlscope stopped" into the closed pipe.
    let killed = Command::new("kill")
        .arg(child.id().to_string())
        .status()
        .unwrap();
    assert!(killed.success());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(out.status.success(), "exit {:?}: {stderr}", out.status);
}
