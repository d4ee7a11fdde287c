//! The Network table from Microsoft-Windows-Kernel-Network (beside the
//! kernel TcpIp/UdpIp classic events), and Generic Events of the classic
//! events attributed by their payload's PID with Header Process keeping the
//! header's.
//!
//! Layout written here: the Kernel-Network manifest (Windows 10 builds
//! 10240, 17134, 18990, as reconstructed from TDH in
//! github.com/repnz/etw-providers-docs, which our built-in pack
//! crates/etl/src/decode/schema/builtin.pack holds): events 10-18 TCP over
//! IPv4 (Datasent, Datareceived, Connectionattempted, Disconnectissued,
//! Dataretransmitted, Connectionaccepted, Reconnectattempted,
//! TCPconnectionattemptfailed, Protocolcopieddataonbehalfofuser), 26-34
//! the same over IPv6, 42/43 UDP send/receive over IPv4, 58/59 over IPv6,
//! 49 UDP failure. Templates: u32 PID, u32 size, daddr and saddr (u32 for
//! IPv4, 16 bytes for IPv6), u16 dport, u16 sport (network byte order),
//! then per template (Datasent: startime, endtime, seqnum, connid;
//! Connectionattempted: mss ... connid; Datareceived: seqnum, connid);
//! failures: u16 Proto, u16 FailureCode.

mod common;

use common::{export_json, temp_dir};
use etl::writer::{EtlWriter, EventHeaderFields, KernelHeader, Record, WriterConfig};
use etl::Guid;
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::Cursor;
use std::path::Path;
use synth::kernel::{self, hooks, versions, ProcessFields, ThreadFields};

const KERNEL_NETWORK: &str = "7dd42a49-5329-4832-8dfd-43d979153a88";

/// One event written: id, payload PID, size, addresses, ports.
#[derive(Clone)]
struct Net {
    id: u16,
    pid: u32,
    size: u32,
    daddr: Vec<u8>,
    saddr: Vec<u8>,
    dport: u16,
    sport: u16,
}

fn v6(last: u8) -> Vec<u8> {
    let mut a = vec![0x20, 0x01, 0x0d, 0xb8];
    a.extend([0; 11]);
    a.push(last);
    a
}

fn v6_text(last: u8) -> String {
    format!("2001:db8::{last:x}")
}

/// Bytes after sport, per template (u32 fields, u16 for the TCP options).
fn tail(id: u16) -> usize {
    match id % 16 {
        // Datasent (10, 26): startime, endtime, seqnum, connid.
        10 if id < 40 => 16,
        // Connectionattempted / accepted (12, 15, 28, 31): mss, sackopt,
        // tsopt, wsopt (u16), rcvwin (u32), rcvwinscale, sndwinscale
        // (u16), seqnum, connid.
        12 | 15 if id < 40 => 8 + 4 + 4 + 4 + 4,
        // Datareceived and the rest: seqnum, connid.
        _ => 8,
    }
}

fn payload(e: &Net) -> Vec<u8> {
    if e.id == 17 || e.id == 49 {
        let mut p = 6u16.to_le_bytes().to_vec(); // Proto
        p.extend(0x2740u16.to_le_bytes()); // FailureCode
        return p;
    }
    let mut p = e.pid.to_le_bytes().to_vec();
    p.extend(e.size.to_le_bytes());
    p.extend(&e.daddr);
    p.extend(&e.saddr);
    p.extend(e.dport.to_be_bytes());
    p.extend(e.sport.to_be_bytes());
    p.extend(vec![0u8; tail(e.id)]);
    p
}

fn process_rundown(w: &mut EtlWriter<Cursor<Vec<u8>>>, ts0: i64, procs: &[(u32, &str)]) {
    for (i, &(pid, name)) in procs.iter().enumerate() {
        let pl = kernel::process(
            8,
            &ProcessFields {
                unique_process_key: 0xFFFF_8000_0000_1000 + 0x1000 * i as u64,
                pid,
                parent_pid: 4,
                session_id: 1,
                directory_table_base: 0x1AD000,
                image_file_name: name,
                command_line: name,
            },
        );
        let rec = Record::perfinfo(ts0 + 10, hooks::PROCESS_DC_START, versions::PROCESS, &pl);
        w.write(0, &rec).unwrap();
        let pl = kernel::thread(
            8,
            &ThreadFields {
                pid,
                tid: pid + 6,
                stack_base: 0xFFFF_8000_0080_0000,
                stack_limit: 0xFFFF_8000_007F_0000,
                start_addr: 0xFFFF_8000_0000_1840,
                win32_start_addr: 0x7FF6_0000_1000,
                teb_base: 0x7FFD_0000,
                base_priority: 8,
            },
        );
        let h = KernelHeader {
            hook_id: hooks::THREAD_DC_START,
            version: versions::THREAD,
            pid,
            tid: pid + 6,
        };
        w.write(0, &Record::system(ts0 + 20, h, &pl)).unwrap();
    }
}

/// Every Kernel-Network id of the manifest, with PIDs, sizes and endpoints
/// that vary per event.
fn events() -> Vec<Net> {
    let ids = [
        10, 11, 12, 13, 14, 15, 16, 17, 18, 26, 27, 28, 29, 30, 31, 32, 34, 42, 43, 49, 58, 59,
    ];
    ids.iter()
        .enumerate()
        .map(|(i, &id)| {
            let ipv6 = (26..=34).contains(&id) || id >= 58;
            let k = i as u8;
            Net {
                id,
                pid: if i % 3 == 0 { 2345 } else { 1234 },
                size: 100 + 37 * i as u32,
                daddr: if ipv6 { v6(k) } else { vec![10, 0, 1, k] },
                saddr: if ipv6 {
                    v6(0x80 + k)
                } else {
                    vec![192, 168, 0, k]
                },
                dport: 443 + i as u16,
                sport: 50000 + i as u16,
            }
        })
        .collect()
}

fn write_trace(file: &Path, events: &[Net]) {
    let config = WriterConfig {
        pointer_size: 8,
        cpus: 1,
        ..WriterConfig::default()
    };
    let ts0 = config.ts0;
    let mut w = EtlWriter::new(Cursor::new(Vec::new()), config).unwrap();
    process_rundown(
        &mut w,
        ts0,
        &[(0, "Idle"), (1234, "app.exe"), (2345, "web.exe")],
    );
    for (i, e) in events.iter().enumerate() {
        let h = EventHeaderFields {
            provider: Guid::parse(KERNEL_NETWORK).unwrap(),
            id: e.id,
            version: 0,
            level: 4,
            opcode: 0,
            task: if e.id >= 42 { 11 } else { 10 },
            keyword: if (26..=34).contains(&e.id) || e.id >= 58 {
                0x20
            } else {
                0x10
            },
            // Logged in Idle's DPC.
            pid: 0,
            tid: 6,
            ..Default::default()
        };
        let pl = payload(e);
        let rec = Record::event(ts0 + 1000 + 1000 * i as i64, h, &pl);
        w.write(0, &rec).unwrap();
    }
    let (cursor, _) = w.finish().unwrap();
    std::fs::write(file, cursor.into_inner()).unwrap();
}

fn addr_text(a: &[u8]) -> String {
    if a.len() == 4 {
        format!("{}.{}.{}.{}", a[0], a[1], a[2], a[3])
    } else {
        v6_text(a[15])
    }
}

/// The row the test expects of what it wrote: Event, Protocol, IP Version,
/// Process, Size, Local Address:Port, Remote Address:Port. TCP events name
/// the connection from the local end (saddr); a UDP receive names the
/// datagram (local = daddr).
fn expected(e: &Net) -> Vec<String> {
    let op = match if e.id >= 42 { e.id - 32 } else { e.id } {
        10 | 26 => "Send",
        11 | 27 => "Receive",
        12 | 28 => "Connect",
        13 | 29 => "Disconnect",
        14 | 30 => "Retransmit",
        15 | 31 => "Accept",
        16 | 32 => "Reconnect",
        17 => "Fail",
        _ => "Copy",
    };
    let udp = e.id >= 42;
    let ipv6 = (26..=34).contains(&e.id) || e.id >= 58;
    let proto = if udp { "UDP" } else { "TCP" }.to_string();
    let ver = if ipv6 { "IPv6" } else { "IPv4" }.to_string();
    if op == "Fail" {
        return vec![op.into(), proto, ver, String::new(), "0".into()];
    }
    let process = if e.pid == 2345 {
        "web.exe (2345)"
    } else {
        "app.exe (1234)"
    };
    let (local, lport, remote, rport) = if udp && op == "Receive" {
        (&e.daddr, e.dport, &e.saddr, e.sport)
    } else {
        (&e.saddr, e.sport, &e.daddr, e.dport)
    };
    vec![
        op.into(),
        proto,
        ver,
        process.into(),
        e.size.to_string(),
        format!("{}:{lport}", addr_text(local)),
        format!("{}:{rport}", addr_text(remote)),
    ]
}

fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        v => v.to_string(),
    }
}

#[test]
fn kernel_network_provider_events_fill_the_network_table() {
    let dir = temp_dir("kernel-network");
    let file = dir.join("net.etl");
    let written = events();
    write_trace(&file, &written);
    let f = file.to_str().unwrap();
    let rows = export_json(&[f, "--table", "network", "--rows"]);
    let rows = rows.as_array().unwrap();
    let got: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            let mut v: Vec<String> = ["Event", "Protocol", "IP Version", "Process", "Size"]
                .iter()
                .map(|c| text(&r[c]))
                .collect();
            if v[0] != "Fail" {
                v.push(format!(
                    "{}:{}",
                    text(&r["Local Address"]),
                    text(&r["Local Port"])
                ));
                v.push(format!(
                    "{}:{}",
                    text(&r["Remote Address"]),
                    text(&r["Remote Port"])
                ));
            }
            v
        })
        .collect();
    let want: Vec<Vec<String>> = written.iter().map(expected).collect();
    assert_eq!(got, want);

    // Per process: counts and bytes the test wrote (Fail has no process).
    let mut by_process: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for e in written.iter().filter(|e| e.id != 17 && e.id != 49) {
        let w = &expected(e);
        let s = by_process.entry(w[3].clone()).or_default();
        s.0 += 1;
        s.1 += u64::from(e.size);
    }
    let grouped = export_json(&[f, "--table", "network", "--group", "Process"]);
    let got: BTreeMap<String, (u64, u64)> = grouped
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["Process"] != "")
        .map(|r| {
            (
                text(&r["Process"]),
                (r["Count"].as_u64().unwrap(), r["Size"].as_u64().unwrap()),
            )
        })
        .collect();
    println!("Kernel-Network per process: {got:?}");
    assert_eq!(got, by_process);
    // They stay Generic Events rows too, in the payload's process.
    let generic = export_json(&[
        f,
        "--table",
        "generic",
        "--group",
        "Process,Header Process",
        "--filter",
        "Provider=Microsoft-Windows-Kernel-Network",
    ]);
    let n: u64 = generic
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["Count"].as_u64().unwrap())
        .sum();
    assert_eq!(n, written.len() as u64);
    // `etlscope info` counts them for the Network table.
    let out = std::process::Command::new(common::binary())
        .args(["info", f, "--json"])
        .output()
        .unwrap();
    let info: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        info["tables"]["network"]["events"],
        written.len() as u64,
        "{}",
        info["tables"]
    );
}

fn u32_at(p: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(p[at..at + 4].try_into().unwrap())
}

/// `name (pid)` -> pid.
fn pid_of(process: &str) -> Option<u32> {
    let open = process.rfind('(')?;
    process[open + 1..process.len() - 1].parse().ok()
}

#[test]
fn tcpip_generic_rows_take_the_payload_process_and_keep_the_header_one() {
    let Some(dir) = testdata::real_traces_dir() else {
        return;
    };
    let file = dir.join("perfview-net452-x64.etl");
    // Independent read: (payload PID at offset 0, header pid) per event of
    // TcpIp (group 6) and UdpIp (group 8) but Fail (no PID).
    let f = etl::EtlFile::open(&file).unwrap();
    let mut want: BTreeMap<(Option<u32>, Option<u32>), u64> = BTreeMap::new();
    f.for_each_event_in_order(|ev| {
        let Some(hook) = ev.hook_id else { return };
        let (group, opcode) = (hook >> 8, hook & 0xff);
        if (group == 6 || group == 8) && opcode != 17 && opcode != 33 {
            let header = ev.pid.filter(|&p| p != u32::MAX);
            *want
                .entry((Some(u32_at(ev.payload, 0)), header))
                .or_default() += 1;
        }
    });
    let fname = file.to_str().unwrap();
    let mut got: BTreeMap<(Option<u32>, Option<u32>), u64> = BTreeMap::new();
    for provider in ["Windows Kernel/TcpIp", "Windows Kernel/UdpIp"] {
        let rows = export_json(&[
            fname,
            "--table",
            "generic",
            "--group",
            "Process,Header Process",
            "--filter",
            &format!("Provider={provider}"),
        ]);
        for r in rows.as_array().unwrap() {
            let key = (
                pid_of(r["Process"].as_str().unwrap()),
                pid_of(r["Header Process"].as_str().unwrap()),
            );
            *got.entry(key).or_default() += r["Count"].as_u64().unwrap();
        }
    }
    println!("(payload pid, header pid) -> rows: {got:?}");
    assert_eq!(got.values().sum::<u64>(), 526);
    assert_eq!(got, want);
}
