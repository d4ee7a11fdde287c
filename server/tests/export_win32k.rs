//! Window in Focus and UI Delays through `etlscope export`, `etlscope
//! info` and `/graph`, on a trace our writer makes from a list this test
//! chooses; every expected value is computed here from that list. Layouts
//! (crates/synth/src/win32k.rs): Microsoft-Windows-Win32k's manifest,
//! FocusChange (event 2: UInt32 OldThreadId, UInt32 NewThreadId) and
//! MessageCheckDelay (event 38: UInt32 Flags, DelayTimeMs,
//! TimeSinceInputRemoveMs, TimeSinceOldestInputMs). A thread has the focus
//! from its FocusChange to the next one (to no thread: 0), the last until
//! the end of the trace; a delay ends at its event, DelayTimeMs long.

mod common;

use common::{temp_dir, Server};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use synth::win32k::{write_win32k, Delay, Focus, Gui, Win32kEvents};

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

fn events() -> Win32kEvents {
    let processes = vec![
        Gui {
            pid: 700,
            exe: "editor.exe".into(),
            tids: vec![701, 702],
        },
        Gui {
            pid: 800,
            exe: "browser.exe".into(),
            tids: vec![801],
        },
        Gui {
            pid: 900,
            exe: "shell.exe".into(),
            tids: vec![901, 902],
        },
    ];
    let order = [701, 801, 901, 0, 702, 801, 902, 701, 0, 901, 801, 702];
    let focus = (0..36i64)
        .map(|k| Focus {
            time: 50_000 + k * 90_000 + (k * 53 % 17) * 1_000,
            old_tid: 0,
            new_tid: order[k as usize % order.len()],
        })
        .collect();
    let threads = [(700, 701), (700, 702), (800, 801), (900, 901), (900, 902)];
    let delays = (0..60u32)
        .map(|k| {
            let (pid, tid) = threads[(k as usize * 3) % threads.len()];
            Delay {
                time: 500_000 + i64::from(k) * 55_000,
                pid,
                tid,
                delay_ms: 100 + (k * 97) % 900,
                oldest_input_ms: 120 + (k * 97) % 900,
            }
        })
        .collect();
    Win32kEvents {
        processes,
        focus,
        delays,
    }
}

fn label(m: &Win32kEvents, tid: u32) -> String {
    let g = m.processes.iter().find(|g| g.tids.contains(&tid)).unwrap();
    format!("{} ({})", g.exe, g.pid)
}

/// (process label, tid, start ns, end ns) of each focus period, by start.
fn focus_periods(m: &Win32kEvents) -> Vec<(String, u32, i64, i64)> {
    let end = (m.focus.iter().map(|f| f.time))
        .chain(m.delays.iter().map(|d| d.time))
        .max()
        .unwrap()
        * 100;
    let mut f: Vec<&Focus> = m.focus.iter().collect();
    f.sort_by_key(|f| f.time);
    (0..f.len())
        .filter(|&i| f[i].new_tid != 0)
        .map(|i| {
            let stop = f.get(i + 1).map_or(end, |n| n.time * 100);
            (label(m, f[i].new_tid), f[i].new_tid, f[i].time * 100, stop)
        })
        .collect()
}

#[test]
fn window_in_focus_and_ui_delays_as_written() {
    let dir = temp_dir("export-win32k");
    let file = dir.join("win32k.etl");
    let m = events();
    std::fs::write(&file, write_win32k(&m).unwrap()).unwrap();

    // Window in Focus: every period, then the focus time per process.
    let want = focus_periods(&m);
    let rows = export(&file, &["--table", "window-in-focus", "--rows"]);
    assert_eq!(rows.len(), want.len());
    for (row, w) in rows.iter().zip(&want) {
        let t = |c: &str| (row[c].as_f64().unwrap() * 1e9).round() as i64;
        assert_eq!(row["Process"], w.0.as_str(), "{row}");
        assert_eq!(row["Thread Id"], w.1, "{row}");
        assert_eq!(t("Start Time"), w.2, "{row}");
        assert_eq!(t("Duration"), w.3 - w.2, "{row}");
    }
    let mut per: BTreeMap<String, (u64, i64)> = BTreeMap::new();
    for w in &want {
        let e = per.entry(w.0.clone()).or_default();
        e.0 += 1;
        e.1 += w.3 - w.2;
    }
    let rows = export(&file, &["--table", "window-in-focus", "--group", "Process"]);
    let got: BTreeMap<String, (u64, i64)> = rows
        .iter()
        .map(|r| {
            (
                r["Process"].as_str().unwrap().to_string(),
                (
                    r["Count"].as_u64().unwrap(),
                    (r["Duration"].as_f64().unwrap() * 1e9).round() as i64,
                ),
            )
        })
        .collect();
    assert_eq!(got, per);
    eprintln!("focus per process (periods, ns): {per:?}");

    // UI Delays: every delay, then per process and thread.
    let rows = export(&file, &["--table", "ui-delays", "--rows"]);
    let mut delays: Vec<&Delay> = m.delays.iter().collect();
    delays.sort_by_key(|d| d.time);
    assert_eq!(rows.len(), delays.len());
    for (row, d) in rows.iter().zip(&delays) {
        let t = |c: &str| (row[c].as_f64().unwrap() * 1e9).round() as i64;
        assert_eq!(row["Process"], label(&m, d.tid).as_str(), "{row}");
        assert_eq!(row["Thread Id"], d.tid, "{row}");
        assert_eq!(t("End Time"), d.time * 100, "{row}");
        assert_eq!(t("Duration"), i64::from(d.delay_ms) * 1_000_000, "{row}");
        // Not before the trace: the first delays began before it.
        let start = d.time * 100 - i64::from(d.delay_ms) * 1_000_000;
        assert_eq!(t("Start Time"), start.max(0), "{row}");
        assert_eq!(
            t("Time Since Oldest Input"),
            i64::from(d.oldest_input_ms) * 1_000_000
        );
    }
    let mut by: BTreeMap<(String, u64), (u64, i64, i64)> = BTreeMap::new();
    for d in &delays {
        let e = by.entry((label(&m, d.tid), u64::from(d.tid))).or_default();
        e.0 += 1;
        e.1 += i64::from(d.delay_ms) * 1_000_000;
        e.2 = e.2.max(i64::from(d.delay_ms) * 1_000_000);
    }
    let rows = export(
        &file,
        &[
            "--table",
            "ui-delays",
            "--group",
            "Process,Thread Id",
            "--values",
            "Count,Duration,Duration:max",
        ],
    );
    let s = |r: &Value, c: &str| (r[c].as_f64().unwrap() * 1e9).round() as i64;
    let got: BTreeMap<(String, u64), (u64, i64, i64)> = rows
        .iter()
        .map(|r| {
            (
                (
                    r["Process"].as_str().unwrap().to_string(),
                    r["Thread Id"].as_u64().unwrap(),
                ),
                (
                    r["Count"].as_u64().unwrap(),
                    s(r, "Duration"),
                    s(r, "Duration:max"),
                ),
            )
        })
        .collect();
    assert_eq!(got, by);
    eprintln!("UI delays per (process, thread) (count, ns, max ns): {by:?}");

    let info: Value =
        serde_json::from_str(&run(&["info", file.to_str().unwrap(), "--json"])).unwrap();
    assert_eq!(info["tables"]["window-in-focus"]["events"], m.focus.len());
    assert_eq!(info["tables"]["ui-delays"]["events"], m.delays.len());

    // `/graph`: focus time per bin by process adds up to its focus time;
    // delays per bin by process to its delays.
    let server = Server::start(&dir.join("data"), &[file.to_str().unwrap()]);
    let (_, list) = server.json("GET", "/api/traces", "");
    let id = list["traces"][0]["id"].as_str().unwrap().to_string();
    let ready = server.wait_ready(&id, 60);
    let rows = &ready["summary"]["table_rows"];
    assert_eq!(rows["window-in-focus"], want.len(), "{ready}");
    assert_eq!(rows["ui-delays"], m.delays.len());
    let graph = |table: &str| {
        let body = json!({"table": table, "columns": ["Process"], "bins": 50, "top": 10});
        let (s, g) = server.json(
            "POST",
            &format!("/api/traces/{id}/graph"),
            &body.to_string(),
        );
        assert_eq!(s, 200, "{g}");
        let out: BTreeMap<String, f64> = (g["series"].as_array().unwrap().iter())
            .map(|s| {
                let v = s["values"].as_array().unwrap();
                (
                    s["label"].as_str().unwrap().to_string(),
                    v.iter().map(|x| x.as_f64().unwrap()).sum(),
                )
            })
            .collect();
        out
    };
    let focus = graph("window-in-focus");
    assert_eq!(focus.len(), per.len());
    for (p, (_, ns)) in &per {
        assert!((focus[p] - *ns as f64 / 1e6).abs() < 1e-6, "{p}: {focus:?}");
    }
    let ui = graph("ui-delays");
    for (p, ms) in ui {
        let want: i64 = by
            .iter()
            .filter(|((q, _), _)| *q == p)
            .map(|(_, v)| v.1)
            .sum();
        assert!((ms - want as f64 / 1e6).abs() < 1e-6, "{p}: {ms}");
    }
}
