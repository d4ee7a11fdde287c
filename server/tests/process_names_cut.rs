//! Issue 33, point 7: perfmon-win7 showed one program as "SearchProtocol"
//! and "SearchProtocolHost.exe". The kernel's name of a process
//! (EPROCESS ImageFileName) keeps 14 characters; Kernel-Process ProcessStart
//! gives the full image name. A process seen only at its end (it started
//! before the trace) had the cut name. Over HTTP, on that trace: no process
//! name is a strict prefix of another (the cut names take the one full name
//! they begin), in the Processes table and in the threads' Process column.

mod common;

use common::real_traces_dir;

fn labels(s: &common::Server, id: &str, table: &str, column: &str) -> Vec<String> {
    let body = format!(r#"{{"table":"{table}","columns":["{column}"],"limit":100000}}"#);
    let (st, v) = s.json("POST", &format!("/api/traces/{id}/table"), &body);
    assert_eq!(st, 200, "{v}");
    v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["label"].as_str().unwrap().to_string())
        .collect()
}

/// `name (pid)` -> `name`.
fn name_of(label: &str) -> &str {
    label.rsplit_once(" (").map_or(label, |(n, _)| n)
}

#[test]
fn no_process_name_is_a_cut_of_another() {
    let Some(dir) = real_traces_dir() else { return };
    let file = dir.join("perfmon-win7-kernel-process.etl");
    let data = common::temp_dir("cut-names");
    let s = common::Server::start(&data, &[file.to_str().unwrap()]);
    let (_, list) = s.json("GET", "/api/traces", "");
    let id = list["traces"][0]["id"].as_str().unwrap().to_string();
    s.wait_ready(&id, 120);
    let names = labels(&s, &id, "processes", "Process Name");
    let threads = labels(&s, &id, "threads", "Process");
    let all: Vec<&str> = names
        .iter()
        .map(String::as_str)
        .chain(threads.iter().map(|l| name_of(l)))
        .collect();
    let cuts: Vec<(&str, &str)> = all
        .iter()
        .flat_map(|a| all.iter().map(move |b| (*a, *b)))
        .filter(|(a, b)| a.len() < b.len() && !a.is_empty() && b.starts_with(a))
        .collect();
    eprintln!("cut names: {cuts:?}");
    assert!(cuts.is_empty(), "{cuts:?}");
    // PID 5380 ended in the trace, started before it: its full name.
    assert!(
        threads.iter().any(|l| l == "SearchProtocolHost.exe (5380)"),
        "{:?}",
        threads
            .iter()
            .filter(|l| l.contains("5380"))
            .collect::<Vec<_>>()
    );
}
