//! `etlscope export` of the event tables on the real x64 trace. Expected
//! counts come from the independent Python reader (see the header comment of
//! crates/model/tests/event_tables_real.rs for the snippet): 562
//! Microsoft-Windows-Kernel-File creates over 102 distinct paths once NT
//! prefixes are mapped through the trace's VolumeMapping events.

mod common;

use serde_json::Value;
use std::process::Command;

use testdata::real_traces_dir;

fn export_json(args: &[&str]) -> Option<Vec<Value>> {
    let file = real_traces_dir()?.join("perfview-net452-x64.etl");
    let out = Command::new(common::binary())
        .arg("export")
        .arg(&file)
        .args(args)
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(serde_json::from_slice::<Vec<Value>>(&out.stdout).unwrap())
}

#[test]
fn file_creates_per_path() {
    let Some(rows) = export_json(&[
        "--table",
        "file-io",
        "--group",
        "File Path",
        "--filter",
        "Type=Create",
    ]) else {
        return;
    };
    assert_eq!(rows.len(), 102);
    let total: u64 = rows.iter().map(|r| r["Count"].as_u64().unwrap()).sum();
    assert_eq!(total, 562);
    assert_eq!(
        rows[0]["File Path"],
        r"C:\Windows\CSC\v2.0.6\namespace\clrmain"
    );
    assert_eq!(rows[0]["Count"], 69);
    let mscorlib = rows
        .iter()
        .find(|r| {
            r["File Path"]
                == r"C:\Windows\Microsoft.Net\assembly\GAC_64\mscorlib\v4.0_4.0.0.0__b77a5c561934e089\mscorlib.dll"
        })
        .unwrap();
    assert_eq!(mscorlib["Count"], 16);
}

#[test]
fn disk_io_per_type_and_generic_per_provider() {
    let Some(rows) = export_json(&["--table", "disk-io", "--group", "IO Type"]) else {
        return;
    };
    let count = |ty: &str| {
        rows.iter()
            .find(|r| r["IO Type"] == ty)
            .map(|r| r["Count"].as_u64().unwrap())
    };
    // Census: 0x010A 1208, 0x010B 21, 0x010E 2.
    assert_eq!(
        (count("Read"), count("Write"), count("Flush")),
        (Some(1208), Some(21), Some(2))
    );
    let Some(rows) = export_json(&["--table", "generic", "--group", "Provider"]) else {
        return;
    };
    let rundown = rows
        .iter()
        .find(|r| r["Provider"] == "Microsoft-Windows-DotNETRuntimeRundown")
        .unwrap();
    // Census: every a669021c-... event (none is taken by another table).
    assert_eq!(rundown["Count"], 33_011);
    // The tables with nothing in this trace still export (empty).
    assert_eq!(export_json(&["--table", "cpu-precise"]).unwrap().len(), 0);
}
