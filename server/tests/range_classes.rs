//! Heap Allocations and VirtualAlloc Commit Lifetimes against a selected
//! range in the middle of a written trace: WPA's classes (AIFI, AIFO,
//! AOFI, AOFO) and Impacting Size are relative to the range, through
//! `etlscope export --range` and the HTTP API. WPA's definitions (WPA Heap
//! Glossary, learn.microsoft.com/previous-versions/windows/desktop/xperf/
//! wpa-heap-glossary): AI = allocated within the selection, AO = before it;
//! FI = released within it, FO = still outstanding at its end. Impacting
//! Size (Memory Footprint Optimization, Exercise 2): the size of the
//! allocations outstanding at the selection's end, which are those
//! allocated inside it: AIFO rows' sizes, 0 for the others. The expected
//! values below come from the lists this test writes.

mod common;

use common::{export_json, temp_dir, Server};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::Path;
use synth::memory_events::{write_memory_events, HeapEv, MemoryEvents, Proc, VirtualEvent};

/// Writer ticks are 100 ns after the trace's start.
const TICK_S: f64 = 100e-9;
/// The selected range, in ticks: [R0, R1).
const R0: i64 = 2200;
const R1: i64 = 3700;

/// A block or region: address, size, allocated at (None: before the
/// trace), freed at (None: never).
type Life = (u64, u64, Option<i64>, Option<i64>);

fn class(a: Option<i64>, f: Option<i64>) -> &'static str {
    let ai = a.is_some_and(|a| a >= R0);
    let fi = f.is_some_and(|f| f < R1);
    match (ai, fi) {
        (true, true) => "AIFI",
        (true, false) => "AIFO",
        (false, true) => "AOFI",
        (false, false) => "AOFO",
    }
}

fn alive(a: Option<i64>, f: Option<i64>) -> bool {
    a.is_none_or(|a| a < R1) && f.is_none_or(|f| f >= R0)
}

/// Expected (address -> (class, impacting size)) of the lives in the range.
fn expected(lives: &[Life]) -> BTreeMap<u64, (String, u64)> {
    lives
        .iter()
        .filter(|l| alive(l.2, l.3))
        .map(|&(addr, size, a, f)| {
            let c = class(a, f);
            (addr, (c.to_string(), if c == "AIFO" { size } else { 0 }))
        })
        .collect()
}

fn range_arg() -> String {
    format!("{:.7}-{:.7}", R0 as f64 * TICK_S, R1 as f64 * TICK_S)
}

fn processes() -> Vec<Proc> {
    vec![Proc {
        pid: 100,
        exe: "a.exe".into(),
        tids: vec![101],
    }]
}

/// 30 blocks allocated every 100 ticks from 1000, block i freed
/// (i % 4) * 1000 ticks later (never when i % 4 == 0), and three frees of
/// blocks allocated before the trace (before, inside, after the range).
fn heap_lives() -> (Vec<HeapEv>, Vec<Life>) {
    let ev = |at: i64, hook: u16, words: Vec<u64>| HeapEv {
        at,
        pid: 100,
        tid: 101,
        hook,
        handle: 0x500,
        words,
        stack: vec![],
    };
    let mut events = Vec::new();
    let mut lives = Vec::new();
    for i in 0..30u64 {
        let (addr, size, at) = (0x10000 + i * 0x100, 16 * (i + 1), 1000 + i as i64 * 100);
        events.push(ev(at, 0x1021, vec![size, addr]));
        let free = (i % 4 != 0).then(|| at + (i % 4) as i64 * 1000);
        if let Some(f) = free {
            events.push(ev(f, 0x1024, vec![addr]));
        }
        lives.push((addr, size, Some(at), free));
    }
    for (k, at) in [1500, 3000, 4500].into_iter().enumerate() {
        let addr = 0xF0000 + k as u64 * 0x100;
        events.push(ev(at, 0x1024, vec![addr]));
        lives.push((addr, 0, None, Some(at)));
    }
    events.sort_by_key(|e| e.at);
    (events, lives)
}

/// 20 committed regions, one every 150 ticks from 1000, region i released
/// (i % 3) * 700 ticks later (never when i % 3 == 0).
fn commit_lives() -> (Vec<VirtualEvent>, Vec<Life>) {
    let ev = |at: i64, free: bool, base: u64, size: u64, flags: u32| VirtualEvent {
        at,
        pid: 100,
        tid: 101,
        free,
        base,
        size,
        flags,
        stack: vec![],
    };
    let mut events = Vec::new();
    let mut lives = Vec::new();
    for i in 0..20u64 {
        let (base, size, at) = (
            0x100000 + i * 0x10000,
            0x1000 * (1 + i % 3),
            1000 + i as i64 * 150,
        );
        events.push(ev(at, false, base, size, 0x1000 | 0x2000));
        let free = (i % 3 != 0).then(|| at + (i % 3) as i64 * 700);
        if let Some(f) = free {
            events.push(ev(f, true, base, 0, 0x8000));
        }
        lives.push((base, size, Some(at), free));
    }
    events.sort_by_key(|e| e.at);
    (events, lives)
}

fn addr(v: &Value) -> u64 {
    u64::from_str_radix(v.as_str().unwrap().trim_start_matches("0x"), 16).unwrap()
}

/// Export's rows in the range: address -> (class, impacting size).
fn exported(file: &Path, table: &str, class_column: &str) -> BTreeMap<u64, (String, u64)> {
    let range = range_arg();
    let f = file.to_str().unwrap();
    let rows = export_json(&[f, "--table", table, "--rows", "--range", &range]);
    rows.as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                addr(&r["Address"]),
                (
                    r[class_column].as_str().unwrap().to_string(),
                    r["Impacting Size"].as_u64().unwrap(),
                ),
            )
        })
        .collect()
}

/// Count and Impacting Size per class.
fn per_class(want: &BTreeMap<u64, (String, u64)>) -> BTreeMap<String, (u64, u64)> {
    let mut m: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for (c, imp) in want.values() {
        let e = m.entry(c.clone()).or_default();
        e.0 += 1;
        e.1 += imp;
    }
    m
}

/// The same through the HTTP API: the table grouped by the class column
/// over the range, its rows' counts and Impacting Size sums; then the
/// AOFO rows alone by a filter on the label.
fn api_per_class(
    server: &Server,
    file: &Path,
    table: &str,
    class_column: &str,
) -> (BTreeMap<String, (u64, u64)>, u64) {
    let (s, b) = server.post("/api/traces?name=t.etl", &std::fs::read(file).unwrap());
    assert_eq!(s, 201, "{b}");
    let id = serde_json::from_str::<Value>(&b).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    server.wait_ready(&id, 60);
    let url = format!("/api/traces/{id}/table");
    let range = json!({"start_s": R0 as f64 * TICK_S, "end_s": R1 as f64 * TICK_S});
    let (s, v) = server.json(
        "POST",
        &url,
        &json!({"table": table, "columns": [class_column], "range": range,
            "values": ["Impacting Size:Sum"], "limit": 100})
        .to_string(),
    );
    assert_eq!(s, 200, "{v}");
    let got = v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["label"].as_str().unwrap().to_string(),
                (
                    r["count"].as_u64().unwrap(),
                    r["values"]["Impacting Size"].as_u64().unwrap(),
                ),
            )
        })
        .collect();
    let (s, v) = server.json(
        "POST",
        &url,
        &json!({"table": table, "columns": ["Process"], "range": range,
            "filters": [{"column": class_column, "values": ["AOFO"]}], "limit": 100})
        .to_string(),
    );
    assert_eq!(s, 200, "{v}");
    (got, v["total"]["count"].as_u64().unwrap())
}

fn check(file: &Path, table: &str, class_column: &str, lives: &[Life]) {
    let want = expected(lives);
    let classes = per_class(&want);
    println!("{table} over ticks {R0}..{R1}: {classes:?}");
    // Every class occurs in the range.
    assert_eq!(classes.len(), 4, "{classes:?}");
    assert_eq!(exported(file, table, class_column), want);

    let range = range_arg();
    let f = file.to_str().unwrap();
    let grouped = export_json(&[
        f,
        "--table",
        table,
        "--group",
        class_column,
        "--values",
        "Count,Impacting Size",
        "--range",
        &range,
    ]);
    let got: BTreeMap<String, (u64, u64)> = grouped
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r[class_column].as_str().unwrap().to_string(),
                (
                    r["Count"].as_u64().unwrap(),
                    r["Impacting Size"].as_u64().unwrap(),
                ),
            )
        })
        .collect();
    assert_eq!(got, classes);

    let data = temp_dir(&format!("range-classes-{table}"));
    let server = Server::start(&data, &[]);
    let (api, aofo) = api_per_class(&server, file, table, class_column);
    assert_eq!(api, classes);
    assert_eq!(Some(aofo), classes.get("AOFO").map(|c| c.0));
}

#[test]
fn heap_classes_follow_the_selected_range() {
    let dir = temp_dir("range-classes-heap");
    let (events, lives) = heap_lives();
    let m = MemoryEvents {
        processes: processes(),
        heap: events,
        ..Default::default()
    };
    let file = dir.join("heap.etl");
    std::fs::write(&file, write_memory_events(&m).unwrap()).unwrap();
    check(&file, "heap", "Type", &lives);
}

#[test]
fn commit_classes_follow_the_selected_range() {
    let dir = temp_dir("range-classes-commit");
    let (events, lives) = commit_lives();
    let m = MemoryEvents {
        processes: processes(),
        virtual_allocs: events,
        ..Default::default()
    };
    let file = dir.join("commit.etl");
    std::fs::write(&file, write_memory_events(&m).unwrap()).unwrap();
    check(&file, "virtual-alloc", "Type", &lives);
}
