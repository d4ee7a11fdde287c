//! Regions files kept in the library (issue 37 point 1): uploaded over
//! HTTP, chosen per query with `X-Etlscope-Regions: NAME`, so that two
//! views of one server use different files; a bad file is a 422 naming its
//! line and costs only itself; links carry the name (`regions=NAME`).
//! Expected numbers come from `etlscope --regions FILE export` (the CLI's
//! own path, a process of its own), never from the server's answers.

mod common;

use common::{request, Server};
use serde_json::Value;
use std::path::Path;

const CLR: &str = "e13c0d23-ccbc-4e12-931b-d9cc2eee27e4";

/// GCStart (id 1) to GCEnd (id 2) of one process and GC number, under
/// root `root`; `nested` adds a second region, the same GCs by process only.
fn regions_xml(root: &str, nested: bool) -> String {
    let extra = if nested {
        format!(
            r#"<Region Guid="{{22222222-0000-0000-0000-000000000002}}" Name="AnyGC">
   <Start><Event Provider="{{{CLR}}}" Id="1" Version="1"/></Start>
   <Stop><Event Provider="{{{CLR}}}" Id="2" Version="1"/></Stop>
   <Match><Event PID="true"/></Match>
  </Region>"#
        )
    } else {
        String::new()
    };
    format!(
        r#"<?xml version='1.0' encoding='utf-8'?>
<InstrumentationManifest><Instrumentation><Regions>
 <RegionRoot Guid="{{11111111-0000-0000-0000-000000000000}}" Name="{root}">
  <Region Guid="{{11111111-0000-0000-0000-000000000001}}" Name="GC">
   <Start><Event Provider="{{{CLR}}}" Id="1" Version="1"/></Start>
   <Stop><Event Provider="{{{CLR}}}" Id="2" Version="1"/></Stop>
   <Match><Event PID="true"><Payload FieldName="Count"/></Event></Match>
  </Region>
  {extra}
 </RegionRoot>
</Regions></Instrumentation></InstrumentationManifest>"#
    )
}

/// `etlscope --regions FILE export TRACE ARGS --format json`.
fn export_with(regions: &Path, trace: &Path, args: &[&str]) -> Vec<Value> {
    let r = regions.to_str().unwrap_or_default();
    let t = trace.to_str().unwrap_or_default();
    let mut a = vec!["--regions", r, "export", t];
    a.extend(args);
    a.extend(["--format", "json"]);
    let out = std::process::Command::new(common::binary())
        .args(&a)
        .output()
        .expect("etlscope export");
    assert!(
        out.status.success(),
        "{a:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("export's JSON")
}

fn post_with(server: &Server, path: &str, body: &str, regions: &str) -> (u16, Value) {
    let headers: Vec<(&str, &str)> = if regions.is_empty() {
        Vec::new()
    } else {
        vec![("X-Etlscope-Regions", regions)]
    };
    let (s, b) = request(&server.addr, "POST", path, body.as_bytes(), &headers);
    (s, serde_json::from_str(&b).unwrap_or(Value::Null))
}

/// (label, count) of each row of a one-level table.
fn labels_counts(t: &Value) -> Vec<(String, u64)> {
    t["rows"]
        .as_array()
        .map(|rows| {
            rows.iter()
                .map(|r| {
                    (
                        r["label"].as_str().unwrap_or("").to_string(),
                        r["count"].as_u64().unwrap_or(0),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The same pairs from export's rows (`Region`, `Count`), empty keys included.
fn export_counts(rows: &[Value], key: &str) -> Vec<(String, u64)> {
    let mut v: Vec<(String, u64)> = rows
        .iter()
        .map(|r| {
            (
                r[key].as_str().unwrap_or("").to_string(),
                r["Count"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn regions_files_in_the_library_per_view() {
    let Some(dir) = testdata::real_traces_dir() else {
        return;
    };
    let trace = dir.join("perfview-net452-x64.etl");
    let tmp = common::temp_dir("regions-lib");
    let (gc_file, both_file) = (tmp.join("gc.xml"), tmp.join("both.xml"));
    std::fs::write(&gc_file, regions_xml("CLR", false)).expect("write");
    std::fs::write(&both_file, regions_xml("Runtime", true)).expect("write");

    // What the CLI says, with each file as `--regions`, while the server loads.
    let (want_gc, want_both, want_generic, want_cpu, want_inside, server, id) =
        std::thread::scope(|s| {
            let gc = s.spawn(|| export_with(&gc_file, &trace, &["--table", "regions", "--rows"]));
            let both = s.spawn(|| {
                export_with(
                    &both_file,
                    &trace,
                    &["--table", "regions", "--group", "Region"],
                )
            });
            let generic = s.spawn(|| {
                export_with(
                    &gc_file,
                    &trace,
                    &["--table", "generic", "--group", "Region"],
                )
            });
            let cpu = s.spawn(|| {
                export_with(
                    &gc_file,
                    &trace,
                    &[
                        "--table",
                        "cpu-sampled",
                        "--group",
                        "Region",
                        "--values",
                        "Count",
                    ],
                )
            });
            let inside = s.spawn(|| {
                export_with(
                    &gc_file,
                    &trace,
                    &[
                        "--table",
                        "cpu-sampled",
                        "--filter",
                        "Region=CLR/GC",
                        "--group",
                        "Process",
                        "--values",
                        "Count",
                    ],
                )
            });
            let data = common::temp_dir("regions-lib-data");
            let server = Server::start(&data, &[trace.to_str().unwrap_or_default()]);
            let (_, list) = server.json("GET", "/api/traces", "");
            let id = list["traces"][0]["id"].as_str().unwrap_or("").to_string();
            server.wait_ready(&id, 120);
            (
                gc.join().expect("gc"),
                both.join().expect("both"),
                generic.join().expect("generic"),
                cpu.join().expect("cpu"),
                inside.join().expect("inside"),
                server,
                id,
            )
        });
    assert!(want_gc.len() > 100, "{} GCs", want_gc.len());

    // Upload: the summary of the stored file.
    let (s, set) = server.json("PUT", "/api/regions/gc", &regions_xml("CLR", false));
    assert_eq!(s, 201, "{set}");
    assert_eq!(
        (set["regions"].as_u64(), set["timed"].as_u64()),
        (Some(2), Some(1))
    );
    let (s, set) = server.json("PUT", "/api/regions/both", &regions_xml("Runtime", true));
    assert_eq!(s, 201, "{set}");
    let (s, list) = server.json("GET", "/api/regions", "");
    assert_eq!(s, 200);
    let names: Vec<&str> = list["sets"]
        .as_array()
        .map(|a| a.iter().filter_map(|x| x["name"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(names, ["both", "gc"], "{list}");

    // A bad file: 422 with the parser's line; a bad name: 400; neither is kept.
    let bad = "<InstrumentationManifest>\n<Instrumentation><Regions>\n<Region Name='x'/>\n</Regions></Instrumentation></InstrumentationManifest>";
    let (s, e) = server.json("PUT", "/api/regions/broken", bad);
    assert_eq!(s, 422, "{e}");
    let msg = e["error"]["message"].as_str().unwrap_or("");
    assert!(msg.contains("line 3") && msg.contains("broken"), "{msg}");
    let (s, _) = server.json("PUT", "/api/regions/..%2Fx", &regions_xml("CLR", false));
    assert_eq!(s, 400);
    let (_, list) = server.json("GET", "/api/regions", "");
    assert_eq!(list["sets"].as_array().map(Vec::len), Some(2), "{list}");

    let table = format!("/api/traces/{id}/table");
    let regions_q = r#"{"table": "regions", "columns": ["Region"], "limit": 100}"#;
    // Without a file: no instances, and no Region column elsewhere.
    let (s, none) = post_with(&server, &table, regions_q, "");
    assert_eq!(s, 200, "{none}");
    assert_eq!(labels_counts(&none), []);
    let (s, e) = post_with(
        &server,
        &table,
        r#"{"table": "generic", "columns": ["Region"]}"#,
        "",
    );
    assert_eq!(s, 400, "{e}");

    // Two views of one server, at the same time, each with its own file:
    // the same instances as `--regions FILE export`.
    let (gc, both) = std::thread::scope(|s| {
        let a = s.spawn(|| post_with(&server, &table, regions_q, "gc"));
        let b = s.spawn(|| post_with(&server, &table, regions_q, "both"));
        (a.join().expect("gc"), b.join().expect("both"))
    });
    assert_eq!(gc.0, 200, "{}", gc.1);
    assert_eq!(both.0, 200, "{}", both.1);
    assert_eq!(
        labels_counts(&gc.1),
        [("CLR/GC".to_string(), want_gc.len() as u64)]
    );
    let mut got_both = labels_counts(&both.1);
    got_both.sort();
    assert_eq!(got_both, export_counts(&want_both, "Region"));
    assert_eq!(got_both.len(), 2, "{got_both:?}");

    // The Region key of the Generic Events equals export's.
    let (s, g) = post_with(
        &server,
        &table,
        r#"{"table": "generic", "columns": ["Region"], "limit": 100}"#,
        "gc",
    );
    assert_eq!(s, 200, "{g}");
    let mut got_g = labels_counts(&g);
    got_g.sort();
    assert_eq!(got_g, export_counts(&want_generic, "Region"));

    // CPU Usage (Sampled) keyed by Region, and filtered to inside CLR/GC,
    // equal export's; without a regions file the column is refused.
    let (s, c) = post_with(
        &server,
        &table,
        r#"{"table": "cpu-sampled", "columns": ["Region"], "limit": 100}"#,
        "gc",
    );
    assert_eq!(s, 200, "{c}");
    let mut got_cpu = labels_counts(&c);
    got_cpu.sort();
    assert_eq!(got_cpu, export_counts(&want_cpu, "Region"));
    let (s, c) = post_with(
        &server,
        &table,
        r#"{"table": "cpu-sampled", "columns": ["Process"], "filters": [{"column": "Region", "values": ["CLR/GC"]}], "limit": 1000}"#,
        "gc",
    );
    assert_eq!(s, 200, "{c}");
    let mut got_inside = labels_counts(&c);
    got_inside.sort();
    assert_eq!(got_inside, export_counts(&want_inside, "Process"));
    let (s, e) = post_with(
        &server,
        &table,
        r#"{"table": "cpu-sampled", "columns": ["Region"]}"#,
        "",
    );
    assert_eq!(s, 400, "{e}");

    // The summary's row count and the columns follow the header too.
    let (s, sum) = {
        let (s, b) = request(
            &server.addr,
            "GET",
            &format!("/api/traces/{id}/summary"),
            b"",
            &[("X-Etlscope-Regions", "gc")],
        );
        (s, serde_json::from_str::<Value>(&b).unwrap_or(Value::Null))
    };
    assert_eq!(s, 200);
    assert_eq!(
        sum["table_rows"]["regions"].as_u64(),
        Some(want_gc.len() as u64)
    );
    let (_, plain) = server.json("GET", &format!("/api/traces/{id}/summary"), "");
    assert_eq!(plain["table_rows"]["regions"].as_u64(), Some(0));

    // A view's link names its file; the link keeps it as given.
    let target = format!("/t/{id}?t=regions&regions=gc");
    let (s, link) = server.json(
        "POST",
        "/api/links",
        &format!(r#"{{"target": "{target}"}}"#),
    );
    assert!(s == 200 || s == 201, "{link}");
    let lid = link["id"].as_str().unwrap_or("");
    let (s, back) = server.json("GET", &format!("/api/links/{lid}"), "");
    assert_eq!(s, 200, "{back}");
    assert_eq!(back["target"], target.as_str());

    // An unknown name is the request's error; a deleted file is gone.
    let (s, e) = post_with(&server, &table, regions_q, "nope");
    assert_eq!(s, 400, "{e}");
    let (s, _) = request(&server.addr, "DELETE", "/api/regions/gc", b"", &[]);
    assert_eq!(s, 204);
    let (s, _) = post_with(&server, &table, regions_q, "gc");
    assert_eq!(s, 400);
    // The other file is still served.
    let (s, b) = post_with(&server, &table, regions_q, "both");
    assert_eq!(s, 200);
    assert_eq!(labels_counts(&b).len(), 2);
    eprintln!(
        "regions over HTTP: gc {} instances, both {got_both:?}, generic by Region {got_g:?}, cpu-sampled by Region {got_cpu:?}, inside CLR/GC by process {got_inside:?}",
        want_gc.len()
    );
}
