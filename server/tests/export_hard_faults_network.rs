//! `etlscope export` of Hard Faults and Network on the real x64 trace,
//! against payloads read here without the product's decoders (only the
//! reader's event walk: hook id and payload bytes).
//!
//! Layouts: every kernel TcpIp/UdpIp event but Fail begins u32 PID, u32
//! size (Microsoft's MSNT_SystemTrace classes TcpIp_SendIPV4,
//! TcpIp_TypeGroup1/2, TcpIp_SendIPV6, TcpIp_V6_TypeGroup1/2,
//! UdpIp_TypeGroup1, UdpIp_V6_TypeGroup1; TraceEvent's
//! KernelTraceEventParser TcpIpTraceData & co. read `ProcessID` and `size`
//! at 0 and 4). HardFault (MSNT_SystemTrace PageFault_HardFault, TraceEvent
//! MemoryHardFaultTraceData), 64-bit: u64 InitialTime @0, u64 ReadOffset @8,
//! ptr VirtualAddress @16, ptr FileObject @24, u32 TThreadId @32, u32
//! ByteCount @36.

mod common;

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use testdata::real_traces_dir;

fn trace() -> Option<PathBuf> {
    Some(real_traces_dir()?.join("perfview-net452-x64.etl"))
}

fn export_json(file: &Path, args: &[&str]) -> Vec<Value> {
    let out = Command::new(common::binary())
        .arg("export")
        .arg(file)
        .args(args)
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice::<Vec<Value>>(&out.stdout).unwrap()
}

fn u32_at(p: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(p[at..at + 4].try_into().unwrap())
}

/// Per payload PID: (events, bytes) of the TcpIp (group 6) and UdpIp
/// (group 8) events with a PID (every opcode but Fail, 17).
fn network_by_pid(file: &Path) -> BTreeMap<u32, (u64, u64)> {
    let f = etl::EtlFile::open(file).unwrap();
    let mut by_pid: BTreeMap<u32, (u64, u64)> = BTreeMap::new();
    f.for_each_event_in_order(|ev| {
        let Some(hook) = ev.hook_id else { return };
        let (group, opcode) = (hook >> 8, hook & 0xff);
        if (group == 6 || group == 8) && (10..=34).contains(&opcode) && opcode != 17 {
            let e = by_pid.entry(u32_at(ev.payload, 0)).or_default();
            e.0 += 1;
            e.1 += u64::from(u32_at(ev.payload, 4));
        }
    });
    by_pid
}

/// `name (pid)` -> pid.
fn pid_of(process: &Value) -> u32 {
    let s = process.as_str().unwrap();
    let open = s.rfind('(').unwrap();
    s[open + 1..s.len() - 1].parse().unwrap()
}

#[test]
fn network_per_process_equals_the_payloads() {
    let Some(file) = trace() else { return };
    let want = network_by_pid(&file);
    let events: u64 = want.values().map(|v| v.0).sum();
    assert_eq!(events, 526);
    let rows = export_json(
        &file,
        &["--table", "network", "--group", "Process", "--sort", "Size"],
    );
    let got: BTreeMap<u32, (u64, u64)> = rows
        .iter()
        .map(|r| {
            let (n, b) = (r["Count"].as_u64().unwrap(), r["Size"].as_u64().unwrap());
            (pid_of(&r["Process"]), (n, b))
        })
        .collect();
    eprintln!("network by PID: {got:?}");
    assert_eq!(got, want);
    assert_eq!(rows[0]["Process"], "System (4)");
    // Every row is listed, and the TCP ones talk to one SMB server.
    assert_eq!(
        export_json(&file, &["--table", "network", "--rows"]).len(),
        526
    );
    let tcp = export_json(
        &file,
        &[
            "--table",
            "network",
            "--group",
            "Protocol,Remote Port",
            "--filter",
            "Protocol=TCP",
        ],
    );
    assert_eq!(tcp.len(), 1);
    assert_eq!(
        (tcp[0]["Remote Port"].as_u64(), tcp[0]["Count"].as_u64()),
        (Some(445), Some(490))
    );
}

#[test]
fn hard_faults_per_thread_equal_the_payloads() {
    let Some(file) = trace() else { return };
    let f = etl::EtlFile::open(&file).unwrap();
    let mut want: BTreeMap<u32, (u64, u64)> = BTreeMap::new();
    f.for_each_event_in_order(|ev| {
        if ev.hook_id == Some(0x0220) && ev.pointer_size == 8 {
            let e = want.entry(u32_at(ev.payload, 32)).or_default();
            e.0 += 1;
            e.1 += u64::from(u32_at(ev.payload, 36));
        }
    });
    let rows = export_json(&file, &["--table", "hard-faults", "--group", "Thread"]);
    let got: BTreeMap<u32, (u64, u64)> = rows
        .iter()
        .map(|r| {
            let tid = r["Thread"].as_u64().unwrap() as u32;
            (
                tid,
                (r["Count"].as_u64().unwrap(), r["Size"].as_u64().unwrap()),
            )
        })
        .collect();
    assert_eq!(got, want);
    assert_eq!(got.values().map(|v| v.0).sum::<u64>(), 153);
    assert_eq!(got.values().map(|v| v.1).sum::<u64>(), 2_722_816);
    // Every fault names its file and has the stack walked for it; all are
    // image pages but 13 of catroot2's catdb, one of the en-US folder and
    // one of the USN journal.
    let all = export_json(&file, &["--table", "hard-faults", "--rows"]);
    assert_eq!(all.len(), 153);
    assert!(all
        .iter()
        .all(|r| r["File Path"].as_str().is_some_and(|p| !p.is_empty())));
    let with_stack = all
        .iter()
        .filter(|r| r["Stack"].as_str().is_some_and(|s| !s.is_empty()))
        .count();
    let images = all.iter().filter(|r| r["Type"] == "Image").count();
    eprintln!("hard faults: {with_stack} with a stack, {images} on images");
    assert_eq!((with_stack, images), (153, 138));
}
