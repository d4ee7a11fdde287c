//! Processor Frequency and CPU Idle States through `etlscope export`,
//! `etlscope info` and `/graph`, on traces our writer makes from lists
//! this test chooses; every expected value is computed here from those
//! lists. Layouts: Microsoft-Windows-Kernel-Processor-Power's
//! ProcessorPerfStateChange, event 10 version 1 of its manifest (UInt32
//! State, UInt32 Speed in MHz, UInt16 Group, UInt8 Number, UInt32
//! Performance; crates/synth/src/processor_power.rs): a CPU runs at a
//! frequency from one change to its next, the last until the end of the
//! trace. MSNT_SystemTrace `CSwitch` v2 (crates/synth/src/idle_states.rs):
//! an idle period runs from a switch to thread 0 to the next switch away
//! from it on that CPU, in that switch's PreviousCState.

mod common;

use common::{temp_dir, Server};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use synth::idle_states::{write_idle, IdleEvents, Switch};
use synth::processor_power::{write_power, Change, PowerEvents};

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

/// Four CPUs of group 0 and CPU 1 of group 1 (65).
const CPUS: [u16; 5] = [0, 1, 2, 3, 65];

fn changes() -> PowerEvents {
    let changes = (0..120i64)
        .map(|i| {
            let state = (i * 3 % 8) as u32;
            Change {
                cpu: CPUS[(i % 5) as usize],
                time: 10_000 + 3_000 * i + (i * 7 % 11) * 100,
                mhz: 4_200 - 400 * state,
                state,
                performance: 100 - 10 * state,
            }
        })
        .collect();
    PowerEvents { cpus: 4, changes }
}

/// One interval: (cpu, start ns, end ns, mhz, state, performance).
type Interval = (u64, i64, i64, u32, u32, u32);

/// Each change lasts until its CPU's next one, the last until the last
/// event of the trace.
fn intervals(m: &PowerEvents) -> Vec<Interval> {
    let end = m.changes.iter().map(|c| c.time * 100).max().unwrap();
    let mut sorted: Vec<&Change> = m.changes.iter().collect();
    sorted.sort_by_key(|c| c.time);
    let mut out: Vec<Interval> = Vec::new();
    for (i, c) in sorted.iter().enumerate() {
        let next = sorted[i + 1..].iter().find(|n| n.cpu == c.cpu);
        let stop = next.map_or(end, |n| n.time * 100);
        out.push((
            u64::from(c.cpu),
            c.time * 100,
            stop,
            c.mhz,
            c.state,
            c.performance,
        ));
    }
    out
}

#[test]
fn processor_frequency_per_cpu_as_written() {
    let dir = temp_dir("export-processor-frequency");
    let file = dir.join("freq.etl");
    let m = changes();
    std::fs::write(&file, write_power(&m).unwrap()).unwrap();
    let want = intervals(&m);

    // Every row: its CPU, frequency, state, performance and interval.
    let rows = export(&file, &["--table", "processor-frequency", "--rows"]);
    assert_eq!(rows.len(), want.len());
    for (row, w) in rows.iter().zip(&want) {
        let t = |c: &str| (row[c].as_f64().unwrap() * 1e9).round() as i64;
        assert_eq!(row["CPU"], w.0, "{row}");
        assert_eq!((t("Start Time"), t("End Time")), (w.1, w.2), "{row}");
        assert_eq!(t("Duration"), w.2 - w.1, "{row}");
        assert_eq!(row["Frequency (MHz)"], w.3, "{row}");
        assert_eq!(row["P-State"], w.4, "{row}");
        assert_eq!(row["Performance (%)"], w.5, "{row}");
    }

    // Per CPU: changes, time covered, mean and highest frequency.
    let mut per_cpu: BTreeMap<u64, (u64, i64, u64, u32)> = BTreeMap::new();
    for w in &want {
        let e = per_cpu.entry(w.0).or_default();
        e.0 += 1;
        e.1 += w.2 - w.1;
        e.2 += u64::from(w.3);
        e.3 = e.3.max(w.3);
    }
    let rows = export(
        &file,
        &[
            "--table",
            "processor-frequency",
            "--group",
            "CPU",
            "--values",
            "Count,Duration,Frequency (MHz):avg,Frequency (MHz):max",
        ],
    );
    assert_eq!(rows.len(), CPUS.len());
    for row in &rows {
        let (n, d, sum, max) = per_cpu[&row["CPU"].as_u64().unwrap()];
        assert_eq!(row["Count"], n, "{row}");
        assert_eq!((row["Duration"].as_f64().unwrap() * 1e9).round() as i64, d);
        let mean = sum as f64 / n as f64;
        assert!(
            (row["Frequency (MHz)"].as_f64().unwrap() - mean).abs() <= 0.5,
            "{row} vs {mean}"
        );
        assert_eq!(row["Frequency (MHz):max"], max, "{row}");
    }
    eprintln!("per CPU (changes, ns, MHz sum, MHz max): {per_cpu:?}");

    // Time at each frequency on CPU 65 (group 1, number 1).
    let mut at: BTreeMap<u64, i64> = BTreeMap::new();
    for w in want.iter().filter(|w| w.0 == 65) {
        *at.entry(u64::from(w.3)).or_default() += w.2 - w.1;
    }
    let rows = export(
        &file,
        &[
            "--table",
            "processor-frequency",
            "--filter",
            "CPU=65",
            "--group",
            "Frequency (MHz)",
            "--values",
            "Duration",
        ],
    );
    let got: BTreeMap<u64, i64> = rows
        .iter()
        .map(|r| {
            (
                r["Frequency (MHz)"].as_u64().unwrap(),
                (r["Duration"].as_f64().unwrap() * 1e9).round() as i64,
            )
        })
        .collect();
    assert_eq!(got, at);

    // The events stay in Generic Events, named by the built-in pack.
    let rows = export(&file, &["--table", "generic", "--group", "Event Name"]);
    let named = rows
        .iter()
        .find(|r| r["Event Name"] == "ProcessorPerfStateChange")
        .unwrap_or_else(|| panic!("{rows:?}"));
    assert_eq!(named["Count"], m.changes.len());

    // `etlscope info` counts the events the table takes.
    let info: Value =
        serde_json::from_str(&run(&["info", file.to_str().unwrap(), "--json"])).unwrap();
    assert_eq!(
        info["tables"]["processor-frequency"]["events"],
        m.changes.len()
    );

    // `/graph`: one line per CPU, each bin its time-weighted frequency.
    let data = dir.join("data");
    let server = Server::start(&data, &[file.to_str().unwrap()]);
    let (_, list) = server.json("GET", "/api/traces", "");
    let id = list["traces"][0]["id"].as_str().unwrap().to_string();
    let ready = server.wait_ready(&id, 60);
    assert_eq!(
        ready["summary"]["table_rows"]["processor-frequency"],
        want.len(),
        "{ready}"
    );
    let body = json!({"table": "processor-frequency", "columns": ["CPU"], "bins": 200, "top": 10});
    let (s, g) = server.json(
        "POST",
        &format!("/api/traces/{id}/graph"),
        &body.to_string(),
    );
    assert_eq!(s, 200, "{g}");
    assert_eq!(g["measure"], "Frequency (MHz)");
    let (start, bin) = (
        g["start_s"].as_f64().unwrap() * 1e9,
        g["bin_s"].as_f64().unwrap() * 1e9,
    );
    let series = g["series"].as_array().unwrap();
    assert_eq!(series.len(), CPUS.len());
    for s in series {
        let cpu: u64 = s["label"].as_str().unwrap().parse().unwrap();
        for (b, v) in s["values"].as_array().unwrap().iter().enumerate() {
            let (lo, hi) = (start + bin * b as f64, start + bin * (b + 1) as f64);
            let (mut held, mut covered) = (0.0, 0.0);
            for w in want.iter().filter(|w| w.0 == cpu) {
                let o = (hi.min(w.2 as f64) - lo.max(w.1 as f64)).max(0.0);
                held += f64::from(w.3) * o;
                covered += o;
            }
            // Averaged over the time the CPU's changes cover.
            let want_v = if covered > 0.0 { held / covered } else { 0.0 };
            assert!(
                (v.as_f64().unwrap() - want_v).abs() <= 1.0,
                "CPU {cpu} bin {b}: {v} vs {want_v}"
            );
        }
    }
    eprintln!(
        "graph CPU {} bins: {}",
        series[0]["label"], series[0]["values"]
    );
}

/// Idle periods: CPU 0-3, each first leaving an idle period whose start
/// is before the trace (left out), then alternating a thread and idle.
fn switches() -> IdleEvents {
    let mut m = IdleEvents {
        cpus: 4,
        switches: Vec::new(),
    };
    for cpu in 0..4u16 {
        let tid = 500 + u32::from(cpu);
        let mut now = 5_000 + 300 * i64::from(cpu);
        m.switches.push(Switch {
            cpu,
            time: now,
            new_tid: tid,
            old_tid: 0,
            previous_c_state: 3,
        });
        for k in 0..30i64 {
            now += 700 + (k * 13 + i64::from(cpu) * 7) % 900;
            m.switches.push(Switch {
                cpu,
                time: now,
                new_tid: 0,
                old_tid: tid,
                previous_c_state: 0,
            });
            let c = ((k + i64::from(cpu)) % 3 + 1) as u8;
            now += i64::from(c) * (400 + (k * 31) % 1_100);
            m.switches.push(Switch {
                cpu,
                time: now,
                new_tid: tid,
                old_tid: 0,
                previous_c_state: c,
            });
        }
    }
    m
}

/// (cpu, c-state, start ns, end ns), by start.
fn idle_periods(m: &IdleEvents) -> Vec<(u64, u64, i64, i64)> {
    let mut out = Vec::new();
    for cpu in 0..m.cpus {
        let mut on: Vec<&Switch> = m.switches.iter().filter(|s| s.cpu == cpu).collect();
        on.sort_by_key(|s| s.time);
        for w in on.windows(2) {
            if w[0].new_tid == 0 && w[1].old_tid == 0 {
                out.push((
                    u64::from(cpu),
                    u64::from(w[1].previous_c_state),
                    w[0].time * 100,
                    w[1].time * 100,
                ));
            }
        }
    }
    out.sort_by_key(|p| (p.2, p.0));
    out
}

#[test]
fn cpu_idle_states_per_cpu_and_state_as_written() {
    let dir = temp_dir("export-cpu-idle-states");
    let file = dir.join("idle.etl");
    let m = switches();
    std::fs::write(&file, write_idle(&m).unwrap()).unwrap();
    let want = idle_periods(&m);
    assert_eq!(want.len(), 4 * 30);

    let rows = export(&file, &["--table", "cpu-idle-states", "--rows"]);
    assert_eq!(rows.len(), want.len());
    for (row, w) in rows.iter().zip(&want) {
        let t = |c: &str| (row[c].as_f64().unwrap() * 1e9).round() as i64;
        assert_eq!(
            (row["CPU"].as_u64(), row["C-State"].as_u64()),
            (Some(w.0), Some(w.1))
        );
        assert_eq!((t("Start Time"), t("End Time")), (w.2, w.3), "{row}");
        assert_eq!(t("Duration"), w.3 - w.2, "{row}");
    }

    // Residency per CPU and C-state.
    let mut per: BTreeMap<(u64, u64), (u64, i64)> = BTreeMap::new();
    for w in &want {
        let e = per.entry((w.0, w.1)).or_default();
        e.0 += 1;
        e.1 += w.3 - w.2;
    }
    let rows = export(
        &file,
        &["--table", "cpu-idle-states", "--group", "CPU,C-State"],
    );
    let got: BTreeMap<(u64, u64), (u64, i64)> = rows
        .iter()
        .map(|r| {
            (
                (r["CPU"].as_u64().unwrap(), r["C-State"].as_u64().unwrap()),
                (
                    r["Count"].as_u64().unwrap(),
                    (r["Duration"].as_f64().unwrap() * 1e9).round() as i64,
                ),
            )
        })
        .collect();
    assert_eq!(got, per);
    eprintln!("(CPU, C-state) -> (periods, ns): {per:?}");

    let info: Value =
        serde_json::from_str(&run(&["info", file.to_str().unwrap(), "--json"])).unwrap();
    assert_eq!(
        info["tables"]["cpu-idle-states"]["events"],
        m.switches.len()
    );

    // `/graph` by C-state: each bin the idle time in it (ms), stacked.
    let data = dir.join("data");
    let server = Server::start(&data, &[file.to_str().unwrap()]);
    let (_, list) = server.json("GET", "/api/traces", "");
    let id = list["traces"][0]["id"].as_str().unwrap().to_string();
    let ready = server.wait_ready(&id, 60);
    assert_eq!(
        ready["summary"]["table_rows"]["cpu-idle-states"],
        want.len(),
        "{ready}"
    );
    let body = json!({"table": "cpu-idle-states", "columns": ["C-State"], "bins": 160, "top": 10});
    let (s, g) = server.json(
        "POST",
        &format!("/api/traces/{id}/graph"),
        &body.to_string(),
    );
    assert_eq!(s, 200, "{g}");
    assert_eq!(
        (g["measure"].as_str(), g["unit"].as_str()),
        (Some("weight"), Some("ms"))
    );
    let (start, bin) = (
        g["start_s"].as_f64().unwrap() * 1e9,
        g["bin_s"].as_f64().unwrap() * 1e9,
    );
    let series = g["series"].as_array().unwrap();
    assert_eq!(series.len(), 3);
    for s in series {
        let c: u64 = s["label"].as_str().unwrap().parse().unwrap();
        let total: i64 = want.iter().filter(|w| w.1 == c).map(|w| w.3 - w.2).sum();
        assert!(
            (s["total"].as_f64().unwrap() - total as f64 / 1e6).abs() < 1e-6,
            "{s}"
        );
        for (b, v) in s["values"].as_array().unwrap().iter().enumerate() {
            let (lo, hi) = (start + bin * b as f64, start + bin * (b + 1) as f64);
            let idle: f64 = (want.iter().filter(|w| w.1 == c))
                .map(|w| (hi.min(w.3 as f64) - lo.max(w.2 as f64)).max(0.0))
                .sum();
            // Bin edges are whole ns: a few ns per period at most.
            assert!(
                (v.as_f64().unwrap() - idle / 1e6).abs() < 1e-3,
                "C{c} bin {b}: {v} vs {}",
                idle / 1e6
            );
        }
    }
    eprintln!(
        "graph C{} bins (ms): {}",
        series[0]["label"], series[0]["values"]
    );
}
