//! `POST /api/traces/{id}/export` (the UI's Export CSV / TSV) answers exactly the bytes
//! `etlscope export` prints for the same arguments, on the demo trace; `--format tsv` holds the
//! same cells as `--format json` (a separate writer), tab-separated with a header row.

mod common;

use common::{temp_dir, Server};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::process::Command;

fn demo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../traces/explorer-overlay.etl")
}

fn cli(args: &[&str]) -> String {
    let out = Command::new(common::binary())
        .arg("export")
        .arg(demo())
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

const VALUES: &str = "Load Time,Unload Time,Image Size:max,File Version,Image Path";
const EXPLORER: &str = "Process=explorer.exe (6148)";

#[test]
fn http_export_equals_the_cli_byte_for_byte() {
    let data = temp_dir("http-export");
    let demo = demo();
    let server = Server::start(&data, &[demo.to_str().unwrap()]);
    let (_, list) = server.json("GET", "/api/traces", "");
    let id = list["traces"][0]["id"].as_str().unwrap().to_string();
    server.wait_ready(&id, 120);
    let path = format!("/api/traces/{id}/export");
    let cases = [
        (
            json!({"table": "images", "group": ["Process", "Image Name"], "values": VALUES.split(',').collect::<Vec<_>>(),
                   "sort": "File Version:asc", "filters": [EXPLORER], "format": "csv"}),
            vec![
                "--table",
                "images",
                "--group",
                "Process,Image Name",
                "--values",
                VALUES,
                "--sort",
                "File Version:asc",
                "--filter",
                EXPLORER,
                "--format",
                "csv",
            ],
        ),
        (
            json!({"table": "cpu-sampled", "group": ["Process", "Thread ID"], "range": {"start_s": 7, "end_s": 23}, "format": "tsv"}),
            vec![
                "--table",
                "cpu-sampled",
                "--group",
                "Process,Thread ID",
                "--range",
                "7-23",
                "--format",
                "tsv",
            ],
        ),
        (
            json!({"table": "file-io", "group": ["Type"], "values": ["Count", "Size:max", "Duration:sum"], "format": "csv"}),
            vec![
                "--table",
                "file-io",
                "--group",
                "Type",
                "--values",
                "Count,Size:max,Duration:sum",
                "--format",
                "csv",
            ],
        ),
    ];
    for (body, args) in cases {
        let (status, text) = server.post(&path, body.to_string().as_bytes());
        assert_eq!(status, 200, "{body}: {text}");
        assert_eq!(text, cli(&args), "{body}");
    }
    assert_eq!(cli(&explorer_images_args()).lines().count(), 371);
    // Errors are the API's JSON errors.
    for bad in [
        json!({"table": "images", "format": "xlsx"}),
        json!({"table": "images", "group": ["No Such Column"], "format": "csv"}),
        json!({"table": "no-such-table", "format": "csv"}),
    ] {
        let (status, text) = server.post(&path, bad.to_string().as_bytes());
        assert_eq!(status, 400, "{bad}: {text}");
        let v: Value = serde_json::from_str(&text).unwrap();
        assert!(v["error"]["message"].is_string(), "{text}");
    }
}

/// The images case: a header and explorer.exe's 370 images.
fn explorer_images_args() -> Vec<&'static str> {
    vec![
        "--table",
        "images",
        "--group",
        "Process,Image Name",
        "--values",
        VALUES,
        "--filter",
        EXPLORER,
    ]
}

#[test]
fn tsv_holds_the_json_cells_with_a_header() {
    let args = [
        "--table",
        "cpu-sampled",
        "--group",
        "Process",
        "--range",
        "7-23",
    ];
    let tsv = cli(&[&args[..], &["--format", "tsv"]].concat());
    let rows: Vec<serde_json::Map<String, Value>> =
        serde_json::from_str(&cli(&[&args[..], &["--format", "json"]].concat())).unwrap();
    let mut lines = tsv.lines();
    let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
    assert_eq!(header, ["Process", "Count", "Weight", "% Weight"]);
    let body: Vec<Vec<&str>> = lines.map(|l| l.split('\t').collect()).collect();
    assert_eq!(body.len(), rows.len());
    for (cells, row) in body.iter().zip(&rows) {
        assert_eq!(cells[0], row["Process"].as_str().unwrap());
        assert_eq!(
            cells[1].parse::<u64>().unwrap(),
            row["Count"].as_u64().unwrap()
        );
        let w: f64 = cells[2].parse().unwrap();
        assert!((w - row["Weight"].as_f64().unwrap()).abs() < 1e-9);
    }
    // explorer.exe: 42,300 samples in 7-23 s (the README's figure).
    assert_eq!(
        body[0],
        ["explorer.exe (6148)", "42300", "42.300000000", "66.09375"]
    );
}
