//! Windows' own manifest providers named and decoded off Windows (issue 34):
//! the built-in schema pack on a real trace that carries no schema, a
//! manifest given with `--manifests` for a provider the pack lacks, bad
//! manifests costing only themselves, and `etlscope info`'s sources.
//!
//! Expected values never come from etlscope's output: the HttpService
//! figures are what `tests/reference/manifest_decode.py` (xml.etree over
//! the public Windows 7 manifest, etl_census.py's walkers) printed for the
//! trace, and `reference_decoder_agrees` re-runs it when the public
//! manifests are on this machine; the test manifest's values are hand
//! decodes of the payload bytes quoted beside them.

mod common;

use common::binary;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// HttpService events per Event Name, as the reference decoder counts them.
const HTTP_NAMES: [(&str, u64); 14] = [
    ("HTTPConnectionTraceTask/ConnCleanup", 2),
    ("HTTPConnectionTraceTask/ConnClose", 2),
    ("HTTPConnectionTraceTask/ConnConnect", 2),
    ("HTTPConnectionTraceTask/ConnIdAssgn", 2),
    ("HTTPLoggingTraceTask/LogFileWrite", 484),
    ("HTTPRequestTraceTask/Deliver", 484),
    ("HTTPRequestTraceTask/FastResp", 470),
    ("HTTPRequestTraceTask/FastRespLast", 470),
    ("HTTPRequestTraceTask/FastSend", 470),
    ("HTTPRequestTraceTask/Parse", 484),
    ("HTTPRequestTraceTask/RecvReq", 484),
    ("HTTPRequestTraceTask/RecvResp", 14),
    ("HTTPRequestTraceTask/RecvRespLast", 14),
    ("HTTPRequestTraceTask/SendComplete", 14),
];

/// The first event of some ids, fields as the reference decoder gives them.
const HTTP_FIRST: [(&str, &str); 4] = [
    (
        "HTTPRequestTraceTask/Parse",
        "RequestObj=0xfffffa8004020530; HttpVerb=4; \
         Url=http://georgis2:80/helloworld.htm?d6818304-610a-407d-92b0-5532c4573f9f",
    ),
    (
        "HTTPRequestTraceTask/Deliver",
        "RequestObj=0xfffffa8004020530; RequestId=18374686481819109192; SiteId=1; \
         RequestQueueName=DefaultAppPool; \
         Url=http://georgis2:80/helloworld.htm?d6818304-610a-407d-92b0-5532c4573f9f; Status=0",
    ),
    (
        "HTTPRequestTraceTask/FastResp",
        "RequestId=18374686481819109192; ConnectionId=18374686481282238279; StatusCode=200; \
         Verb=GET; HeaderLength=4294965888; EntityChunkCount=1; CachePolicy=0",
    ),
    (
        "HTTPLoggingTraceTask/LogFileWrite",
        "Status=0; Handle=0xffffffff80001d44; Type=0; Group=0; Format=0; ResType=CacheMiss; \
         SiteId=0",
    ),
];

const HTTP_GUID: &str = "dd5ef90a-6398-47a4-ad34-4dcecdef795f";

fn trace(name: &str) -> Option<PathBuf> {
    let p = common::real_traces_dir()?.join(name);
    assert!(p.exists(), "{} is missing", p.display());
    Some(p)
}

fn run(args: &[&str]) -> Output {
    let out = Command::new(binary()).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "etlscope {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn json(args: &[&str]) -> serde_json::Value {
    serde_json::from_slice(&run(args).stdout).unwrap()
}

/// Generic Events of one provider: (Event Name, Count) rows, sorted.
fn names(path: &Path, provider: &str, extra: &[&str]) -> Vec<(String, u64)> {
    let p = path.to_str().unwrap();
    let mut args = vec![
        "export",
        p,
        "--table",
        "generic",
        "--group",
        "Provider,Event Name",
        "--values",
        "Count",
        "--format",
        "json",
    ];
    args.extend(extra);
    let v = json(&args);
    let mut out: Vec<(String, u64)> = v
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["Provider"] == provider)
        .map(|r| {
            (
                r["Event Name"].as_str().unwrap().to_string(),
                r["Count"].as_u64().unwrap(),
            )
        })
        .collect();
    out.sort();
    out
}

/// The Fields text of the first row named `event`.
fn first_fields(path: &Path, event: &str, extra: &[&str]) -> String {
    let filter = format!("Event Name={event}");
    let mut args = vec![
        "export",
        path.to_str().unwrap(),
        "--table",
        "generic",
        "--rows",
        "--filter",
        &filter,
        "--format",
        "json",
    ];
    args.extend(extra);
    let v = json(&args);
    v[0]["Fields"].as_str().unwrap_or("").to_string()
}

/// On main: provider `dd5ef90a-...`, Event Name "" for all 3,396 events,
/// Fields `Payload=...`; hex_only_share 99.97%.
#[test]
fn http_trace_is_named_and_decoded_by_the_builtin_pack() {
    let Some(t) = trace("http-crossmachine-win7.etl") else {
        return;
    };
    let got = names(&t, "Microsoft-Windows-HttpService", &[]);
    let want: Vec<(String, u64)> = HTTP_NAMES
        .iter()
        .map(|(n, c)| (n.to_string(), *c))
        .collect();
    assert_eq!(got, want);
    assert_eq!(got.iter().map(|r| r.1).sum::<u64>(), 3396);
    for (event, fields) in HTTP_FIRST {
        assert_eq!(first_fields(&t, event, &[]), fields, "{event}");
    }
    let info = json(&["info", "--json", t.to_str().unwrap()]);
    let p = &info["decoding"]["by_provider"][HTTP_GUID];
    assert_eq!(p["name"], "Microsoft-Windows-HttpService", "{p}");
    assert_eq!(p["events"], 3396, "{p}");
    assert_eq!(p["decoded_by"]["built-in pack"], 3396, "{p}");
    assert_eq!(p["hex"], 0, "{p}");
    assert_eq!(info["decoding"]["hex_only_events"], 0);
}

/// The Windows 7 manifest of HttpService, from the public
/// etw-providers-docs when this machine has it (not in CI: no network).
fn public_manifest(provider: &str) -> Option<PathBuf> {
    let repo = std::env::var_os("ETLSCOPE_PROVIDER_DOCS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/work/.mirror/repnz+etw-providers-docs/repo"));
    let out = Command::new("git")
        .arg("-C")
        .arg(&repo)
        .args(["show", &format!("HEAD:Manifests-Win7-7600/{provider}.xml")])
        .output()
        .ok()
        .filter(|o| o.status.success());
    let Some(out) = out else {
        // Not testdata::skip: CI never has these manifests, and the
        // expectations above stand without them.
        eprintln!(
            "\n!!!!!!!! SKIPPED: the public manifests ({} or $ETLSCOPE_PROVIDER_DOCS, a git \
             directory of github.com/repnz/etw-providers-docs) are missing !!!!!!!!\n",
            repo.display()
        );
        return None;
    };
    let dir = common::temp_dir("schema-packs-public");
    let path = dir.join(format!("{provider}.xml"));
    std::fs::write(&path, out.stdout).unwrap();
    Some(path)
}

/// The constants above are what the independent reference decoder reads
/// with the public manifest; and that manifest given with `--manifests`
/// decodes the trace the same, as a user pack.
#[test]
fn reference_decoder_agrees_and_a_public_manifest_decodes_as_a_user_pack() {
    let Some(t) = trace("http-crossmachine-win7.etl") else {
        return;
    };
    let Some(man) = public_manifest("Microsoft-Windows-HttpService") else {
        return;
    };
    let script =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/reference/manifest_decode.py");
    let Some(out) = testdata::python3(&[script.as_os_str(), t.as_os_str(), man.as_os_str()]) else {
        return;
    };
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for (name, n) in HTTP_NAMES {
        assert_eq!(r["names"][name], n, "{name}");
    }
    assert_eq!(r["names"].as_object().unwrap().len(), HTTP_NAMES.len());
    assert_eq!(r["inexact"], serde_json::json!({}));
    let m = man.to_str().unwrap();
    let got = names(&t, "Microsoft-Windows-HttpService", &["--manifests", m]);
    assert_eq!(got.len(), HTTP_NAMES.len());
    assert_eq!(
        first_fields(&t, "HTTPRequestTraceTask/Parse", &["--manifests", m]),
        HTTP_FIRST[0].1
    );
    let info = json(&["info", "--json", "--manifests", m, t.to_str().unwrap()]);
    let p = &info["decoding"]["by_provider"][HTTP_GUID];
    assert_eq!(p["decoded_by"]["user pack"], 3396, "{p}");
}

/// A manifest written for this test, for a provider of the Visual Studio
/// diagsession (`9e5f9046-...`) that neither the trace nor the built-in
/// pack names (names ours; layouts read off the payloads below).
const TEST_MANIFEST: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events">
 <instrumentation>
  <events>
   <provider name="Test-DiagHub-Collector" guid="{9e5f9046-43c6-4f62-ba13-7b19896253ff}" symbol="T">
    <tasks>
     <task name="Session" message="$(string.task.Session)" value="1"/>
     <task name="Machine" value="2"/>
    </tasks>
    <events>
     <event value="1" version="2" task="Session" opcode="win:Start" level="win:Informational" template="Start"/>
     <event value="2" version="1" task="Session" opcode="win:Stop" level="win:Informational" template="Stop"/>
     <event value="5" version="0" task="Machine" level="win:Informational" template="Machine"/>
    </events>
    <templates>
     <template tid="Start">
      <data name="ProcessId" inType="win:UInt32"/>
      <data name="Kind" inType="win:UInt32"/>
      <data name="Stamp" inType="win:UInt64"/>
     </template>
     <template tid="Stop">
      <data name="ProcessId" inType="win:UInt32"/>
      <data name="Stamp" inType="win:UInt64"/>
     </template>
     <template tid="Machine">
      <data name="Computer" inType="win:UnicodeString"/>
      <data name="Os" inType="win:UnicodeString"/>
      <data name="Flags" inType="win:UInt32"/>
     </template>
    </templates>
   </provider>
  </events>
 </instrumentation>
 <localization><resources culture="en-US"><stringTable>
  <string id="task.Session" value="Collection"/>
 </stringTable></resources></localization>
</instrumentationManifest>
"#;

/// On main: `--manifests` is no option (exit 2); the provider's 3 events
/// stay `9e5f9046-...` with no name and `Payload=` hex.
#[test]
fn a_manifest_given_names_a_provider_the_pack_lacks_and_a_bad_one_costs_only_itself() {
    let Some(t) = trace("vs-dotnetcore31.diagsession") else {
        return;
    };
    let dir = common::temp_dir("schema-packs-user");
    let good = dir.join("diaghub.man");
    std::fs::write(&good, TEST_MANIFEST).unwrap();
    // Line 9 closes <tasks> while the <task> of line 8 is open.
    let bad = dir.join("broken.man");
    std::fs::write(&bad, TEST_MANIFEST.replace("value=\"2\"/>", "value=\"2\">")).unwrap();
    let provider = "Test-DiagHub-Collector";
    let args = ["--manifests", dir.to_str().unwrap()];
    let got = names(&t, provider, &args);
    assert_eq!(
        got,
        [
            ("Collection/Start".to_string(), 1),
            ("Collection/Stop".to_string(), 1),
            ("Machine".to_string(), 1),
        ]
    );
    // Payloads (etlscope dump): id 1 v2 5c080000 02000000 2a305e3503000000;
    // id 2 v1 5c080000 5ec9ca3b03000000; id 5 v0 UTF-16 "liha-test\0",
    // "Windows (64-bit)\0", 01000000.
    assert_eq!(
        first_fields(&t, "Collection/Start", &args),
        "ProcessId=2140; Kind=2; Stamp=13780267050"
    );
    assert_eq!(
        first_fields(&t, "Collection/Stop", &args),
        "ProcessId=2140; Stamp=13888047454"
    );
    assert_eq!(
        first_fields(&t, "Machine", &args),
        "Computer=liha-test; Os=Windows (64-bit); Flags=1"
    );
    // The broken manifest: one stderr line naming it and its line.
    let out = run(&[
        "info",
        t.to_str().unwrap(),
        "--manifests",
        dir.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    let line = format!("{}:9: </tasks> closes <task> of line 8", bad.display());
    assert!(err.contains(&line), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("Test-DiagHub-Collector (9e5f9046-43c6-4f62-ba13-7b19896253ff): user pack 3"),
        "{text}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// `manifests pack` writes a pack that reads back; a pack cut short is an
/// error naming its line, the command still runs.
#[test]
fn manifests_pack_writes_a_pack_and_a_damaged_one_names_its_line() {
    let dir = common::temp_dir("schema-packs-pack");
    let man = dir.join("t.man");
    std::fs::write(&man, TEST_MANIFEST).unwrap();
    let pack = dir.join("t.pack");
    let out = run(&[
        "manifests",
        "pack",
        pack.to_str().unwrap(),
        man.to_str().unwrap(),
        "--note",
        "written by schema_packs.rs",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("(1 providers, 3 events,"), "{err}");
    let text = std::fs::read_to_string(&pack).unwrap();
    assert!(text.starts_with("etlscope-pack\t1\nnote\twritten by schema_packs.rs\n"));
    assert!(
        text.contains("provider\t9e5f9046-43c6-4f62-ba13-7b19896253ff\tTest-DiagHub-Collector\n")
    );
    assert!(text.contains("event\t1\t2\tCollection\tStart\tInformation\t\tStart\t\n"));
    // A field line without its columns.
    let cut = text.replace("f\tStamp\t10\t0\t\t\t\n", "f\tStamp\n");
    let bad_line = cut.lines().position(|l| l == "f\tStamp").unwrap() + 1;
    let bad = dir.join("cut.pack");
    std::fs::write(&bad, cut).unwrap();
    let out = Command::new(binary())
        .args(["manifests", "pack", dir.join("all.pack").to_str().unwrap()])
        .arg(&bad)
        .arg(&pack)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains(&format!(
            "{}:{bad_line}: a field has 6 columns, not 1",
            bad.display()
        )),
        "{err}"
    );
    // The good input still made it into the pack.
    assert!(err.contains("(1 providers, 3 events,"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// The network diagnostics session's manifest provider
/// (Microsoft-Windows-Diagnostics-Networking, no schema in the trace): names
/// and values as the reference decoder reads them with the public Windows 10
/// (17134) manifest. On main: `36c23e18-...`, no names, 39 of 47 events hex.
#[test]
fn ndf_trace_is_named_and_decoded_by_the_builtin_pack() {
    let Some(t) = trace("ndf-eventlog-win10.etl") else {
        return;
    };
    let got = names(&t, "Microsoft-Windows-Diagnostics-Networking", &[]);
    let want = [
        ("Debug", 19),
        ("HelperClassInfo", 12),
        ("Start/Start", 7),
        ("Stop/Stop", 7),
    ];
    let want: Vec<(String, u64)> = want.iter().map(|(n, c)| (n.to_string(), *c)).collect();
    assert_eq!(got, want);
    let rows = |id: &str| {
        let filter = format!("Id={id}");
        let v = json(&[
            "export",
            t.to_str().unwrap(),
            "--table",
            "generic",
            "--rows",
            "--filter",
            &filter,
            "--format",
            "json",
        ]);
        v.as_array()
            .unwrap()
            .iter()
            .map(|r| r["Fields"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        rows("1000")[0],
        "HelperClassName=WinInetHelperClass; NumberOfAttributes=3; \
         HelperClassAttributes=URL=\"https://bbs.csdn.net/\"; UseWinHTTP=1; \
         AppID=\"C:\\Program Files (x86)\\Google\\Chrome\\Application\\chrome.exe\"; "
    );
    let debug = rows("7000");
    let want = "DebugMessage=DnsHelperClass LowHealth diagnosis status 5 [DS_PASSTHROUGH] \
                HRESULT 0 [4413 ms] description: ";
    assert!(debug.iter().any(|f| f == want), "{debug:?}");
    let info = json(&["info", "--json", t.to_str().unwrap()]);
    let p = &info["decoding"]["by_provider"]["36c23e18-0e66-11d9-bbeb-505054503030"];
    assert_eq!(p["decoded_by"]["built-in pack"], 39, "{p}");
    assert_eq!(p["hex"], 0, "{p}");
}

/// AMSI's manifest provider carries its schema in the trace: the trace's
/// own metadata keeps decoding every event, no pack is consulted for it.
#[test]
fn amsi_trace_keeps_its_own_schemas() {
    let Some(t) = trace("amsi-manifest.etl") else {
        return;
    };
    let info = json(&["info", "--json", t.to_str().unwrap()]);
    let p = &info["decoding"]["by_provider"]["8e805eb3-6a8f-4a1e-90fa-a831d94e54a1"];
    let by = p["decoded_by"].as_object().unwrap();
    assert_eq!(by.keys().collect::<Vec<_>>(), ["trace"], "{p}");
    assert_eq!(p["hex"], 0, "{p}");
}

/// The library keeps schema packs like stack tag sets: a manifest PUT to
/// `/api/schemas/NAME` names the diagsession's provider (the loaded trace
/// is loaded again), a broken one is a 400 naming its line, and the pack
/// is still there after a restart. On main: 404 "no such API endpoint".
#[test]
fn the_library_keeps_uploaded_manifests_and_traces_use_them() {
    let Some(t) = trace("vs-dotnetcore31.diagsession") else {
        return;
    };
    let data = common::temp_dir("schema-packs-http");
    let mut server = common::Server::start(&data, &[t.to_str().unwrap()]);
    let (_, list) = server.json("GET", "/api/traces", "");
    let id = list["traces"][0]["id"].as_str().unwrap().to_string();
    server.wait_ready(&id, 300);
    let url = format!("/api/traces/{id}/table");
    let by_name = |server: &common::Server| {
        let body =
            serde_json::json!({"table": "generic", "columns": ["Event Name"], "limit": 100000});
        let (s, v) = server.json("POST", &url, &body.to_string());
        assert_eq!(s, 200, "{v}");
        let mut got: Vec<(String, u64)> = v["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                (
                    r["label"].as_str().unwrap().to_string(),
                    r["count"].as_u64().unwrap(),
                )
            })
            .filter(|(l, _)| {
                ["Collection/Start", "Collection/Stop", "Machine"].contains(&l.as_str())
            })
            .collect();
        got.sort();
        got
    };
    assert_eq!(by_name(&server), []);
    let (s, v) = server.json("PUT", "/api/schemas/diaghub", TEST_MANIFEST);
    assert_eq!(s, 201, "{v}");
    assert_eq!(v["providers"][0]["name"], "Test-DiagHub-Collector");
    assert_eq!(v["events"], 3);
    assert_eq!(v["reloaded_traces"], 1);
    server.wait_ready(&id, 300);
    let want = [
        ("Collection/Start".to_string(), 1),
        ("Collection/Stop".to_string(), 1),
        ("Machine".to_string(), 1),
    ];
    assert_eq!(by_name(&server), want);
    let broken = TEST_MANIFEST.replace("value=\"2\"/>", "value=\"2\">");
    let (s, v) = server.json("PUT", "/api/schemas/broken", &broken);
    assert_eq!(s, 400, "{v}");
    assert_eq!(
        v["error"]["message"],
        "broken:9: </tasks> closes <task> of line 8"
    );
    // Kept in the library: listed after a restart, and used.
    drop(server);
    server = common::Server::start(&data, &[]);
    let (_, v) = server.json("GET", "/api/schemas", "");
    let names: Vec<&str> = v["packs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["diaghub"]);
    server.wait_ready(&id, 300);
    assert_eq!(by_name(&server), want);
    let (s, _) = common::request(&server.addr, "DELETE", "/api/schemas/diaghub", b"", &[]);
    assert_eq!(s, 204);
    drop(server);
    std::fs::remove_dir_all(&data).ok();
}
