//! `etlscope info` says which of the memory, registry and network tables a
//! trace can fill, and for the others what the recording lacked: on the
//! real x64 trace (153 HardFault events, 526 TcpIp/UdpIp events, per the
//! Python census in crates/etl/tests/expected) and on a trace our writer
//! makes, whose events this test counts from the list it wrote.

mod common;

use serde_json::Value;
use std::path::Path;
use std::process::Command;

fn info(file: &Path, json: bool) -> String {
    let mut c = Command::new(common::binary());
    c.arg("info").arg(file);
    if json {
        c.arg("--json");
    }
    let out = c.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn real_trace_fills_hard_faults_and_network_only() {
    let Some(dir) = testdata::real_traces_dir() else {
        return;
    };
    let file = dir.join("perfview-net452-x64.etl");
    let v: Value = serde_json::from_str(&info(&file, true)).unwrap();
    let t = &v["tables"];
    assert_eq!(t["hard-faults"]["events"], 153);
    assert_eq!(t["network"]["events"], 526);
    assert!(t["hard-faults"]["why_not"].is_null() && t["network"]["why_not"].is_null());
    for table in ["page-faults", "registry", "virtual-alloc", "heap"] {
        assert_eq!(t[table]["events"], 0, "{table}");
        assert!(
            t[table]["why_not"]
                .as_str()
                .is_some_and(|w| w.contains("no ")),
            "{table}"
        );
    }
    let text = info(&file, false);
    assert!(text.contains("    hard-faults        153 events"), "{text}");
    assert!(text.contains("VIRT_ALLOC flag was off"), "{text}");
}

#[test]
fn written_trace_counts_what_was_written() {
    let dir = testdata::TempDir::new("info-tables");
    let m = synth::memory_events::demo_memory_events(3, 200);
    let file = dir.path().join("memory.etl");
    std::fs::write(
        &file,
        synth::memory_events::write_memory_events(&m).unwrap(),
    )
    .unwrap();
    let v: Value = serde_json::from_str(&info(&file, true)).unwrap();
    let t = &v["tables"];
    // Registry operations, not the KCB events (opcodes 22..=25) naming keys.
    let ops = m
        .registry
        .iter()
        .filter(|r| !(22..=25).contains(&r.opcode))
        .count();
    assert_eq!(t["page-faults"]["events"], m.faults.len());
    assert_eq!(t["registry"]["events"], ops);
    assert_eq!(t["virtual-alloc"]["events"], m.virtual_allocs.len());
    assert_eq!(t["heap"]["events"], m.heap.len());
    assert!(t["network"]["why_not"]
        .as_str()
        .is_some_and(|w| w.contains("NETWORKTRACE")));
    assert!(t["hard-faults"]["why_not"]
        .as_str()
        .is_some_and(|w| w.contains("HARD_FAULTS")));
}
