//! `etlscope export` on the traces from the field, as WPA shows them:
//! system processes' session as -1 (the kernel logs 0xFFFFFFFF), image paths
//! in DOS form with the recorded form in a column of its own. Expected values
//! are hand decodes of the events (crates/model/tests/field_traces.rs has
//! the payload bytes).

mod common;

use common::{export_json, real_traces_dir};
use serde_json::Value;

fn rows(v: &Value) -> &Vec<Value> {
    v.as_array().expect("rows")
}

#[test]
fn system_sessions_are_minus_one() {
    let Some(dir) = real_traces_dir() else { return };
    let f = dir.join("sawbuck-win7-process-32bit.etl");
    let v = export_json(&[
        f.to_str().unwrap(),
        "--table",
        "processes",
        "--group",
        "Process",
        "--values",
        "Session",
    ]);
    let session = |p: &str| {
        rows(&v)
            .iter()
            .find(|r| r["Process"] == p)
            .map(|r| r["Session"].clone())
            .unwrap_or(Value::Null)
    };
    // smss.exe's process event: session ffffffff; notepad.exe's: 01000000.
    assert_eq!(session("smss.exe (264)"), -1);
    assert_eq!(session("notepad.exe (1776)"), 1);
}

#[test]
fn image_paths_are_dos_paths_and_the_recorded_path_is_kept() {
    let Some(dir) = real_traces_dir() else { return };
    let f = dir.join("perfview-net452-x64.etl");
    let v = export_json(&[
        f.to_str().unwrap(),
        "--table",
        "images",
        "--group",
        "Recorded Path,Image Path",
        "--filter",
        "Image Name=VMBusHID.sys",
    ]);
    let r = rows(&v).first().expect("a VMBusHID.sys row");
    // The load recorded \SystemRoot\...; the trace's SystemPaths event says
    // the Windows directory is C:\Windows\ (UTF-16 in its payload).
    assert_eq!(
        r["Recorded Path"],
        r"\SystemRoot\System32\drivers\VMBusHID.sys"
    );
    assert_eq!(r["Image Path"], r"C:\Windows\System32\drivers\VMBusHID.sys");
}
