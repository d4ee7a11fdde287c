//! VirtualAlloc Commit Lifetimes and Heap Allocations through `etlscope
//! export`, on traces our writer makes from lists this test chooses. The
//! expected values come from simulations written here: committed pages
//! one by one (not regions), heap blocks by address. Layouts
//! (crates/synth/src/memory_events.rs): MSNT_SystemTrace
//! `PageFault_VirtualAlloc` (ptr BaseAddress, ptr RegionSize, u32
//! ProcessId, u32 Flags), TraceEvent's `VirtualAllocTraceData`; the heap
//! classes `Heap_Alloc`, `Heap_ReAlloc`, `Heap_Free`, `Heap_Destroy`,
//! TraceEvent's HeapTraceProviderTraceEventParser.

mod common;

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use synth::memory_events::{
    write_memory_events, HeapEv, MemoryEvents, Proc, VirtualEvent, EXE_BASE,
};

const COMMIT: u32 = 0x1000;
const RESERVE: u32 = 0x2000;
const DECOMMIT: u32 = 0x4000;
const RELEASE: u32 = 0x8000;
const PAGE: u64 = 0x1000;
/// A committed page of a process: (pid, page), (committed at, freed at).
type PageLife = ((u32, u64), (i64, Option<i64>));
/// Writer ticks are 100 ns after the trace's start.
const TICK_S: f64 = 100e-9;

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
            tids: vec![101],
        },
        Proc {
            pid: 200,
            exe: "b.exe".into(),
            tids: vec![201],
        },
    ]
}

fn name(pid: u32) -> &'static str {
    if pid == 100 {
        "a.exe (100)"
    } else {
        "b.exe (200)"
    }
}

fn va(at: i64, pid: u32, free: bool, base: u64, size: u64, flags: u32) -> VirtualEvent {
    VirtualEvent {
        at,
        pid,
        tid: pid + 1,
        free,
        base,
        size,
        flags,
        stack: vec![EXE_BASE + if free { 0x2000 } else { 0x1000 }],
    }
}

/// Outstanding bytes per process name at `at` ticks (between events), as
/// `export --range` over one tick there sums `column`.
fn outstanding_at(file: &Path, table: &str, at: i64, column: &str) -> BTreeMap<String, u64> {
    let range = format!("{:.7}-{:.7}", at as f64 * TICK_S, (at + 1) as f64 * TICK_S);
    let rows = export_json(
        file,
        &[
            "--table", table, "--group", "Process", "--values", column, "--range", &range,
        ],
    );
    rows.iter()
        .map(|r| {
            (
                r["Process"].as_str().unwrap().to_string(),
                r[column].as_u64().unwrap(),
            )
        })
        .filter(|r| r.1 > 0)
        .collect()
}

#[test]
fn commit_lifetimes_and_outstanding_commit_as_pages_say() {
    let dir = testdata::TempDir::new("commit");
    let events = vec![
        va(1000, 100, false, 0x10000, 0x4000, COMMIT | RESERVE),
        va(2000, 100, false, 0x20000, 0x2000, COMMIT),
        va(3000, 200, false, 0x50000, 0x1000, COMMIT | RESERVE),
        // The middle page of the first region.
        va(4000, 100, true, 0x11000, 0x1000, DECOMMIT),
        // Size 0: the whole region at the base.
        va(5000, 100, true, 0x20000, 0, RELEASE),
        // Reserved only: nothing committed.
        va(6000, 100, false, 0x30000, 0x10000, RESERVE),
        // Nothing committed there.
        va(7000, 100, true, 0x90000, 0x1000, RELEASE),
        va(8000, 100, false, 0x60000, 0x3000, COMMIT),
        // Committed again over two committed pages and two new ones: only the
        // new ones are charged (committing a committed page changes nothing),
        // and the first two keep their lifetime from 8000.
        va(8500, 100, false, 0x61000, 0x4000, COMMIT),
        va(9000, 200, true, 0x50000, 0x1000, RELEASE),
    ];
    let m = MemoryEvents {
        processes: processes(),
        virtual_allocs: events.clone(),
        ..Default::default()
    };
    let file = dir.path().join("commit.etl");
    std::fs::write(&file, write_memory_events(&m).unwrap()).unwrap();

    // Pages: (pid, page) -> (committed at, freed at or None).
    let mut pages: BTreeMap<(u32, u64), (i64, Option<i64>)> = BTreeMap::new();
    let mut history: Vec<PageLife> = Vec::new();
    for e in &events {
        if !e.free && e.flags & COMMIT != 0 {
            for p in (e.base..e.base + e.size).step_by(PAGE as usize) {
                pages.entry((e.pid, p)).or_insert((e.at, None));
            }
        } else if e.free {
            let size = if e.size == 0 { 0x2000 } else { e.size }; // the region at 0x20000
            for p in (e.base..e.base + size).step_by(PAGE as usize) {
                if let Some((at, _)) = pages.remove(&(e.pid, p)) {
                    history.push(((e.pid, p), (at, Some(e.at))));
                }
            }
        }
    }
    history.extend(pages);
    history.sort();

    let rows = export_json(&file, &["--table", "virtual-alloc", "--rows"]);
    let mut got: Vec<PageLife> = Vec::new();
    let tick = |v: &Value| v.as_f64().map(|s| (s / TICK_S).round() as i64);
    for r in &rows {
        let pid = if r["Process"] == "a.exe (100)" {
            100
        } else {
            200
        };
        let base = u64::from_str_radix(r["Address"].as_str().unwrap().trim_start_matches("0x"), 16)
            .unwrap();
        let size = r["Size"].as_u64().unwrap();
        let (alloc, free) = (tick(&r["Allocation Time"]).unwrap(), tick(&r["Free Time"]));
        for p in (base..base + size).step_by(PAGE as usize) {
            got.push(((pid, p), (alloc, free)));
        }
        // Impacting Size: still committed at the end; stacks of both ends.
        let impacting = if free.is_none() { size } else { 0 };
        assert_eq!(r["Impacting Size"].as_u64(), Some(impacting), "{r}");
        let exe = &r["Process"].as_str().unwrap()[..5];
        assert_eq!(r["Commit Stack"], format!("{exe}!0x1000"), "{r}");
        let decommit = if free.is_some() { "!0x2000" } else { "" };
        assert!(
            r["Decommit Stack"].as_str().unwrap().ends_with(decommit),
            "{r}"
        );
        let ty = if r["Address"] == "0x50000" || base < 0x20000 {
            "Reserve and Commit"
        } else {
            "Commit"
        };
        assert_eq!(r["Commit Type"], ty, "{r}");
    }
    got.sort();
    assert_eq!(got, history);
    // The first region split into three rows around the decommitted page;
    // the re-commit adds one row, for its two new pages.
    assert_eq!(rows.len(), 7);

    // Outstanding commit between every two events, per process.
    for at in [1500, 2500, 3500, 4500, 5500, 8250, 8750, 9500] {
        let mut want: BTreeMap<String, u64> = BTreeMap::new();
        for ((pid, _), (alloc, free)) in &history {
            if *alloc <= at && free.is_none_or(|f| f > at) {
                *want.entry(name(*pid).to_string()).or_default() += PAGE;
            }
        }
        assert_eq!(
            outstanding_at(&file, "virtual-alloc", at, "Size"),
            want,
            "at {at}"
        );
    }
}

fn heap(at: i64, hook: u16, handle: u64, words: &[u64]) -> HeapEv {
    HeapEv {
        at,
        pid: 100,
        tid: 101,
        hook,
        handle,
        words: words.to_vec(),
        stack: vec![EXE_BASE + 0x4000],
    }
}

#[test]
fn heap_blocks_classes_and_outstanding_bytes() {
    let dir = testdata::TempDir::new("heap");
    let (alloc, realloc, destroy, free) = (0x1021, 0x1022, 0x1023, 0x1024);
    let events = vec![
        heap(1000, alloc, 0x500, &[24, 0xA000]),
        heap(1100, alloc, 0x500, &[100, 0xB000]),
        heap(1200, free, 0x500, &[0xA000]),
        heap(1300, realloc, 0x500, &[0xC000, 0xB000, 200, 100]),
        // Allocated before the trace.
        heap(1400, free, 0x500, &[0xF000]),
        heap(1500, alloc, 0x600, &[40, 0xD000]),
        heap(1600, alloc, 0x500, &[8, 0xE000]),
        heap(1700, destroy, 0x500, &[]),
    ];
    let m = MemoryEvents {
        processes: processes(),
        heap: events.clone(),
        ..Default::default()
    };
    let file = dir.path().join("heap.etl");
    std::fs::write(&file, write_memory_events(&m).unwrap()).unwrap();

    // Blocks by address: (size, allocated at or None, freed at or None, heap).
    type Block = (u64, Option<i64>, Option<i64>);
    let mut live: BTreeMap<u64, (u64, i64, u64)> = BTreeMap::new();
    let mut done: Vec<(u64, Block)> = Vec::new();
    let mut end = |live: &mut BTreeMap<u64, (u64, i64, u64)>, a: u64, at: i64| match live.remove(&a)
    {
        Some((size, t, _)) => done.push((a, (size, Some(t), Some(at)))),
        None => done.push((a, (0, None, Some(at)))),
    };
    for e in &events {
        match e.hook {
            0x1021 => {
                live.insert(e.words[1], (e.words[0], e.at, e.handle));
            }
            0x1024 => end(&mut live, e.words[0], e.at),
            0x1022 => {
                end(&mut live, e.words[1], e.at);
                live.insert(e.words[0], (e.words[2], e.at, e.handle));
            }
            _ => {
                let of_heap: Vec<u64> = live
                    .iter()
                    .filter(|b| b.1 .2 == e.handle)
                    .map(|b| *b.0)
                    .collect();
                for a in of_heap {
                    end(&mut live, a, e.at);
                }
            }
        }
    }
    done.extend(
        live.iter()
            .map(|(&a, &(size, t, _))| (a, (size, Some(t), None))),
    );
    done.sort();

    let rows = export_json(&file, &["--table", "heap", "--rows"]);
    let tick = |v: &Value| v.as_f64().map(|s| (s / TICK_S).round() as i64);
    let mut got: Vec<(u64, Block)> = rows
        .iter()
        .map(|r| {
            let a =
                u64::from_str_radix(r["Address"].as_str().unwrap().trim_start_matches("0x"), 16)
                    .unwrap();
            let b = (
                r["Size"].as_u64().unwrap(),
                tick(&r["Allocation Time"]),
                tick(&r["Free Time"]),
            );
            // WPA's classes over the whole trace.
            let class = match b {
                (_, None, _) => "AOFI",
                (_, _, None) => "AIFO",
                _ => "AIFI",
            };
            assert_eq!(r["Type"], class, "{r}");
            assert_eq!(
                r["Stack"].as_str().unwrap_or(""),
                if b.1.is_some() { "a.exe!0x4000" } else { "" },
                "{r}"
            );
            (a, b)
        })
        .collect();
    got.sort();
    assert_eq!(got, done);
    let by_type = export_json(&file, &["--table", "heap", "--group", "Type"]);
    let count = |t: &str| {
        by_type
            .iter()
            .find(|r| r["Type"] == t)
            .and_then(|r| r["Count"].as_u64())
    };
    assert_eq!(
        (count("AIFI"), count("AIFO"), count("AOFI")),
        (Some(4), Some(1), Some(1))
    );

    for at in [1050, 1150, 1250, 1350, 1550, 1650, 1750] {
        let bytes: u64 = done
            .iter()
            .filter(|(_, (_, a, f))| a.is_some_and(|a| a <= at) && f.is_none_or(|f| f > at))
            .map(|(_, (s, _, _))| s)
            .sum();
        let mut want = BTreeMap::new();
        if bytes > 0 {
            want.insert(name(100).to_string(), bytes);
        }
        assert_eq!(outstanding_at(&file, "heap", at, "Size"), want, "at {at}");
    }
}
