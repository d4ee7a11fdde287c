//! The trace catalog: what was uploaded, by whom, and whether it ingested,
//! with short links and per-trace symbol paths. One trait, two engines:
//! SQLite in the data directory (the embedded default, `sqlite.rs`) and
//! PostgreSQL shared by the replicas of a team server (`postgres.rs`).
//! Both run numbered migrations at open; `contract_tests.rs` runs the same
//! tests against each.

#[cfg(test)]
mod contract_tests;
pub mod library;
mod notes;
#[cfg(all(feature = "team", not(windows)))]
mod postgres;
pub mod queue;
mod sqlite;
#[cfg(all(test, feature = "team", not(windows)))]
pub mod test_postgres;

pub use library::{LibraryStore, Summary};
pub use notes::{Note, NoteStore};
#[cfg(all(feature = "team", not(windows)))]
pub use postgres::PgCatalog;
pub use sqlite::SqliteCatalog;

use serde::Serialize;
use std::path::Path;
use std::time::UNIX_EPOCH;

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct TraceEntry {
    pub id: String,
    pub name: String,
    pub size: u64,
    /// File name inside the data directory's traces folder.
    #[serde(skip)]
    pub file_name: String,
    pub uploaded_at: String,
    pub uploader: String,
    pub notes: String,
    /// pending, ingesting, ready, failed.
    pub status: String,
    pub error: String,
    /// The files of a trace served by reference (each with its size and
    /// modification time when added, in reading order); empty for an upload
    /// (and a file added before times were kept): `file_name` of `size`.
    #[serde(skip)]
    pub members: Vec<MemberFile>,
    /// The trace this one is a redacted copy of (its id; the original may
    /// since be deleted), "" for any other trace.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub redacted_from: String,
}

/// One file of a trace served by reference.
#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq, Eq)]
pub struct MemberFile {
    pub path: String,
    pub size: u64,
    /// Its modification time when added (ns since 1970): a file rewritten
    /// to the same size is a changed file too. None in catalogs written
    /// before it was kept (the size alone is checked then).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modified_ns: Option<u64>,
}

impl MemberFile {
    /// `path` as it is now: its size and modification time.
    pub fn of(path: &Path, meta: &std::fs::Metadata) -> MemberFile {
        MemberFile {
            path: path.to_string_lossy().into_owned(),
            size: meta.len(),
            modified_ns: modified_ns(meta),
        }
    }
}

/// A file's modification time in ns since 1970, if the system gives one.
pub fn modified_ns(meta: &std::fs::Metadata) -> Option<u64> {
    let since = meta.modified().ok()?.duration_since(UNIX_EPOCH).ok()?;
    u64::try_from(since.as_nanos()).ok()
}

impl TraceEntry {
    /// Every file of the trace with its recorded size.
    pub fn files(&self) -> Vec<MemberFile> {
        if self.members.is_empty() {
            vec![MemberFile {
                path: self.file_name.clone(),
                size: self.size,
                modified_ns: None,
            }]
        } else {
            self.members.clone()
        }
    }
}

/// The catalog was unreachable (a database restarting, a dropped
/// connection): the request may succeed later. The API answers 503 with
/// `Retry-After` for it instead of 500.
#[derive(Debug)]
pub struct Unavailable(pub String);

impl std::fmt::Display for Unavailable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the catalog is unavailable: {}", self.0)
    }
}

impl std::error::Error for Unavailable {}

/// Whether `e` (anywhere in its chain) says the catalog or the trace store
/// was unreachable for a while, not that the request was wrong.
pub fn is_unavailable(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.is::<Unavailable>()
            || matches!(
                c.downcast_ref::<crate::store::remote::StoreError>(),
                Some(crate::store::remote::StoreError::Away(_))
            )
    })
}

/// Moves a stored file into place; its error is the storage's own.
pub type Place<'a> = Box<dyn FnOnce() -> std::io::Result<()> + Send + 'a>;

/// What the server keeps about its traces. Every method is blocking
/// (callers on the async runtime already treat it as a quick local call).
pub trait Catalog: Send + Sync + NoteStore + LibraryStore {
    /// Add `e` unless a row with its id exists.
    fn insert(&self, e: &TraceEntry) -> anyhow::Result<()>;
    /// Insert (or replace) `e` and run `place` (which moves its file into
    /// the library) as one step: the row is committed only if `place`
    /// succeeded, so neither a row without its file nor (short of a crash
    /// between the two, which the start-up reconcile heals) a file without
    /// its row is left.
    fn insert_then(&self, e: &TraceEntry, place: Place<'_>) -> anyhow::Result<std::io::Result<()>>;
    /// `insert_then` for a trace the caller found absent: false (the row
    /// left as it is) when another writer (a replica) added it meanwhile,
    /// so that of the same bytes sent at once one upload is the new one.
    fn insert_new_then(
        &self,
        e: &TraceEntry,
        place: Place<'_>,
    ) -> anyhow::Result<std::io::Result<bool>>;
    fn get(&self, id: &str) -> anyhow::Result<Option<TraceEntry>>;
    /// Newest first, then by name.
    fn list(&self) -> anyhow::Result<Vec<TraceEntry>>;
    fn set_status(&self, id: &str, status: &str, error: &str) -> anyhow::Result<()>;
    /// Set the status only while the row still has the one `seen` (status,
    /// error): a listing that read the row before a reading recorded its end
    /// must not write its older view over it. False when the row changed.
    fn set_status_if(
        &self,
        id: &str,
        seen: (&str, &str),
        status: &str,
        error: &str,
    ) -> anyhow::Result<bool>;
    /// Point a trace served by reference at its files as they are now
    /// (opened again: the same content, maybe moved or touched).
    fn set_files(&self, e: &TraceEntry) -> anyhow::Result<()>;
    /// Keep the short link `id` for `target` (an in-app path with its query).
    /// Returns the target already kept under `id`, if another one is.
    fn insert_link(&self, id: &str, target: &str, now: &str) -> anyhow::Result<Option<String>>;
    /// (links kept, bytes of their targets): what `--max-links` and `--max-links-mb` cap.
    fn link_usage(&self) -> anyhow::Result<(u64, u64)>;
    fn link(&self, id: &str) -> anyhow::Result<Option<String>>;
    /// Remove the trace's row and its symbol path, leaving a tombstone
    /// (every replica then answers 410 for it); false if there was none.
    fn delete(&self, id: &str) -> anyhow::Result<bool>;
    /// Whether the trace was deleted (and not added again since).
    fn deleted(&self, id: &str) -> anyhow::Result<bool>;
    /// Files uploaded by name that the replicas of a team server share
    /// (`named_files`: stack tag sets, regions files, uploaded PDBs'
    /// records): (name, bytes as uploaded) of `kind`, by name. (A server of
    /// its own keeps them as files.)
    fn named_files(&self, kind: &str) -> anyhow::Result<Vec<(String, Vec<u8>)>>;
    /// Keep `body` as file `name` of `kind`, replacing one of that name.
    fn put_named_file(&self, kind: &str, name: &str, body: &[u8]) -> anyhow::Result<()>;
    /// Whether there was a file `name` of `kind` to delete.
    fn delete_named_file(&self, kind: &str, name: &str) -> anyhow::Result<bool>;
    /// The trace's own symbol path, if one was set.
    fn symbol_path(&self, id: &str) -> anyhow::Result<Option<String>>;
    /// Set (Some) or clear (None: the server's path again) a trace's symbol path.
    fn set_symbol_path(&self, id: &str, path: Option<&str>) -> anyhow::Result<()>;
    /// The ingest queue the replicas share (PostgreSQL); None for a catalog
    /// of one process (SQLite), whose server reads its uploads itself.
    fn queue(&self) -> Option<&dyn queue::IngestQueue> {
        None
    }
}

/// The catalog named by `--catalog`: `postgres://...` (a team server's),
/// `sqlite://FILE`, or None for `catalog.sqlite` in the data directory
/// (opened, healed if broken, by `heal::open_catalog`).
pub fn open_url(url: &str) -> anyhow::Result<Box<dyn Catalog>> {
    if let Some(file) = url.strip_prefix("sqlite://") {
        return Ok(Box::new(SqliteCatalog::open(Path::new(file))?));
    }
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        #[cfg(all(feature = "team", not(windows)))]
        return Ok(Box::new(PgCatalog::connect(url)?));
        #[cfg(not(all(feature = "team", not(windows))))]
        anyhow::bail!(
            "--catalog postgres:// needs a build with the team server: cargo build --release -p etlscope --features team (not on Windows)"
        );
    }
    anyhow::bail!("--catalog {url:?} is neither postgres://USER@HOST:PORT/DB nor sqlite://FILE")
}

pub(crate) fn members_text(e: &TraceEntry) -> String {
    if e.members.is_empty() {
        String::new()
    } else {
        serde_json::to_string(&e.members).unwrap_or_default()
    }
}

/// A stored members column: unreadable JSON (a damaged row) reads as one
/// file, so the by-reference checks refuse it rather than read a wrong set.
pub(crate) fn members_of(text: &str) -> Vec<MemberFile> {
    serde_json::from_str(text).unwrap_or_default()
}
