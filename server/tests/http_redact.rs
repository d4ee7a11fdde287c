//! Issue 40, point 2: Share a redacted copy. `POST /api/traces/{id}/redact/preview`
//! answers what `etlscope redact --report json` says of the same file (the
//! same counts per category, the same originals as examples), and
//! `POST /api/traces/{id}/redact` adds the copy to the library as a new trace
//! linked to its original (`redacted_from`), whose link opens, whose file
//! holds none of the originals, and which stays when the original is
//! deleted. `serve --require-redacted` refuses uploads `etlscope redact` did
//! not write (422) and takes the ones it did, one file or a zip of several.

mod common;

use common::{binary, request, temp_dir, Server};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;

const TOKEN: &str = "share-t0k";

fn demo() -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../traces/explorer-overlay.etl"
    ))
}

fn fixed() -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../traces/explorer-fixed.etl"
    ))
}

fn call(s: &Server, method: &str, path: &str, body: &[u8], token: bool) -> (u16, Value) {
    let auth = format!("Bearer {TOKEN}");
    let headers: Vec<(&str, &str)> = if token {
        vec![("Authorization", auth.as_str())]
    } else {
        Vec::new()
    };
    let (st, b) = request(&s.addr, method, path, body, &headers);
    (st, serde_json::from_str(&b).unwrap_or(Value::Null))
}

/// `etlscope redact FILES -o OUT --report json` plus `extra`.
fn cli_redact(files: &[&Path], out: &Path, extra: &[&str]) -> Value {
    let o = Command::new(binary())
        .arg("redact")
        .args(files)
        .arg("-o")
        .arg(out)
        .args(["--report", "json"])
        .args(extra)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

/// What must agree between two reports of one trace: per category whether
/// it was kept, the originals and places counted, the examples' originals
/// (their replacements are drawn per run); the buffers and events.
fn comparable(r: &Value) -> Value {
    let mut cats = serde_json::Map::new();
    for (name, c) in r["categories"].as_object().unwrap() {
        let originals: Vec<&Value> = c["examples"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| &e["original"])
            .collect();
        cats.insert(
            name.clone(),
            json!({"kept": c["kept"], "originals": c["originals"], "replaced": c["replaced"], "examples": originals}),
        );
    }
    json!({"categories": cats, "buffers": r["buffers"], "events": r["events"], "marked": r["marked"]})
}

/// (text, where) of each example original found in `bytes`, ASCII or UTF-16LE, any case.
fn left(bytes: &[u8], report: &Value) -> Vec<String> {
    let lower: Vec<u8> = bytes.iter().map(u8::to_ascii_lowercase).collect();
    let mut out = Vec::new();
    for c in report["categories"].as_object().unwrap().values() {
        for e in c["examples"].as_array().unwrap() {
            let o = e["original"].as_str().unwrap().to_ascii_lowercase();
            let wide: Vec<u8> = o.encode_utf16().flat_map(u16::to_le_bytes).collect();
            for pat in [o.as_bytes().to_vec(), wide] {
                if pat.len() >= 4 && lower.windows(pat.len()).any(|w| w == pat.as_slice()) {
                    out.push(o.clone());
                }
            }
        }
    }
    out
}

#[test]
fn share_panel_preview_equals_the_cli_and_the_copy_is_a_linked_library_entry() {
    let dir = temp_dir("http-redact");
    let s = Server::start(&dir.join("data"), &["--token", TOKEN]);
    let bytes = std::fs::read(demo()).unwrap();
    let (st, up) = call(&s, "POST", "/api/traces?name=demo-trace.etl", &bytes, true);
    assert_eq!(st, 201, "{up}");
    let original = up["id"].as_str().unwrap().to_string();
    let opts = json!({"keep": ["network"]}).to_string();

    // The preview is the CLI's report on the same file, with the same option.
    let t0 = std::time::Instant::now();
    let cli = cli_redact(&[&demo()], &dir.join("cli.etl"), &["--keep", "network"]);
    let t_cli = t0.elapsed();
    let preview_path = format!("/api/traces/{original}/redact/preview");
    let t0 = std::time::Instant::now();
    let (st, preview) = call(&s, "POST", &preview_path, opts.as_bytes(), true);
    let t_preview = t0.elapsed();
    assert_eq!(st, 200, "{preview}");
    assert_eq!(comparable(&preview), comparable(&cli));
    assert_eq!(preview["marked"], true);
    let users = &preview["categories"]["users"];
    assert!(users["originals"].as_u64().unwrap() >= 1, "{preview}");
    assert_eq!(preview["categories"]["network"]["kept"], true);
    eprintln!(
        "preview {t_preview:.1?}, CLI {t_cli:.1?}: users {}, command-lines {}",
        users, preview["categories"]["command-lines"]
    );

    // Refused clearly: no token, a category that is none, unknown fields, a trace that is none.
    assert_eq!(
        call(&s, "POST", &preview_path, opts.as_bytes(), false).0,
        401
    );
    let (st, v) = call(&s, "POST", &preview_path, br#"{"keep":["names"]}"#, true);
    assert_eq!(st, 400, "{v}");
    let m = v["error"]["message"].as_str().unwrap();
    assert!(m.contains("names") && m.contains("command-lines"), "{m}");
    let (st, v) = call(&s, "POST", &preview_path, br#"{"salt":1}"#, true);
    assert_eq!(st, 400, "{v}");
    let (st, v) = call(&s, "POST", &preview_path, &vec![b' '; 70_000], true);
    assert_eq!(st, 413, "{v}");
    let none = format!("/api/traces/{}/redact", "0".repeat(32));
    assert_eq!(call(&s, "POST", &none, b"{}", true).0, 404);

    // The copy: a new library entry naming its original; its link opens.
    let (st, copy) = call(
        &s,
        "POST",
        &format!("/api/traces/{original}/redact"),
        opts.as_bytes(),
        true,
    );
    assert_eq!(st, 201, "{copy}");
    let id = copy["id"].as_str().unwrap().to_string();
    assert_ne!(id, original);
    assert_eq!(copy["redacted_from"], original.as_str());
    assert_eq!(copy["url"], format!("/t/{id}"));
    assert_eq!(comparable(&copy["report"]), comparable(&cli));
    let ready = s.wait_ready(&id, 60);
    assert_eq!(
        ready["summary"]["events"],
        s.wait_ready(&original, 60)["summary"]["events"]
    );
    let (st, page) = s.get(&format!("/t/{id}"));
    assert_eq!(st, 200, "{page}");
    let (_, list) = call(&s, "GET", "/api/traces", b"", false);
    let listed = list["traces"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["id"] == id.as_str())
        .unwrap();
    assert_eq!(listed["redacted_from"], original.as_str());
    // Its name is the original's with the originals (the user "demo") replaced too.
    let name = listed["name"].as_str().unwrap();
    assert!(
        !name.contains("demo") && name.ends_with("-trace.etl (redacted)"),
        "{listed}"
    );
    let orig_listed = list["traces"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["id"] == original.as_str())
        .unwrap();
    assert!(orig_listed.get("redacted_from").is_none(), "{orig_listed}");

    // The stored copy holds none of the originals its report shows.
    // Under the cluster (ETLSCOPE_CLUSTER) the copy is kept by the replica that
    // made it: replica 0 in the test's data folder, the others in replica-N in it.
    let stored = ["", "replica-1/", "replica-2/"]
        .iter()
        .find_map(|r| std::fs::read(dir.join(format!("data/{r}traces/{id}.etl"))).ok())
        .expect("the stored copy in a replica's data folder");
    let found = left(&stored, &copy["report"]);
    assert!(found.is_empty(), "originals left in the copy: {found:?}");
    let plain = std::fs::read(demo()).unwrap();
    assert!(
        !left(&plain, &copy["report"]).is_empty(),
        "the test's search finds nothing"
    );

    // The original deleted, the copy stays, still naming it.
    let (st, _) = call(&s, "DELETE", &format!("/api/traces/{original}"), b"", true);
    assert_eq!(st, 204);
    let (st, after) = call(&s, "GET", &format!("/api/traces/{id}"), b"", false);
    assert_eq!(st, 200, "{after}");
    assert_eq!(after["redacted_from"], original.as_str());
    assert_eq!(
        call(&s, "GET", &format!("/api/traces/{original}"), b"", false).0,
        410
    );
    let (st, v) = call(
        &s,
        "POST",
        &format!("/api/traces/{original}/redact"),
        b"{}",
        true,
    );
    assert_eq!(st, 410, "{v}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn require_redacted_takes_only_the_redactors_output() {
    let dir = temp_dir("http-require-redacted");
    let demo = demo();
    let fixed = fixed();
    let one = dir.join("one.etl");
    cli_redact(&[&demo], &one, &[]);
    let two = dir.join("two.etl");
    let report = cli_redact(&[&demo, &fixed], &two, &[]);
    assert_eq!(report["members"].as_array().unwrap().len(), 2, "{report}");
    let s = Server::start(
        &dir.join("data"),
        &["--require-redacted", "--trace", fixed.to_str().unwrap()],
    );
    let (_, list) = call(&s, "GET", "/api/traces", b"", false);
    assert_eq!(list["access"]["require_redacted"], true, "{list}");
    let by_reference = list["traces"][0]["id"].as_str().unwrap().to_string();

    // Not redacted: refused, saying what to do; a zip of plain traces too.
    let (st, v) = call(
        &s,
        "POST",
        "/api/traces?name=t.etl",
        &std::fs::read(&demo).unwrap(),
        false,
    );
    assert_eq!(st, 422, "{v}");
    assert_eq!(v["error"]["code"], "not_redacted");
    let m = v["error"]["message"].as_str().unwrap();
    assert!(
        m.contains("etlscope redact") && m.contains("--require-redacted"),
        "{m}"
    );
    let zipped = common::zip_of(&[demo.clone(), fixed.clone()]);
    let (st, v) = call(&s, "POST", "/api/traces?name=t.zip", &zipped, false);
    assert_eq!(st, 422, "{v}");
    // A plain trace with the mark's text in its events is still refused:
    // the mark is looked for where the redactor writes it only.
    let mut tricked = std::fs::read(&demo).unwrap();
    tricked.extend_from_slice(b"etlscope redacted copy, v1\0\0\0\0\0\0");
    let (st, _) = call(&s, "POST", "/api/traces?name=t.etl", &tricked, false);
    assert!(st == 422 || st == 400, "{st}");

    // The redactor's output: taken, one file or a zip of several.
    for copy in [&one, &two] {
        let (st, v) = call(
            &s,
            "POST",
            "/api/traces?name=c.etl",
            &std::fs::read(copy).unwrap(),
            false,
        );
        assert_eq!(st, 201, "{}: {v}", copy.display());
        s.wait_ready(v["id"].as_str().unwrap(), 60);
    }
    // The server's own copies of its traces carry the mark too.
    let (st, v) = call(
        &s,
        "POST",
        &format!("/api/traces/{by_reference}/redact"),
        b"",
        false,
    );
    assert_eq!(st, 201, "{v}");
    assert_eq!(v["report"]["marked"], true);
    let _ = std::fs::remove_dir_all(&dir);
}
