//! Every documented endpoint's real response validates against its schema
//! in docs/openapi.json (OpenAPI 3.1: JSON Schema 2020-12), on the demo
//! trace served by the real binary. The schemas are read as closed (an
//! object schema that lists properties allows no others), so a field the
//! server sends and the document does not describe fails the test too.

mod common;

use common::{temp_dir, Server};
use serde_json::{json, Value};

const DOC: &str = include_str!("../../docs/openapi.json");

/// Object schemas that list properties allow no others, unless they say.
fn closed(v: &mut Value) {
    match v {
        Value::Object(m) => {
            if m.contains_key("properties") && !m.contains_key("additionalProperties") {
                m.insert("additionalProperties".into(), Value::Bool(false));
            }
            for (_, c) in m.iter_mut() {
                closed(c);
            }
        }
        Value::Array(a) => a.iter_mut().for_each(closed),
        _ => {}
    }
}

/// The schema of `method path`'s success response, with the document's
/// components beside it so that `$ref`s resolve.
fn response_schema(doc: &Value, path: &str, method: &str) -> Value {
    let op = &doc["paths"][path][method];
    assert!(op.is_object(), "{method} {path} is not documented");
    let ok = ["200", "201"]
        .iter()
        .map(|s| &op["responses"][*s]["content"]["application/json"]["schema"])
        .find(|s| s.is_object())
        .unwrap_or_else(|| panic!("{method} {path}: no JSON success response documented"));
    let mut schema = ok.clone();
    if let Value::Object(m) = &mut schema {
        m.insert("components".into(), doc["components"].clone());
    }
    schema
}

/// Where `response` differs from the schema of `method path`.
fn mismatches(doc: &Value, path: &str, method: &str, response: &Value) -> Vec<String> {
    let schema = response_schema(doc, path, method);
    let v = jsonschema::validator_for(&schema)
        .unwrap_or_else(|e| panic!("{method} {path}: the documented schema is not valid: {e}"));
    v.iter_errors(response)
        .take(20)
        .map(|e| format!("{method} {path}: {} at {}", e, e.instance_path()))
        .collect()
}

#[test]
fn every_endpoint_answers_as_documented() {
    let mut doc: Value = serde_json::from_str(DOC).expect("openapi.json parses");
    closed(&mut doc);
    let mut errors: Vec<String> = Vec::new();
    let mut check = |doc: &Value, path: &str, method: &str, r: &Value| {
        errors.extend(mismatches(doc, path, method, r));
    };
    let data = temp_dir("openapi");
    let demo = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../traces/explorer-overlay.etl"
    );
    let server = Server::start(&data, &[demo]);
    let (s, list) = server.json("GET", "/api/traces", "");
    assert_eq!(s, 200);
    check(&doc, "/api/traces", "get", &list);
    let id = list["traces"][0]["id"].as_str().expect("an id").to_string();
    let ready = server.wait_ready(&id, 120);
    check(&doc, "/api/traces/{id}", "get", &ready);
    let get = |p: &str| {
        let (s, v) = server.json("GET", &p.replace("{id}", &id), "");
        assert_eq!(s, 200, "GET {p}: {v}");
        v
    };
    for p in [
        "/api/traces/{id}/summary",
        "/api/traces/{id}/columns",
        "/api/traces/{id}/symbols",
        "/api/traces/{id}/findings",
    ] {
        check(&doc, p, "get", &get(p));
    }
    let (s, v) = server.json(
        "PUT",
        &format!("/api/traces/{id}/symbols"),
        r#"{"symbol_path": null}"#,
    );
    assert_eq!(s, 200, "PUT symbols: {v}");
    check(&doc, "/api/traces/{id}/symbols", "put", &v);
    let post = |p: &str, body: Value| {
        let (s, v) = server.json("POST", &p.replace("{id}", &id), &body.to_string());
        assert_eq!(s, 200, "POST {p} {body}: {v}");
        v
    };
    let range = json!({"start_s": 7.0, "end_s": 23.0});
    let tables = [
        json!({"table": "cpu-sampled", "columns": ["Process", "Stack"], "range": range, "path": ["explorer.exe (6148)"]}),
        json!({"table": "cpu-sampled", "columns": ["Process"], "range": range, "values": ["Thread ID:unique", "Time", "Module", "CPU:avg", "% Weight"], "sort": {"by": "Time"}}),
        json!({"table": "images", "columns": ["Process", "Image Path"], "values": ["Load Time", "Image Size", "File Version"]}),
        json!({"table": "file-io", "columns": ["Type", "File Path"]}),
        json!({"table": "processes", "columns": ["Process"], "values": ["Start Time", "End Time", "Duration"]}),
        json!({"table": "generic", "columns": ["Provider"]}),
        json!({"table": "file-io", "columns": ["Type", "File Path"], "graph": {"bins": 20, "measure": "count"}}),
    ];
    for body in tables {
        check(
            &doc,
            "/api/traces/{id}/table",
            "post",
            &post("/api/traces/{id}/table", body),
        );
    }
    check(
        &doc,
        "/api/traces/{id}/flame",
        "post",
        &post("/api/traces/{id}/flame", json!({"range": range})),
    );
    check(
        &doc,
        "/api/traces/{id}/timeline",
        "post",
        &post("/api/traces/{id}/timeline", json!({"bins": 50})),
    );
    let graphs = [
        json!({"table": "cpu-sampled", "columns": ["Process", "Stack"], "range": range, "path": ["explorer.exe (6148)"], "bins": 40}),
        json!({"table": "file-io", "columns": ["Type", "File Path"], "measure": "count"}),
        json!({"table": "processes", "columns": ["Process"], "sort": {"by": "label"}}),
    ];
    for body in graphs {
        check(
            &doc,
            "/api/traces/{id}/graph",
            "post",
            &post("/api/traces/{id}/graph", body),
        );
    }
    check(
        &doc,
        "/api/traces/{id}/sql",
        "post",
        &post(
            "/api/traces/{id}/sql",
            json!({"sql": "SELECT process, count(*), avg(weight) * 1.5, NULL FROM cpu_sampled GROUP BY 1", "max_rows": 3}),
        ),
    );
    // The library's SQL (the demo's summary may still be on its way: the
    // answer's shape is the same with no row).
    check(
        &doc,
        "/api/sql",
        "post",
        &post(
            "/api/sql",
            json!({"sql": "SELECT trace, name, samples, 0.5 FROM library_traces", "max_rows": 3}),
        ),
    );
    check(&doc, "/api/sql/schema", "get", &get("/api/sql/schema"));
    check(
        &doc,
        "/api/traces/{id}/butterfly",
        "post",
        &post(
            "/api/traces/{id}/butterfly",
            json!({"kind": "module", "target": "tishell64_26_0_39450.dll", "by": "module"}),
        ),
    );
    let link = post(
        "/api/links",
        json!({"target": format!("/t/{id}?v=2&view=table&t=images")}),
    );
    check(&doc, "/api/links", "post", &link);
    let link_id = link["id"].as_str().unwrap_or_default();
    check(
        &doc,
        "/api/links/{id}",
        "get",
        &get(&format!("/api/links/{link_id}")),
    );
    // Notes: written (201 with its key), listed, read, changed by its key, counted.
    let (s, note) = server.json(
        "POST",
        &format!("/api/traces/{id}/notes"),
        &json!({"text": "see *this*", "view": "v=2&t=images&r=1-2", "author": "ann"}).to_string(),
    );
    assert_eq!(s, 201, "POST notes: {note}");
    check(&doc, "/api/traces/{id}/notes", "post", &note);
    check(
        &doc,
        "/api/traces/{id}/notes",
        "get",
        &get("/api/traces/{id}/notes"),
    );
    let note_id = note["id"].as_str().unwrap_or_default();
    check(
        &doc,
        "/api/notes/{id}",
        "get",
        &get(&format!("/api/notes/{note_id}")),
    );
    let (s, edited) = common::request(
        &server.addr,
        "PUT",
        &format!("/api/notes/{note_id}"),
        json!({"text": "edited"}).to_string().as_bytes(),
        &[(
            "X-Etlscope-Note-Key",
            note["key"].as_str().unwrap_or_default(),
        )],
    );
    assert_eq!(s, 200, "PUT note: {edited}");
    check(
        &doc,
        "/api/notes/{id}",
        "put",
        &serde_json::from_str(&edited).unwrap_or_default(),
    );
    check(&doc, "/api/note-counts", "get", &get("/api/note-counts"));
    let (s, v) = server.json(
        "PUT",
        "/api/stacktags/test",
        include_str!("../../fixtures/stacktags/test.stacktags"),
    );
    assert_eq!(s, 201, "PUT /api/stacktags/test: {v}");
    check(&doc, "/api/stacktags/{name}", "put", &v);
    let (s, v) = server.json("GET", "/api/stacktags", "");
    assert_eq!(s, 200, "GET /api/stacktags: {v}");
    check(&doc, "/api/stacktags", "get", &v);
    let regions = r#"<InstrumentationManifest><Instrumentation><Regions>
<RegionRoot Guid="{11111111-0000-0000-0000-000000000000}" Name="Root">
<Region Guid="{11111111-0000-0000-0000-000000000001}" Name="R">
<Start><Event Provider="{22222222-0000-0000-0000-000000000000}" Id="1"/></Start>
<Stop><Event Provider="{22222222-0000-0000-0000-000000000000}" Id="2"/></Stop>
</Region></RegionRoot></Regions></Instrumentation></InstrumentationManifest>"#;
    let (s, v) = server.json("PUT", "/api/regions/test", regions);
    assert_eq!(s, 201, "PUT /api/regions/test: {v}");
    check(&doc, "/api/regions/{name}", "put", &v);
    let (s, v) = server.json("GET", "/api/regions", "");
    assert_eq!(s, 200, "GET /api/regions: {v}");
    check(&doc, "/api/regions", "get", &v);
    for (p, body) in [
        (
            "/api/traces/{id}/callers",
            json!({"kind": "function", "target": "kernel32.dll!Process32NextW", "range": range}),
        ),
        (
            "/api/traces/{id}/callees",
            json!({"kind": "module", "target": "tishell64_26_0_39450.dll", "by": "module"}),
        ),
        (
            "/api/traces/{id}/search",
            json!({"q": "overlay", "limit": 5}),
        ),
    ] {
        check(&doc, p, "post", &post(p, body));
    }
    // A trace against itself: every delta 0, the shape is what counts here.
    let (s, v) = server.json(
        "POST",
        "/api/compare",
        &json!({"base": id, "new": id, "columns": ["Process Name"], "base_range": range, "normalize": "time", "limit": 3}).to_string(),
    );
    assert_eq!(s, 200, "POST /api/compare: {v}");
    check(&doc, "/api/compare", "post", &v);
    // Errors: one documented shape, whatever produced them.
    let error_schema =
        json!({"$ref": "#/components/schemas/Error", "components": doc["components"].clone()});
    let validator = jsonschema::validator_for(&error_schema).expect("the Error schema is valid");
    for (method, p, body) in [
        ("GET", "/api/traces/00000000000000000000000000000000", ""),
        ("GET", "/api/no-such-route", ""),
        ("POST", "/api/traces/{id}/table", "{not json"),
        (
            "POST",
            "/api/traces/{id}/table",
            r#"{"table": "no-such-table", "columns": []}"#,
        ),
        (
            "POST",
            "/api/traces/{id}/sql",
            r#"{"sql": "SELECT nope FROM cpu_sampled"}"#,
        ),
        (
            "POST",
            "/api/sql",
            r#"{"sql": "SELECT nope FROM library_traces"}"#,
        ),
        ("POST", "/api/sql", r#"{"sql": "SELECT * FROM links"}"#),
    ] {
        let (s, v) = server.json(method, &p.replace("{id}", &id), body);
        assert!(s >= 400, "{method} {p}: {s}");
        errors.extend(
            validator
                .iter_errors(&v)
                .map(|e| format!("{method} {p} ({s}): {e} at {}", e.instance_path())),
        );
    }
    drop(server);
    std::fs::remove_dir_all(&data).ok();
    assert!(
        errors.is_empty(),
        "responses that do not match docs/openapi.json:\n{}",
        errors.join("\n")
    );
}

/// A trace of several files (`etlscope open a.etl b.etl`): its entry, with
/// the `files` list, answers as documented too.
#[test]
fn an_entry_of_several_files_answers_as_documented() {
    let mut doc: Value = serde_json::from_str(DOC).expect("openapi.json parses");
    closed(&mut doc);
    let data = temp_dir("openapi-multi-data");
    let mine = temp_dir("openapi-multi-mine");
    let (bytes, _) = common::fixture_trace::write();
    let a = mine.join("a.etl");
    let b = mine.join("b.etl");
    std::fs::write(&a, &bytes).unwrap();
    std::fs::write(&b, &bytes).unwrap();
    let server = Server::start_command("open", &data, &[a.to_str().unwrap(), b.to_str().unwrap()]);
    let (_, list) = server.json("GET", "/api/traces", "");
    let mut errors = mismatches(&doc, "/api/traces", "get", &list);
    let id = list["traces"][0]["id"].as_str().expect("an id").to_string();
    assert_eq!(list["traces"][0]["files"].as_array().map(Vec::len), Some(2));
    let ready = server.wait_ready(&id, 120);
    errors.extend(mismatches(&doc, "/api/traces/{id}", "get", &ready));
    assert!(errors.is_empty(), "{}", errors.join("\n"));
    drop(server);
    std::fs::remove_dir_all(&data).ok();
    std::fs::remove_dir_all(&mine).ok();
}
