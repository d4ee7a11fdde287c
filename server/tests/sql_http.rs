//! `POST /api/traces/{id}/sql` (issue 38) on the real server: the demo's
//! figure, errors as 400 with SQLite's message and position, hostile SQL
//! refused or stopped at the server's limits while the server keeps
//! answering, and a query whose client went away stopped (its memory,
//! reserved under the server's budget, comes back at once).

mod common;

use common::{head, request, temp_dir, Server};
use serde_json::{json, Value};
use std::io::Write;
use std::net::TcpStream;
use std::path::PathBuf;
use std::time::{Duration, Instant};

const BOMB: &str =
    "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) SELECT count(*) FROM r";

fn serve(extra: &[&str]) -> (Server, String) {
    let demo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../traces/explorer-overlay.etl");
    let mut args = vec![demo.to_str().expect("utf-8 path")];
    args.extend_from_slice(extra);
    let s = Server::start(&temp_dir("sql-http"), &args);
    let (_, list) = s.json("GET", "/api/traces", "");
    let id = list["traces"][0]["id"].as_str().expect("an id").to_string();
    s.wait_ready(&id, 120);
    (s, id)
}

fn post_sql(s: &Server, id: &str, body: &Value) -> (u16, Value) {
    let (status, text) = request(
        &s.addr,
        "POST",
        &format!("/api/traces/{id}/sql"),
        body.to_string().as_bytes(),
        &[("Content-Type", "application/json")],
    );
    let v = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    (status, v)
}

#[test]
fn answers_refuses_and_stops() {
    let (s, id) = serve(&["--sql-timeout-secs", "1", "--sql-max-rows", "100"]);
    let (status, a) = post_sql(
        &s,
        &id,
        &json!({"sql": "SELECT process, count(*) AS samples FROM cpu_sampled WHERE time >= 7000000000 AND time < 23000000000 GROUP BY 1 ORDER BY 2 DESC LIMIT 1"}),
    );
    assert_eq!(status, 200, "{a}");
    assert_eq!(a["columns"], json!(["process", "samples"]));
    assert_eq!(a["rows"], json!([["explorer.exe (6148)", 42300]]));
    assert_eq!(a["truncated"], false);

    // A wrong statement: 400, SQLite's message and where.
    let (status, e) = post_sql(&s, &id, &json!({"sql": "SELECT nope FROM cpu_sampled"}));
    assert_eq!(status, 400, "{e}");
    assert_eq!(e["error"]["code"], "bad_sql");
    assert_eq!(e["error"]["message"], "no such column: nope");
    assert_eq!(e["error"]["position"], 7);

    // Writes, ATTACH, PRAGMAs that change state, extensions: refused.
    for sql in [
        "ATTACH DATABASE '/tmp/etlscope-sql-http.db' AS x",
        "INSERT INTO processes(pid) VALUES (1)",
        "CREATE TEMP VIEW v AS SELECT 1",
        "PRAGMA query_only = 0",
        "SELECT load_extension('/tmp/x.so')",
    ] {
        let (status, e) = post_sql(&s, &id, &json!({ "sql": sql }));
        assert_eq!(status, 400, "{sql}: {e}");
        assert_eq!(e["error"]["code"], "sql_refused", "{sql}: {e}");
    }
    assert!(!std::path::Path::new("/tmp/etlscope-sql-http.db").exists());
    let (status, e) = post_sql(&s, &id, &json!({"sql": "SELECT 1; DROP TABLE x"}));
    assert_eq!(status, 400, "{e}");

    // A recursive CTE bomb and a huge cross join: stopped at the time
    // limit (1 s here) while another request is answered meanwhile.
    let start = Instant::now();
    let bombs: Vec<_> = [
        BOMB,
        "SELECT count(*) FROM cpu_sampled a, cpu_sampled b, cpu_sampled c",
    ]
    .into_iter()
    .map(|sql| {
        let addr = s.addr.clone();
        let path = format!("/api/traces/{id}/sql");
        std::thread::spawn(move || {
            request(
                &addr,
                "POST",
                &path,
                json!({ "sql": sql }).to_string().as_bytes(),
                &[],
            )
        })
    })
    .collect();
    let (status, _) = s.get("/api/traces");
    assert_eq!(status, 200);
    for b in bombs {
        let (status, text) = b.join().expect("bomb thread");
        assert_eq!(status, 422, "{text}");
        assert!(text.contains("sql_timeout"), "{text}");
    }
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "{:?}",
        start.elapsed()
    );
    // Rows past the server's --sql-max-rows (100) are cut; a request may ask for fewer.
    let (status, a) = post_sql(&s, &id, &json!({"sql": "SELECT pid FROM cpu_sampled"}));
    assert_eq!(status, 200);
    assert_eq!(a["rows"].as_array().map(Vec::len), Some(100));
    assert_eq!(a["truncated"], true);
    let (_, a) = post_sql(
        &s,
        &id,
        &json!({"sql": "SELECT pid FROM cpu_sampled", "max_rows": 3, "timeout_ms": 60000}),
    );
    assert_eq!(a["rows"].as_array().map(Vec::len), Some(3));
    // Still answering.
    let (status, a) = post_sql(&s, &id, &json!({"sql": "SELECT count(*) FROM processes"}));
    assert_eq!((status, a["truncated"].clone()), (200, json!(false)), "{a}");
}

/// With a budget that holds one query's memory (--sql-memory-mb 64 of
/// --memory-budget-mb 100), a second query waits for the first; the first,
/// whose client went away, is stopped at once, so the second answers long
/// before the first's 60 s time limit.
#[test]
fn a_query_whose_client_went_away_stops() {
    let (s, id) = serve(&[
        "--sql-timeout-secs",
        "60",
        "--sql-memory-mb",
        "64",
        "--memory-budget-mb",
        "100",
    ]);
    let body = json!({ "sql": BOMB }).to_string();
    let path = format!("/api/traces/{id}/sql");
    let mut c = TcpStream::connect(&s.addr).expect("connect");
    let h = head(&s.addr, "POST", &path, body.len(), &[("X-Etlscope", "1")]);
    c.write_all(h.as_bytes()).expect("head");
    c.write_all(body.as_bytes()).expect("body");
    std::thread::sleep(Duration::from_millis(500));
    drop(c);
    let start = Instant::now();
    let (status, a) = post_sql(&s, &id, &json!({"sql": "SELECT count(*) FROM processes"}));
    assert_eq!(status, 200, "{a}");
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "the second query waited {:?}: the first was not stopped",
        start.elapsed()
    );
}

/// `GET /api/sql/schema` (the Query tab's completion) lists every table
/// SQLite knows with exactly the columns SQLite gives it: each table's
/// columns compared with `pragma_table_info` asked over the SQL endpoint,
/// and every `cpu_sampled` column named by the guide is there.
#[test]
fn the_schema_lists_the_tables_and_columns_sqlite_has() {
    let (s, id) = serve(&[]);
    let (status, schema) = s.json("GET", "/api/sql/schema", "");
    assert_eq!(status, 200, "{schema}");
    let tables = schema["tables"].as_array().expect("tables");
    assert!(tables.len() >= 20, "{} tables", tables.len());
    for t in tables {
        let name = t["name"].as_str().expect("name");
        let listed: Vec<&str> = t["columns"]
            .as_array()
            .expect("columns")
            .iter()
            .map(|c| c["name"].as_str().expect("column name"))
            .collect();
        let (status, a) = post_sql(
            &s,
            &id,
            &json!({ "sql": format!("SELECT name FROM pragma_table_info('{name}') ORDER BY cid") }),
        );
        assert_eq!(status, 200, "{name}: {a}");
        let sqlite: Vec<&str> = a["rows"]
            .as_array()
            .expect("rows")
            .iter()
            .map(|r| r[0].as_str().expect("text"))
            .collect();
        assert_eq!(listed, sqlite, "{name}");
    }
    // And no table the trace adds is left out: its tables are eponymous
    // virtual tables, so SQLite lists them as modules, beside its own.
    let (status, a) = post_sql(
        &s,
        &id,
        &json!({"sql": "SELECT name FROM pragma_module_list WHERE name NOT LIKE 'pragma_%' \
            AND name NOT LIKE 'fts%' AND name NOT LIKE 'rtree%' AND name NOT LIKE 'json%' \
            AND name NOT IN ('dbstat', 'sqlite_dbpage', 'sqlite_stmt', 'generate_series', 'carray', 'completion')"}),
    );
    assert_eq!(status, 200, "{a}");
    let mut sqlite: Vec<&str> = a["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| r[0].as_str().expect("text"))
        .collect();
    let mut listed: Vec<&str> = tables
        .iter()
        .map(|t| t["name"].as_str().expect("name"))
        .collect();
    sqlite.sort_unstable();
    listed.sort_unstable();
    assert_eq!(listed, sqlite);
    let cpu = tables
        .iter()
        .find(|t| t["name"] == "cpu_sampled")
        .expect("cpu_sampled");
    assert_eq!(cpu["table"], "cpu-sampled");
    let time = cpu["columns"]
        .as_array()
        .expect("columns")
        .iter()
        .find(|c| c["name"] == "time")
        .expect("time");
    assert_eq!(time["type"], "INTEGER");
    assert_eq!(time["unit"], "ns since trace start");
    let functions: Vec<&str> = schema["functions"]
        .as_array()
        .expect("functions")
        .iter()
        .map(|f| f["name"].as_str().expect("name"))
        .collect();
    assert_eq!(functions, ["stack_contains", "stack_text"]);
}
