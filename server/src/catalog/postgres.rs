//! The catalog in PostgreSQL (`--catalog postgres://...`), shared by the
//! replicas of a team server. One connection per replica, used by one
//! caller at a time (as the SQLite one is), on a small runtime of its own
//! so that blocking callers (ingest threads) and async handlers call it
//! alike. A lost connection (server restarted) is reopened on the next
//! call; the call that met it fails as `Unavailable` (the API's 503).

mod library;
mod queue;

use super::{members_of, members_text, Catalog, Place, TraceEntry, Unavailable};
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio_postgres::types::ToSql;
use tokio_postgres::{Client, NoTls, Row};

mod notes;

/// Each entry moves the schema one version up; never edit a released one.
/// Version 1 is the SQLite schema as of its migration 4, in one step.
const MIGRATIONS: &[&str] = &[
    // 1: traces, short links, per-trace symbol paths.
    "CREATE TABLE traces (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        size BIGINT NOT NULL,
        file_name TEXT NOT NULL,
        uploaded_at TEXT NOT NULL,
        uploader TEXT NOT NULL DEFAULT '',
        notes TEXT NOT NULL DEFAULT '',
        status TEXT NOT NULL DEFAULT 'pending',
        error TEXT NOT NULL DEFAULT '',
        members TEXT NOT NULL DEFAULT ''
    );
    CREATE TABLE links (
        id TEXT PRIMARY KEY,
        target TEXT NOT NULL,
        created_at TEXT NOT NULL
    );
    CREATE TABLE symbol_paths (
        id TEXT PRIMARY KEY,
        symbol_path TEXT NOT NULL
    );",
    // 2: deleted traces, so their links and API answer 410 Gone on every replica.
    "CREATE TABLE tombstones (
        id TEXT PRIMARY KEY,
        deleted_at TEXT NOT NULL
    );",
    // 3: stack tag sets shared by the replicas.
    "CREATE TABLE stack_tag_sets (
        name TEXT PRIMARY KEY,
        xml TEXT NOT NULL
    );",
    // 4: notes on views (issue 40), `postgres/notes.rs`; ids sort by creation.
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
    CREATE INDEX notes_by_trace ON notes (trace, id COLLATE \"C\");",
    // 5: the ingest queue (catalog::queue): one job per trace to read, held
    // by a replica until its lease runs out.
    "CREATE TABLE ingest_jobs (
        id TEXT PRIMARY KEY,
        enqueued_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        holder TEXT,
        lease_until TIMESTAMPTZ
    );",
    // 6: a redacted copy names its original (issue 40, `api/redact.rs`).
    "ALTER TABLE traces ADD COLUMN redacted_from TEXT NOT NULL DEFAULT '';",
    // 7: files uploaded by name, of every kind in one table (named_files.rs:
    // stack tag sets, regions files, uploaded PDBs' records); the stack tag
    // sets move in.
    "CREATE TABLE named_files (
        kind TEXT NOT NULL,
        name TEXT NOT NULL,
        body BYTEA NOT NULL,
        PRIMARY KEY (kind, name)
    );
    INSERT INTO named_files (kind, name, body)
        SELECT 'stacktags', name, convert_to(xml, 'UTF8') FROM stack_tag_sets;
    DROP TABLE stack_tag_sets;",
    // 8: trace summaries for library queries (issue 38), `library/schema.rs`
    // declares every column; the role `etlscope_library` may read them and
    // nothing else (library queries run as it), when the catalog's user
    // may create roles (docs/guide/sql.md says what to do otherwise).
    "CREATE TABLE library_traces (
        trace TEXT NOT NULL,
        name TEXT,
        computer TEXT,
        os_build TEXT,
        cpus BIGINT,
        start_time TEXT,
        duration_ns BIGINT,
        samples BIGINT,
        labels TEXT,
        uploader TEXT,
        uploaded_at TEXT,
        summary_version BIGINT
    );
    CREATE INDEX library_traces_by_trace ON library_traces (trace);
    CREATE TABLE library_cpu_processes (
        trace TEXT NOT NULL,
        process TEXT,
        process_name TEXT,
        pid BIGINT,
        samples BIGINT,
        weight_ns BIGINT
    );
    CREATE INDEX library_cpu_processes_by_trace ON library_cpu_processes (trace);
    CREATE TABLE library_cpu_modules (
        trace TEXT NOT NULL,
        process TEXT,
        process_name TEXT,
        module TEXT,
        exclusive_samples BIGINT,
        exclusive_weight_ns BIGINT,
        inclusive_samples BIGINT,
        inclusive_weight_ns BIGINT
    );
    CREATE INDEX library_cpu_modules_by_trace ON library_cpu_modules (trace);
    CREATE TABLE library_cpu_functions (
        trace TEXT NOT NULL,
        process TEXT,
        process_name TEXT,
        module TEXT,
        function TEXT,
        exclusive_samples BIGINT,
        exclusive_weight_ns BIGINT,
        inclusive_samples BIGINT,
        inclusive_weight_ns BIGINT
    );
    CREATE INDEX library_cpu_functions_by_trace ON library_cpu_functions (trace);
    CREATE TABLE library_images (
        trace TEXT NOT NULL,
        image_name TEXT,
        image_path TEXT,
        file_version TEXT,
        company_name TEXT,
        processes BIGINT,
        process_names TEXT
    );
    CREATE INDEX library_images_by_trace ON library_images (trace);
    CREATE TABLE library_file_io (
        trace TEXT NOT NULL,
        process TEXT,
        process_name TEXT,
        file_path TEXT,
        count BIGINT,
        size BIGINT,
        duration_ns BIGINT
    );
    CREATE INDEX library_file_io_by_trace ON library_file_io (trace);
    CREATE TABLE library_disk_io (
        trace TEXT NOT NULL,
        process TEXT,
        process_name TEXT,
        path_name TEXT,
        count BIGINT,
        size BIGINT,
        disk_service_time_ns BIGINT
    );
    CREATE INDEX library_disk_io_by_trace ON library_disk_io (trace);
    CREATE TABLE library_processes (
        trace TEXT NOT NULL,
        process TEXT,
        process_name TEXT,
        pid BIGINT,
        parent_pid BIGINT,
        command_line TEXT,
        start_time_ns BIGINT,
        end_time_ns BIGINT,
        duration_ns BIGINT,
        exit_code BIGINT
    );
    CREATE INDEX library_processes_by_trace ON library_processes (trace);
    CREATE TABLE library_findings (
        trace TEXT NOT NULL,
        rule TEXT,
        category TEXT,
        title TEXT,
        figure DOUBLE PRECISION,
        unit TEXT,
        link TEXT
    );
    CREATE INDEX library_findings_by_trace ON library_findings (trace);
    DO $$ BEGIN
        CREATE ROLE etlscope_library NOLOGIN;
    EXCEPTION WHEN duplicate_object OR insufficient_privilege THEN NULL;
    END $$;
    DO $$ BEGIN
        GRANT etlscope_library TO CURRENT_USER;
        GRANT USAGE ON SCHEMA public TO etlscope_library;
        GRANT SELECT ON library_traces, library_cpu_processes, library_cpu_modules,
            library_cpu_functions, library_images, library_file_io, library_disk_io,
            library_processes, library_findings TO etlscope_library;
    EXCEPTION WHEN undefined_object OR insufficient_privilege OR invalid_grant_operation THEN NULL;
    END $$;",
];

/// Any number, the same in every replica: migrations run under it, one
/// replica at a time.
const MIGRATION_LOCK: i64 = 0x6574_6c36;
/// Longest wait for one statement (a server that stopped answering).
pub(super) const CALL_TIMEOUT: Duration = Duration::from_secs(15);

pub struct PgCatalog {
    url: String,
    rt: tokio::runtime::Runtime,
    client: Mutex<Option<Arc<Client>>>,
    /// One caller at a time, as with SQLite's one connection.
    turn: Mutex<()>,
}

type Params = Vec<Box<dyn ToSql + Sync + Send>>;

fn refs(p: &Params) -> Vec<&(dyn ToSql + Sync)> {
    p.iter()
        .map(|b| b.as_ref() as &(dyn ToSql + Sync))
        .collect()
}

/// Whether a failed call says the server is away (connection lost,
/// shutting down, starting up), not that the statement was wrong.
fn server_away(e: &tokio_postgres::Error) -> bool {
    match e.as_db_error() {
        None => true,
        // 08: connection exception; 57: operator intervention (shutdown, starting up).
        Some(db) => {
            let code = db.code().code();
            code.starts_with("08") || code.starts_with("57")
        }
    }
}

impl PgCatalog {
    /// Connect and bring the schema up to date.
    pub fn connect(url: &str) -> anyhow::Result<PgCatalog> {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("catalog-pg")
            .enable_all()
            .build()?;
        let c = PgCatalog {
            url: url.to_string(),
            rt,
            client: Mutex::new(None),
            turn: Mutex::new(()),
        };
        c.migrate()?;
        Ok(c)
    }

    fn client(&self) -> anyhow::Result<Arc<Client>> {
        let mut slot = self.client.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(c) = slot.as_ref().filter(|c| !c.is_closed()) {
            return Ok(c.clone());
        }
        *slot = None;
        let url = self.url.clone();
        let (client, conn) = self
            .wait(async move { tokio_postgres::connect(&url, NoTls).await })
            .map_err(|e| anyhow::Error::new(Unavailable(format!("cannot connect: {e}"))))?;
        self.rt.spawn(async move {
            if let Err(e) = conn.await {
                tracing::warn!(error = %e, "catalog connection closed");
            }
        });
        let client = Arc::new(client);
        *slot = Some(client.clone());
        Ok(client)
    }

    /// Run `fut` on the catalog's runtime and wait for it here (callable
    /// from an async handler as from a plain thread).
    fn wait<T, F>(&self, fut: F) -> Result<T, String>
    where
        T: Send + 'static,
        F: Future<Output = Result<T, tokio_postgres::Error>> + Send + 'static,
    {
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        self.rt.spawn(async move {
            let _ = tx.send(fut.await);
        });
        match rx.recv_timeout(CALL_TIMEOUT) {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(e)) if server_away(&e) => Err(format!("away: {e}")),
            Ok(Err(e)) => Err(format!("{e}")),
            Err(_) => Err(format!("away: no answer in {} s", CALL_TIMEOUT.as_secs())),
        }
    }

    /// One call with the connection: a server gone away drops it (the next
    /// call connects again) and is `Unavailable`.
    fn call<T, F, Fut>(&self, f: F) -> anyhow::Result<T>
    where
        T: Send + 'static,
        F: FnOnce(Arc<Client>) -> Fut,
        Fut: Future<Output = Result<T, tokio_postgres::Error>> + Send + 'static,
    {
        let _turn = self.turn.lock().unwrap_or_else(|p| p.into_inner());
        let client = self.client()?;
        match self.wait(f(client)) {
            Ok(v) => Ok(v),
            Err(m) => match m.strip_prefix("away: ") {
                Some(why) => {
                    *self.client.lock().unwrap_or_else(|p| p.into_inner()) = None;
                    Err(anyhow::Error::new(Unavailable(why.to_string())))
                }
                None => Err(anyhow::anyhow!("catalog: {m}")),
            },
        }
    }

    fn execute(&self, sql: &'static str, params: Params) -> anyhow::Result<u64> {
        self.call(|c| async move { c.execute(sql, &refs(&params)).await })
    }

    fn rows(&self, sql: &'static str, params: Params) -> anyhow::Result<Vec<Row>> {
        self.call(|c| async move { c.query(sql, &refs(&params)).await })
    }

    fn migrate(&self) -> anyhow::Result<()> {
        self.call(|c| async move {
            // The lock is held to the end of the transaction: replicas
            // starting together migrate one after another.
            c.batch_execute(&format!(
                "BEGIN; SELECT pg_advisory_xact_lock({MIGRATION_LOCK});
                 CREATE TABLE IF NOT EXISTS etlscope_schema (version INTEGER NOT NULL);"
            ))
            .await?;
            let run = async {
                let version: i32 = c
                    .query_opt("SELECT version FROM etlscope_schema", &[])
                    .await?
                    .map_or(0, |r| r.get(0));
                for (i, sql) in MIGRATIONS
                    .iter()
                    .enumerate()
                    .skip(usize::try_from(version).unwrap_or(0))
                {
                    c.batch_execute(sql).await?;
                    let v = i32::try_from(i + 1).unwrap_or(i32::MAX);
                    c.execute("DELETE FROM etlscope_schema", &[]).await?;
                    c.execute("INSERT INTO etlscope_schema (version) VALUES ($1)", &[&v])
                        .await?;
                }
                Ok::<(), tokio_postgres::Error>(())
            };
            match run.await {
                Ok(()) => c.batch_execute("COMMIT").await,
                Err(e) => {
                    let _ = c.batch_execute("ROLLBACK").await;
                    Err(e)
                }
            }
        })
    }

    /// The schema version in the database (tests).
    #[cfg(test)]
    pub fn schema_version(&self) -> anyhow::Result<i64> {
        let r = self.rows("SELECT version FROM etlscope_schema", Vec::new())?;
        Ok(r.first().map_or(0, |r| i64::from(r.get::<_, i32>(0))))
    }

    /// (name, data type) of `table`'s columns in order (tests).
    #[cfg(test)]
    pub fn column_types(&self, table: &str) -> anyhow::Result<Vec<(String, String)>> {
        let r = self.rows(
            "SELECT column_name::text, data_type::text FROM information_schema.columns
             WHERE table_name = $1 ORDER BY ordinal_position",
            vec![s(table)],
        )?;
        Ok(r.iter().map(|r| (r.get(0), r.get(1))).collect())
    }

    #[cfg(test)]
    pub fn migrations() -> usize {
        MIGRATIONS.len()
    }
}

/// The insert of a whole row, completed by each caller's `ON CONFLICT`.
macro_rules! insert_trace {
    () => {
        "INSERT INTO traces (id, name, size, file_name, uploaded_at, uploader, notes, status, error, members, redacted_from)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)"
    };
}

fn entry_params(e: &TraceEntry) -> Params {
    vec![
        Box::new(e.id.clone()),
        Box::new(e.name.clone()),
        Box::new(i64::try_from(e.size).unwrap_or(i64::MAX)),
        Box::new(e.file_name.clone()),
        Box::new(e.uploaded_at.clone()),
        Box::new(e.uploader.clone()),
        Box::new(e.notes.clone()),
        Box::new(e.status.clone()),
        Box::new(e.error.clone()),
        Box::new(members_text(e)),
        Box::new(e.redacted_from.clone()),
    ]
}

fn row_to_entry(r: &Row) -> TraceEntry {
    TraceEntry {
        id: r.get(0),
        name: r.get(1),
        size: u64::try_from(r.get::<_, i64>(2)).unwrap_or(0),
        file_name: r.get(3),
        uploaded_at: r.get(4),
        uploader: r.get(5),
        notes: r.get(6),
        status: r.get(7),
        error: r.get(8),
        members: members_of(&r.get::<_, String>(9)),
        redacted_from: r.get(10),
    }
}

fn s(v: &str) -> Box<dyn ToSql + Sync + Send> {
    Box::new(v.to_string())
}

impl Catalog for PgCatalog {
    fn insert(&self, e: &TraceEntry) -> anyhow::Result<()> {
        const SQL: &str = concat!(insert_trace!(), " ON CONFLICT (id) DO NOTHING");
        self.execute("DELETE FROM tombstones WHERE id = $1", vec![s(&e.id)])?;
        self.execute(SQL, entry_params(e)).map(|_| ())
    }

    /// The file is placed first, then the row written: a row never names
    /// a file that is not there; a file whose row could not be written is
    /// taken back by the caller (and is content-addressed: the same upload
    /// places the same bytes again). The catalog is not held while `place`
    /// runs (it may copy gigabytes to the object store).
    fn insert_then(&self, e: &TraceEntry, place: Place<'_>) -> anyhow::Result<std::io::Result<()>> {
        if let Err(err) = place() {
            return Ok(Err(err));
        }
        const SQL: &str = concat!(
            insert_trace!(),
            " ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, size = EXCLUDED.size,
              file_name = EXCLUDED.file_name, uploaded_at = EXCLUDED.uploaded_at,
              uploader = EXCLUDED.uploader, notes = EXCLUDED.notes, status = EXCLUDED.status,
              error = EXCLUDED.error, members = EXCLUDED.members,
              redacted_from = EXCLUDED.redacted_from",
        );
        self.execute("DELETE FROM tombstones WHERE id = $1", vec![s(&e.id)])?;
        self.execute(SQL, entry_params(e))?;
        Ok(Ok(()))
    }

    /// The object is placed first (the same bytes under the same name,
    /// whoever wins), then the row inserted unless one is there.
    fn insert_new_then(
        &self,
        e: &TraceEntry,
        place: Place<'_>,
    ) -> anyhow::Result<std::io::Result<bool>> {
        if let Err(err) = place() {
            return Ok(Err(err));
        }
        const SQL: &str = concat!(insert_trace!(), " ON CONFLICT (id) DO NOTHING");
        self.execute("DELETE FROM tombstones WHERE id = $1", vec![s(&e.id)])?;
        Ok(Ok(self.execute(SQL, entry_params(e))? > 0))
    }

    fn get(&self, id: &str) -> anyhow::Result<Option<TraceEntry>> {
        let rows = self.rows(
            "SELECT id, name, size, file_name, uploaded_at, uploader, notes, status, error, members, redacted_from
             FROM traces WHERE id = $1",
            vec![s(id)],
        )?;
        Ok(rows.first().map(row_to_entry))
    }

    fn list(&self) -> anyhow::Result<Vec<TraceEntry>> {
        // Byte order, as SQLite's.
        let rows = self.rows(
            "SELECT id, name, size, file_name, uploaded_at, uploader, notes, status, error, members, redacted_from
             FROM traces ORDER BY uploaded_at COLLATE \"C\" DESC, name COLLATE \"C\"",
            Vec::new(),
        )?;
        Ok(rows.iter().map(row_to_entry).collect())
    }

    fn set_status(&self, id: &str, status: &str, error: &str) -> anyhow::Result<()> {
        self.execute(
            "UPDATE traces SET status = $2, error = $3 WHERE id = $1",
            vec![s(id), s(status), s(error)],
        )
        .map(|_| ())
    }

    fn set_status_if(
        &self,
        id: &str,
        seen: (&str, &str),
        status: &str,
        error: &str,
    ) -> anyhow::Result<bool> {
        self.execute(
            "UPDATE traces SET status = $4, error = $5 WHERE id = $1 AND status = $2 AND error = $3",
            vec![s(id), s(seen.0), s(seen.1), s(status), s(error)],
        )
        .map(|n| n == 1)
    }

    fn set_files(&self, e: &TraceEntry) -> anyhow::Result<()> {
        self.execute(
            "UPDATE traces SET file_name = $2, size = $3, members = $4 WHERE id = $1",
            vec![
                s(&e.id),
                s(&e.file_name),
                Box::new(i64::try_from(e.size).unwrap_or(i64::MAX)),
                Box::new(members_text(e)),
            ],
        )
        .map(|_| ())
    }

    fn insert_link(&self, id: &str, target: &str, now: &str) -> anyhow::Result<Option<String>> {
        self.execute(
            "INSERT INTO links (id, target, created_at) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING",
            vec![s(id), s(target), s(now)],
        )?;
        let kept = self.link(id)?.unwrap_or_default();
        Ok((kept != target).then_some(kept))
    }

    fn link_usage(&self) -> anyhow::Result<(u64, u64)> {
        let rows = self.rows(
            "SELECT COUNT(*)::BIGINT, COALESCE(SUM(octet_length(target)), 0)::BIGINT FROM links",
            Vec::new(),
        )?;
        Ok(rows.first().map_or((0, 0), |r| {
            (
                u64::try_from(r.get::<_, i64>(0)).unwrap_or(0),
                u64::try_from(r.get::<_, i64>(1)).unwrap_or(0),
            )
        }))
    }

    fn link(&self, id: &str) -> anyhow::Result<Option<String>> {
        let rows = self.rows("SELECT target FROM links WHERE id = $1", vec![s(id)])?;
        Ok(rows.first().map(|r| r.get(0)))
    }

    fn delete(&self, id: &str) -> anyhow::Result<bool> {
        let id = id.to_string();
        self.call(|c| async move {
            c.execute("DELETE FROM symbol_paths WHERE id = $1", &[&id])
                .await?;
            for t in crate::library::schema::TABLES {
                c.execute(&format!("DELETE FROM {} WHERE trace = $1", t.name), &[&id])
                    .await?;
            }
            let n = c
                .execute("DELETE FROM traces WHERE id = $1", &[&id])
                .await?;
            if n > 0 {
                c.execute(
                    "INSERT INTO tombstones (id, deleted_at) VALUES ($1, $2)
                     ON CONFLICT (id) DO UPDATE SET deleted_at = EXCLUDED.deleted_at",
                    &[&id, &crate::store::now_rfc3339()],
                )
                .await?;
            }
            Ok(n > 0)
        })
    }

    fn named_files(&self, kind: &str) -> anyhow::Result<Vec<(String, Vec<u8>)>> {
        let rows = self.rows(
            "SELECT name, body FROM named_files WHERE kind = $1 ORDER BY name COLLATE \"C\"",
            vec![s(kind)],
        )?;
        Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
    }

    fn put_named_file(&self, kind: &str, name: &str, body: &[u8]) -> anyhow::Result<()> {
        self.execute(
            "INSERT INTO named_files (kind, name, body) VALUES ($1, $2, $3)
             ON CONFLICT (kind, name) DO UPDATE SET body = EXCLUDED.body",
            vec![s(kind), s(name), Box::new(body.to_vec())],
        )
        .map(|_| ())
    }

    fn delete_named_file(&self, kind: &str, name: &str) -> anyhow::Result<bool> {
        Ok(self.execute(
            "DELETE FROM named_files WHERE kind = $1 AND name = $2",
            vec![s(kind), s(name)],
        )? > 0)
    }

    fn deleted(&self, id: &str) -> anyhow::Result<bool> {
        let rows = self.rows("SELECT 1 FROM tombstones WHERE id = $1", vec![s(id)])?;
        Ok(!rows.is_empty())
    }

    fn symbol_path(&self, id: &str) -> anyhow::Result<Option<String>> {
        let rows = self.rows(
            "SELECT symbol_path FROM symbol_paths WHERE id = $1",
            vec![s(id)],
        )?;
        Ok(rows.first().map(|r| r.get(0)))
    }

    fn set_symbol_path(&self, id: &str, path: Option<&str>) -> anyhow::Result<()> {
        match path {
            Some(p) => self.execute(
                "INSERT INTO symbol_paths (id, symbol_path) VALUES ($1, $2)
                 ON CONFLICT (id) DO UPDATE SET symbol_path = EXCLUDED.symbol_path",
                vec![s(id), s(p)],
            )?,
            None => self.execute("DELETE FROM symbol_paths WHERE id = $1", vec![s(id)])?,
        };
        Ok(())
    }

    fn queue(&self) -> Option<&dyn super::queue::IngestQueue> {
        Some(self)
    }
}
