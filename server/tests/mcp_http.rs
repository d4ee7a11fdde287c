//! Issue 39: `/mcp` (MCP over streamable HTTP) keeps the API's rules: the
//! cross-site guard (Host, Origin, the header a state change needs),
//! `--private-reads` (no call without the token), a token for changes (a
//! symbol lookup), and a bounded message size. Raw JSON-RPC, as any client
//! sends it; the SDK's own client drives the tools in frontend/tests/mcp.test.mjs.

mod common;

use common::{raw_request, temp_dir, Server};
use serde_json::{json, Value};

const JSON: (&str, &str) = ("Content-Type", "application/json");
const ACCEPT: (&str, &str) = ("Accept", "application/json, text/event-stream");
const MARK: (&str, &str) = ("X-Etlscope", "1");
const BEARER: (&str, &str) = ("Authorization", "Bearer t0k");

fn rpc(method: &str, params: Value) -> Vec<u8> {
    json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
        .to_string()
        .into_bytes()
}

fn post(s: &Server, body: &[u8], headers: &[(&str, &str)]) -> (u16, Value) {
    let (status, text) = raw_request(&s.addr, "POST", "/mcp", body, headers);
    let v = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{status} {e}: {text}"));
    (status, v)
}

fn code(v: &Value) -> &str {
    v["error"]["code"].as_str().unwrap_or("")
}

#[test]
fn the_guard_and_message_size_apply_to_mcp() {
    let data = temp_dir("mcp-guard");
    let s = Server::start(&data, &[]);
    let list = rpc("tools/list", json!({}));
    // A POST without the header web pages of other sites cannot send.
    let (st, v) = post(&s, &list, &[JSON, ACCEPT]);
    assert_eq!((st, code(&v)), (403, "missing_header"), "{v}");
    let (st, v) = post(&s, &list, &[JSON, ACCEPT, MARK]);
    assert_eq!(st, 200, "{v}");
    let names: Vec<&str> = v["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    println!("tools: {names:?}");
    assert!(names.contains(&"table") && names.contains(&"hot_stacks"));
    // DNS rebinding and foreign pages.
    let (st, v) = post(
        &s,
        &list,
        &[("Host", "attacker.example"), JSON, ACCEPT, MARK],
    );
    assert_eq!((st, code(&v)), (403, "forbidden_host"), "{v}");
    let (st, v) = post(
        &s,
        &list,
        &[("Origin", "http://attacker.example"), JSON, ACCEPT, MARK],
    );
    assert_eq!((st, code(&v)), (403, "forbidden_origin"), "{v}");
    // A message larger than any tool call needs.
    let big = rpc(
        "tools/call",
        json!({"name": "table", "arguments": {"trace": "x".repeat(2 << 20)}}),
    );
    let (st, text) = raw_request(&s.addr, "POST", "/mcp", &big, &[JSON, ACCEPT, MARK]);
    println!("2 MiB message: {st} {}", &text[..text.len().min(200)]);
    assert_eq!(st, 413, "{text}");
    drop(s);
    std::fs::remove_dir_all(&data).ok();
}

#[test]
fn private_reads_need_the_token_for_every_call() {
    let data = temp_dir("mcp-private");
    let s = Server::start(&data, &["--token", "t0k", "--private-reads"]);
    let list = rpc("tools/list", json!({}));
    let (st, v) = post(&s, &list, &[JSON, ACCEPT, MARK]);
    assert_eq!((st, code(&v)), (401, "unauthorized"), "{v}");
    let (st, v) = post(&s, &list, &[JSON, ACCEPT, BEARER]);
    assert_eq!(st, 200, "{v}");
    assert!(
        v["result"]["tools"]
            .as_array()
            .is_some_and(|t| t.len() >= 11),
        "{v}"
    );
    drop(s);
    std::fs::remove_dir_all(&data).ok();
}

#[test]
fn a_symbol_lookup_over_mcp_needs_the_token_reading_does_not() {
    let data = temp_dir("mcp-write");
    let trace = concat!(env!("CARGO_MANIFEST_DIR"), "/../traces/explorer-fixed.etl");
    let s = Server::start(&data, &["--token", "t0k", trace]);
    let (st, traces) = s.json("GET", "/api/traces", "");
    assert_eq!(st, 200, "{traces}");
    let id = traces["traces"][0]["id"].as_str().unwrap().to_string();
    let call = |args: Value| rpc("tools/call", json!({"name": "symbols", "arguments": args}));
    let load = call(json!({"trace": id, "load": true}));
    let (st, v) = post(&s, &load, &[JSON, ACCEPT, MARK]);
    assert_eq!(st, 200, "{v}");
    let r = &v["result"];
    assert_eq!(r["isError"], true, "{v}");
    assert_eq!(
        r["structuredContent"]["error"]["code"], "unauthorized",
        "{v}"
    );
    // Reading the status is a read: open on this server. Wait for the
    // lookup that follows the read to end (a second one would be refused).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let (_, v) = post(&s, &call(json!({"trace": id})), &[JSON, ACCEPT, MARK]);
        assert_eq!(v["result"]["isError"], false, "{v}");
        if v["result"]["structuredContent"]["status"] == "done" {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "symbols not done: {v}"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let (_, v) = post(&s, &load, &[JSON, ACCEPT, BEARER]);
    assert_eq!(v["result"]["isError"], false, "{v}");
    println!(
        "lookup with the token: {}",
        v["result"]["structuredContent"]["status"]
    );
    // A path on the server is never opened over HTTP.
    let open = rpc(
        "tools/call",
        json!({"name": "open_trace", "arguments": {"path": "/etc/passwd"}}),
    );
    let (_, v) = post(&s, &open, &[JSON, ACCEPT, BEARER]);
    assert_eq!(v["result"]["isError"], true, "{v}");
    drop(s);
    std::fs::remove_dir_all(&data).ok();
}

#[test]
fn a_call_over_its_time_limit_is_a_tool_error_and_the_server_goes_on() {
    let data = temp_dir("mcp-limit");
    let trace = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../traces/explorer-overlay.etl"
    );
    let s = Server::start_env(
        "serve",
        &data,
        &[trace],
        &[("ETLSCOPE_MCP_CALL_LIMIT_MS", "1")],
    );
    let (_, traces) = s.json("GET", "/api/traces", "");
    let id = traces["traces"][0]["id"].as_str().unwrap().to_string();
    s.wait_ready(&id, 60);
    // A query that never ends by itself (a recursive CTE with no bound): only
    // the call's limit can end it, whatever the machine's speed. (A heavy
    // table query finished within 1 ms on a release build.)
    let forever =
        "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) SELECT count(*) FROM r";
    let call = rpc(
        "tools/call",
        json!({"name": "sql", "arguments": {"trace": id, "sql": forever}}),
    );
    let started = std::time::Instant::now();
    let (st, v) = post(&s, &call, &[JSON, ACCEPT, MARK]);
    assert_eq!(st, 200, "{v}");
    assert_eq!(v["result"]["isError"], true, "{v}");
    let err = &v["result"]["structuredContent"]["error"];
    println!("over the limit: {err} after {:?}", started.elapsed());
    assert_eq!(err["code"], "timeout", "{v}");
    let (st, v) = post(&s, &rpc("tools/list", json!({})), &[JSON, ACCEPT, MARK]);
    assert_eq!(st, 200, "{v}");
    drop(s);
    std::fs::remove_dir_all(&data).ok();
}
