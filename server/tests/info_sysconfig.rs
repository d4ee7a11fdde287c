//! `etlscope info` shows the System Configuration of perfview-net452-x64.etl:
//! values from hand decodes of the SysConfig payloads (`etlscope dump --hook
//! 0x0b0a` ... `0x0b16`, Python `struct.unpack_from` at the offsets of TE-K's
//! SystemConfig*TraceData; see crates/etl/tests/decode_real.rs), and the
//! census's event counts for services (157) and PnP devices (78).

mod common;

use serde_json::Value;
use std::process::Command;

use testdata::real_traces_dir;

fn info(path: &std::path::Path, json: bool) -> String {
    let mut c = Command::new(common::binary());
    c.arg("info").arg(path);
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
fn info_shows_the_system_configuration() {
    let Some(dir) = real_traces_dir() else {
        return;
    };
    let path = dir.join("perfview-net452-x64.etl");
    let v: Value = serde_json::from_str(&info(&path, true)).unwrap();
    let c = &v["system_config"];
    // CPU: unpack('<IIIII', p, 0) = (3592, 8, 4096, 4096, 65536), name @20.
    assert_eq!(c["computer_name"], "BRIANROB-W8");
    assert_eq!(
        (c["processors"].as_u64(), c["mhz"].as_u64()),
        (Some(8), Some(3592))
    );
    assert_eq!(c["memory_mb"], 4096);
    // Power: only byte 4 (S5) is set.
    assert_eq!(c["sleep_states"], serde_json::json!(["S5"]));
    // PhyDisk: geometry (16578 cylinders, 255 tracks, 63 sectors, 512 bytes).
    assert_eq!(c["disks"][0]["manufacturer"], "Virtual HD ATA Device");
    assert_eq!(c["disks"][0]["size_bytes"], 16578u64 * 255 * 63 * 512);
    // LogDisk: "C:" @28, "NTFS" @72, partition size @8, 29898381 free
    // clusters @56 of 8 sectors of 512 bytes.
    let vol = &c["volumes"][0];
    assert_eq!(
        (vol["drive_letter"].as_str(), vol["file_system"].as_str()),
        (Some("C:"), Some("NTFS"))
    );
    assert_eq!(vol["size_bytes"], 135_996_112_896u64);
    assert_eq!(vol["free_bytes"], 29_898_381u64 * 8 * 512);
    // NIC v2: three adapters, the first with MAC 00155d7c5828 @0.
    let nics = c["nics"].as_array().unwrap();
    assert_eq!(nics.len(), 3);
    assert_eq!(nics[0]["description"], "Microsoft Hyper-V Network Adapter");
    assert_eq!(nics[0]["mac"], "00-15-5D-7C-58-28");
    assert_eq!(nics[1]["ip_addresses"], "::1;127.0.0.1");
    assert_eq!(c["video"], serde_json::json!([]));
    assert_eq!(
        (c["services"].as_u64(), c["running_services"].as_u64()),
        (Some(157), Some(67))
    );
    assert_eq!(c["pnp_devices"], 78);

    let text = info(&path, false);
    for line in [
        "  system configuration:",
        "BRIANROB-W8",
        "8 x 3592 MHz",
        "4096 MB",
        "volume C:",
        "NTFS",
        "Microsoft Hyper-V Network Adapter [00-15-5D-7C-58-28]",
        "157 (67 running)",
    ] {
        assert!(text.contains(line), "{line:?} missing from:\n{text}");
    }
}

/// A trace without a SysConfig rundown has `null` and no section.
#[test]
fn info_without_rundown_has_no_system_configuration() {
    let Some(dir) = real_traces_dir() else {
        return;
    };
    let path = dir.join("perfview-gcevents.etl");
    let v: Value = serde_json::from_str(&info(&path, true)).unwrap();
    assert!(v["system_config"].is_null());
    assert!(!info(&path, false).contains("system configuration"));
}
