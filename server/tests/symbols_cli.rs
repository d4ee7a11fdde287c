//! `etlscope export` and `etlscope symbols` name frames from PDBs: a
//! `symbols/` folder beside the trace is used without being asked for, and
//! `--symbol-path` adds a symstore folder. Expected names: llvm-pdbutil's
//! listing of the fixture PDB (see common/fixture_trace.rs).

mod common;

use common::fixture_trace;
use common::temp_dir;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

fn etlscope(args: &[&str], trace: &Path) -> String {
    let out = Command::new(common::binary())
        .arg(args[0])
        .arg(trace)
        .args(&args[1..])
        .env_remove("_NT_SYMBOL_PATH")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn function_column(trace: &Path, extra: &[&str]) -> BTreeMap<String, u64> {
    let mut args = vec![
        "export",
        "--table",
        "cpu-sampled",
        "--group",
        "Function",
        "--format",
        "json",
    ];
    args.extend_from_slice(extra);
    let rows: Vec<serde_json::Value> = serde_json::from_str(&etlscope(&args, trace)).unwrap();
    rows.iter()
        .map(|r| {
            (
                r["Function"].as_str().unwrap().to_string(),
                r["Count"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn export_names_frames_from_symbols_folder_beside_the_trace() {
    let dir = temp_dir("sym-beside");
    let (bytes, want) = fixture_trace::write();
    let trace = dir.join("fixture-samples.etl");
    std::fs::write(&trace, bytes).unwrap();
    // Without PDBs: every leaf is an address in fixture.dll.
    let unnamed = function_column(&trace, &[]);
    assert!(
        unnamed.keys().all(|k| k.starts_with("fixture.dll!0x")),
        "{unnamed:?}"
    );
    std::fs::create_dir(dir.join("symbols")).unwrap();
    std::fs::copy(
        fixture_trace::fixtures().join("fixture.pdb"),
        dir.join("symbols/fixture.pdb"),
    )
    .unwrap();
    assert_eq!(function_column(&trace, &[]), want);
    let text = etlscope(&["symbols"], &trace);
    let line = text
        .lines()
        .find(|l| l.starts_with("fixture.dll "))
        .unwrap_or_else(|| panic!("{text}"));
    let key = fixture_trace::symstore_key("fixture.pdb");
    assert!(line.contains(&format!("fixture.pdb {key}")), "{line}");
    // 21 distinct frames: 3 probes in each of 7 functions (callers are
    // function middles, which are probes too).
    assert!(line.contains(" 21/21 "), "{line}");
    assert!(line.contains("loaded: "), "{line}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn export_and_symbols_take_a_symbol_path() {
    let dir = temp_dir("sym-path");
    let (bytes, want) = fixture_trace::write();
    let trace = dir.join("fixture-samples.etl");
    std::fs::write(&trace, bytes).unwrap();
    let store = dir.join("store");
    let key = fixture_trace::symstore_key("fixture.pdb");
    std::fs::create_dir_all(store.join("fixture.pdb").join(&key)).unwrap();
    std::fs::copy(
        fixture_trace::fixtures().join("fixture.pdb"),
        store.join("fixture.pdb").join(&key).join("fixture.pdb"),
    )
    .unwrap();
    let path = store.to_str().unwrap();
    assert_eq!(function_column(&trace, &["--symbol-path", path]), want);
    // The wrong-GUID PDB in a flat folder: nothing named, status says why.
    let wrong = dir.join("wrong");
    std::fs::create_dir(&wrong).unwrap();
    std::fs::copy(
        fixture_trace::fixtures().join("variant/fixture.pdb"),
        wrong.join("fixture.pdb"),
    )
    .unwrap();
    let text = etlscope(
        &["symbols", "--symbol-path", wrong.to_str().unwrap()],
        &trace,
    );
    let line = text
        .lines()
        .find(|l| l.starts_with("fixture.dll "))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(line.contains(" 0/21 "), "{line}");
    assert!(line.contains("identity mismatch: "), "{line}");
    let _ = std::fs::remove_dir_all(&dir);
}
