//! `etlscope sql TRACE "SELECT ..."` (issue 38): the demo's published
//! figures (42,300 / 20,191 / 11 / 4,663, docs/guide/investigate.md) each
//! answered by one query; the real trace's samples per process and image
//! versions against the Python reference (tests/reference/model_reference.py,
//! its output committed in crates/model/tests/expected/); and statements
//! that would write, attach or run forever refused or stopped.

mod common;

use common::{binary, real_traces_dir};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

#[allow(dead_code)]
#[path = "../../crates/model/tests/expected/perfview_net452.rs"]
mod net452;

fn demo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../traces/explorer-overlay.etl")
}

fn sql(trace: &std::path::Path, query: &str, extra: &[&str]) -> Output {
    Command::new(binary())
        .arg("sql")
        .arg(trace)
        .arg(query)
        .args(extra)
        .env_remove("_NT_SYMBOL_PATH")
        .output()
        .expect("run etlscope sql")
}

/// The answer of a query that must succeed, as JSON.
fn answer(trace: &std::path::Path, query: &str) -> Value {
    let out = sql(trace, query, &["--format", "json"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{query}: {stderr}");
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{query}: {e}"))
}

/// The single number a query answers.
fn number(trace: &std::path::Path, query: &str) -> i64 {
    let a = answer(trace, query);
    a["rows"][0][0]
        .as_i64()
        .unwrap_or_else(|| panic!("{query}: {a}"))
}

#[test]
fn the_demo_figures_one_query_each() {
    let t = demo();
    let top = answer(
        &t,
        "SELECT process, count(*) FROM cpu_sampled WHERE time >= 7000000000 AND time < 23000000000 GROUP BY 1 ORDER BY 2 DESC LIMIT 1",
    );
    assert_eq!(top["columns"], serde_json::json!(["process", "count(*)"]));
    assert_eq!(
        top["rows"][0],
        serde_json::json!(["explorer.exe (6148)", 42300])
    );
    assert_eq!(top["truncated"], false);
    assert_eq!(
        number(
            &t,
            "SELECT count(*) FROM cpu_sampled WHERE process_name = 'explorer.exe' AND time >= 7000000000 \
             AND time < 23000000000 AND stack_contains(stack, 'windows.storage.dll!CFSFolder::_GetOverlayInfo')"
        ),
        20_191
    );
    assert_eq!(
        number(
            &t,
            "SELECT count(DISTINCT image_path) FROM images WHERE file_version = ''"
        ),
        11
    );
    assert_eq!(
        number(
            &t,
            r"SELECT count(*) FROM file_io WHERE process LIKE 'explorer.exe (%' AND type = 'Create'
              AND file_path = 'C:\Program Files (x86)\Acronis\TrueImageHome\ti_managers_proxy.dll'"
        ),
        4_663
    );
    // CSV and TSV: the header, then the rows.
    let out = sql(
        &t,
        "SELECT pid, process_name FROM processes WHERE pid = 6148",
        &["--format", "tsv"],
    );
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "pid\tprocess_name\n6148\texplorer.exe\n"
    );
}

#[test]
fn real_trace_matches_the_python_reference() {
    let Some(dir) = real_traces_dir() else { return };
    let t = dir.join("perfview-net452-x64.etl");
    // One query (each `sql` run reads the trace anew): samples per process,
    // then each image's (base, size, file version).
    let a = answer(
        &t,
        "SELECT 'process', process, count(*), NULL FROM cpu_sampled GROUP BY 2 \
         UNION ALL SELECT DISTINCT 'image', base_address, image_size, file_version FROM images",
    );
    let rows = a["rows"].as_array().expect("rows");
    let got: BTreeMap<String, u64> = rows
        .iter()
        .filter(|r| r[0] == "process")
        .map(|r| {
            (
                r[1].as_str().unwrap_or("").to_string(),
                r[2].as_u64().unwrap_or(0),
            )
        })
        .collect();
    let want: BTreeMap<String, u64> = net452::PER_PROCESS
        .iter()
        .map(|&(p, n)| (p.to_string(), n))
        .collect();
    assert_eq!(got, want);
    assert_eq!(got.values().sum::<u64>(), net452::SAMPLES as u64);
    let mut versions: BTreeMap<(u64, u64), Vec<String>> = BTreeMap::new();
    for r in rows.iter().filter(|r| r[0] == "image") {
        let key = (r[1].as_u64().unwrap_or(0), r[2].as_u64().unwrap_or(0));
        let v = r[3].as_str().unwrap_or("").to_string();
        versions.entry(key).or_default().push(v);
    }
    for &(base, size, path, version, ..) in net452::TOP_IMAGES {
        assert_eq!(
            versions.get(&(base, size)),
            Some(&vec![version.unwrap_or("").to_string()]),
            "{path}"
        );
    }
}

#[test]
fn hostile_statements_are_refused_or_stopped() {
    let t = demo();
    for (query, says) in [
        ("ATTACH DATABASE '/tmp/etlscope-sql-cli.db' AS x", "ATTACH"),
        ("DELETE FROM processes", "may not be modified"),
        ("CREATE TEMP TABLE x AS SELECT 1", "read-only"),
        (
            "PRAGMA writable_schema = 1",
            "PRAGMA writable_schema is not allowed",
        ),
        ("SELECT load_extension('/tmp/x.so')", "load_extension"),
        (
            "SELECT nope FROM cpu_sampled",
            "no such column: nope (at byte 7)",
        ),
    ] {
        let out = sql(&t, query, &[]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{query} succeeded");
        assert!(stderr.contains("SQL error: "), "{query}: {stderr}");
        assert!(stderr.contains(says), "{query}: {stderr}");
    }
    assert!(!std::path::Path::new("/tmp/etlscope-sql-cli.db").exists());
    // A recursive CTE without end stops at --timeout.
    let start = Instant::now();
    let out = sql(
        &t,
        "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) SELECT count(*) FROM r",
        &["--timeout", "1"],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("time limit of 1 s"), "{stderr}");
    assert!(
        start.elapsed() < Duration::from_secs(30),
        "{:?}",
        start.elapsed()
    );
    // A cross join of 10^10 rows: cut at --max-rows, and said so.
    let out = sql(
        &t,
        "SELECT a.pid FROM cpu_sampled a, cpu_sampled b",
        &["--max-rows", "5"],
    );
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 6);
    assert!(String::from_utf8_lossy(&out.stderr).contains("cut at 5 rows"));
}
