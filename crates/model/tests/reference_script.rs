//! The expected figures in `expected/` still are what the committed model
//! reference (tests/reference/model_reference.py) prints: guards against hand
//! edits of the constants and against changes of the script that were not
//! carried over. Skips loudly without python3 (fails under CI; about 30 s of Python).

mod common;

#[path = "expected/perfview_managed.rs"]
mod managed;
#[path = "expected/perfview_net452.rs"]
mod pv;
#[path = "expected/shutdown_perfdiag.rs"]
mod sd;

use serde_json::{json, Value};
use std::collections::BTreeMap;

const SCRIPT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/reference/model_reference.py"
);

const MANAGED_SCRIPT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/reference/managed_frames.py"
);

fn run(mode: &str, trace: &str) -> Option<Value> {
    let dir = common::real_traces_dir()?;
    let path = dir.join(trace);
    let out = testdata::python3(&[SCRIPT.as_ref(), mode.as_ref(), path.as_os_str()])?;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(serde_json::from_slice(&out.stdout).unwrap())
}

fn none_if_empty(v: &Value) -> Value {
    if v.as_str() == Some("") {
        Value::Null
    } else {
        v.clone()
    }
}

fn hex(x: u64) -> String {
    format!("{x:#x}")
}

#[test]
fn perfview_figures_are_the_script_output() {
    let Some(v) = run("samples", "perfview-net452-x64.etl") else {
        return;
    };
    assert_eq!(v["samples"], pv::SAMPLES);
    assert_eq!(v["samples_with_stack"], pv::SAMPLES_WITH_STACK);
    assert_eq!(
        v["samples_with_stack_halves"]["kernel_and_user"],
        pv::SAMPLES_WITH_KERNEL_AND_USER_HALVES
    );
    assert_eq!(v["frames_over_all_samples"], pv::FRAMES_OVER_ALL_SAMPLES);
    let sensitive: Vec<(i64, u32)> = v["samples_sensitive_to_inline_walk_order"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p[0].as_i64().unwrap(), p[1].as_u64().unwrap() as u32))
        .collect();
    assert_eq!(sensitive, pv::SAMPLES_SENSITIVE_TO_INLINE_WALK_ORDER);
    let per_module: BTreeMap<String, Value> = pv::FRAMES_PER_MODULE
        .iter()
        .map(|&(m, n)| (m.to_string(), json!(n)))
        .collect();
    assert_eq!(v["frames_per_module"], json!(per_module));
    assert_eq!(v["stack_digest"], format!("{:#018x}", pv::STACK_DIGEST));
    assert_eq!(
        v["samples_with_two_or_more_frames"],
        pv::SAMPLES_WITH_TWO_OR_MORE_FRAMES
    );
    assert_eq!(
        v["top_process_samples_ip_in_clr_method"],
        pv::TOP_SAMPLES_IN_CLR_METHODS
    );
    let unmatched: u64 = v["ktc_unmatched_by_opcode"]
        .as_object()
        .unwrap()
        .values()
        .map(|n| n.as_u64().unwrap())
        .sum();
    assert_eq!(unmatched, pv::KTC_UNMATCHED as u64);
    let by_time: Vec<Value> = pv::FILE_VERSIONS_BY_TIME_ONLY
        .iter()
        .map(|&(p, v)| json!([p, v]))
        .collect();
    assert_eq!(
        v["file_versions_matched_by_time_only"],
        Value::Array(by_time)
    );
    let processes: Vec<Value> = pv::PROCESSES
        .iter()
        .map(|&(pid, name, s, e)| json!({"pid": pid, "name": name, "start": s, "end": e}))
        .collect();
    assert_eq!(v["processes"], Value::Array(processes));
    let per_process: BTreeMap<String, Value> = pv::PER_PROCESS
        .iter()
        .map(|&(p, n)| (p.to_string(), json!(n)))
        .collect();
    assert_eq!(v["samples_per_process"], json!(per_process));
    let per_thread: BTreeMap<String, Value> = pv::PER_THREAD
        .iter()
        .map(|&(p, tid, s, n)| {
            let s = s.map_or("None".to_string(), |s| s.to_string());
            (format!("{p} tid {tid} start {s}"), json!(n))
        })
        .collect();
    assert_eq!(v["samples_per_thread"], json!(per_thread));
    let outside: Vec<(i64, u32)> = v["samples_outside_every_lifetime"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| (o["ts"].as_i64().unwrap(), o["tid"].as_u64().unwrap() as u32))
        .collect();
    assert_eq!(outside, pv::OUTSIDE_EVERY_LIFETIME);
    let images: Vec<Value> = v["top_process_images"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            json!([
                i["base"],
                i["size"],
                i["path"],
                // An empty string is "no value", as the model reads it.
                none_if_empty(&i["file_version"]),
                none_if_empty(&i["product_name"]),
                i["pdb_guid"],
                i["pdb_age"],
                i["pdb_name"]
            ])
        })
        .collect();
    let want: Vec<Value> = pv::TOP_IMAGES
        .iter()
        .map(|&(b, n, path, fv, pn, guid, age, pdb)| {
            json!([hex(b), hex(n), path, fv, pn, guid, age, pdb])
        })
        .collect();
    assert_eq!(images, want);
}

#[test]
fn shutdown_figures_are_the_script_output() {
    let Some(v) = run("rundown", "shutdown-perfdiag-kernel.etl") else {
        return;
    };
    let processes: Vec<Value> = v["processes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| json!([p["pid"], p["name"], p["start"], p["end"]]))
        .collect();
    let want: Vec<Value> = sd::PROCESSES
        .iter()
        .map(|&(pid, name, s, e)| json!([pid, name, s, e]))
        .collect();
    assert_eq!(processes, want);
    let per_pid = |list: &Value, pid_key: &str, kernel: bool, a: &str, b: &str| {
        let mut m: BTreeMap<u64, (u32, u32, u32)> = BTreeMap::new();
        for x in list.as_array().unwrap() {
            let pid = if kernel && x["kernel"] == json!(true) {
                0
            } else {
                x[pid_key].as_u64().unwrap()
            };
            let e = m.entry(pid).or_default();
            e.0 += 1;
            e.1 += !x[a].is_null() as u32;
            e.2 += !x[b].is_null() as u32;
        }
        m.into_iter()
            .map(|(p, (n, x, y))| (p as u32, n, x, y))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        per_pid(&v["threads"], "pid", false, "start", "end"),
        sd::THREADS_PER_PID
    );
    assert_eq!(
        per_pid(&v["images"], "pid", true, "load", "unload"),
        sd::IMAGES_PER_PID
    );
    assert_eq!(v["counts"]["thread_instances"], sd::THREAD_INSTANCES);
    assert_eq!(v["counts"]["image_instances"], sd::IMAGE_INSTANCES);
    assert_eq!(v["counts"]["kernel_images"], sd::KERNEL_IMAGES);
}

#[test]
fn managed_frame_figures_are_the_script_output() {
    let Some(dir) = common::real_traces_dir() else {
        return;
    };
    let path = dir.join("perfview-net452-x64.etl");
    let Some(out) = testdata::python3(&[MANAGED_SCRIPT.as_ref(), path.as_os_str()]) else {
        return;
    };
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["clr_modules"], managed::CLR_MODULES);
    assert_eq!(v["clr_methods_with_code"], managed::CLR_METHODS_WITH_CODE);
    assert_eq!(
        v["managed_frames_over_all_samples"],
        managed::MANAGED_FRAMES_OVER_ALL_SAMPLES
    );
    assert_eq!(
        v["managed_frames_with_module_over_all_samples"],
        managed::MANAGED_FRAMES_WITH_MODULE_OVER_ALL_SAMPLES
    );
    assert_eq!(
        v["distinct_managed_frames"],
        managed::DISTINCT_MANAGED_FRAMES
    );
    assert_eq!(
        v["distinct_managed_frames_with_module"],
        managed::DISTINCT_MANAGED_FRAMES_WITH_MODULE
    );
    assert_eq!(v["ambiguous_addresses"], managed::AMBIGUOUS_ADDRESSES);
    assert_eq!(v["distinct_labels"], managed::DISTINCT_LABELS);
    let top: Vec<Value> = managed::TOP_LABELS
        .iter()
        .map(|&(l, n)| json!([l, n]))
        .collect();
    assert_eq!(v["top_labels"], json!(top));
    assert_eq!(
        v["label_digest"],
        format!("{:#018x}", managed::LABEL_DIGEST)
    );
    let per_module: BTreeMap<String, Value> = managed::FRAMES_PER_MODULE
        .iter()
        .map(|&(m, n)| (m.to_string(), json!(n)))
        .collect();
    assert_eq!(v["frames_per_module"], json!(per_module));
}
