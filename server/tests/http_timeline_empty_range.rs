//! Issue 33, point 7: a replay starts with a trace of no time yet, and the
//! UI asks for the CPU timeline over [0, 0]: a valid question whose answer
//! is empty (200, no series), not a 400 in the log. A range whose start is
//! after its end, or a bin count out of bounds, stays a 400.

mod common;

use std::path::Path;

#[test]
fn a_timeline_over_no_time_is_empty_not_an_error() {
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../traces/explorer-overlay.etl");
    let data = common::temp_dir("timeline-empty");
    let s = common::Server::start(&data, &[demo.to_str().unwrap()]);
    let (_, list) = s.json("GET", "/api/traces", "");
    let id = list["traces"][0]["id"].as_str().unwrap().to_string();
    s.wait_ready(&id, 120);
    let path = format!("/api/traces/{id}/timeline");
    for at in ["0", "5"] {
        let body = format!(
            r#"{{"range":{{"start_s":{at},"end_s":{at}}},"bins":333,"by":"process","top":8,"filters":[]}}"#
        );
        let (st, v) = s.json("POST", &path, &body);
        eprintln!("[{at}, {at}]: {st} {v}");
        assert_eq!(st, 200, "{v}");
        assert_eq!(v["series"], serde_json::json!([]), "{v}");
        assert!(v["other"].is_null(), "{v}");
    }
    // A real range still has series.
    let (st, v) = s.json(
        "POST",
        &path,
        r#"{"range":{"start_s":0,"end_s":10},"bins":10}"#,
    );
    assert_eq!(st, 200, "{v}");
    assert!(!v["series"].as_array().unwrap().is_empty(), "{v}");
    // Real errors stay errors.
    let (st, v) = s.json(
        "POST",
        &path,
        r#"{"range":{"start_s":5,"end_s":4},"bins":10}"#,
    );
    assert_eq!(st, 400, "{v}");
    let (st, v) = s.json(
        "POST",
        &path,
        r#"{"range":{"start_s":0,"end_s":0},"bins":0}"#,
    );
    assert_eq!(st, 400, "{v}");
}
