//! The SQL tables against the model read directly (expected values are
//! computed here from the model's own columns, not through the virtual
//! tables), and hostile statements.

use crate::{query, schema, Answer, ErrorKind, Limits};
use model::{Trace, NONE};
use query::synthetic::{trace, Shape};
use rusqlite::types::Value;
use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

fn small() -> Arc<Trace> {
    Arc::new(trace(&Shape::small(2)))
}

fn run(t: &Arc<Trace>, sql: &str) -> Answer {
    match query(
        t,
        sql,
        &Limits::default(),
        &Arc::new(AtomicBool::new(false)),
    ) {
        Ok(a) => a,
        Err(e) => panic!("{sql}: {e}"),
    }
}

fn int(v: &Value) -> i64 {
    match v {
        Value::Integer(i) => *i,
        other => panic!("not an integer: {other:?}"),
    }
}

/// Samples per PID, from the model's sample and thread columns.
fn samples_per_pid(t: &Trace, keep: impl Fn(usize) -> bool) -> BTreeMap<i64, i64> {
    let mut m = BTreeMap::new();
    for i in 0..t.samples.len() {
        if !keep(i) {
            continue;
        }
        let th = t.samples.thread(i) as usize;
        let p = t.threads.process[th] as usize;
        *m.entry(i64::from(t.processes.pid[p])).or_insert(0) += 1;
    }
    m
}

fn pairs(a: &Answer) -> BTreeMap<i64, i64> {
    a.rows.iter().map(|r| (int(&r[0]), int(&r[1]))).collect()
}

#[test]
fn samples_per_process() {
    let t = small();
    let a = run(&t, "SELECT pid, count(*) FROM cpu_sampled GROUP BY 1");
    assert_eq!(a.columns, ["pid", "count(*)"]);
    assert_eq!(pairs(&a), samples_per_pid(&t, |_| true));
    assert!(!a.truncated);
}

/// A time range (pushed down: binary search on the sorted time column) and
/// a process (a keyed text column) give what the model says.
#[test]
fn pushed_down_constraints_match_the_model() {
    let t = small();
    let times = &t.samples.time;
    let (lo, hi) = (times[times.len() / 4], times[times.len() / 2]);
    let sql = format!(
        "SELECT pid, count(*) FROM cpu_sampled WHERE time >= {lo} AND time < {hi} GROUP BY 1"
    );
    let want = samples_per_pid(&t, |i| times[i] >= lo && times[i] < hi);
    assert_eq!(pairs(&run(&t, &sql)), want);
    // The same through SQLite's own comparisons (`+time` is not offered to the table).
    let plain = sql
        .replace("time >=", "+time >=")
        .replace("time <", "+time <");
    assert_eq!(pairs(&run(&t, &plain)), want);
    // A process by its label.
    let (&pid, &n) = want.iter().next().expect("a process");
    let label = run(
        &t,
        &format!("SELECT process FROM cpu_sampled WHERE pid = {pid} LIMIT 1"),
    );
    let Value::Text(label) = &label.rows[0][0] else {
        panic!("process is text")
    };
    let by_label = run(
        &t,
        &format!(
            "SELECT count(*) FROM cpu_sampled WHERE process = '{}' AND time >= {lo} AND time < {hi}",
            label.replace('\'', "''")
        ),
    );
    assert_eq!(int(&by_label.rows[0][0]), n);
    // Equality on a NULL never holds.
    let none = run(&t, "SELECT count(*) FROM cpu_sampled WHERE pid = NULL");
    assert_eq!(int(&none.rows[0][0]), 0);
}

/// `stack_contains` against a walk of each sample's stack.
#[test]
fn stack_contains_matches_a_walk() {
    let t = small();
    let f = (0..t.frames.len() as u32)
        .find(|&f| t.frame_label(f).contains('!'))
        .expect("a frame in a module");
    let label = t.frame_label(f);
    let needle = &label[label.len() / 2..];
    let want = (0..t.samples.len())
        .filter(|&i| {
            let st = t.samples.stack[i];
            st != NONE
                && t.stacks.frames_leaf_first(st).any(|fr| {
                    t.frame_label(fr)
                        .to_ascii_lowercase()
                        .contains(&needle.to_ascii_lowercase())
                })
        })
        .count() as i64;
    assert!(want > 0);
    let sql = format!(
        "SELECT count(*) FROM cpu_sampled WHERE stack_contains(stack, '{}')",
        needle.to_ascii_uppercase().replace('\'', "''")
    );
    assert_eq!(int(&run(&t, &sql).rows[0][0]), want);
    // The prefix tree walked in SQL says the same of one stack.
    let st = t
        .samples
        .stack
        .iter()
        .copied()
        .find(|&s| s != NONE)
        .expect("a stack");
    let frames: Vec<u32> = t.stacks.frames_leaf_first(st).collect();
    let a = run(
        &t,
        &format!(
            "WITH RECURSIVE up(id, n) AS (SELECT {st}, 0 UNION ALL SELECT parent_id, n + 1 FROM stacks JOIN up ON stack_id = up.id WHERE parent_id IS NOT NULL) \
             SELECT frame_id FROM up JOIN stacks ON stack_id = up.id ORDER BY n"
        ),
    );
    let got: Vec<u32> = a.rows.iter().map(|r| int(&r[0]) as u32).collect();
    assert_eq!(got, frames);
    let text = run(&t, &format!("SELECT stack_text({st})"));
    assert_eq!(
        text.rows[0][0],
        Value::Text(query::table::columns::stack_text(&t, st))
    );
}

#[test]
fn every_table_answers() {
    let t = small();
    for (sql_name, _) in schema::trace_tables() {
        run(&t, &format!("SELECT * FROM {sql_name} LIMIT 3"));
    }
    for l in crate::lists::LISTS {
        run(&t, &format!("SELECT * FROM {} LIMIT 3", l.name));
    }
    let a = run(&t, "SELECT value FROM trace_info WHERE key = 'samples'");
    assert_eq!(int(&a.rows[0][0]), t.samples.len() as i64);
    let a = run(&t, "SELECT count(*) FROM frames WHERE frame_id = 1");
    assert_eq!(int(&a.rows[0][0]), 1);
}

fn refused(t: &Arc<Trace>, sql: &str, limits: &Limits) -> crate::SqlError {
    match query(t, sql, limits, &Arc::new(AtomicBool::new(false))) {
        Ok(a) => panic!("{sql} answered {} rows", a.rows.len()),
        Err(e) => e,
    }
}

#[test]
fn writes_attach_pragmas_and_extensions_are_refused() {
    let t = small();
    let l = Limits::default();
    for sql in [
        "ATTACH DATABASE '/tmp/etlscope-sql-attack.db' AS x",
        "CREATE TABLE x(a)",
        "CREATE TEMP TABLE x(a)",
        "CREATE TEMP VIEW v AS SELECT 1",
        "INSERT INTO cpu_sampled(pid) VALUES (1)",
        "DELETE FROM processes",
        "PRAGMA writable_schema = 1",
        "PRAGMA temp_store_directory = '/tmp'",
        "SELECT load_extension('/tmp/x.so')",
        "BEGIN",
        "VACUUM INTO '/tmp/etlscope-sql-attack.db'",
    ] {
        let e = refused(&t, sql, &l);
        assert!(
            matches!(e.kind, ErrorKind::Refused | ErrorKind::Invalid),
            "{sql}: {e:?}"
        );
    }
    assert!(!std::path::Path::new("/tmp/etlscope-sql-attack.db").exists());
    let e = refused(&t, "ATTACH ':memory:' AS x", &l);
    assert_eq!(e.kind, ErrorKind::Refused, "{e:?}");
    let e = refused(&t, "SELECT 1; SELECT 2", &l);
    assert!(e.message.contains("one statement"), "{e:?}");
    // Reading the schema stays possible.
    let a = run(
        &t,
        "SELECT name FROM pragma_table_info('cpu_sampled') LIMIT 1",
    );
    assert_eq!(a.rows.len(), 1);
}

#[test]
fn syntax_errors_say_where() {
    let t = small();
    let e = refused(
        &t,
        "SELECT pid FROM cpu_sampled WHERE WHERE",
        &Limits::default(),
    );
    assert_eq!(e.kind, ErrorKind::Invalid);
    assert!(e.message.contains("syntax error"), "{e:?}");
    assert!(e.offset.is_some(), "{e:?}");
    let e = refused(&t, "SELECT nope FROM cpu_sampled", &Limits::default());
    assert!(e.message.contains("no such column: nope"), "{e:?}");
    assert_eq!(e.offset, Some(7), "{e:?}");
}

#[test]
fn bombs_stop_at_the_limits() {
    let t = small();
    let quick = Limits {
        timeout: Duration::from_millis(300),
        ..Limits::default()
    };
    let start = Instant::now();
    let e = refused(
        &t,
        "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) SELECT count(*) FROM r",
        &quick,
    );
    assert_eq!(e.kind, ErrorKind::TimedOut, "{e:?}");
    let e = refused(
        &t,
        "SELECT count(*) FROM cpu_sampled a, cpu_sampled b, cpu_sampled c",
        &quick,
    );
    assert_eq!(e.kind, ErrorKind::TimedOut, "{e:?}");
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
    // Rows past max_rows are left out and said so.
    let few = Limits {
        max_rows: 10,
        ..Limits::default()
    };
    let a = query(
        &t,
        "SELECT * FROM cpu_sampled a, cpu_sampled b",
        &few,
        &Arc::new(AtomicBool::new(false)),
    )
    .expect("rows");
    assert_eq!(a.rows.len(), 10);
    assert!(a.truncated);
    // A sort of a huge cross join stops at the memory limit.
    let small_memory = Limits {
        memory_bytes: 8 << 20,
        timeout: Duration::from_secs(20),
        ..Limits::default()
    };
    let e = refused(
        &t,
        "SELECT a.stack_text FROM (SELECT stack_text(stack) AS stack_text FROM cpu_sampled) a, cpu_sampled b ORDER BY 1 DESC",
        &small_memory,
    );
    assert_eq!(e.kind, ErrorKind::OutOfMemory, "{e:?}");
    // A huge string stops at SQLite's length limit.
    let e = refused(
        &t,
        "SELECT length(zeroblob(1000000000))",
        &Limits::default(),
    );
    assert_eq!(e.kind, ErrorKind::OutOfMemory, "{e:?}");
}

#[test]
fn cancel_stops_a_running_query() {
    let t = small();
    let cancel = Arc::new(AtomicBool::new(false));
    let c = cancel.clone();
    let stopper = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(100));
        c.store(true, std::sync::atomic::Ordering::Relaxed);
    });
    let start = Instant::now();
    let e = query(
        &t,
        "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) SELECT count(*) FROM r",
        &Limits::default(),
        &cancel,
    )
    .expect_err("cancelled");
    assert_eq!(e.kind, ErrorKind::Cancelled);
    assert!(start.elapsed() < Duration::from_secs(5));
    stopper.join().expect("stopper");
}

/// docs/guide/sql.md lists the tables and columns the declarations give.
#[test]
fn the_guide_lists_every_table_and_column() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/guide/sql.md");
    let doc = std::fs::read_to_string(path).expect("docs/guide/sql.md");
    let want = schema::markdown();
    assert!(
        doc.contains(&want),
        "docs/guide/sql.md's table list is out of date; its section \"Tables\" should hold:\n{want}"
    );
}

/// Every keyed column of every table: GROUP BY, DISTINCT and ORDER BY on
/// it (the scan gives its rows in the column's order, `grouped_scan`)
/// answer what SQLite's own sort answers (`+col` is an expression, which
/// SQLite never hands the table, so it sorts itself), and the plan has no
/// sorter of SQLite's.
#[test]
fn scans_in_a_keyed_columns_order_answer_as_sqlites_sort() {
    use query::table::columns::Cells;
    let t = small();
    let mut checked = 0;
    for (sql_name, api) in schema::trace_tables() {
        let Some(def) = query::TableDef::of(&t, api) else {
            continue;
        };
        for c in schema::sql_columns(&def) {
            if !matches!(def.columns[c.def].cells, Cells::Keyed { .. }) {
                continue;
            }
            let col = format!("\"{}\"", c.name);
            let both = |ours: &str, sqlites: &str| {
                let (a, b) = (run(&t, ours), run(&t, sqlites));
                assert_eq!(a.rows, b.rows, "{ours}");
                let plan = run(&t, &format!("EXPLAIN QUERY PLAN {ours}"));
                let plan = format!("{:?}", plan.rows);
                assert!(!plan.contains("TEMP B-TREE"), "{ours}: {plan}");
            };
            both(
                &format!("SELECT {col}, count(*) FROM {sql_name} GROUP BY {col}"),
                &format!("SELECT {col}, count(*) FROM {sql_name} GROUP BY +{col}"),
            );
            both(
                &format!("SELECT {col}, count(*) FROM {sql_name} GROUP BY 1 ORDER BY 1 DESC"),
                &format!("SELECT {col}, count(*) FROM {sql_name} GROUP BY +{col} ORDER BY 1 DESC"),
            );
            // DISTINCT and ORDER BY, with a constraint the scan applies too
            // (every other row by rowid is not pushed; a range on the rows is).
            let distinct = |sql: String| {
                let mut r = run(&t, &sql).rows;
                r.sort_by_key(|x| format!("{x:?}"));
                r
            };
            assert_eq!(
                distinct(format!("SELECT DISTINCT {col} FROM {sql_name}")),
                distinct(format!("SELECT DISTINCT +{col} FROM {sql_name}")),
                "{sql_name}.{col} distinct"
            );
            both(
                &format!("SELECT {col} FROM {sql_name} WHERE rowid % 3 = 1 ORDER BY {col} DESC"),
                &format!("SELECT {col} FROM {sql_name} WHERE rowid % 3 = 1 ORDER BY +{col} DESC"),
            );
            checked += 1;
        }
    }
    assert!(checked >= 20, "{checked} keyed columns");
}
