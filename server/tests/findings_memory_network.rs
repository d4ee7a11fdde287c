//! The memory and network findings (commit-growth, heap-churn,
//! retransmits) on a trace our writer makes: each names the process this
//! test made cross the rule's threshold (and not the one it kept under),
//! with the figure this test computes from what it wrote, and its view's
//! `etlscope export` prints that figure. TcpIp RetransmitIPV4 (0x060E) is
//! laid out here as MSNT_SystemTrace `TcpIp_TypeGroup1` (u32 PID, u32
//! size, u32 daddr, u32 saddr, u16 dport, u16 sport, u32 seqnum, ptr
//! connid; ports big-endian), as TraceEvent's `TcpIpTraceData` reads it.

mod common;

use serde_json::Value;
use std::process::Command;
use synth::memory_events::{
    write_memory_events, HeapEv, MemoryEvents, Proc, RawEvent, VirtualEvent, EXE_BASE,
};

const MIB: u64 = 1 << 20;

fn run(args: &[&str]) -> String {
    let out = Command::new(common::binary()).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn retransmit(at: i64, pid: u32) -> RawEvent {
    let mut p = pid.to_le_bytes().to_vec();
    p.extend(1460u32.to_le_bytes());
    p.extend([10, 0, 0, 1, 10, 0, 0, 2]);
    p.extend(443u16.to_be_bytes());
    p.extend(50_000u16.to_be_bytes());
    p.extend(7u32.to_le_bytes());
    p.extend(0u64.to_le_bytes());
    RawEvent {
        at,
        hook: 0x060E,
        pid: 0,
        tid: 0,
        payload: p,
    }
}

fn commit(at: i64, pid: u32, free: bool, base: u64, size: u64, leaf: u64) -> VirtualEvent {
    VirtualEvent {
        at,
        pid,
        tid: pid + 1,
        free,
        base,
        size,
        flags: if free { 0x8000 } else { 0x3000 },
        stack: vec![EXE_BASE + leaf, EXE_BASE + 0x100],
    }
}

#[test]
fn commit_growth_heap_churn_and_retransmits() {
    let dir = testdata::TempDir::new("findings-memory");
    let mut m = MemoryEvents {
        processes: vec![
            Proc {
                pid: 100,
                exe: "a.exe".into(),
                tids: vec![101],
            },
            Proc {
                pid: 200,
                exe: "b.exe".into(),
                tids: vec![201],
            },
        ],
        ..Default::default()
    };
    // a.exe: four 50 MiB commits (three from leaf 0x1000, one from 0x2000),
    // one of 0x1000's freed: 150 MiB left. b.exe: 10 MiB, under the rule.
    for (i, leaf) in [0x1000u64, 0x1000, 0x2000, 0x1000].into_iter().enumerate() {
        let base = 0x1_0000_0000 + i as u64 * 64 * MIB;
        m.virtual_allocs
            .push(commit(1_000 + i as i64, 100, false, base, 50 * MIB, leaf));
    }
    m.virtual_allocs
        .push(commit(2_000, 100, true, 0x1_0000_0000, 50 * MIB, 0x3000));
    m.virtual_allocs
        .push(commit(2_100, 200, false, 0x2_0000_0000, 10 * MIB, 0x1000));
    let left: u64 = 150 * MIB;
    // b.exe allocates and frees 12,000 blocks; a.exe 50.
    let mut at = 3_000;
    for (pid, n) in [(200u32, 12_000u64), (100, 50)] {
        for i in 0..n {
            let address = 0x5000_0000 + i * 0x40;
            for (hook, words) in [(0x1021u16, vec![48, address]), (0x1024, vec![address])] {
                at += 1;
                m.heap.push(HeapEv {
                    at,
                    pid,
                    tid: pid + 1,
                    hook,
                    handle: 0x500,
                    words,
                    stack: Vec::new(),
                });
            }
        }
    }
    // a.exe retransmits 15 times, b.exe 3 (under the rule).
    for i in 0..15 {
        m.raw.push(retransmit(100_000 + i, 100));
    }
    for i in 0..3 {
        m.raw.push(retransmit(200_000 + i, 200));
    }
    let file = dir.path().join("memory.etl");
    std::fs::write(&file, write_memory_events(&m).unwrap()).unwrap();
    let f = file.to_str().unwrap();

    let list: Vec<Value> =
        serde_json::from_str(&run(&["findings", f, "--format", "json"])).unwrap();
    let of = |rule: &str| -> Vec<&Value> { list.iter().filter(|x| x["rule"] == rule).collect() };
    let (growth, churn, retrans) = (of("commit-growth"), of("heap-churn"), of("retransmits"));
    eprintln!(
        "{}",
        serde_json::to_string_pretty(&[&growth, &churn, &retrans]).unwrap()
    );
    assert_eq!(growth.len(), 1);
    assert_eq!(growth[0]["figure"], left as f64);
    assert_eq!(growth[0]["category"], "memory");
    let title = growth[0]["title"].as_str().unwrap();
    assert!(
        title.starts_with("a.exe (100) left 150 MB committed"),
        "{title}"
    );
    assert!(title.ends_with("most from a.exe!0x1000"), "{title}");
    assert_eq!(churn.len(), 1);
    assert_eq!(churn[0]["figure"], 12_000.0);
    assert!(churn[0]["title"]
        .as_str()
        .unwrap()
        .starts_with("b.exe (200) allocated and freed 12,000 heap blocks"));
    assert_eq!(retrans.len(), 1);
    assert_eq!(retrans[0]["figure"], 15.0);
    assert_eq!(
        retrans[0]["title"],
        "a.exe (100) retransmitted 15 TCP segments"
    );

    // Each view's export prints its figure in its row and column.
    for finding in [growth[0], churn[0], retrans[0]] {
        let v = &finding["view"];
        let mut args = vec!["export".to_string(), f.to_string()];
        args.extend(
            v["export"]
                .as_array()
                .unwrap()
                .iter()
                .map(|a| a.as_str().unwrap().to_string()),
        );
        args.extend(["--format".into(), "json".into()]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let rows: Vec<Value> = serde_json::from_str(&run(&args)).unwrap();
        let row = rows
            .iter()
            .find(|r| r["Process"] == v["row"][0])
            .unwrap_or_else(|| panic!("no row for {finding}"));
        let column = v["column"].as_str().unwrap();
        assert_eq!(
            row[column].as_f64(),
            finding["figure"].as_f64(),
            "{finding}"
        );
        assert!(
            v["link"]
                .as_str()
                .is_some_and(|l| l.contains(&format!("t={}", v["table"].as_str().unwrap()))),
            "{finding}"
        );
    }
}
