//! Issue 33, point 6: findings say what is so. Idle (PID 0) is never a
//! culprit and never in a base: on the demo "ntoskrnl.exe is the leaf of
//! 58,589 of 99,996 samples" was mostly Idle. Over HTTP
//! (`/api/traces/{id}/findings`), every CPU share finding's "N of M
//! non-idle CPU samples" and the one-frame-stack finding's figures equal a
//! count of `etlscope export --rows` (one row per sample) made here, Idle's
//! rows left out; the sentence says "non-idle" and names what it counts.

mod common;

use common::{export_json, real_traces_dir};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn demo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../traces/explorer-overlay.etl")
}

/// The API's findings of `file`.
fn api_findings(file: &Path) -> Vec<Value> {
    let data = common::temp_dir("findings-non-idle");
    let s = common::Server::start(&data, &[file.to_str().unwrap()]);
    let (_, list) = s.json("GET", "/api/traces", "");
    let id = list["traces"][0]["id"].as_str().unwrap().to_string();
    s.wait_ready(&id, 120);
    let (st, v) = s.json("GET", &format!("/api/traces/{id}/findings"), "");
    assert_eq!(st, 200, "{v}");
    v["findings"].as_array().unwrap().clone()
}

/// Per sample: (PID, leaf module, frames), from the exported rows; the
/// leaf module is read from the Stack's last frame (`module!function`).
fn samples(file: &Path) -> Vec<(i64, String, usize)> {
    let rows = export_json(&[file.to_str().unwrap(), "--table", "cpu-sampled", "--rows"]);
    rows.as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let stack = r["Stack"].as_str().unwrap_or("");
            let frames = if stack.is_empty() {
                0
            } else {
                stack.split(';').count()
            };
            let leaf = stack.rsplit(';').next().unwrap_or("");
            let module = leaf.split_once('!').map_or("", |(m, _)| m);
            (r["PID"].as_i64().unwrap_or(-1), module.to_string(), frames)
        })
        .collect()
}

/// The two numbers of "N of M" in a title.
fn n_of_m(title: &str) -> (u64, u64) {
    let num = |s: &str| s.replace(',', "").parse::<u64>().unwrap();
    let words: Vec<&str> = title.split(' ').collect();
    let at = (1..words.len())
        .find(|&i| words[i] == "of" && words[i - 1].replace(',', "").parse::<u64>().is_ok())
        .unwrap_or_else(|| panic!("no 'N of' in {title}"));
    let m = words[at + 1..]
        .iter()
        .find(|w| w.replace(',', "").parse::<u64>().is_ok())
        .unwrap();
    (num(words[at - 1]), num(m))
}

fn check(file: &Path) -> Vec<Value> {
    let list = api_findings(file);
    let rows = samples(file);
    let busy: Vec<&(i64, String, usize)> = rows.iter().filter(|r| r.0 != 0).collect();
    let non_idle = busy.len() as u64;
    for f in &list {
        let title = f["title"].as_str().unwrap();
        eprintln!("{title}");
        assert!(
            !title.starts_with("Idle") && !title.contains("Idle ("),
            "Idle named as a culprit: {title}"
        );
        match f["rule"].as_str().unwrap() {
            "cpu-module" => {
                let m = f["view"]["row"][0].as_str().unwrap();
                let n = busy.iter().filter(|r| r.1 == m).count() as u64;
                assert_eq!(n_of_m(title), (n, non_idle), "{title}");
                assert!(title.contains("non-idle CPU samples"), "{title}");
            }
            "cpu-process" => {
                assert_eq!(n_of_m(title).1, non_idle, "{title}");
                assert!(title.contains("non-idle CPU samples"), "{title}");
            }
            "samples-without-stacks" => {
                let n = busy.iter().filter(|r| r.2 < 2).count() as u64;
                assert_eq!(n_of_m(title), (n, non_idle), "{title}");
                assert_eq!(f["figure"].as_f64(), Some(n as f64));
                assert!(title.contains("one-frame stack"), "{title}");
            }
            _ => {}
        }
    }
    list
}

#[test]
fn demo_cpu_findings_leave_idle_out() {
    let list = check(&demo());
    assert!(
        list.iter().any(|f| f["rule"] == "cpu-module"),
        "the demo has a module finding"
    );
}

#[test]
fn perfview_stack_finding_counts_what_it_says() {
    let Some(dir) = real_traces_dir() else { return };
    let list = check(&dir.join("perfview-net452-x64.etl"));
    assert!(
        list.iter().any(|f| f["rule"] == "samples-without-stacks"),
        "perfview-net452-x64 has one-frame samples"
    );
}
