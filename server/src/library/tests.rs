//! The library's declarations agree with the doc and with the tables the
//! SQLite migrations make (the PostgreSQL ones: catalog/contract_tests.rs).

use super::schema;
use crate::catalog::SqliteCatalog;

/// docs/guide/sql.md's "Library" section lists the declared tables.
#[test]
fn the_doc_lists_the_declared_tables() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/guide/sql.md");
    let doc = std::fs::read_to_string(path).expect("docs/guide/sql.md");
    let start =
        "<!-- library tables: generated from server/src/library/schema.rs, checked by a test -->\n";
    let end = "<!-- end of library tables -->";
    let listed = doc
        .split_once(start)
        .and_then(|(_, rest)| rest.split_once(end))
        .map(|(l, _)| l)
        .expect("docs/guide/sql.md has the library tables between its markers");
    let want = schema::markdown();
    assert_eq!(
        listed, want,
        "docs/guide/sql.md's library tables are out of date; between the markers it should hold:\n{want}"
    );
}

/// Each declared table exists in a migrated SQLite catalog with exactly
/// the declared columns and types, in order.
#[test]
fn sqlite_tables_are_the_declared_ones() {
    let dir = testdata::TempDir::new("etlscope-lib-schema");
    let p = dir.path().join("c.sqlite");
    drop(SqliteCatalog::open(&p).unwrap());
    let conn = rusqlite::Connection::open(&p).unwrap();
    for t in schema::TABLES {
        let mut st = conn
            .prepare(&format!(
                "SELECT name, type FROM pragma_table_info('{}')",
                t.name
            ))
            .unwrap();
        let got: Vec<(String, String)> = st
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        let want: Vec<(String, String)> = t
            .columns
            .iter()
            .map(|c| (c.name.to_string(), c.ty.sqlite().to_string()))
            .collect();
        assert_eq!(got, want, "{}", t.name);
    }
}
