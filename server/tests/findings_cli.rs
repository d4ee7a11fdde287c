//! `etlscope findings`: on the demo trace it names the shell extension in
//! Explorer (26,000 samples), the CreateToolhelp32Snapshot/Process32NextW
//! pattern and ti_managers_proxy.dll opened 4,663 times (traces/README.md's
//! figures); on every trace, each figure equals the `etlscope export` rows
//! its view names (summed here by plain loops over the exported rows), or
//! the `etlscope info --json` / `etlscope symbols` figure it names
//! (`findings_health.rs` checks that no health finding is missing).

mod common;

use common::export_json;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn run_json(sub: &str, file: &Path, extra: &[&str]) -> Value {
    let out = Command::new(common::binary())
        .arg(sub)
        .arg(file)
        .args(extra)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{sub} {}: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn findings(file: &Path) -> Vec<Value> {
    let v = run_json("findings", file, &["--format", "json"]);
    v.as_array().expect("a list").clone()
}

fn demo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../traces/explorer-overlay.etl")
}

fn strs(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .map(|s| s.as_str().unwrap_or("").to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// Frames of an exported Stack cell (root first, `;`-separated).
fn frames(stack: &Value) -> Vec<String> {
    let s = stack.as_str().unwrap_or("");
    if s.is_empty() {
        return Vec::new();
    }
    s.split(';').map(str::to_string).collect()
}

fn count(row: &Value) -> f64 {
    row["Count"].as_f64().expect("a Count")
}

/// The figure `f`'s view shows, from `etlscope export` (or `info`) output.
fn expected(file: &Path, f: &Value) -> f64 {
    let view = &f["view"];
    let kind = view["kind"].as_str().unwrap();
    if kind == "info" {
        let info = run_json("info", file, &["--json"]);
        let key = view["target"].as_str().unwrap();
        return info
            .pointer(&format!("/{}", key.replace('.', "/")))
            .and_then(Value::as_f64)
            .unwrap_or_else(|| panic!("info has no {key}"));
    }
    if kind == "model" {
        // The model's hard faults on the row's file, counted here.
        assert_eq!(view["table"], "hard-faults");
        let want = strs(&view["row"]);
        let etl = etl::EtlFile::open(file).unwrap();
        let t = model::build(&etl);
        let h = &t.hard_faults;
        return h
            .path
            .iter()
            .filter(|&&p| t.strings.get(p) == want[0])
            .count() as f64;
    }
    if kind == "symbols" {
        let (unnamed, _) = common::symbols_report::unnamed_frames(file);
        let m = view["target"].as_str().unwrap();
        return unnamed[m] as f64;
    }
    let mut args: Vec<String> = vec![file.to_str().unwrap().into()];
    args.extend(strs(&view["export"]));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let rows = export_json(&args);
    let rows = rows.as_array().expect("rows");
    if kind == "butterfly" {
        // Every sample with the target on its stack, once however often.
        let target = view["target"].as_str().unwrap();
        let module_target = !target.contains('!');
        return rows
            .iter()
            .filter(|r| {
                frames(&r["Stack"]).iter().any(|fr| {
                    if module_target {
                        fr.starts_with(&format!("{target}!"))
                    } else {
                        fr == target
                    }
                })
            })
            .map(count)
            .sum();
    }
    let group = strs(&view["group"]);
    let want = strs(&view["row"]);
    let column = view["column"].as_str().unwrap();
    if f["rule"] == "samples-without-stacks" {
        return rows
            .iter()
            .filter(|r| frames(&r["Stack"]).len() < 2)
            .map(count)
            .sum();
    }
    let row = rows
        .iter()
        .find(|r| {
            group.iter().zip(&want).all(|(g, w)| match &r[g.as_str()] {
                Value::String(s) => s == w,
                Value::Number(n) => n.to_string() == *w,
                _ => w.is_empty(),
            })
        })
        .unwrap_or_else(|| panic!("no export row {want:?} for {f}"));
    row[column].as_f64().expect("a number")
}

fn check_all(file: &Path) -> Vec<Value> {
    let list = findings(file);
    for f in &list {
        let got = f["figure"].as_f64().unwrap();
        let want = expected(file, f);
        assert!(
            (got - want).abs() <= 1e-9 * want.abs().max(1.0),
            "{}: {} says {got}, its view shows {want}",
            file.display(),
            f["title"]
        );
    }
    list
}

fn find<'a>(list: &'a [Value], rule: &str, needle: &str) -> &'a Value {
    list.iter()
        .find(|f| f["rule"] == rule && f["title"].as_str().unwrap().contains(needle))
        .unwrap_or_else(|| panic!("no {rule} finding with {needle:?}"))
}

#[test]
fn demo_findings_name_the_culprit() {
    let list = check_all(&demo());
    let ext = find(&list, "third-party-module", "tishell64_26_0_39450.dll");
    assert_eq!(ext["figure"], 26000.0);
    assert!(ext["title"]
        .as_str()
        .unwrap()
        .contains("explorer.exe (6148)"));
    // Issue 17: "the unversioned shell extension in explorer.exe".
    assert!(ext["title"]
        .as_str()
        .unwrap()
        .contains("(without version information)"));
    let snap = find(&list, "hot-api", "kernel32.dll!CreateToolhelp32Snapshot");
    assert_eq!(snap["figure"], 3100.0);
    let next = find(&list, "hot-api", "kernel32.dll!Process32NextW");
    assert_eq!(next["figure"], 6600.0);
    assert!(next["title"]
        .as_str()
        .unwrap()
        .contains("tishell64_26_0_39450.dll"));
    let proxy = find(&list, "file-opened-often", "ti_managers_proxy.dll");
    assert_eq!(proxy["figure"], 4663.0);
    // The same opens, spread over the 7-23 s burst: polling too.
    let poll = find(&list, "file-polling", "ti_managers_proxy.dll");
    assert_eq!(poll["figure"], 4663.0);
    assert_eq!(
        proxy["view"]["link"],
        "v=2&view=table&t=file-io&g=File%20Path&c=Count&f=Type%3DCreate&sel=C%3A%5CProgram%20Files%20%28x86%29%5CAcronis%5CTrueImageHome%5Cti_managers_proxy.dll"
    );
}

#[test]
fn findings_on_every_real_trace_equal_their_exports() {
    let Some(files) = testdata::real_trace_files() else {
        return;
    };
    assert!(!files.is_empty());
    for f in &files {
        check_all(f);
    }
}

#[test]
fn the_api_gives_the_cli_list() {
    let data = common::temp_dir("findings-api");
    let demo = demo();
    let server = common::Server::start(&data, &[demo.to_str().unwrap()]);
    let (_, list) = server.json("GET", "/api/traces", "");
    let id = list["traces"][0]["id"].as_str().expect("an id").to_string();
    server.wait_ready(&id, 120);
    // The CLI names frames before it runs the rules: wait for the server's
    // symbol lookup (traces/symbols/ beside the demo) to end too.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    loop {
        let (_, sum) = server.json("GET", &format!("/api/traces/{id}/summary"), "");
        if sum["symbols"]["status"] == "done" {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "symbols not done: {sum}"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let (s, v) = server.json("GET", &format!("/api/traces/{id}/findings"), "");
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["findings"], Value::Array(findings(&demo)));
}
