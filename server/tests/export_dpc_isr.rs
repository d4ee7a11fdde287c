//! DPC/ISR through `etlscope export`, `etlscope findings` and `etlscope
//! info`, on a trace our writer makes from a list this test chooses; every
//! expected value is computed here from that list. Layouts
//! (crates/synth/src/dpc_isr.rs): Microsoft's MSNT_SystemTrace `DPC`
//! class (EventType 66 ThreadDPC, 68 DPC, 69 TimerDPC: InitialTime, ptr
//! Routine) and `ISR` class (EventType 67: InitialTime, ptr Routine, u8
//! ReturnValue, Vector, Reserved), as TraceEvent's `DPCTraceData` /
//! `ISRTraceData` read them; ISR-MSI (EventType 50, then u32
//! MessageNumber) as LibTrace's raw kernel decoder reads it. The event's
//! time is the routine's exit, InitialTime its entry.

mod common;

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use synth::dpc_isr::{write_dpc_isr, DpcIsrEvents, Driver, Run};

fn run(args: &[&str]) -> String {
    let out = Command::new(common::binary()).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// `common::export_json` on one file: its rows.
fn export(file: &Path, args: &[&str]) -> Vec<Value> {
    let mut a = vec![file.to_str().unwrap()];
    a.extend(args);
    match common::export_json(&a) {
        Value::Array(rows) => rows,
        other => panic!("export printed {other}, not rows"),
    }
}

const NDIS: u64 = 0xFFFF_F800_1000_0000;
const STOR: u64 = 0xFFFF_F800_2000_0000;
const USB: u64 = 0xFFFF_F800_3000_0000;

fn module_of(routine: u64) -> &'static str {
    match routine & !0xF_FFFF {
        NDIS => "ndis.sys",
        STOR => "storport.sys",
        USB => "usbport.sys",
        _ => "",
    }
}

fn type_of(hook: u16) -> &'static str {
    match hook {
        0x0F42 => "Thread DPC",
        0x0F44 => "DPC",
        0x0F45 => "Timer DPC",
        _ => "ISR",
    }
}

/// 100 ns ticks to ns.
fn ns(ticks: i64) -> i64 {
    ticks * 100
}

/// The test's own reading of Exclusive Duration (WPA: the sum of a run's
/// fragments): a run's length less those of the
/// runs on its CPU directly inside it (inside it and inside no other run
/// that is inside it).
fn fragmented(runs: &[Run]) -> Vec<i64> {
    let inside = |a: &Run, b: &Run| {
        !std::ptr::eq(a, b) && a.cpu == b.cpu && a.enter >= b.enter && a.exit <= b.exit
    };
    runs.iter()
        .map(|r| {
            let nested: i64 = runs
                .iter()
                .filter(|c| inside(c, r))
                .filter(|c| !runs.iter().any(|m| inside(c, m) && inside(m, r)))
                .map(|c| c.exit - c.enter)
                .sum();
            ns(r.exit - r.enter - nested)
        })
        .collect()
}

fn trace() -> DpcIsrEvents {
    let drivers = [
        (NDIS, "ndis.sys"),
        (STOR, "storport.sys"),
        (USB, "usbport.sys"),
    ];
    let mut m = DpcIsrEvents {
        cpus: 4,
        drivers: drivers
            .iter()
            .map(|&(base, name)| Driver {
                base,
                size: 0x10_0000,
                path: format!(r"\SystemRoot\system32\drivers\{name}"),
            })
            .collect(),
        runs: Vec::new(),
    };
    let hooks = [0x0F44u16, 0x0F45, 0x0F42, 0x0F43, 0x0F32];
    // Run i: CPU i % 4, kind i % 5, driver i % 3, 30 + (i % 7) * 10 us;
    // every 40th takes 1.5 ms (runs on one CPU are 2 ms apart).
    for i in 0..400u64 {
        let enter = 10_000 + 5_000 * i as i64;
        let len = if i % 40 == 0 {
            15_000
        } else {
            300 + (i % 7) as i64 * 100
        };
        let base = drivers[(i % 3) as usize].0;
        let hook = hooks[(i % 5) as usize];
        m.runs.push(Run {
            cpu: (i % 4) as u16,
            hook,
            enter,
            exit: enter + len,
            routine: base + 0x1000 * (1 + i % 2),
            vector: 0x90 + (i % 5) as u16,
        });
        // Every DPC is interrupted by an ISR of usbport, which an MSI ISR
        // of ndis interrupts in one DPC of three.
        if hook == 0x0F44 && len > 100 {
            m.runs.push(Run {
                cpu: (i % 4) as u16,
                hook: 0x0F43,
                enter: enter + 20,
                exit: enter + 80,
                routine: USB + 0x7000,
                vector: 0xB0,
            });
            if i % 3 == 0 {
                m.runs.push(Run {
                    cpu: (i % 4) as u16,
                    hook: 0x0F32,
                    enter: enter + 30,
                    exit: enter + 40,
                    routine: NDIS + 0x8000,
                    vector: 0xB1,
                });
            }
        }
    }
    m
}

#[test]
fn dpc_isr_by_type_module_and_cpu_as_written() {
    let dir = testdata::TempDir::new("dpc-isr");
    let m = trace();
    let file = dir.path().join("dpc-isr.etl");
    std::fs::write(&file, write_dpc_isr(&m).unwrap()).unwrap();
    let frag = fragmented(&m.runs);

    // Type and Module: counts and both durations.
    let mut want: BTreeMap<(String, String), (u64, i64, i64)> = BTreeMap::new();
    for (r, f) in m.runs.iter().zip(&frag) {
        let e = want
            .entry((type_of(r.hook).into(), module_of(r.routine).into()))
            .or_default();
        e.0 += 1;
        e.1 += f;
        e.2 += ns(r.exit - r.enter);
    }
    let rows = export(&file, &["--table", "dpc-isr", "--group", "Type,Module"]);
    let got: BTreeMap<(String, String), (u64, i64, i64)> = rows
        .iter()
        .map(|r| {
            let s = |c: &str| (r[c].as_f64().unwrap() * 1e9).round() as i64;
            (
                (
                    r["Type"].as_str().unwrap().into(),
                    r["Module"].as_str().unwrap().into(),
                ),
                (
                    r["Count"].as_u64().unwrap(),
                    s("Exclusive Duration"),
                    s("Inclusive Duration"),
                ),
            )
        })
        .collect();
    assert_eq!(got, want);

    // CPU time per CPU (the graph's series): Exclusive, each instant once.
    let mut per_cpu: BTreeMap<u64, i64> = BTreeMap::new();
    for (r, f) in m.runs.iter().zip(&frag) {
        *per_cpu.entry(u64::from(r.cpu)).or_default() += f;
    }
    let rows = export(&file, &["--table", "dpc-isr", "--group", "CPU"]);
    let got: BTreeMap<u64, i64> = rows
        .iter()
        .map(|r| {
            (
                r["CPU"].as_u64().unwrap(),
                (r["Exclusive Duration"].as_f64().unwrap() * 1e9).round() as i64,
            )
        })
        .collect();
    assert_eq!(got, per_cpu);
    eprintln!("per CPU (ns): {per_cpu:?}");

    // Every row: entry time, exit, routine and its frame, vector.
    let rows = export(&file, &["--table", "dpc-isr", "--rows"]);
    assert_eq!(rows.len(), m.runs.len());
    let mut written: Vec<&Run> = m.runs.iter().collect();
    written.sort_by_key(|r| (r.enter, std::cmp::Reverse(r.exit), r.cpu));
    for (row, r) in rows.iter().zip(written) {
        let t = |c: &str| (row[c].as_f64().unwrap() * 1e9).round() as i64;
        // Times from the session's start (the writer's ts0).
        assert_eq!(t("DPC/ISR Enter Time"), ns(r.enter), "{row}");
        assert_eq!(t("DPC/ISR Exit Time"), ns(r.exit), "{row}");
        assert_eq!(row["CPU"], u64::from(r.cpu));
        assert_eq!(row["Type"], type_of(r.hook));
        assert_eq!(row["Address"], format!("{:#x}", r.routine));
        let module = module_of(r.routine);
        assert_eq!(
            row["Function"],
            format!("{module}!{:#x}", r.routine & 0xF_FFFF),
            "{row}"
        );
        if type_of(r.hook) == "ISR" {
            assert_eq!(row["Vector"], u64::from(r.vector));
        }
    }

    // Findings: the modules with runs over 1 ms (the longest, and how
    // many), and the drivers whose DPCs and ISRs took 10 ms or more.
    let list: Vec<Value> = serde_json::from_str(&run(&[
        "findings",
        file.to_str().unwrap(),
        "--format",
        "json",
    ]))
    .unwrap();
    let of = |rule: &str| -> Vec<&Value> { list.iter().filter(|x| x["rule"] == rule).collect() };
    let (long, busy) = (of("long-dpc-isr"), of("dpc-isr-drivers"));
    eprintln!("{}", serde_json::to_string_pretty(&[&long, &busy]).unwrap());
    let mut longest: BTreeMap<&str, (i64, usize)> = BTreeMap::new();
    for r in &m.runs {
        let d = ns(r.exit - r.enter);
        if d >= 1_000_000 {
            let e = longest.entry(module_of(r.routine)).or_default();
            e.0 = e.0.max(d);
            e.1 += 1;
        }
    }
    let mut want_long: Vec<(&str, (i64, usize))> = longest.into_iter().collect();
    want_long.sort_by(|a, b| b.1 .0.cmp(&a.1 .0).then(a.0.cmp(b.0)));
    assert_eq!(long.len(), want_long.len().min(3));
    for (f, (module, (max, n))) in long.iter().zip(&want_long) {
        assert_eq!(f["view"]["row"][0], *module);
        assert_eq!(f["figure"].as_f64().unwrap(), *max as f64 / 1e9);
        let title = f["title"].as_str().unwrap();
        assert!(title.ends_with(&format!("({n} over 1 ms)")), "{title}");
    }
    let mut cpu_by_module: BTreeMap<&str, i64> = BTreeMap::new();
    for (r, f) in m.runs.iter().zip(&frag) {
        *cpu_by_module.entry(module_of(r.routine)).or_default() += f;
    }
    let mut want_busy: Vec<(&str, i64)> = cpu_by_module
        .into_iter()
        .filter(|(_, ns)| *ns >= 10_000_000)
        .collect();
    want_busy.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    assert!(!want_busy.is_empty());
    assert_eq!(busy.len(), want_busy.len().min(3));
    for (f, (module, total)) in busy.iter().zip(&want_busy) {
        assert_eq!(f["view"]["row"][0], *module);
        assert!((f["figure"].as_f64().unwrap() - *total as f64 / 1e9).abs() < 1e-12);
    }
    // Each view's export prints its figure in its row and column.
    for finding in long.iter().chain(&busy) {
        let v = &finding["view"];
        let args: Vec<&str> = v["export"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap())
            .collect();
        let rows = export(&file, &args);
        let row = rows
            .iter()
            .find(|r| r["Module"] == v["row"][0])
            .unwrap_or_else(|| panic!("no row for {finding}"));
        let column = v["column"].as_str().unwrap();
        assert_eq!(
            row[column].as_f64(),
            finding["figure"].as_f64(),
            "{finding}"
        );
    }

    // `etlscope info` counts the events the table takes.
    let info: Value =
        serde_json::from_str(&run(&["info", file.to_str().unwrap(), "--json"])).unwrap();
    assert_eq!(info["tables"]["dpc-isr"]["events"], m.runs.len());
}
