//! `POST /api/wpa-profile`: the UI's import of a `.wpaProfile`, mapped by
//! the server (not in the browser): one summary line per preset, value
//! columns with the aggregations the file declares, WPA's gold bar counted
//! over the whole column list; guarded like every POST, size-capped.

mod common;

use common::{raw_request, Server};
use serde_json::Value;

fn preset<'a>(v: &'a Value, name: &str) -> &'a Value {
    v["presets"]
        .as_array()
        .and_then(|ps| ps.iter().find(|p| p["name"] == name))
        .unwrap_or_else(|| panic!("no preset {name} in {v}"))
}

fn values(p: &Value) -> Vec<(String, String, String)> {
    p["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let s = |k: &str| c[k].as_str().unwrap_or("").to_string();
            (s("wpa"), s("aggregation"), s("ours"))
        })
        .collect()
}

fn keys(p: &Value) -> Vec<String> {
    p["keys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["ours"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn public_profiles_map_their_values_and_gold_bar() {
    let Some(dir) = testdata::wpa_files_dir() else {
        return;
    };
    let data = common::temp_dir("http-wpa-profile");
    let s = Server::start(&data, &[]);
    let post = |f: &str| {
        let xml = std::fs::read(dir.join(f)).unwrap();
        let (code, body) = s.post("/api/wpa-profile", &xml);
        assert_eq!(code, 200, "{f}: {body}");
        serde_json::from_str::<Value>(&body).unwrap()
    };
    let office = post("office-CPU.wpaProfile");
    let p = preset(&office, "Samples by Process");
    assert_eq!(p["table"], "cpu-sampled");
    assert_eq!(keys(p), ["Process Name", "Stack"]);
    assert_eq!(
        values(p),
        [
            ("Count".into(), "Sum".into(), "Count".into()),
            ("Weight".into(), "Sum".into(), "Weight".into()),
            ("% Weight".into(), "Sum".into(), "% Weight".into()),
        ]
    );
    assert_eq!(p["sort"]["column"], "% Weight");
    assert_eq!(p["sort"]["descending"], true);
    // One short line per preset; the details apart.
    let summary = p["summary"].as_str().unwrap();
    assert!(summary.len() < 120 && !summary.contains('\n'), "{summary}");
    assert!(p["unmapped"]
        .as_array()
        .unwrap()
        .iter()
        .any(|u| u.as_str().unwrap().contains("Thread Start Module")));
    let waits = preset(&office, "Context Switch Lifetime");
    assert!(
        values(waits).contains(&("Waits".into(), "Max".into(), "Waits:max".into())),
        "{waits}"
    );
    assert!(
        values(waits).contains(&("Count: Waits".into(), "Sum".into(), "Waits:count".into())),
        "{waits}"
    );
    assert_eq!(
        preset(&office, "Delays By Process, Type")["table"],
        Value::Null
    );

    let uiforetw = post("uiforetw-CPUUsageByProcess.wpaProfile");
    let p = preset(&uiforetw, "Randomascii CPU Usage by Process");
    assert_eq!(p["table"], "cpu-precise");
    assert_eq!(keys(p), ["New Process"]);
    assert_eq!(
        values(p),
        [
            ("Count".into(), "Count".into(), "Count".into()),
            (
                "CPU Usage (in view)".into(),
                "Sum".into(),
                "CPU Usage".into()
            ),
        ]
    );
    assert_eq!(p["unmapped"], Value::Array(Vec::new()), "{p}");
    let export = post("uiforetw-ExportCPUUsageSampled.wpaProfile");
    let p = preset(&export, "Randomascii_Export");
    assert_eq!(p["rows"], true);
    assert_eq!(p["file_name"], "CPU_Usage_(Sampled)_Randomascii_Export.csv");

    let disk = post("office-DiskIO.wpaProfile");
    let p = preset(&disk, "Path / Size");
    assert_eq!(p["table"], "disk-io");
    assert_eq!(keys(p), ["Process", "Path Name", "IO Type", "Stack"]);
    assert!(values(p).contains(&(
        "IO Time".into(),
        "Max".into(),
        "Disk Service Time:max".into()
    )));
    assert_eq!(
        preset(&disk, "Timeline by Process, File")["table"],
        Value::Null
    );
    assert_eq!(
        preset(&disk, "Timeline by Process, File")["wpa_table"],
        "Mini-Filter Delays"
    );
}

#[test]
fn the_endpoint_is_guarded_capped_and_names_the_line() {
    let data = common::temp_dir("http-wpa-profile-guard");
    let s = Server::start(&data, &[]);
    let xml = "<WpaProfileContainer>\n<Content>\n<Views><View Title=\"A\"><Graphs><Graph Guid=\"b855361e-7be0-4bc8-a754-3e8507715ca5\">\n<Preset Name=\"p\" KeyColumnCount=\"-1\"/></Graph></Graphs></View></Views></Content></WpaProfileContainer>";
    let (code, body) = s.post("/api/wpa-profile", xml.as_bytes());
    assert_eq!(code, 400, "{body}");
    assert!(body.contains("line 4"), "{body}");
    // A POST without the header no form can send is refused by the guard.
    let (code, _) = raw_request(&s.addr, "POST", "/api/wpa-profile", xml.as_bytes(), &[]);
    assert_eq!(code, 403);
    let (code, body) = s.post("/api/wpa-profile", &vec![b' '; (4 << 20) + 1]);
    assert_eq!(code, 413, "{body}");
    let (code, body) = s.post("/api/wpa-profile", b"<x/>");
    assert_eq!(code, 400);
    assert!(body.contains("WpaProfileContainer"), "{body}");
}
