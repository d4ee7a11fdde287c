//! One set of checks run against every catalog engine: SQLite (in memory)
//! and PostgreSQL (a real server on loopback; skipped loudly when it is not
//! installed, a failure under CI=true).

use super::{Catalog, MemberFile, Note, SqliteCatalog, Summary, TraceEntry};
use rusqlite::types::Value;

fn entry(id: &str) -> TraceEntry {
    TraceEntry {
        id: id.into(),
        name: "a.etl".into(),
        size: 10,
        file_name: format!("{id}.etl"),
        uploaded_at: "2026-01-01T00:00:00Z".into(),
        uploader: "me".into(),
        notes: String::new(),
        status: "pending".into(),
        error: String::new(),
        members: Vec::new(),
        redacted_from: String::new(),
    }
}

fn insert_list_update_delete(c: &dyn Catalog) {
    c.insert(&entry("x")).unwrap();
    c.insert(&entry("x")).unwrap();
    assert_eq!(c.list().unwrap().len(), 1);
    c.set_status("x", "failed", "bad").unwrap();
    assert_eq!(c.get("x").unwrap().unwrap().error, "bad");
    // Written only over the status it was read with.
    assert!(!c
        .set_status_if("x", ("ingesting", ""), "pending", "")
        .unwrap());
    assert_eq!(c.get("x").unwrap().unwrap().status, "failed");
    assert!(c
        .set_status_if("x", ("failed", "bad"), "ready", "")
        .unwrap());
    assert_eq!(c.get("x").unwrap().unwrap().status, "ready");
    assert!(c.delete("x").unwrap());
    assert!(!c.delete("x").unwrap());
    assert!(c.get("x").unwrap().is_none());
}

fn insert_keeps_the_first_row(c: &dyn Catalog) {
    c.insert(&entry("k")).unwrap();
    let mut other = entry("k");
    other.name = "b.etl".into();
    c.insert(&other).unwrap();
    assert_eq!(c.get("k").unwrap().unwrap().name, "a.etl");
}

fn insert_then_commits_only_a_placed_file(c: &dyn Catalog) {
    let refused = c
        .insert_then(
            &entry("r"),
            Box::new(|| Err(std::io::Error::other("disk full"))),
        )
        .unwrap();
    assert!(refused.is_err());
    assert!(c.get("r").unwrap().is_none(), "no row without its file");
    c.insert_then(&entry("r"), Box::new(|| Ok(())))
        .unwrap()
        .unwrap();
    assert_eq!(c.get("r").unwrap().unwrap().status, "pending");
    // A re-insert (the same bytes restoring a missing file) replaces the row.
    let mut again = entry("r");
    again.status = "ready".into();
    again.name = "renamed.etl".into();
    c.insert_then(&again, Box::new(|| Ok(()))).unwrap().unwrap();
    assert_eq!(c.get("r").unwrap().unwrap(), again);
}

fn every_field_and_members_round_trip(c: &dyn Catalog) {
    let mut e = entry("m");
    e.size = 5_000_000_000;
    e.notes = "line 1\nline 2 — ü 'quoted'".into();
    e.members = vec![
        MemberFile {
            path: "/t/x.etl".into(),
            size: 10,
            modified_ns: None,
        },
        MemberFile {
            path: "/t/x.kernel.etl".into(),
            size: 20,
            modified_ns: Some(1_700_000_000_123_456_789),
        },
    ];
    c.insert(&e).unwrap();
    assert_eq!(c.get("m").unwrap().unwrap(), e);
    let mut moved = e.clone();
    moved.file_name = "/u/x.etl".into();
    moved.size = 7;
    moved.members.truncate(1);
    c.set_files(&moved).unwrap();
    assert_eq!(c.get("m").unwrap().unwrap(), moved);
}

fn list_is_newest_first_then_by_name(c: &dyn Catalog) {
    for (id, name, at) in [
        ("1", "b.etl", "2026-01-01T00:00:00Z"),
        ("2", "a.etl", "2026-01-01T00:00:00Z"),
        ("3", "Z.etl", "2026-02-01T00:00:00Z"),
        ("4", "_.etl", "2026-01-01T00:00:00Z"),
    ] {
        let mut e = entry(id);
        e.name = name.into();
        e.uploaded_at = at.into();
        c.insert(&e).unwrap();
    }
    let ids: Vec<String> = c.list().unwrap().into_iter().map(|e| e.id).collect();
    // Byte order: '_' (0x5f) before 'a', 'Z' is newest.
    assert_eq!(ids, ["3", "4", "2", "1"]);
}

fn a_link_is_kept_once_and_a_clash_is_reported(c: &dyn Catalog) {
    assert_eq!(c.link_usage().unwrap(), (0, 0));
    assert_eq!(c.insert_link("a", "/t/x?v=2", "now").unwrap(), None);
    assert_eq!(c.insert_link("a", "/t/x?v=2", "later").unwrap(), None);
    assert_eq!(
        c.insert_link("a", "/t/y?v=2", "now").unwrap().as_deref(),
        Some("/t/x?v=2")
    );
    assert_eq!(c.link("a").unwrap().as_deref(), Some("/t/x?v=2"));
    assert_eq!(c.link("b").unwrap(), None);
    c.insert_link("é", "/t/é", "now").unwrap();
    // Bytes, not characters.
    assert_eq!(c.link_usage().unwrap(), (2, 8 + 5));
}

fn symbol_paths_go_with_their_trace(c: &dyn Catalog) {
    c.insert(&entry("t")).unwrap();
    assert_eq!(c.symbol_path("t").unwrap(), None);
    c.set_symbol_path("t", Some(r"srv*C:\sym*https://x;C:\pdbs"))
        .unwrap();
    c.set_symbol_path("t", Some("second")).unwrap();
    assert_eq!(c.symbol_path("t").unwrap().as_deref(), Some("second"));
    c.insert_then(&entry("t"), Box::new(|| Ok(())))
        .unwrap()
        .unwrap();
    assert!(c.symbol_path("t").unwrap().is_some(), "kept on re-insert");
    c.set_symbol_path("t", None).unwrap();
    assert_eq!(c.symbol_path("t").unwrap(), None);
    c.set_symbol_path("t", Some("x")).unwrap();
    assert!(c.delete("t").unwrap());
    assert_eq!(c.symbol_path("t").unwrap(), None);
}

fn a_deleted_trace_leaves_a_tombstone_until_added_again(c: &dyn Catalog) {
    assert!(!c.deleted("d").unwrap());
    c.insert(&entry("d")).unwrap();
    assert!(!c.deleted("d").unwrap());
    assert!(c.delete("d").unwrap());
    assert!(c.deleted("d").unwrap(), "a tombstone");
    assert!(!c.deleted("never").unwrap());
    // The same bytes uploaded again: a trace again, no tombstone.
    c.insert_then(&entry("d"), Box::new(|| Ok(())))
        .unwrap()
        .unwrap();
    assert!(!c.deleted("d").unwrap());
    assert!(c.delete("d").unwrap());
    c.insert(&entry("d")).unwrap();
    assert!(!c.deleted("d").unwrap());
}

fn named_files_are_kept_by_kind_and_name(c: &dyn Catalog) {
    assert_eq!(c.named_files("stacktags").unwrap(), vec![]);
    c.put_named_file("stacktags", "b", b"<xml b/>").unwrap();
    c.put_named_file("stacktags", "a", b"<xml a/>").unwrap();
    c.put_named_file("stacktags", "b", b"<xml b2/>").unwrap();
    // Another kind of the same name, and bytes that are not text.
    c.put_named_file("regions", "a", &[0, 0xff, 0xfe, 7])
        .unwrap();
    assert_eq!(
        c.named_files("stacktags").unwrap(),
        vec![
            ("a".into(), b"<xml a/>".to_vec()),
            ("b".into(), b"<xml b2/>".to_vec())
        ]
    );
    assert_eq!(
        c.named_files("regions").unwrap(),
        vec![("a".into(), vec![0, 0xff, 0xfe, 7])]
    );
    assert!(c.delete_named_file("stacktags", "a").unwrap());
    assert!(!c.delete_named_file("stacktags", "a").unwrap());
    assert_eq!(c.named_files("stacktags").unwrap().len(), 1);
    assert_eq!(c.named_files("regions").unwrap().len(), 1, "kinds apart");
}

fn note(id: &str, trace: &str) -> Note {
    Note {
        id: id.into(),
        trace: trace.into(),
        text: "look at *this* <b>spike</b>".into(),
        view: "v=2&t=cpu-sampled&r=1-2".into(),
        author: "ann".into(),
        author_token: "tok".into(),
        key_hash: "hash".into(),
        created_at: "2026-01-01T00:00:00Z".into(),
        updated_at: "2026-01-01T00:00:00Z".into(),
    }
}

fn notes_are_kept_counted_capped_and_deleted(c: &dyn Catalog) {
    assert!(c.insert_note(&note("n2", "t"), 2).unwrap());
    assert!(c.insert_note(&note("n1", "t"), 2).unwrap());
    assert!(
        !c.insert_note(&note("n3", "t"), 2).unwrap(),
        "the cap holds"
    );
    assert!(c.insert_note(&note("m1", "u"), 2).unwrap());
    let ids: Vec<String> = c.notes("t").unwrap().into_iter().map(|n| n.id).collect();
    assert_eq!(ids, ["n1", "n2"], "by id (ids sort by creation)");
    assert_eq!(
        c.note("n1").unwrap().unwrap(),
        note("n1", "t"),
        "every field"
    );
    let mut edited = note("n1", "t");
    edited.text = "edited".into();
    edited.view = "v=2".into();
    edited.author = "bob".into();
    edited.updated_at = "2026-01-02T00:00:00Z".into();
    edited.author_token = "not written".into();
    assert!(c.update_note(&edited).unwrap());
    let got = c.note("n1").unwrap().unwrap();
    assert_eq!((got.text.as_str(), got.author.as_str()), ("edited", "bob"));
    assert_eq!(got.author_token, "tok", "the writer's identity stays");
    assert!(!c.update_note(&note("zz", "t")).unwrap());
    assert_eq!(
        c.note_counts().unwrap(),
        [("t".to_string(), 2), ("u".to_string(), 1)]
    );
    assert!(c.delete_note("n2").unwrap());
    assert!(!c.delete_note("n2").unwrap());
    c.delete_notes_of("t").unwrap();
    assert!(c.notes("t").unwrap().is_empty());
    assert_eq!(c.note_counts().unwrap(), [("u".to_string(), 1)]);
}

fn insert_new_then_adds_once(c: &dyn Catalog) {
    let refused = c
        .insert_new_then(&entry("n"), Box::new(|| Err(std::io::Error::other("full"))))
        .unwrap();
    assert!(refused.is_err());
    assert!(c.get("n").unwrap().is_none(), "no row without its file");
    assert!(c
        .insert_new_then(&entry("n"), Box::new(|| Ok(())))
        .unwrap()
        .unwrap());
    let mut second = entry("n");
    second.name = "other.etl".into();
    let added = c
        .insert_new_then(&second, Box::new(|| Ok(())))
        .unwrap()
        .unwrap();
    assert!(!added, "the second writer finds it added");
    assert_eq!(c.get("n").unwrap().unwrap().name, "a.etl");
    assert!(c.delete("n").unwrap());
    assert!(c
        .insert_new_then(&entry("n"), Box::new(|| Ok(())))
        .unwrap()
        .unwrap());
    assert!(!c.deleted("n").unwrap());
}

/// A summary of trace `id` whose explorer.exe has `samples` samples.
fn summary(id: &str, samples: i64) -> Summary {
    use crate::library::schema::{table, TABLES};
    let t = |v: &str| Value::Text(v.into());
    let mut s = Summary {
        trace: id.into(),
        tables: Vec::new(),
    };
    for decl in TABLES {
        let rows = match decl.name {
            "library_traces" => vec![vec![
                t(id),
                t("a.etl"),
                t("PC"),
                t("10.0.19045"),
                Value::Integer(8),
                t("2026-01-01T00:00:00Z"),
                Value::Integer(1_000),
                Value::Integer(samples),
                t("build=1"),
                t("me"),
                t("2026-01-01T00:00:00Z"),
                Value::Integer(1),
            ]],
            "library_cpu_processes" => vec![
                vec![
                    t(id),
                    t("explorer.exe (10)"),
                    t("explorer.exe"),
                    Value::Integer(10),
                    Value::Integer(samples),
                    Value::Integer(samples * 1_000_000),
                ],
                vec![
                    t(id),
                    t("Idle (0)"),
                    t("Idle"),
                    Value::Integer(0),
                    Value::Integer(5),
                    Value::Null,
                ],
            ],
            "library_findings" => vec![vec![
                t(id),
                t("rule"),
                t("CPU"),
                t("title ü"),
                Value::Real(12.5),
                t("%"),
                t("v=2"),
            ]],
            _ => Vec::new(),
        };
        s.tables.push((table(decl.name).unwrap(), rows));
    }
    s
}

fn limits(ms: u64) -> ::sql::Limits {
    ::sql::Limits {
        max_rows: 100,
        timeout: std::time::Duration::from_millis(ms),
        memory_bytes: 64 << 20,
    }
}

fn ask(c: &dyn Catalog, sql: &str) -> Result<::sql::Answer, ::sql::SqlError> {
    let cancel = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    c.library_query(sql, &limits(2_000), &cancel)
}

fn library_summaries_are_replaced_queried_read_only_and_deleted(c: &dyn Catalog) {
    use ::sql::ErrorKind;
    for id in ["a", "b"] {
        c.insert(&entry(id)).unwrap();
    }
    c.insert_link("l", "/t/secret", "now").unwrap();
    c.put_summary(&summary("a", 100)).unwrap();
    c.put_summary(&summary("a", 250)).unwrap();
    c.put_summary(&summary("b", 7)).unwrap();
    let mut have = c.summaries().unwrap();
    have.sort();
    assert_eq!(have, [("a".to_string(), 1), ("b".to_string(), 1)]);
    let a = ask(
        c,
        "SELECT trace, sum(samples) AS s, count(*) AS n FROM library_cpu_processes GROUP BY trace ORDER BY trace",
    )
    .unwrap();
    assert_eq!(a.columns, ["trace", "s", "n"]);
    assert_eq!(
        a.rows,
        [
            vec![
                Value::Text("a".into()),
                Value::Integer(255),
                Value::Integer(2)
            ],
            vec![
                Value::Text("b".into()),
                Value::Integer(12),
                Value::Integer(2)
            ],
        ],
        "replaced, not added to"
    );
    let f = ask(c, "SELECT title, figure, cpus FROM library_findings JOIN library_traces USING (trace) WHERE trace = 'b'").unwrap();
    assert_eq!(
        f.rows,
        [vec![
            Value::Text("title ü".into()),
            Value::Real(12.5),
            Value::Integer(8)
        ]]
    );
    for (sql, kind) in [
        ("SELECT * FROM links", ErrorKind::Refused),
        ("SELECT key_hash FROM notes", ErrorKind::Refused),
        ("SELECT * FROM traces", ErrorKind::Refused),
        ("DELETE FROM library_traces", ErrorKind::Refused),
        (
            "INSERT INTO library_traces (trace) VALUES ('x')",
            ErrorKind::Refused,
        ),
        ("SELECT nope FROM library_traces", ErrorKind::Invalid),
    ] {
        let e = ask(c, sql).expect_err(sql);
        assert_eq!(e.kind, kind, "{sql}: {e}");
    }
    let e = ask(c, "SELECT nope FROM library_traces").unwrap_err();
    assert_eq!(e.offset, Some(7), "{e}");
    let cancel = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let started = std::time::Instant::now();
    let e = c
        .library_query(
            "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r",
            &limits(300),
            &cancel,
        )
        .unwrap_err();
    assert_eq!(e.kind, ErrorKind::TimedOut, "{e}");
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
    let many = c
        .library_query(
            "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 1000) SELECT n FROM r",
            &limits(2_000),
            &cancel,
        )
        .unwrap();
    assert_eq!((many.rows.len(), many.truncated), (100, true));
    // Still there after every refused write.
    assert_eq!(c.summaries().unwrap().len(), 2);
    assert_eq!(c.link("l").unwrap().as_deref(), Some("/t/secret"));
    assert!(c.delete("a").unwrap());
    assert_eq!(c.summaries().unwrap(), [("b".to_string(), 1)]);
    let left = ask(c, "SELECT count(*) FROM library_cpu_processes").unwrap();
    assert_eq!(
        left.rows,
        [vec![Value::Integer(2)]],
        "the deleted trace's rows went with it"
    );
}

#[test]
fn sqlite_library_contract() {
    let dir = testdata::TempDir::new("etlscope-lib-contract");
    let c = SqliteCatalog::open(&dir.path().join("c.sqlite")).unwrap();
    library_summaries_are_replaced_queried_read_only_and_deleted(&c);
}

#[cfg(all(feature = "team", not(windows)))]
#[test]
fn postgres_library_contract() {
    use super::PgCatalog;
    let Some(pg) = super::test_postgres::TestPostgres::start("library") else {
        return;
    };
    let url = pg.create_db("lib");
    let c = PgCatalog::connect(&url).unwrap();
    library_summaries_are_replaced_queried_read_only_and_deleted(&c);
    // The tables are the declared ones, typed as declared.
    let c = PgCatalog::connect(&url).unwrap();
    for t in crate::library::schema::TABLES {
        let got = c.column_types(t.name).unwrap();
        let want: Vec<(String, String)> = t
            .columns
            .iter()
            .map(|c| (c.name.to_string(), c.ty.postgres().to_string()))
            .collect();
        assert_eq!(got, want, "{}", t.name);
    }
}

type Check = (&'static str, fn(&dyn Catalog));

const CHECKS: &[Check] = &[
    ("insert_list_update_delete", insert_list_update_delete),
    ("insert_keeps_the_first_row", insert_keeps_the_first_row),
    (
        "insert_then_commits_only_a_placed_file",
        insert_then_commits_only_a_placed_file,
    ),
    (
        "every_field_and_members_round_trip",
        every_field_and_members_round_trip,
    ),
    (
        "list_is_newest_first_then_by_name",
        list_is_newest_first_then_by_name,
    ),
    (
        "a_link_is_kept_once_and_a_clash_is_reported",
        a_link_is_kept_once_and_a_clash_is_reported,
    ),
    (
        "symbol_paths_go_with_their_trace",
        symbol_paths_go_with_their_trace,
    ),
    (
        "a_deleted_trace_leaves_a_tombstone_until_added_again",
        a_deleted_trace_leaves_a_tombstone_until_added_again,
    ),
    (
        "named_files_are_kept_by_kind_and_name",
        named_files_are_kept_by_kind_and_name,
    ),
    ("insert_new_then_adds_once", insert_new_then_adds_once),
    (
        "notes_are_kept_counted_capped_and_deleted",
        notes_are_kept_counted_capped_and_deleted,
    ),
];

#[test]
fn sqlite_catalog_contract() {
    for (name, check) in CHECKS {
        eprintln!("sqlite: {name}");
        check(&SqliteCatalog::in_memory().unwrap());
    }
}

/// Each check on a fresh database of one real server.
#[cfg(all(feature = "team", not(windows)))]
#[test]
fn postgres_catalog_contract() {
    use super::PgCatalog;
    let Some(pg) = super::test_postgres::TestPostgres::start("contract") else {
        return;
    };
    for (name, check) in CHECKS {
        eprintln!("postgres: {name}");
        let c = PgCatalog::connect(&pg.create_db(name)).unwrap();
        check(&c);
    }
}

/// Versioned migrations: a second open (another replica, a restart) finds
/// the schema current and the rows kept; two opened at once both succeed.
#[cfg(all(feature = "team", not(windows)))]
#[test]
fn postgres_migrations_run_once_and_concurrently() {
    use super::PgCatalog;
    let Some(pg) = super::test_postgres::TestPostgres::start("migrate") else {
        return;
    };
    let url = pg.create_db("m");
    let opened: Vec<_> = (0..3)
        .map(|_| {
            let url = url.clone();
            std::thread::spawn(move || PgCatalog::connect(&url).map(|_| ()))
        })
        .collect();
    for t in opened {
        t.join().unwrap().unwrap();
    }
    let c = PgCatalog::connect(&url).unwrap();
    c.insert(&entry("y")).unwrap();
    let c = PgCatalog::connect(&url).unwrap();
    assert_eq!(c.get("y").unwrap().unwrap().name, "a.etl");
    assert_eq!(c.schema_version().unwrap(), PgCatalog::migrations() as i64);
}

/// A restarted server: the call in the window is `Unavailable` (the API's
/// 503), and the catalog reconnects by itself once it is back.
#[cfg(all(feature = "team", not(windows)))]
#[test]
fn postgres_restart_is_unavailable_then_reconnects() {
    use super::PgCatalog;
    let Some(pg) = super::test_postgres::TestPostgres::start("restart") else {
        return;
    };
    let c = PgCatalog::connect(&pg.create_db("r")).unwrap();
    c.insert(&entry("a")).unwrap();
    pg.ctl_stop();
    let err = c.get("a").unwrap_err();
    assert!(super::is_unavailable(&err), "{err:#}");
    let err = c.get("a").unwrap_err();
    assert!(super::is_unavailable(&err), "{err:#}");
    pg.ctl_start();
    assert_eq!(c.get("a").unwrap().unwrap().id, "a");
}
