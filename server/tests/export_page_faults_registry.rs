//! Page Faults and Registry through `etlscope export`, on traces our writer
//! makes from a list this test chooses; every expected value is computed
//! here from that list. Layouts (crates/synth/src/memory_events.rs):
//! Microsoft's MSNT_SystemTrace `PageFault_TypeGroup1` (EventType 10
//! TransitionFault ... 15 AccessViolation: ptr VirtualAddress, ptr
//! ProgramCounter) and `Registry_TypeGroup1` v2 (s64 InitialTime, u32
//! Status, u32 Index, ptr KeyHandle, string KeyName; EventType 22
//! KCBCreate, 23 KCBDelete, 24/25 KCBRundownBegin/End), as TraceEvent's
//! KernelTraceEventParser reads them (`PageFaultTraceData`,
//! `RegistryTraceData`: a KeyHandle's KCB name, then KeyName, is the key).

mod common;

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use synth::memory_events::{write_memory_events, Fault, MemoryEvents, Proc, RegEvent, EXE_BASE};

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

fn processes() -> Vec<Proc> {
    vec![
        Proc {
            pid: 100,
            exe: "a.exe".into(),
            tids: vec![101, 102],
        },
        Proc {
            pid: 200,
            exe: "b.exe".into(),
            tids: vec![201],
        },
    ]
}

const KINDS: [&str; 6] = [
    "Transition",
    "Demand Zero",
    "Copy on Write",
    "Guard Page",
    "Hard Page",
    "Access Violation",
];

fn write(dir: &Path, name: &str, m: &MemoryEvents) -> std::path::PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, write_memory_events(m).unwrap()).unwrap();
    path
}

#[test]
fn page_faults_by_process_type_and_region_as_written() {
    let dir = testdata::TempDir::new("page-faults");
    let mut m = MemoryEvents {
        processes: processes(),
        ..Default::default()
    };
    // Fault i: process by i % 3 (two of a.exe's threads, one of b.exe's),
    // kind by i % 6 (i % 7 == 0 in the kernel half), a stack on even i.
    let threads = [(100, 101), (100, 102), (200, 201)];
    for i in 0..600u64 {
        let (pid, tid) = threads[(i % 3) as usize];
        m.faults.push(Fault {
            at: 10_000 + 100 * i as i64,
            pid,
            tid,
            opcode: 10 + (i % 6) as u8,
            virtual_address: if i % 7 == 0 {
                0xFFFF_F800_0000_0000 + i * 0x1000
            } else {
                0x2000_0000 + i * 0x1000
            },
            program_counter: EXE_BASE + 0x1000,
            stack: if i % 2 == 0 {
                vec![EXE_BASE + 0x2000, EXE_BASE + 0x1000]
            } else {
                Vec::new()
            },
        });
    }
    let file = write(dir.path(), "faults.etl", &m);
    let mut want: BTreeMap<(String, String), u64> = BTreeMap::new();
    for f in &m.faults {
        let p = if f.pid == 100 {
            "a.exe (100)"
        } else {
            "b.exe (200)"
        };
        let k = KINDS[usize::from(f.opcode - 10)];
        *want.entry((p.into(), k.into())).or_default() += 1;
    }
    let rows = export_json(
        &file,
        &["--table", "page-faults", "--group", "Process,Type"],
    );
    let got: BTreeMap<(String, String), u64> = rows
        .iter()
        .map(|r| {
            let key = (
                r["Process"].as_str().unwrap().to_string(),
                r["Type"].as_str().unwrap().to_string(),
            );
            (key, r["Count"].as_u64().unwrap())
        })
        .collect();
    assert_eq!(got, want);
    let region = export_json(
        &file,
        &["--table", "page-faults", "--group", "Address Region"],
    );
    let kernel = m
        .faults
        .iter()
        .filter(|f| f.virtual_address >> 63 == 1)
        .count() as u64;
    let count = |r: &str| {
        region
            .iter()
            .find(|x| x["Address Region"] == r)
            .and_then(|x| x["Count"].as_u64())
    };
    assert_eq!(
        (count("Kernel"), count("User")),
        (Some(kernel), Some(600 - kernel))
    );
    // Every row: its address and thread as written, a stack where one was.
    let all = export_json(&file, &["--table", "page-faults", "--rows"]);
    assert_eq!(all.len(), 600);
    for (r, f) in all.iter().zip(&m.faults) {
        assert_eq!(r["Virtual Address"], format!("{:#x}", f.virtual_address));
        assert_eq!(r["Thread"], f.tid);
        let stack = r["Stack"].as_str().unwrap();
        assert_eq!(!stack.is_empty(), !f.stack.is_empty(), "{r}");
        if !f.stack.is_empty() {
            // Written leaf first, printed root first.
            let e = exe(f.pid);
            assert_eq!(stack, format!("{e}!0x1000;{e}!0x2000"));
        }
    }
}

fn exe(pid: u32) -> &'static str {
    if pid == 100 {
        "a.exe"
    } else {
        "b.exe"
    }
}

/// A registry event on thread 101 of a.exe logged at `at`, begun `took`
/// ticks before.
fn op(at: i64, took: i64, opcode: u8, handle: u64, name: &str, status: u32) -> RegEvent {
    RegEvent {
        at,
        started: at - took,
        pid: 100,
        tid: 101,
        opcode,
        status,
        key_handle: handle,
        key_name: name.into(),
        stack: vec![EXE_BASE + 0x3000],
    }
}

fn kcb(at: i64, opcode: u8, handle: u64, name: &str) -> RegEvent {
    RegEvent {
        started: 0,
        stack: Vec::new(),
        ..op(at, 0, opcode, handle, name, 0)
    }
}

#[test]
fn registry_keys_named_through_the_kcb_rundown() {
    let dir = testdata::TempDir::new("registry");
    const MACHINE: &str = r"\REGISTRY\MACHINE\SOFTWARE";
    const USER: &str = r"\REGISTRY\USER\S-1-5-21-1-2-3-1001\Software\Contoso";
    const LATER: &str = r"\REGISTRY\MACHINE\SYSTEM\CurrentControlSet";
    const REUSED: &str = r"\REGISTRY\USER\.DEFAULT";
    // (event, the key and value the table must show): the test's own
    // reading of what it wrote.
    let ops: Vec<(RegEvent, String, &str)> = vec![
        // Relative to a KCB of the rundown at the start.
        (
            op(10_000, 300, 11, 0x10, r"Microsoft\Windows", 0),
            format!(r"{MACHINE}\Microsoft\Windows"),
            "",
        ),
        // Value operations: KeyName is the value's name.
        (
            op(11_000, 50, 16, 0x10, "Theme", 0xC000_0034),
            MACHINE.into(),
            "Theme",
        ),
        (op(12_000, 70, 14, 0x20, "Mode", 0), USER.into(), "Mode"),
        // An absolute name (no KeyHandle).
        (
            op(13_000, 20, 10, 0, r"\REGISTRY\MACHINE\SOFTWARE\New", 0),
            r"\REGISTRY\MACHINE\SOFTWARE\New".into(),
            "",
        ),
        // A KCB only the rundown at the end names.
        (op(14_000, 90, 13, 0x30, "", 0), LATER.into(), ""),
        // 0x20 is deleted, then created again for another key.
        (
            op(30_000, 10, 16, 0x20, "Colour", 0),
            REUSED.into(),
            "Colour",
        ),
        (op(31_000, 40, 27, 0x20, "", 0), REUSED.into(), ""),
    ];
    let mut m = MemoryEvents {
        processes: processes(),
        registry: vec![
            kcb(5, 24, 0x10, MACHINE),
            kcb(6, 25, 0x10, MACHINE),
            kcb(11_500, 22, 0x20, USER),
            kcb(20_000, 23, 0x20, ""),
            kcb(25_000, 22, 0x20, REUSED),
            kcb(40_000, 24, 0x30, LATER),
        ],
        ..Default::default()
    };
    m.registry.extend(ops.iter().map(|o| o.0.clone()));
    let file = write(dir.path(), "registry.etl", &m);
    let rows = export_json(&file, &["--table", "registry", "--rows"]);
    assert_eq!(rows.len(), ops.len(), "KCB events are not rows");
    let names = [
        (10, "Create"),
        (11, "Open"),
        (13, "Query"),
        (14, "SetValue"),
        (16, "QueryValue"),
        (27, "Close"),
    ];
    for (r, (e, key, value)) in rows.iter().zip(&ops) {
        assert_eq!(r["Key Path"], key.as_str(), "{r}");
        assert_eq!(r["Value Name"], *value, "{r}");
        let name = names.iter().find(|n| n.0 == e.opcode).unwrap().1;
        assert_eq!(r["Operation"], name);
        assert_eq!(r["Status"], format!("{:#x}", e.status));
        assert_eq!(r["Process"], "a.exe (100)");
        assert_eq!(r["Thread"], 101);
        // InitialTime to the event, in 100 ns ticks.
        let want = (e.at - e.started) as f64 * 100e-9;
        assert!((r["Duration"].as_f64().unwrap() - want).abs() < 1e-9, "{r}");
        assert_eq!(r["Stack"], "a.exe!0x3000");
    }
    // Grouped by key, as the Registry table's preset shows it.
    let by_key = export_json(&file, &["--table", "registry", "--group", "Key Path"]);
    let mut want: BTreeMap<&str, u64> = BTreeMap::new();
    for (_, key, _) in &ops {
        *want.entry(key.as_str()).or_default() += 1;
    }
    let got: BTreeMap<&str, u64> = by_key
        .iter()
        .map(|r| {
            (
                r["Key Path"].as_str().unwrap(),
                r["Count"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(got, want);
}
