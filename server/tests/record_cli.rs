//! `etlscope record` off Windows: a clear error, a non-zero exit, no file.

mod common;

use std::process::Command;

#[cfg(not(windows))]
#[test]
fn record_says_it_needs_windows() {
    let dir = testdata::TempDir::new("record-cli");
    let out = dir.path().join("t.etl");
    let r = Command::new(common::binary())
        .args(["record", "--seconds", "1"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(!r.status.success());
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(err.contains("recording needs Windows"), "{err}");
    assert!(!out.exists());
}

#[test]
fn record_help_lists_its_switches() {
    let r = Command::new(common::binary())
        .args(["record", "--help"])
        .output()
        .unwrap();
    assert!(r.status.success());
    let help = String::from_utf8_lossy(&r.stdout);
    for s in [
        "--interval-ms",
        "--seconds",
        "--provider",
        "--no-clr",
        "--no <GROUP>",
        "--no-stacks",
    ] {
        assert!(help.contains(s), "{s} missing from:\n{help}");
    }
}
