//! `POST /callers`, `/callees` and `/search` on the demo trace, against a
//! fold of `etlscope export --table cpu-sampled --group Stack` rows done
//! here: per sample, the frames from the target's innermost occurrence
//! outwards (issue 16's acceptance: the caller tree of Process32NextW
//! reaches CFSFolder::_GetOverlayInfo two levels up).

mod common;

use common::{export_json, temp_dir, Server};
use serde_json::{json, Value};
use std::collections::BTreeMap;

const DEMO: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../traces/explorer-overlay.etl"
);
const TARGET: &str = "kernel32.dll!Process32NextW";

/// A frame as the Stack column groups it: `m.dll!0xRVA` is `m.dll!?`, a bare address `?!?`.
fn grouped(frame: &str) -> String {
    match frame.rsplit_once("!0x") {
        Some((m, _)) => format!("{m}!?"),
        None if frame.starts_with("0x") => "?!?".into(),
        None => frame.to_string(),
    }
}

/// (count, caller labels from the target outwards ending "[root]", callee
/// labels ending "[self]") per export row whose stack has the target.
fn sides(rows: &Value) -> Vec<(u64, Vec<String>, Vec<String>)> {
    let mut out = Vec::new();
    for r in rows.as_array().unwrap() {
        let st: Vec<String> = r["Stack"]
            .as_str()
            .unwrap()
            .split(';')
            .map(grouped)
            .collect();
        let Some(i) = st.iter().rposition(|f| f == TARGET) else {
            continue;
        };
        let mut up: Vec<String> = st[..i].iter().rev().cloned().collect();
        up.push("[root]".into());
        let mut down: Vec<String> = st[i + 1..].to_vec();
        down.push("[self]".into());
        out.push((r["Count"].as_u64().unwrap(), up, down));
    }
    out
}

/// Children of `path` in the folded sequences: label -> samples.
fn fold(seqs: &[(u64, Vec<String>)], path: &[String]) -> BTreeMap<String, u64> {
    let mut m = BTreeMap::new();
    for (n, s) in seqs {
        if s.len() > path.len() && s[..path.len()] == path[..] {
            *m.entry(s[path.len()].clone()).or_default() += n;
        }
    }
    m
}

fn rows_map(v: &Value) -> BTreeMap<String, u64> {
    v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["label"].as_str().unwrap().to_string(),
                r["count"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn caller_and_callee_trees_of_process32nextw_match_export_rows() {
    let rows = export_json(&[DEMO, "--table", "cpu-sampled", "--group", "Stack"]);
    let s = sides(&rows);
    let up: Vec<(u64, Vec<String>)> = s.iter().map(|x| (x.0, x.1.clone())).collect();
    let down: Vec<(u64, Vec<String>)> = s.iter().map(|x| (x.0, x.2.clone())).collect();
    let inclusive: u64 = s.iter().map(|x| x.0).sum();
    assert!(inclusive > 1000, "{inclusive}");

    let data = temp_dir("http-callers");
    let server = Server::start(&data, &[DEMO]);
    let (_, list) = server.json("GET", "/api/traces", "");
    let id = list["traces"][0]["id"].as_str().unwrap().to_string();
    server.wait_ready(&id, 120);
    // Frame names come from the demo's PDBs: wait for the background symbol lookup.
    for _ in 0..600 {
        let (_, s) = server.json("GET", &format!("/api/traces/{id}/symbols"), "");
        if s["status"] == "done" {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let post = |p: &str, body: Value| {
        let (st, v) = server.json("POST", &format!("/api/traces/{id}/{p}"), &body.to_string());
        assert_eq!(st, 200, "{p} {body}: {v}");
        v
    };

    // Up the heaviest path, each level expanded by its row's stable id,
    // until the shell's overlay lookup, two levels up: the extension's
    // unnamed IsMemberOf frame lies between.
    const OVERLAY: &str = "windows.storage.dll!CFSFolder::_GetOverlayInfo";
    let mut path_labels: Vec<String> = Vec::new();
    let mut path_ids: Vec<Value> = Vec::new();
    while path_labels.last().map(String::as_str) != Some(OVERLAY) {
        assert!(path_labels.len() < 12, "{path_labels:?}");
        let v = post(
            "callers",
            json!({"kind": "function", "target": TARGET, "path": path_ids}),
        );
        assert_eq!(
            rows_map(&v),
            fold(&up, &path_labels),
            "callers under {path_labels:?}"
        );
        let top = &v["rows"][0];
        path_labels.push(top["label"].as_str().unwrap().to_string());
        path_ids.push(top["id"].clone());
    }
    assert_eq!(path_labels.len(), 2, "{path_labels:?}");
    assert_eq!(path_labels[0], "tishell64_26_0_39450.dll!?");
    let v = post(
        "callers",
        json!({"kind": "function", "target": TARGET, "path": path_ids}),
    );
    assert_eq!(rows_map(&v), fold(&up, &path_labels));

    let v = post("callees", json!({"kind": "function", "target": TARGET}));
    assert_eq!(v["parent"]["count"].as_u64(), Some(inclusive));
    assert_eq!(rows_map(&v), fold(&down, &[]));

    // By module: a run of one module's frames is one level.
    let by_mod: Vec<(u64, Vec<String>)> = up
        .iter()
        .map(|(n, seq)| {
            let mut m: Vec<String> = Vec::new();
            for f in seq {
                let name = if f == "[root]" {
                    f.clone()
                } else {
                    f.split('!').next().unwrap().to_string()
                };
                if m.last() != Some(&name) || name == "[root]" {
                    m.push(name);
                }
            }
            (*n, m)
        })
        .collect();
    let v = post(
        "callers",
        json!({"kind": "function", "target": TARGET, "by": "module"}),
    );
    assert_eq!(rows_map(&v), fold(&by_mod, &[]));

    // The search box: case-insensitive, with the samples whose stack has it.
    let v = post("search", json!({"q": "process32n"}));
    let hit = v["matches"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["label"] == TARGET)
        .unwrap_or_else(|| panic!("{v}"));
    assert_eq!(hit["kind"], "function");
    assert_eq!(hit["count"].as_u64(), Some(inclusive));
    let (st, _) = server.json(
        "POST",
        &format!("/api/traces/{id}/search"),
        r#"{"q": "x", "limit": 0}"#,
    );
    assert_eq!(st, 400);
    let (st, _) = server.json(
        "POST",
        &format!("/api/traces/{id}/callers"),
        r#"{"kind": "function", "target": "no.dll!Nothing"}"#,
    );
    assert_eq!(st, 400);
    drop(server);
    std::fs::remove_dir_all(&data).ok();
}
