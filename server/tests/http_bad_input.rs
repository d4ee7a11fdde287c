//! Bad inputs get a 4xx with a message; the server keeps serving and the
//! catalog stays consistent (issue 6 acceptance).

mod common;

use common::{real_traces_dir, temp_dir, Server};
use serde_json::Value;
use std::io::Write;

fn error_message(b: &str) -> String {
    let v: Value = serde_json::from_str(b).unwrap_or_else(|e| panic!("not JSON ({e}): {b}"));
    v["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

fn zip_bomb() -> Vec<u8> {
    // 64 MiB of zeros deflate to ~64 KiB: far over the 200:1 ratio limit.
    let mut out = std::io::Cursor::new(Vec::new());
    let mut z = zip::ZipWriter::new(&mut out);
    let opts = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    z.start_file("bomb.etl", opts).unwrap();
    let zeros = vec![0u8; 1 << 20];
    for _ in 0..64 {
        z.write_all(&zeros).unwrap();
    }
    z.finish().unwrap();
    out.into_inner()
}

#[test]
fn bad_inputs_get_4xx_and_the_server_keeps_serving() {
    let data = temp_dir("bad");
    let server = Server::start(&data, &["--max-upload-mb", "4"]);
    let cases: Vec<(&str, Vec<u8>, u16)> = vec![
        (
            "not-etl.txt",
            b"hello, this is not a trace".repeat(100),
            400,
        ),
        ("empty.etl", Vec::new(), 400),
        ("too-big.etl", vec![0u8; 5 << 20], 413),
        ("bomb.etl.zip", zip_bomb(), 400),
    ];
    for (name, body, want) in &cases {
        let (s, b) = server.post(&format!("/api/traces?name={name}"), body);
        assert_eq!(s, *want, "{name}: {b}");
        assert!(!error_message(&b).is_empty(), "{name}: {b}");
    }
    if let Some(dir) = real_traces_dir() {
        let full = std::fs::read(dir.join("shutdown-perfdiag-kernel.etl")).unwrap();
        // Cut inside the header buffer: nothing readable.
        let (s, b) = server.post("/api/traces?name=cut.etl", &full[..200]);
        assert_eq!(s, 400, "{b}");
        // Cut mid-file: what was readable is kept and the damage is reported.
        let (s, b) = server.post("/api/traces?name=half.etl", &full[..1_000_000]);
        assert_eq!(s, 201, "{b}");
        let id = serde_json::from_str::<Value>(&b).unwrap()["id"]
            .as_str()
            .unwrap()
            .to_string();
        let v = server.wait_ready(&id, 60);
        let diags = v["summary"]["diagnostics"].as_array().unwrap();
        assert!(
            diags
                .iter()
                .any(|d| d["message"].as_str().unwrap().contains("truncated")),
            "{v}"
        );
        // Oversized queries are refused before any label is looked up.
        let long_path: Vec<String> = (0..2000).map(|i| format!("x{i}")).collect();
        let many: Vec<String> = (0..20_000).map(|i| format!("p{i}")).collect();
        for (what, body) in [
            (
                "table path",
                serde_json::json!({"columns": ["Process", "Stack"], "path": long_path}),
            ),
            (
                "table filter values",
                serde_json::json!({"columns": ["Process"], "filters": [{"column": "Process", "values": many}]}),
            ),
        ] {
            let (s, b) = server.post(
                &format!("/api/traces/{id}/table"),
                body.to_string().as_bytes(),
            );
            assert_eq!(s, 400, "{what}: {b}");
            assert!(error_message(&b).contains("at most"), "{what}: {b}");
        }
        let body = serde_json::json!({"filters": [{"column": "Process", "values": many}]});
        let (s, b) = server.post(
            &format!("/api/traces/{id}/flame"),
            body.to_string().as_bytes(),
        );
        assert_eq!(s, 400, "flame: {b}");
    }
    for path in [
        "/api/traces/..%2F..%2Fetc%2Fpasswd",
        "/api/traces/../../etc/passwd",
        "/api/traces/0123456789abcdef0123456789ABCDEF",
    ] {
        let (s, b) = server.get(path);
        assert!((400..500).contains(&s), "{path}: {s} {b}");
    }
    let (s, b) = server.get("/api/traces/0123456789abcdef0123456789abcdef");
    assert_eq!(s, 404, "{b}");
    for body in [
        "{bad json",
        r#"{"columns": ["Nope"]}"#,
        r#"{"columns": [], "range": {"start_s": 5, "end_s": 1}}"#,
    ] {
        let (s, b) = server.post(
            "/api/traces/0123456789abcdef0123456789abcdef/table",
            body.as_bytes(),
        );
        assert!((400..500).contains(&s), "{body}: {s} {b}");
        assert!(!error_message(&b).is_empty());
    }
    // Still serving; the catalog holds only what was accepted; no temp files left.
    let (s, list) = server.json("GET", "/api/traces", "");
    assert_eq!(s, 200);
    let n = list["traces"].as_array().unwrap().len();
    assert_eq!(n, usize::from(real_traces_dir().is_some()), "{list}");
    let leftovers = std::fs::read_dir(data.join("tmp")).unwrap().count();
    assert_eq!(leftovers, 0);
    std::fs::remove_dir_all(&data).ok();
}
