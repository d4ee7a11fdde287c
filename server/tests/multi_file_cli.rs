//! Issue 13 part 4: several `.etl` files given together are one trace. The
//! four members of `vs-dotnetcore31.diagsession`, extracted by the test and
//! given as separate files, read exactly as the container does (the
//! container's reading is checked against the reference census in
//! info_json.rs), and PerfView's naming (`x.etl` + `x.kernel*.etl` +
//! `x.user*.etl`) brings the companions of `x.etl` along.

mod common;
#[path = "../../crates/etl/tests/expected/mod.rs"]
mod expected;

use common::{export_json, extract_members, real_traces_dir};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

const DIAGSESSION: &str = "vs-dotnetcore31.diagsession";

fn etlscope(args: &[&std::ffi::OsStr]) -> (String, String) {
    let out = Command::new(common::binary()).args(args).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{args:?}: {stderr}");
    (String::from_utf8_lossy(&out.stdout).into_owned(), stderr)
}

fn os(s: &str) -> &std::ffi::OsStr {
    std::ffi::OsStr::new(s)
}

/// `info --json` without what names the files: the container's member
/// names carry its folder, and only a container has a `container_member`.
fn info_json(files: &[PathBuf], extra: &[&str]) -> Value {
    let mut args: Vec<&std::ffi::OsStr> = vec![os("info"), os("--json")];
    args.extend(extra.iter().map(|a| os(a)));
    args.extend(files.iter().map(|f| f.as_os_str()));
    let (out, _) = etlscope(&args);
    let mut v: Value = serde_json::from_str(&out).unwrap();
    v.as_object_mut().unwrap().remove("container_member");
    for m in v["members"].as_array_mut().unwrap() {
        let base = m["name"]
            .as_str()
            .unwrap()
            .rsplit('/')
            .next()
            .unwrap()
            .to_string();
        m["name"] = Value::String(base);
    }
    v
}

fn export(files: &[PathBuf], table: &str) -> String {
    let mut args: Vec<&std::ffi::OsStr> = vec![os("export")];
    args.extend(files.iter().map(|f| f.as_os_str()));
    args.extend([os("--table"), os(table)]);
    etlscope(&args).0
}

/// The diagsession and its members extracted into a fresh folder.
fn members() -> Option<(PathBuf, testdata::TempDir, Vec<PathBuf>)> {
    let dir = real_traces_dir()?;
    let tmp = testdata::TempDir::new("multi-file-cli");
    let files = extract_members(&dir.join(DIAGSESSION), tmp.path());
    assert_eq!(files.len(), 4, "{files:?}");
    Some((dir.join(DIAGSESSION), tmp, files))
}

fn names(files: &[PathBuf]) -> Vec<String> {
    files
        .iter()
        .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
        .collect()
}

#[test]
fn separate_files_read_as_the_container_does() {
    let Some((container, _tmp, files)) = members() else {
        return;
    };
    let whole = info_json(std::slice::from_ref(&container), &[]);
    let parts = info_json(&files, &[]);
    assert_eq!(whole, parts);
    // The independent figure: the reference census of each member.
    let want: u64 = expected::CONTAINER_MEMBERS
        .iter()
        .filter(|m| m.0 == DIAGSESSION)
        .map(|m| m.4)
        .sum();
    assert_eq!(parts["events"], want);
    // Tables built from the merged model, image identities joined across
    // members: the same rows.
    for table in ["images", "processes", "threads"] {
        assert_eq!(
            export(std::slice::from_ref(&container), table),
            export(&files, table),
            "{table}"
        );
    }
    // The kernel session alone has the 15,103 image loads (traces README)
    // without any PDB identity; merged, the KernelTraceControl session's
    // identities join them.
    let pdbs = |args: &[&str]| {
        let rows = export_json(args);
        let rows = rows.as_array().unwrap().clone();
        let with = rows
            .iter()
            .filter(|r| r["PDB GUID"].as_str().is_some_and(|g| !g.is_empty()))
            .count();
        (rows.len(), with)
    };
    let kernel = files[1].to_str().unwrap();
    let (n, with) = pdbs(&["--no-companions", kernel, "--table", "images"]);
    assert_eq!((n, with), (15_103, 0));
    let all: Vec<&str> = files.iter().map(|f| f.to_str().unwrap()).collect();
    let mut args = all.clone();
    args.extend(["--table", "images"]);
    let (n, with) = pdbs(&args);
    assert_eq!(n, 15_103);
    assert!(with > 10_000, "{with} of {n} images have a PDB identity");

    // Argument order does not change the trace.
    let mut reversed = files.clone();
    reversed.reverse();
    let r = info_json(&reversed, &[]);
    assert_eq!(r["events"], parts["events"]);
    assert_eq!(
        export(&reversed, "images"),
        export(std::slice::from_ref(&container), "images")
    );
}

/// The members are named as PerfView names an unmerged set (diaghub.etl,
/// diaghub.kernel.1.etl, diaghub.user_injected.1.etl,
/// diaghub.user_paged.1.etl): `info diaghub.etl` reads all four, in
/// TraceEvent's order (kernel, clr, user), which is the container's order.
#[test]
fn perfview_companions_come_along_unless_told_not_to() {
    let Some((container, _tmp, files)) = members() else {
        return;
    };
    assert_eq!(
        names(&files),
        [
            "diaghub.etl",
            "diaghub.kernel.1.etl",
            "diaghub.user_injected.1.etl",
            "diaghub.user_paged.1.etl"
        ]
    );
    let base = files[0].clone();
    let mut args: Vec<&std::ffi::OsStr> = vec![os("info"), os("--json")];
    args.push(base.as_os_str());
    let (_, stderr) = etlscope(&args);
    assert!(stderr.contains("diaghub.kernel.1.etl"), "{stderr}");
    assert_eq!(
        info_json(std::slice::from_ref(&base), &[]),
        info_json(std::slice::from_ref(&container), &[])
    );
    let alone = info_json(std::slice::from_ref(&base), &["--no-companions"]);
    let main_member = expected::CONTAINER_MEMBERS
        .iter()
        .find(|m| m.0 == DIAGSESSION && m.1.ends_with("/diaghub.etl"))
        .unwrap();
    assert_eq!(alone["events"], main_member.4);
    assert_eq!(alone["members"].as_array().map(Vec::len), Some(1));
    // The pair given explicitly (PerfView's x.etl + x.kernel.etl) is read
    // once each, with the remaining companions.
    let pair = [files[0].clone(), files[1].clone()];
    assert_eq!(
        info_json(&pair, &[])["members"].as_array().map(Vec::len),
        Some(4)
    );
    let only_pair = info_json(&pair, &["--no-companions"]);
    let kernel = expected::CONTAINER_MEMBERS
        .iter()
        .find(|m| m.0 == DIAGSESSION && m.1.ends_with("/diaghub.kernel.1.etl"))
        .unwrap();
    assert_eq!(only_pair["events"], main_member.4 + kernel.4);
}

/// A damaged file among several costs only its own events, and the
/// diagnostic names it.
#[test]
fn a_damaged_file_costs_only_its_own_events() {
    let Some((_, tmp, files)) = members() else {
        return;
    };
    let garbage = tmp.write("broken.etl", &[0x5a; 4096]);
    let truncated = tmp.write(
        "truncated.etl",
        std::fs::read(&files[2]).unwrap().get(..100).unwrap(),
    );
    let given = [files[0].clone(), garbage, truncated, files[3].clone()];
    let v = info_json(&given, &["--no-companions"]);
    let count = |suffix: &str| {
        expected::CONTAINER_MEMBERS
            .iter()
            .find(|m| m.0 == DIAGSESSION && m.1.ends_with(suffix))
            .map_or(0, |m| m.4)
    };
    assert_eq!(
        v["events"],
        count("/diaghub.etl") + count("/diaghub.user_paged.1.etl")
    );
    let errors = v["errors"].to_string();
    assert!(errors.contains("broken.etl is not read"), "{errors}");
    assert!(errors.contains("truncated.etl"), "{errors}");
    assert!(!errors.contains("diaghub.etl"), "{errors}");
    // Export reads the same two.
    let rows = export(&given[..], "processes");
    assert!(rows.lines().count() > 1, "{rows}");
}

#[test]
fn symbols_and_dump_take_several_files() {
    let Some((container, _tmp, files)) = members() else {
        return;
    };
    let run = |cmd: &str, f: &[PathBuf], extra: &[&str]| {
        let mut args: Vec<&std::ffi::OsStr> = vec![os(cmd)];
        args.extend(f.iter().map(|p| p.as_os_str()));
        args.extend(extra.iter().map(|a| os(a)));
        etlscope(&args).0
    };
    let empty = Path::new("/nonexistent-symbols")
        .to_string_lossy()
        .into_owned();
    assert_eq!(
        run("symbols", &files, &["--symbol-path", &empty]),
        run(
            "symbols",
            std::slice::from_ref(&container),
            &["--symbol-path", &empty]
        )
    );
    assert_eq!(
        run("dump", &files, &["--limit", "2000"]),
        run(
            "dump",
            std::slice::from_ref(&container),
            &["--limit", "2000"]
        )
    );
}

/// A path that names no file is an error that names it, not a member
/// silently left out.
#[test]
fn a_path_that_is_no_file_is_an_error() {
    let Some((_, tmp, files)) = members() else {
        return;
    };
    let missing = tmp.path().join("typo.etl");
    let out = Command::new(common::binary())
        .arg("info")
        .arg(&files[0])
        .arg(&missing)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("cannot open") && stderr.contains("typo.etl"),
        "{stderr}"
    );
}
