//! `etlscope info --json` prints the keys issue 2 documents, with values
//! derived independently of the reader: the Python reference census (shared
//! with the etl crate's tests) and a hand decode of the log-file header with
//! `xxd` (see crates/etl/tests/real_traces.rs for the offsets).

#[path = "../../crates/etl/tests/expected/mod.rs"]
mod expected;

mod common;

use serde_json::Value;
use std::process::Command;

use testdata::real_traces_dir;

/// (file, pointer size, cpus, StartTime as ISO 8601, EventsLost), by hand
/// from the log-file header bytes.
const HAND: &[(&str, u64, u64, &str, u64)] = &[
    ("amsi-manifest.etl", 8, 8, "2020-02-17T12:48:30.420313Z", 3),
    (
        "lxcore-manifest.etl",
        8,
        6,
        "2020-07-14T12:04:31.138736Z",
        0,
    ),
    (
        "perfview-gcevents.etl",
        8,
        8,
        "2023-03-14T00:46:36.694654Z",
        0,
    ),
    (
        "perfview-net452-x64.etl",
        8,
        8,
        "2020-07-29T00:07:00.623616Z",
        0,
    ),
    (
        "perfview-primitive-types.etl",
        8,
        8,
        "2021-09-09T14:59:32.857851Z",
        0,
    ),
    (
        "perfview-selfdescribing-single.etl",
        8,
        12,
        "2022-04-20T21:27:15.272243Z",
        0,
    ),
    // The log-file headers of these are decoded by hand in
    // crates/etl/tests/real_traces.rs (logfile_header_matches_hand_decode).
    (
        "ndf-eventlog-win10.etl",
        8,
        8,
        "2018-04-09T11:39:16.731933Z",
        0,
    ),
    (
        "perfmon-win7-kernel-process.etl",
        8,
        2,
        "2010-10-29T19:07:49.659636Z",
        0,
    ),
    (
        "sawbuck-win7-image-64bit.etl",
        4,
        16,
        "2011-05-02T12:56:49.804162Z",
        0,
    ),
    (
        "sawbuck-win7-process-32bit.etl",
        4,
        16,
        "2011-05-02T12:56:55.053471Z",
        0,
    ),
    (
        "shutdown-perfdiag-kernel.etl",
        8,
        2,
        "2020-02-28T09:03:47.744579Z",
        0,
    ),
];

fn info_json(path: &std::path::Path) -> Value {
    let out = Command::new(common::binary())
        .arg("info")
        .arg(path)
        .arg("--json")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn info_json_has_the_documented_keys_and_values() {
    let Some(dir) = real_traces_dir() else { return };
    for e in expected::TRACES {
        let &(_, ptr, cpus, start, lost) = HAND
            .iter()
            .find(|h| h.0 == e.file)
            .unwrap_or_else(|| panic!("{}: no hand decode", e.file));
        let v = info_json(&dir.join(e.file));
        let f = e.file;
        for key in [
            "buffers",
            "compressed_buffers",
            "skipped_buffers",
            "events",
            "lost_events",
            "pointer_size",
            "cpus",
            "start_time",
            "duration_s",
            "kernel_hooks",
            "providers",
            "errors",
        ] {
            assert!(v.get(key).is_some(), "{f}: key {key} missing");
        }
        assert_eq!(v["buffers"], e.buffers, "{f}");
        assert_eq!(v["compressed_buffers"], e.compressed_buffers, "{f}");
        assert_eq!(v["skipped_buffers"], 0, "{f}");
        assert_eq!(v["events"], e.events, "{f}");
        assert_eq!(v["lost_events"], lost, "{f}");
        assert_eq!(v["pointer_size"], ptr, "{f}");
        assert_eq!(v["cpus"], cpus, "{f}");
        assert_eq!(v["start_time"], start, "{f}");
        assert_eq!(v["errors"], Value::Array(vec![]), "{f}");
        // Time zero is the header event, the earliest timestamp; QPC ticks at
        // the PerfFreq decoded by hand in crates/etl/tests/real_traces.rs
        // (10 MHz but for the Windows 7 and Windows 10 16299 files).
        let freq = match f {
            "ndf-eventlog-win10.etl" => 3_513_594.0,
            "perfmon-win7-kernel-process.etl" => 2_109_960.0,
            "sawbuck-win7-image-64bit.etl" | "sawbuck-win7-process-32bit.etl" => 2_337_949.0,
            _ => 1e7,
        };
        let want = (e.max_timestamp - e.min_timestamp) as f64 / freq;
        let got = v["duration_s"].as_f64().unwrap();
        assert!((got - want).abs() < 1e-9, "{f}: duration {got} vs {want}");

        let mut hooks = serde_json::Map::new();
        for (_, h, n) in e.kernel_hooks {
            let k = format!("{h:#06x}");
            let sum = hooks.get(&k).and_then(Value::as_u64).unwrap_or(0) + n;
            hooks.insert(k, sum.into());
        }
        assert_eq!(v["kernel_hooks"], Value::Object(hooks), "{f}: kernel_hooks");
        let mut providers = serde_json::Map::new();
        for (g, _, n) in e.provider_opcodes.iter().chain(e.provider_event_ids) {
            let sum = providers.get(*g).and_then(Value::as_u64).unwrap_or(0) + n;
            providers.insert(g.to_string(), sum.into());
        }
        assert_eq!(v["providers"], Value::Object(providers), "{f}: providers");
    }
}

/// A container's members, and several files given together, are listed with
/// their buffers and events (the reference census of each member, see
/// `expected::CONTAINER_MEMBERS`), and the totals are their sums.
#[test]
fn info_lists_the_members_of_a_multi_file_trace() {
    let Some(dir) = real_traces_dir() else { return };
    let name = "vs-dotnetcore31.diagsession";
    let want: Vec<_> = expected::CONTAINER_MEMBERS
        .iter()
        .filter(|m| m.0 == name)
        .collect();
    assert_eq!(want.len(), 4);
    let v = info_json(&dir.join(name));
    let members = v["members"].as_array().expect("members");
    let got: Vec<(String, u64, u64)> = members
        .iter()
        .map(|m| {
            (
                m["name"].as_str().unwrap_or("").to_string(),
                m["buffers"].as_u64().unwrap_or(0),
                m["events"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    let expect: Vec<(String, u64, u64)> = want
        .iter()
        .map(|m| (m.1.to_string(), u64::from(m.2), m.4))
        .collect();
    assert_eq!(got, expect);
    assert_eq!(v["events"], want.iter().map(|m| m.4).sum::<u64>());

    // Two files given together.
    let a = dir.join("perfview-gcevents.etl");
    let b = dir.join("lxcore-manifest.etl");
    let out = Command::new(common::binary())
        .args(["info", "--json"])
        .arg(&a)
        .arg(&b)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let events = |f: &str| {
        expected::TRACES
            .iter()
            .find(|e| e.file == f)
            .map(|e| e.events)
            .unwrap_or(0)
    };
    assert_eq!(
        v["events"],
        events("perfview-gcevents.etl") + events("lxcore-manifest.etl")
    );
    assert_eq!(v["members"].as_array().map(Vec::len), Some(2));
}

/// `etlscope info FILE | head -1`: a reader that stops early is not an error
/// (no panic, exit status 0).
#[test]
fn info_into_a_closed_pipe_ends_quietly() {
    let Some(dir) = real_traces_dir() else { return };
    let mut child = Command::new(common::binary())
        .arg("info")
        .arg(dir.join("perfview-net452-x64.etl"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Close our end before the child writes: every write then meets EPIPE.
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}
