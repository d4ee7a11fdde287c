//! The catalog in SQLite (`catalog.sqlite` in the data directory): the
//! embedded default. Schema changes go through numbered migrations
//! (PRAGMA user_version).

#[cfg(test)]
use super::MemberFile;
use super::{members_of, members_text, Catalog, Place, TraceEntry};
use rusqlite::{params, Connection, OptionalExtension};
use std::path::Path;
use std::sync::Mutex;

mod library;
mod notes;

/// Each entry moves the schema one version up; never edit a released one.
const MIGRATIONS: &[&str] = &[
    // 1: the traces table.
    "CREATE TABLE traces (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        size INTEGER NOT NULL,
        file_name TEXT NOT NULL,
        uploaded_at TEXT NOT NULL,
        uploader TEXT NOT NULL DEFAULT '',
        notes TEXT NOT NULL DEFAULT '',
        status TEXT NOT NULL DEFAULT 'pending',
        error TEXT NOT NULL DEFAULT ''
    );",
    // 2: traces of several files (served by reference): every member's path
    // and size as JSON; '' for a trace of one file (file_name and size).
    "ALTER TABLE traces ADD COLUMN members TEXT NOT NULL DEFAULT '';",
    // 3: short links: a content-addressed id for a view's path and query.
    "CREATE TABLE links (
        id TEXT PRIMARY KEY,
        target TEXT NOT NULL,
        created_at TEXT NOT NULL
    );",
    // 4: a trace's own symbol path (the Symbols panel), in place of the
    // server's; a table of its own so that re-adding a trace keeps it.
    "CREATE TABLE symbol_paths (
        id TEXT PRIMARY KEY,
        symbol_path TEXT NOT NULL
    );",
    // 5: deleted traces, so their links and API answer 410 Gone.
    "CREATE TABLE tombstones (
        id TEXT PRIMARY KEY,
        deleted_at TEXT NOT NULL
    );",
    // 6: stack tag sets (used when the catalog is shared, `--catalog`).
    "CREATE TABLE stack_tag_sets (
        name TEXT PRIMARY KEY,
        xml TEXT NOT NULL
    );",
    // 7: notes on views (issue 40), `sqlite/notes.rs`; ids sort by creation.
    "CREATE TABLE notes (
        id TEXT PRIMARY KEY,
        trace TEXT NOT NULL,
        text TEXT NOT NULL,
        view TEXT NOT NULL,
        author TEXT NOT NULL,
        author_token TEXT NOT NULL,
        key_hash TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );
    CREATE INDEX notes_by_trace ON notes (trace, id);",
    // 8: a redacted copy names its original (issue 40, `api/redact.rs`).
    "ALTER TABLE traces ADD COLUMN redacted_from TEXT NOT NULL DEFAULT '';",
    // 9: files uploaded by name, of every kind in one table (named_files.rs:
    // stack tag sets, regions files, uploaded PDBs' records); the stack tag
    // sets move in.
    "CREATE TABLE named_files (
        kind TEXT NOT NULL,
        name TEXT NOT NULL,
        body BLOB NOT NULL,
        PRIMARY KEY (kind, name)
    );
    INSERT INTO named_files (kind, name, body)
        SELECT 'stacktags', name, CAST(xml AS BLOB) FROM stack_tag_sets;
    DROP TABLE stack_tag_sets;",
    // 10: trace summaries for library queries (issue 38), `library/schema.rs`
    // declares every column; readable by any SQL client.
    "CREATE TABLE library_traces (
        trace TEXT NOT NULL,
        name TEXT,
        computer TEXT,
        os_build TEXT,
        cpus INTEGER,
        start_time TEXT,
        duration_ns INTEGER,
        samples INTEGER,
        labels TEXT,
        uploader TEXT,
        uploaded_at TEXT,
        summary_version INTEGER
    );
    CREATE INDEX library_traces_by_trace ON library_traces (trace);
    CREATE TABLE library_cpu_processes (
        trace TEXT NOT NULL,
        process TEXT,
        process_name TEXT,
        pid INTEGER,
        samples INTEGER,
        weight_ns INTEGER
    );
    CREATE INDEX library_cpu_processes_by_trace ON library_cpu_processes (trace);
    CREATE TABLE library_cpu_modules (
        trace TEXT NOT NULL,
        process TEXT,
        process_name TEXT,
        module TEXT,
        exclusive_samples INTEGER,
        exclusive_weight_ns INTEGER,
        inclusive_samples INTEGER,
        inclusive_weight_ns INTEGER
    );
    CREATE INDEX library_cpu_modules_by_trace ON library_cpu_modules (trace);
    CREATE TABLE library_cpu_functions (
        trace TEXT NOT NULL,
        process TEXT,
        process_name TEXT,
        module TEXT,
        function TEXT,
        exclusive_samples INTEGER,
        exclusive_weight_ns INTEGER,
        inclusive_samples INTEGER,
        inclusive_weight_ns INTEGER
    );
    CREATE INDEX library_cpu_functions_by_trace ON library_cpu_functions (trace);
    CREATE TABLE library_images (
        trace TEXT NOT NULL,
        image_name TEXT,
        image_path TEXT,
        file_version TEXT,
        company_name TEXT,
        processes INTEGER,
        process_names TEXT
    );
    CREATE INDEX library_images_by_trace ON library_images (trace);
    CREATE TABLE library_file_io (
        trace TEXT NOT NULL,
        process TEXT,
        process_name TEXT,
        file_path TEXT,
        count INTEGER,
        size INTEGER,
        duration_ns INTEGER
    );
    CREATE INDEX library_file_io_by_trace ON library_file_io (trace);
    CREATE TABLE library_disk_io (
        trace TEXT NOT NULL,
        process TEXT,
        process_name TEXT,
        path_name TEXT,
        count INTEGER,
        size INTEGER,
        disk_service_time_ns INTEGER
    );
    CREATE INDEX library_disk_io_by_trace ON library_disk_io (trace);
    CREATE TABLE library_processes (
        trace TEXT NOT NULL,
        process TEXT,
        process_name TEXT,
        pid INTEGER,
        parent_pid INTEGER,
        command_line TEXT,
        start_time_ns INTEGER,
        end_time_ns INTEGER,
        duration_ns INTEGER,
        exit_code INTEGER
    );
    CREATE INDEX library_processes_by_trace ON library_processes (trace);
    CREATE TABLE library_findings (
        trace TEXT NOT NULL,
        rule TEXT,
        category TEXT,
        title TEXT,
        figure REAL,
        unit TEXT,
        link TEXT
    );
    CREATE INDEX library_findings_by_trace ON library_findings (trace);",
];

pub struct SqliteCatalog {
    conn: Mutex<Connection>,
    /// The file (library queries open it again, read-only); None in memory.
    path: Option<std::path::PathBuf>,
}

impl SqliteCatalog {
    pub fn open(path: &Path) -> anyhow::Result<SqliteCatalog> {
        let conn = Connection::open(path)?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        migrate(&conn)?;
        Ok(SqliteCatalog {
            conn: Mutex::new(conn),
            path: Some(path.to_path_buf()),
        })
    }

    #[cfg(test)]
    pub fn in_memory() -> anyhow::Result<SqliteCatalog> {
        let conn = Connection::open_in_memory()?;
        migrate(&conn)?;
        Ok(SqliteCatalog {
            conn: Mutex::new(conn),
            path: None,
        })
    }

    fn with<T>(&self, f: impl FnOnce(&Connection) -> rusqlite::Result<T>) -> anyhow::Result<T> {
        let conn = self
            .conn
            .lock()
            .map_err(|_| anyhow::anyhow!("catalog lock poisoned"))?;
        Ok(f(&conn)?)
    }
}

impl Catalog for SqliteCatalog {
    fn insert(&self, e: &TraceEntry) -> anyhow::Result<()> {
        self.with(|c| {
            c.execute("DELETE FROM tombstones WHERE id = ?1", [&e.id])?;
            c.execute(
                "INSERT OR IGNORE INTO traces (id, name, size, file_name, uploaded_at, uploader, notes, status, error, members, redacted_from)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
                params![e.id, e.name, e.size as i64, e.file_name, e.uploaded_at, e.uploader, e.notes, e.status, e.error, members_text(e), e.redacted_from],
            )
            .map(|_| ())
        })
    }

    fn insert_then(&self, e: &TraceEntry, place: Place<'_>) -> anyhow::Result<std::io::Result<()>> {
        let mut conn = self
            .conn
            .lock()
            .map_err(|_| anyhow::anyhow!("catalog lock poisoned"))?;
        let tx = conn.transaction()?;
        tx.execute("DELETE FROM tombstones WHERE id = ?1", [&e.id])?;
        tx.execute(
            "INSERT OR REPLACE INTO traces (id, name, size, file_name, uploaded_at, uploader, notes, status, error, members, redacted_from)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
            params![e.id, e.name, e.size as i64, e.file_name, e.uploaded_at, e.uploader, e.notes, e.status, e.error, members_text(e), e.redacted_from],
        )?;
        match place() {
            Ok(()) => {
                tx.commit()?;
                Ok(Ok(()))
            }
            // Dropping the transaction rolls the insert back.
            Err(err) => Ok(Err(err)),
        }
    }

    fn insert_new_then(
        &self,
        e: &TraceEntry,
        place: Place<'_>,
    ) -> anyhow::Result<std::io::Result<bool>> {
        let mut conn = self
            .conn
            .lock()
            .map_err(|_| anyhow::anyhow!("catalog lock poisoned"))?;
        let tx = conn.transaction()?;
        tx.execute("DELETE FROM tombstones WHERE id = ?1", [&e.id])?;
        let added = tx.execute(
            "INSERT OR IGNORE INTO traces (id, name, size, file_name, uploaded_at, uploader, notes, status, error, members, redacted_from)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
            params![e.id, e.name, e.size as i64, e.file_name, e.uploaded_at, e.uploader, e.notes, e.status, e.error, members_text(e), e.redacted_from],
        )?;
        if added == 0 {
            // Dropping the transaction keeps everything as it was.
            return Ok(Ok(false));
        }
        match place() {
            Ok(()) => {
                tx.commit()?;
                Ok(Ok(true))
            }
            Err(err) => Ok(Err(err)),
        }
    }

    fn get(&self, id: &str) -> anyhow::Result<Option<TraceEntry>> {
        self.with(|c| {
            c.query_row(
                &format!("SELECT {COLUMNS} FROM traces WHERE id = ?1"),
                [id],
                row_to_entry,
            )
            .optional()
        })
    }

    fn list(&self) -> anyhow::Result<Vec<TraceEntry>> {
        self.with(|c| {
            let mut st = c.prepare(&format!(
                "SELECT {COLUMNS} FROM traces ORDER BY uploaded_at DESC, name"
            ))?;
            let rows = st.query_map([], row_to_entry)?;
            rows.collect()
        })
    }

    fn set_status(&self, id: &str, status: &str, error: &str) -> anyhow::Result<()> {
        self.with(|c| {
            c.execute(
                "UPDATE traces SET status = ?2, error = ?3 WHERE id = ?1",
                params![id, status, error],
            )
            .map(|_| ())
        })
    }

    fn set_status_if(
        &self,
        id: &str,
        seen: (&str, &str),
        status: &str,
        error: &str,
    ) -> anyhow::Result<bool> {
        self.with(|c| {
            c.execute(
                "UPDATE traces SET status = ?4, error = ?5 WHERE id = ?1 AND status = ?2 AND error = ?3",
                params![id, seen.0, seen.1, status, error],
            )
            .map(|n| n == 1)
        })
    }

    /// Point a trace served by reference at its files as they are now
    /// (opened again: the same content, maybe moved or touched).
    fn set_files(&self, e: &TraceEntry) -> anyhow::Result<()> {
        self.with(|c| {
            c.execute(
                "UPDATE traces SET file_name = ?2, size = ?3, members = ?4 WHERE id = ?1",
                params![e.id, e.file_name, e.size as i64, members_text(e)],
            )
            .map(|_| ())
        })
    }

    /// Keep the short link `id` for `target` (an in-app path with its query).
    /// Returns the target already kept under `id`, if another one is.
    fn insert_link(&self, id: &str, target: &str, now: &str) -> anyhow::Result<Option<String>> {
        self.with(|c| {
            c.execute(
                "INSERT OR IGNORE INTO links (id, target, created_at) VALUES (?1, ?2, ?3)",
                params![id, target, now],
            )?;
            let kept: String =
                c.query_row("SELECT target FROM links WHERE id = ?1", [id], |r| r.get(0))?;
            Ok((kept != target).then_some(kept))
        })
    }

    /// (links kept, bytes of their targets): what `--max-links` and `--max-links-mb` cap.
    fn link_usage(&self) -> anyhow::Result<(u64, u64)> {
        self.with(|c| {
            c.query_row(
                "SELECT COUNT(*), COALESCE(SUM(LENGTH(CAST(target AS BLOB))), 0) FROM links",
                [],
                |r| {
                    Ok((
                        r.get::<_, i64>(0)?.max(0) as u64,
                        r.get::<_, i64>(1)?.max(0) as u64,
                    ))
                },
            )
        })
    }

    fn link(&self, id: &str) -> anyhow::Result<Option<String>> {
        self.with(|c| {
            c.query_row("SELECT target FROM links WHERE id = ?1", [id], |r| r.get(0))
                .optional()
        })
    }

    fn delete(&self, id: &str) -> anyhow::Result<bool> {
        self.with(|c| {
            c.execute("DELETE FROM symbol_paths WHERE id = ?1", [id])?;
            for t in crate::library::schema::TABLES {
                c.execute(&format!("DELETE FROM {} WHERE trace = ?1", t.name), [id])?;
            }
            let gone = c.execute("DELETE FROM traces WHERE id = ?1", [id])? > 0;
            if gone {
                c.execute(
                    "INSERT OR REPLACE INTO tombstones (id, deleted_at) VALUES (?1, ?2)",
                    params![id, crate::store::now_rfc3339()],
                )?;
            }
            Ok(gone)
        })
    }

    fn named_files(&self, kind: &str) -> anyhow::Result<Vec<(String, Vec<u8>)>> {
        self.with(|c| {
            let mut st =
                c.prepare("SELECT name, body FROM named_files WHERE kind = ?1 ORDER BY name")?;
            let rows = st.query_map([kind], |r| Ok((r.get(0)?, r.get(1)?)))?;
            rows.collect()
        })
    }

    fn put_named_file(&self, kind: &str, name: &str, body: &[u8]) -> anyhow::Result<()> {
        self.with(|c| {
            c.execute(
                "INSERT OR REPLACE INTO named_files (kind, name, body) VALUES (?1, ?2, ?3)",
                params![kind, name, body],
            )
            .map(|_| ())
        })
    }

    fn delete_named_file(&self, kind: &str, name: &str) -> anyhow::Result<bool> {
        self.with(|c| {
            c.execute(
                "DELETE FROM named_files WHERE kind = ?1 AND name = ?2",
                [kind, name],
            )
            .map(|n| n > 0)
        })
    }

    fn deleted(&self, id: &str) -> anyhow::Result<bool> {
        self.with(|c| {
            c.query_row("SELECT 1 FROM tombstones WHERE id = ?1", [id], |_| Ok(()))
                .optional()
                .map(|r| r.is_some())
        })
    }

    /// The trace's own symbol path, if one was set.
    fn symbol_path(&self, id: &str) -> anyhow::Result<Option<String>> {
        self.with(|c| {
            c.query_row(
                "SELECT symbol_path FROM symbol_paths WHERE id = ?1",
                [id],
                |r| r.get(0),
            )
            .optional()
        })
    }

    /// Set (Some) or clear (None: the server's path again) a trace's symbol path.
    fn set_symbol_path(&self, id: &str, path: Option<&str>) -> anyhow::Result<()> {
        self.with(|c| {
            match path {
                Some(p) => c.execute(
                    "INSERT OR REPLACE INTO symbol_paths (id, symbol_path) VALUES (?1, ?2)",
                    params![id, p],
                )?,
                None => c.execute("DELETE FROM symbol_paths WHERE id = ?1", [id])?,
            };
            Ok(())
        })
    }
}

const COLUMNS: &str =
    "id, name, size, file_name, uploaded_at, uploader, notes, status, error, members, redacted_from";

fn row_to_entry(r: &rusqlite::Row<'_>) -> rusqlite::Result<TraceEntry> {
    Ok(TraceEntry {
        id: r.get(0)?,
        name: r.get(1)?,
        size: r.get::<_, i64>(2)? as u64,
        file_name: r.get(3)?,
        uploaded_at: r.get(4)?,
        uploader: r.get(5)?,
        notes: r.get(6)?,
        status: r.get(7)?,
        error: r.get(8)?,
        members: members_of(&r.get::<_, String>(9)?),
        redacted_from: r.get(10)?,
    })
}

fn migrate(conn: &Connection) -> anyhow::Result<()> {
    let version: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    for (i, sql) in MIGRATIONS.iter().enumerate().skip(version.max(0) as usize) {
        conn.execute_batch(&format!(
            "BEGIN; {sql} PRAGMA user_version = {}; COMMIT;",
            i + 1
        ))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

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

    /// A catalog written before traces had several files (schema 1, as
    /// released) opens with its rows intact, each a trace of one file; a
    /// trace of several files keeps its members across a reopen.
    #[test]
    fn schema_1_catalog_migrates_and_members_persist() {
        let dir = testdata::TempDir::new("etlscope-cat-v1");
        let p = dir.path().join("c.sqlite");
        {
            let conn = Connection::open(&p).unwrap();
            conn.execute_batch(
                "CREATE TABLE traces (
                    id TEXT PRIMARY KEY, name TEXT NOT NULL, size INTEGER NOT NULL,
                    file_name TEXT NOT NULL, uploaded_at TEXT NOT NULL,
                    uploader TEXT NOT NULL DEFAULT '', notes TEXT NOT NULL DEFAULT '',
                    status TEXT NOT NULL DEFAULT 'pending', error TEXT NOT NULL DEFAULT '');
                 INSERT INTO traces (id, name, size, file_name, uploaded_at, status)
                 VALUES ('old', 'old.etl', 42, '/home/me/old.etl', '2026-01-01T00:00:00Z', 'ready');
                 PRAGMA user_version = 1;",
            )
            .unwrap();
        }
        let c = SqliteCatalog::open(&p).unwrap();
        let old = c.get("old").unwrap().unwrap();
        assert_eq!(old.status, "ready");
        assert!(old.members.is_empty());
        assert_eq!(
            old.files(),
            vec![MemberFile {
                path: "/home/me/old.etl".into(),
                size: 42,
                modified_ns: None,
            }]
        );
        let members = vec![
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
        let mut multi = entry("multi");
        multi.members = members.clone();
        c.insert(&multi).unwrap();
        drop(c);
        let c = SqliteCatalog::open(&p).unwrap();
        assert_eq!(c.get("multi").unwrap().unwrap().files(), members);
        assert_eq!(c.list().unwrap().len(), 2);
        let version: i64 = c
            .with(|conn| conn.pragma_query_value(None, "user_version", |r| r.get(0)))
            .unwrap();
        assert_eq!(version, MIGRATIONS.len() as i64);
    }

    /// A schema-7 catalog's stack tag sets move into `named_files` as they were.
    #[test]
    fn stack_tag_sets_move_into_named_files() {
        let dir = testdata::TempDir::new("etlscope-cat-v7");
        let p = dir.path().join("c.sqlite");
        {
            let conn = Connection::open(&p).unwrap();
            for sql in &MIGRATIONS[..7] {
                conn.execute_batch(sql).unwrap();
            }
            conn.execute_batch(
                "INSERT INTO stack_tag_sets (name, xml) VALUES ('mine', '<Tag Name=\"é\"/>');
                 PRAGMA user_version = 7;",
            )
            .unwrap();
        }
        let c = SqliteCatalog::open(&p).unwrap();
        assert_eq!(
            c.named_files("stacktags").unwrap(),
            vec![("mine".into(), "<Tag Name=\"é\"/>".as_bytes().to_vec())]
        );
    }

    /// A schema-2 catalog (before symbol paths) opens; a trace's symbol
    /// path survives a reopen and a re-insert, and goes with its trace.
    #[test]
    fn symbol_paths_persist_and_go_with_their_trace() {
        let dir = testdata::TempDir::new("etlscope-cat-v2");
        let p = dir.path().join("c.sqlite");
        {
            let conn = Connection::open(&p).unwrap();
            for sql in &MIGRATIONS[..2] {
                conn.execute_batch(sql).unwrap();
            }
            conn.execute_batch(
                "INSERT INTO traces (id, name, size, file_name, uploaded_at)
                 VALUES ('t', 't.etl', 1, 't.etl', '2026-01-01T00:00:00Z');
                 PRAGMA user_version = 2;",
            )
            .unwrap();
        }
        let c = SqliteCatalog::open(&p).unwrap();
        assert_eq!(c.get("t").unwrap().unwrap().name, "t.etl");
        assert_eq!(c.symbol_path("t").unwrap(), None);
        c.set_symbol_path("t", Some(r"srv*C:\sym*https://x;C:\pdbs"))
            .unwrap();
        drop(c);
        let c = SqliteCatalog::open(&p).unwrap();
        assert_eq!(
            c.symbol_path("t").unwrap().as_deref(),
            Some(r"srv*C:\sym*https://x;C:\pdbs")
        );
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

    #[test]
    fn migrations_are_idempotent() {
        let dir = std::env::temp_dir().join(format!("etlscope-cat-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("c.sqlite");
        SqliteCatalog::open(&p)
            .unwrap()
            .insert(&entry("y"))
            .unwrap();
        let c = SqliteCatalog::open(&p).unwrap();
        assert_eq!(c.get("y").unwrap().unwrap().name, "a.etl");
        std::fs::remove_dir_all(&dir).ok();
    }
}
