//! `etlscope redact` on every real trace and the demo (issue 40): no byte
//! sequence of the recorder's user names, computer name, command-line
//! arguments or chosen paths is left anywhere in the copy (ASCII and
//! UTF-16LE, any case), and the copy reads as the original: the same
//! events, buffers, providers and per-table counts, and every table (the
//! server's own list) the same row count and numeric columns' totals.
//!
//! The originals are found here, not by the rewriter: profile folders
//! (`\Users\NAME\`) and `.exe ARGS` strings in the trace's decompressed
//! buffers, read with a scanner of this file, and the computer name as
//! `etlscope info` decodes it from SysConfig.

mod common;

use aho_corasick::{AhoCorasickBuilder, MatchKind};
use common::{binary, temp_dir};
use serde_json::Value;
use std::path::Path;
use std::process::Command;

/// The folder whose paths every run asks to replace.
const PREFIX: &str = "C:\\Program Files";

fn run(args: &[&str]) -> std::process::Output {
    Command::new(binary()).args(args).output().unwrap()
}

fn info(path: &Path) -> Value {
    let out = run(&["info", "--json", path.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Where a string the originals are read from may be: its markers.
const MARKERS: [&str; 4] = ["\\users\\", ".exe ", ".exe\" ", "\\program files\\"];

/// The strings of `bytes` (UTF-16LE or 8-bit, cut at controls) that hold a
/// marker, any case.
fn texts(bytes: &[u8], out: &mut Vec<String>) {
    let mut pats: Vec<Vec<u8>> = MARKERS.iter().map(|m| m.as_bytes().to_vec()).collect();
    pats.extend(
        MARKERS
            .iter()
            .map(|m| m.encode_utf16().flat_map(u16::to_le_bytes).collect()),
    );
    let ac = AhoCorasickBuilder::new()
        .ascii_case_insensitive(true)
        .build(&pats)
        .unwrap();
    for m in ac.find_overlapping_iter(bytes) {
        let (s, e) = (m.start(), m.end());
        if m.pattern().as_usize() < MARKERS.len() {
            let text = |b: &u8| (0x20..0x7F).contains(b);
            let a = s - bytes[..s].iter().rev().take_while(|b| text(b)).count();
            let z = e + bytes[e..].iter().take_while(|b| text(b)).count();
            out.push(String::from_utf8_lossy(&bytes[a..z]).into_owned());
        } else {
            let unit = |i: usize| u16::from_le_bytes([bytes[i], bytes[i + 1]]);
            let text = |u: u16| u >= 0x20 && !(0xD800..0xE000).contains(&u);
            let mut a = s;
            while a >= 2 && text(unit(a - 2)) {
                a -= 2;
            }
            let mut z = e;
            while z + 1 < bytes.len() && text(unit(z)) {
                z += 2;
            }
            let units: Vec<u16> = (a..z).step_by(2).map(unit).collect();
            out.push(String::from_utf16_lossy(&units));
        }
    }
}

/// Every buffer's event bytes, decompressed, of every member of the trace.
fn trace_text(path: &Path) -> Vec<String> {
    let file = etl::EtlFile::open(path).unwrap();
    let mut out = Vec::new();
    let mut scratch = Vec::new();
    for b in file.buffers() {
        if let Ok(data) = file.buffer_data(b, &mut scratch) {
            texts(data, &mut out);
        }
    }
    out.sort();
    out.dedup();
    out
}

/// What must not be left: (what, text).
fn originals(path: &Path, computer: &str) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    if computer.len() >= 3 {
        out.push(("computer", computer.to_string()));
    }
    for t in trace_text(path) {
        let lower = t.to_ascii_lowercase();
        if let Some(i) = lower.find("\\users\\") {
            let rest = &t[i + 7..];
            // A folder (followed by `\`), not a file such as `desktop.ini`.
            let folder = rest.split_once('\\').map_or("", |(f, _)| f);
            let name = folder.split(['.', '~']).next().unwrap_or("");
            let shared = ["public", "default", "default user", "all users"];
            if name.len() >= 3 && !shared.contains(&name.to_ascii_lowercase().as_str()) {
                out.push(("user", name.to_string()));
            }
        }
        if let Some(i) = lower.find(".exe ").or_else(|| lower.find(".exe\" ")) {
            let args = t[i + 4..].trim_start_matches('"').trim();
            if args.len() >= 8 && args.chars().any(|c| c.is_ascii_alphabetic()) {
                out.push(("arguments", args.to_string()));
            }
        }
        if let Some(i) = lower.find("\\program files\\") {
            let tail = t[i + 15..]
                .split(['"', ';', ','])
                .next()
                .unwrap_or("")
                .trim();
            if tail.len() >= 3 {
                // With its prefix: the tail alone may be ordinary text too
                // (`Windows Media Player` in a file description).
                out.push(("path", format!("Program Files\\{tail}")));
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The originals found in `bytes` as text (ASCII or UTF-16LE, any case, not
/// inside a longer word).
fn left_in(bytes: &[u8], originals: &[(&'static str, String)]) -> Vec<String> {
    let mut pats: Vec<Vec<u8>> = Vec::new();
    let mut which = Vec::new();
    for (i, (_, s)) in originals.iter().enumerate() {
        if s.is_ascii() {
            pats.push(s.as_bytes().to_vec());
            which.push((i, 1));
        }
        pats.push(s.encode_utf16().flat_map(u16::to_le_bytes).collect());
        which.push((i, 2));
    }
    let ac = AhoCorasickBuilder::new()
        .ascii_case_insensitive(true)
        .match_kind(MatchKind::Standard)
        .build(&pats)
        .unwrap();
    let word = |at: Option<&[u8]>| {
        at.is_some_and(|c| c[0].is_ascii_alphanumeric() && c[1..].iter().all(|&z| z == 0))
    };
    let mut left = Vec::new();
    for m in ac.find_overlapping_iter(bytes) {
        let (i, w) = which[m.pattern().as_usize()];
        let (what, s) = &originals[i];
        let starts_word = s.chars().next().is_some_and(|c| c.is_ascii_alphanumeric());
        let ends_word = s.chars().last().is_some_and(|c| c.is_ascii_alphanumeric());
        let before = m.start().checked_sub(w).map(|b| &bytes[b..m.start()]);
        let after = bytes.get(m.end()..m.end() + w);
        if (starts_word && word(before)) || (ends_word && word(after)) {
            continue;
        }
        left.push(format!("{what} {s:?} at {:#x}", m.start()));
    }
    left
}

/// What must be equal in `info --json` of the original and the copy.
fn census(v: &Value) -> Value {
    let mut c = serde_json::Map::new();
    for k in [
        "buffers",
        "skipped_buffers",
        "events",
        "lost_events",
        "lost_buffers",
        "pointer_size",
        "cpus",
        "start_time",
        "duration_s",
        "header_types",
        "kernel_hooks",
        "providers",
        "provider_event_ids",
        "tables",
    ] {
        c.insert(k.into(), v[k].clone());
    }
    c.insert("decoded_events".into(), v["decoding"]["events"].clone());
    c.insert("hex_only".into(), v["decoding"]["hex_only_events"].clone());
    Value::Object(c)
}

/// Every trace table's numeric columns, from the server's own declarations
/// (`query::TableDef::NAMES` through the SQL schema made of them): (SQL
/// table, its INTEGER columns), asked of SQLite once.
fn numeric_columns(any_trace: &Path) -> Vec<(String, Vec<String>)> {
    let tables = sql::schema::trace_tables();
    let q: Vec<String> = tables
        .iter()
        .map(|(t, _)| {
            format!("SELECT '{t}', name FROM pragma_table_info('{t}') WHERE type = 'INTEGER'")
        })
        .collect();
    let rows = sql_rows(any_trace, &q.join(" UNION ALL "));
    let mut out: Vec<(String, Vec<String>)> =
        tables.into_iter().map(|(t, _)| (t, Vec::new())).collect();
    for r in rows {
        let (t, c) = (r[0].as_str().unwrap(), r[1].as_str().unwrap());
        out.iter_mut()
            .find(|(n, _)| n == t)
            .unwrap()
            .1
            .push(c.to_string());
    }
    assert!(
        out.len() >= 20 && out.iter().all(|(_, c)| !c.is_empty()),
        "{out:?}"
    );
    out
}

fn sql_rows(path: &Path, query: &str) -> Vec<Vec<Value>> {
    let out = run(&["sql", path.to_str().unwrap(), query, "--format", "json"]);
    assert!(
        out.status.success(),
        "{}: {}",
        path.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["truncated"], false);
    serde_json::from_value(v["rows"].clone()).unwrap()
}

/// Every table's row count and the total of each numeric column, in one
/// query (one read of the trace). Names and paths differ in the copy;
/// numbers may not.
fn totals(path: &Path, tables: &[(String, Vec<String>)]) -> Vec<(String, Value)> {
    let q: Vec<String> = tables
        .iter()
        .map(|(t, cols)| {
            let sums: Vec<String> = cols.iter().map(|c| format!("total(\"{c}\")")).collect();
            format!(
                "SELECT '{t}', json_array(count(*), {}) FROM {t}",
                sums.join(", ")
            )
        })
        .collect();
    sql_rows(path, &q.join(" UNION ALL "))
        .into_iter()
        .map(|r| {
            let sums = serde_json::from_str(r[1].as_str().unwrap()).unwrap();
            (r[0].as_str().unwrap().to_string(), sums)
        })
        .collect()
}

/// Redact `input`, check the copy; the originals checked.
fn check(
    input: &Path,
    dir: &Path,
    tables: &[(String, Vec<String>)],
) -> Vec<(&'static str, String)> {
    let name = input.file_name().unwrap().to_str().unwrap();
    let t0 = std::time::Instant::now();
    let output = dir.join(format!("{name}.redacted"));
    let before = info(input);
    let computer = before["system_config"]["computer_name"]
        .as_str()
        .unwrap_or("")
        .to_string();
    let originals = originals(input, &computer);
    let t_find = t0.elapsed();
    let out = run(&[
        "redact",
        input.to_str().unwrap(),
        "-o",
        output.to_str().unwrap(),
        "--path",
        PREFIX,
        "--report",
        "json",
    ]);
    assert!(
        out.status.success(),
        "{name}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        report["categories"]["users"]["replaced"].is_u64(),
        "{report}"
    );

    let bytes = std::fs::read(&output).unwrap();
    let left = left_in(&bytes, &originals);
    assert!(
        left.is_empty(),
        "{name}: originals left in the copy: {left:?}"
    );
    let t_redact = t0.elapsed();

    let after = info(&output);
    assert_eq!(
        census(&before),
        census(&after),
        "{name}: the copy reads differently"
    );
    let (was, now) = (totals(input, tables), totals(&output, tables));
    assert_eq!(was.len(), tables.len());
    for (a, b) in was.iter().zip(&now) {
        assert_eq!(a, b, "{name}: the totals of {} differ", a.0);
    }
    let rows: u64 = was.iter().map(|(_, v)| v[0].as_u64().unwrap()).sum();
    let filled = was.iter().filter(|(_, v)| v[0] != 0).count();
    eprintln!(
        "{name}: {} originals ({} users, {} arguments, {} paths) gone; {} bytes -> {} \
         ({t_find:.1?} to find, {t_redact:.1?} redacted and searched, {:.1?} in all); \
         totals of {} tables ({filled} with rows, {rows} rows) equal",
        originals.len(),
        originals.iter().filter(|o| o.0 == "user").count(),
        originals.iter().filter(|o| o.0 == "arguments").count(),
        originals.iter().filter(|o| o.0 == "path").count(),
        std::fs::metadata(input).unwrap().len(),
        bytes.len(),
        t0.elapsed(),
        tables.len()
    );
    originals
}

#[test]
fn redacted_real_traces_hold_no_original_and_read_the_same() {
    let Some(files) = testdata::real_trace_files() else {
        return;
    };
    let tmp = temp_dir("redact-real");
    assert!(files.len() >= 10, "{files:?}");
    let tables = numeric_columns(&files[0]);
    // Each trace on its own thread: the checks are child processes.
    let threads = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .min(4);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let users: usize = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut users = 0;
                    while let Some(f) =
                        files.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
                    {
                        users += check(f, &tmp, &tables)
                            .iter()
                            .filter(|o| o.0 == "user")
                            .count();
                    }
                    users
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).sum()
    });
    // The traces recorded on named machines carry user names to find.
    assert!(
        users >= 5,
        "only {users} user names found in the real traces"
    );
    let _ = std::fs::remove_dir_all(&tmp);
}

#[test]
fn redacted_demo_holds_no_original_and_keeps_every_total() {
    let tmp = temp_dir("redact-demo");
    let demo = tmp.join("demo.etl");
    let out = run(&["synth", "explorer-overlay", "-o", demo.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let found = check(&demo, &tmp, &numeric_columns(&demo));
    assert!(
        found.iter().any(|o| o.0 == "user") && found.iter().any(|o| o.0 == "arguments"),
        "the demo's user and command line: {found:?}"
    );
    let _ = std::fs::remove_dir_all(&tmp);
}
