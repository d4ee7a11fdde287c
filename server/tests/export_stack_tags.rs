//! `etlscope export --group "Stack Tag"` (and `--stack-tags FILE`) on CPU
//! Usage (Sampled) of the demo trace and CPU Usage (Precise) of a written
//! trace with context switches, against a naive tagger run here over the
//! stacks export prints (`--group "Process,Stack"`); it shares no code
//! with the server. Over HTTP, the CPU Usage (Precise) row table and the
//! export of an uploaded set give the same counts.

mod common;

use common::naive_tagger::{naive_tag, Entry, FIXTURE_ENTRIES};
use common::{export_json, request, temp_dir, Server};
use serde_json::Value;
use std::collections::BTreeMap;

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../fixtures/stacktags/test.stacktags"
);
const DEMO: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../traces/explorer-overlay.etl"
);

/// A set for the switches trace, written here.
const SWITCH_XML: &str = r#"<?xml version="1.0"?>
<Tag Name="">
  <Tag Name="Kernel"><Entrypoint Module="ntoskrnl.exe" Method="*"/></Tag>
  <Tag Name="Win32" Priority="2"><Entrypoint Module="KERNEL32.dll" Method="*"/></Tag>
  <Tag Name="App">
    <Entrypoint Module="a.exe" Method="*"/>
    <Tag Name="B"><Entrypoint Module="?.exe" Method="?"/></Tag>
  </Tag>
</Tag>"#;

const SWITCH_ENTRIES: [Entry; 4] = [
    ("ntoskrnl.exe", "*", "Kernel", 0),
    ("kernel32.dll", "*", "Win32", 2),
    ("a.exe", "*", "App", 0),
    ("?.exe", "?", "App\\B", 0),
];

/// The built-in set's entries that an unsymbolized frame (method `?`) of
/// these modules can match: only ntoskrnl.exe's `*`.
const BUILTIN_UNNAMED: [Entry; 1] = [("ntoskrnl.exe", "*", "Windows\\Kernel", 0)];

fn rows(v: &Value) -> &Vec<Value> {
    v.as_array().expect("rows")
}

fn text(r: &Value, c: &str) -> String {
    r[c].as_str().unwrap_or("").to_string()
}

/// Count per (process, tag) from export rows of `process_col,stack_col`.
fn naive_counts(
    export: &Value,
    process_col: &str,
    stack_col: &str,
    entries: &[Entry],
) -> BTreeMap<(String, String), u64> {
    let mut want = BTreeMap::new();
    for r in rows(export) {
        let key = (
            text(r, process_col),
            naive_tag(entries, &text(r, stack_col)),
        );
        *want.entry(key).or_default() += r["Count"].as_u64().unwrap_or(0);
    }
    want
}

/// Counts of export rows by the text of `cols` (joined).
fn counts(export: &Value, cols: &[&str]) -> BTreeMap<Vec<String>, u64> {
    rows(export)
        .iter()
        .map(|r| {
            let k = cols.iter().map(|c| text(r, c)).collect();
            (k, r["Count"].as_u64().unwrap_or(0))
        })
        .collect()
}

/// Sum the naive counts over processes: per tag.
fn by_tag(m: &BTreeMap<(String, String), u64>) -> BTreeMap<Vec<String>, u64> {
    let mut out = BTreeMap::new();
    for ((_, tag), n) in m {
        *out.entry(vec![tag.clone()]).or_default() += n;
    }
    out
}

fn pairs(m: &BTreeMap<(String, String), u64>) -> BTreeMap<Vec<String>, u64> {
    m.iter()
        .map(|((p, t), n)| (vec![p.clone(), t.clone()], *n))
        .collect()
}

#[test]
fn cpu_sampled_export_groups_and_filters_by_stack_tag() {
    let stacks = export_json(&[DEMO, "--table", "cpu-sampled", "--group", "Process,Stack"]);
    let want = naive_counts(&stacks, "Process", "Stack", &FIXTURE_ENTRIES);
    let tags = ["--stack-tags", FIXTURE];
    let got = export_json(
        &[
            &[DEMO, "--table", "cpu-sampled", "--group", "Stack Tag"][..],
            &tags,
        ]
        .concat(),
    );
    let per_tag = by_tag(&want);
    eprintln!("demo stack tags: {per_tag:?}");
    assert_eq!(counts(&got, &["Stack Tag"]), per_tag);
    assert!(per_tag.len() >= 5, "{per_tag:?}");
    let got = export_json(
        &[
            &[
                DEMO,
                "--table",
                "cpu-sampled",
                "--group",
                "Process,Stack Tag",
            ][..],
            &tags,
        ]
        .concat(),
    );
    assert_eq!(counts(&got, &["Process", "Stack Tag"]), pairs(&want));
    // Filtered to one tag, grouped by process.
    let args = [
        DEMO,
        "--table",
        "cpu-sampled",
        "--group",
        "Process",
        "--filter",
        "Stack Tag=Kernel",
    ];
    let got = export_json(&[&args[..], &tags].concat());
    let kernel: BTreeMap<Vec<String>, u64> = want
        .iter()
        .filter(|((_, t), _)| t == "Kernel")
        .map(|((p, _), n)| (vec![p.clone()], *n))
        .collect();
    assert!(!kernel.is_empty());
    assert_eq!(counts(&got, &["Process"]), kernel);
}

#[test]
fn cpu_precise_export_groups_by_stack_tag_of_the_new_thread() {
    let dir = temp_dir("export-stack-tags");
    let trace = dir.join("switches.etl");
    let bytes = synth::switches::write_switches(7, 2000).expect("written");
    std::fs::write(&trace, bytes).expect("trace written");
    let set = dir.join("switches.stacktags");
    std::fs::write(&set, SWITCH_XML).expect("set written");
    let (trace, set) = (trace.to_string_lossy(), set.to_string_lossy());
    let base = [trace.as_ref(), "--table", "cpu-precise"];
    let stacks = export_json(&[&base[..], &["--group", "New Process,New Thread Stack"]].concat());
    let total: u64 = rows(&stacks)
        .iter()
        .map(|r| r["Count"].as_u64().unwrap_or(0))
        .sum();
    assert_eq!(total, 2000);
    let want = naive_counts(&stacks, "New Process", "New Thread Stack", &SWITCH_ENTRIES);
    let tags = ["--stack-tags", set.as_ref()];
    let got = export_json(&[&base[..], &["--group", "Stack Tag"], &tags].concat());
    let per_tag = by_tag(&want);
    eprintln!("switches stack tags: {per_tag:?}");
    // Every tag of the set and n/a (every frame matches an entry: no Other).
    assert!(per_tag.len() >= 5, "{per_tag:?}");
    assert_eq!(counts(&got, &["Stack Tag"]), per_tag);
    let got = export_json(
        &[
            &base[..],
            &["--group", "New Process,New Thread Stack Tag"],
            &tags,
        ]
        .concat(),
    );
    assert_eq!(counts(&got, &["New Process", "Stack Tag"]), pairs(&want));
    // The built-in set by default.
    let got = export_json(&[&base[..], &["--group", "Stack Tag"]].concat());
    let want = naive_counts(&stacks, "New Process", "New Thread Stack", &BUILTIN_UNNAMED);
    assert_eq!(counts(&got, &["Stack Tag"]), by_tag(&want));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn cpu_precise_row_table_and_http_export_use_the_views_set() {
    let dir = temp_dir("precise-stack-tags");
    let trace = dir.join("switches.etl");
    let bytes = synth::switches::write_switches(11, 1500).expect("written");
    std::fs::write(&trace, bytes).expect("trace written");
    let trace = trace.to_string_lossy().to_string();
    let stacks = export_json(&[
        &trace,
        "--table",
        "cpu-precise",
        "--group",
        "New Process,New Thread Stack",
    ]);
    let want = by_tag(&naive_counts(
        &stacks,
        "New Process",
        "New Thread Stack",
        &SWITCH_ENTRIES,
    ));
    let data = dir.join("data");
    let server = Server::start(&data, &[&trace]);
    let (_, list) = server.json("GET", "/api/traces", "");
    let id = list["traces"][0]["id"].as_str().expect("an id").to_string();
    server.wait_ready(&id, 120);
    let (s, v) = server.json("PUT", "/api/stacktags/switches", SWITCH_XML);
    assert_eq!(s, 201, "{v}");
    let tagged = [("X-Etlscope-Stack-Tags", "switches")];
    let body = r#"{"table":"cpu-precise","columns":["Stack Tag"],"limit":1000}"#;
    let (s, b) = request(
        &server.addr,
        "POST",
        &format!("/api/traces/{id}/table"),
        body.as_bytes(),
        &tagged,
    );
    assert_eq!(s, 200, "{b}");
    let v: Value = serde_json::from_str(&b).expect("json");
    let got: BTreeMap<Vec<String>, u64> = rows(&v["rows"])
        .iter()
        .map(|r| (vec![text(r, "label")], r["count"].as_u64().unwrap_or(0)))
        .collect();
    assert_eq!(got, want);
    // The download of that view: the same counts, as CSV.
    let body = r#"{"table":"cpu-precise","group":["Stack Tag"],"values":["Count"],"format":"csv"}"#;
    let (s, csv) = request(
        &server.addr,
        "POST",
        &format!("/api/traces/{id}/export"),
        body.as_bytes(),
        &[tagged[0], ("X-Etlscope", "1")],
    );
    assert_eq!(s, 200, "{csv}");
    let got: BTreeMap<Vec<String>, u64> = csv
        .lines()
        .skip(1)
        .filter_map(|l| {
            let (tag, n) = l.rsplit_once(',')?;
            Some((vec![tag.trim_matches('"').to_string()], n.parse().ok()?))
        })
        .collect();
    assert_eq!(got, want);
    drop(server);
    std::fs::remove_dir_all(&dir).ok();
}
