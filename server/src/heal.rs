//! The catalog heals at start: the stored trace files (named by content
//! hash) are the truth, and the SQLite catalog is brought in line with them.
//!
//! - A missing, empty or unreadable catalog is rebuilt from `traces/` (a
//!   broken one is kept aside as `catalog.sqlite.broken-<time>`).
//! - A row whose file vanished is marked `missing`; uploading the same bytes
//!   restores it. A row whose file came back is `pending` again.
//! - A stored file without a row is registered again (its upload name is
//!   lost: it is listed under its file name).
//! - A row whose files changed since they were added (size or modification
//!   time) is `failed`, naming the file: it is not read, nor listed `ready`.
//! - Rows left `pending`, `ingesting` or `live` by a stop (a kill in the
//!   middle of an ingest or of a replay) are returned, to read again: no
//!   one is reading them any more, so they end `ready` or `failed`.

use crate::catalog::{Catalog, MemberFile, SqliteCatalog, TraceEntry};
use crate::upload::valid_id;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

/// Statuses that only a reading under way makes true: at start, none is.
pub const STALE: [&str; 3] = ["pending", "ingesting", "live"];

/// Status of a row whose file is gone.
pub const MISSING: &str = "missing";
pub const MISSING_MESSAGE: &str =
    "the stored file of this trace is gone; upload the same file again to restore it";
/// Why an upload whose stored file changed on disk is not read.
pub const CHANGED_MESSAGE: &str =
    "the stored file of this trace changed on disk; upload the same file again to restore it";

/// Why `e` is missing: an upload's stored file, or the user's own files of
/// a trace served by reference (named, since only they can bring them back).
fn missing_message(e: &TraceEntry, gone: &[String]) -> String {
    if std::path::Path::new(&e.file_name).is_absolute() {
        format!(
            "{} of this trace served by reference is gone; put it back, or open the trace's files again",
            gone.join(", ")
        )
    } else {
        MISSING_MESSAGE.to_string()
    }
}

/// Why the files of `e` (each resolved, with what was recorded of it) are
/// no longer the trace the library holds, if they are not: its status and
/// message, `missing` when one is gone, `failed` when one changed.
pub fn file_problem(
    e: &TraceEntry,
    files: &[(PathBuf, MemberFile)],
) -> Option<(&'static str, String)> {
    let gone: Vec<String> = files
        .iter()
        .filter(|(p, _)| !p.is_file())
        .map(|(p, _)| p.display().to_string())
        .collect();
    if !gone.is_empty() {
        return Some((MISSING, missing_message(e, &gone)));
    }
    let changed = files
        .iter()
        .find_map(|(p, m)| crate::store::changed_since_added(p, m.size, m.modified_ns))?;
    if Path::new(&e.file_name).is_absolute() {
        Some(("failed", changed))
    } else {
        Some(("failed", CHANGED_MESSAGE.to_string()))
    }
}

/// Open the catalog, starting a new one when it is missing, empty or broken.
pub fn open_catalog(data_dir: &Path) -> anyhow::Result<SqliteCatalog> {
    let path = data_dir.join("catalog.sqlite");
    let empty = std::fs::metadata(&path).map_or(true, |m| m.len() == 0);
    if empty {
        // A journal left by a lost catalog belongs to other pages.
        remove_journal(&path);
    }
    let opened = SqliteCatalog::open(&path).and_then(|c| c.list().map(|_| c));
    match opened {
        Ok(c) => Ok(c),
        // A full disk or a refused write says nothing of the catalog: set
        // aside, its rows' names and notes would be lost for a passing fault.
        Err(e) if !damaged(&e) => Err(e.context(format!(
            "cannot open the catalog {} (left as it is: is its disk full or read-only?)",
            path.display()
        ))),
        Err(e) => {
            let aside = path.with_extension(format!("sqlite.broken-{}", now_secs()));
            tracing::warn!(error = %format!("{e:#}"), aside = %aside.display(), "the catalog cannot be read; starting a new one from the stored traces");
            std::fs::rename(&path, &aside)?;
            remove_journal(&path);
            SqliteCatalog::open(&path)
        }
    }
}

/// Whether `e` says the catalog itself is unreadable, not that the disk
/// or the system refused (full, read-only, locked, out of memory).
fn damaged(e: &anyhow::Error) -> bool {
    use rusqlite::ErrorCode as C;
    let code = e
        .downcast_ref::<rusqlite::Error>()
        .and_then(rusqlite::Error::sqlite_error_code);
    !matches!(
        code,
        Some(
            C::DiskFull
                | C::SystemIoFailure
                | C::CannotOpen
                | C::ReadOnly
                | C::PermissionDenied
                | C::DatabaseBusy
                | C::DatabaseLocked
                | C::OutOfMemory
        )
    )
}

fn remove_journal(db: &Path) {
    for ext in ["sqlite-wal", "sqlite-shm"] {
        let _ = std::fs::remove_file(db.with_extension(ext));
    }
}

fn now_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The id of a file the server stores (`<id>.etl`, `<id>.etl.zip`).
pub fn stored_file_id(name: &str) -> Option<&str> {
    let id = name
        .strip_suffix(".etl.zip")
        .or_else(|| name.strip_suffix(".etl"))?;
    valid_id(id).then_some(id)
}

/// Bring `catalog` in line with `traces/` and with the files of traces
/// served by reference (`files_of`); returns the rows to ingest again.
pub fn reconcile(
    catalog: &dyn Catalog,
    traces_dir: &Path,
    files_of: impl Fn(&TraceEntry) -> Vec<(PathBuf, MemberFile)>,
) -> anyhow::Result<Vec<TraceEntry>> {
    let rows = catalog.list()?;
    let mut marked = 0;
    for e in &rows {
        // A trace of several files is whole only with every one of them.
        match file_problem(e, &files_of(e)) {
            Some((status, message)) if e.status != status || e.error != message => {
                catalog.set_status(&e.id, status, &message)?;
                marked += 1;
            }
            Some(_) => {}
            None if e.status == MISSING => catalog.set_status(&e.id, "pending", "")?,
            None => {}
        }
    }
    let mut registered = 0;
    for f in std::fs::read_dir(traces_dir)?.flatten() {
        let name = f.file_name().to_string_lossy().into_owned();
        let Some(id) = stored_file_id(&name) else {
            tracing::warn!(file = %f.path().display(), "a file in traces/ that the server did not write; left alone");
            continue;
        };
        if rows.iter().any(|e| e.id == id) {
            continue;
        }
        let meta = f.metadata()?;
        let secs = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_secs() as i64);
        catalog.insert(&TraceEntry {
            id: id.to_string(),
            name: name.clone(),
            size: meta.len(),
            file_name: name,
            uploaded_at: crate::store::rfc3339(secs),
            uploader: String::new(),
            notes: String::new(),
            status: "pending".into(),
            error: String::new(),
            members: Vec::new(),
            redacted_from: String::new(),
        })?;
        registered += 1;
    }
    if registered > 0 {
        tracing::warn!(
            registered,
            "catalog rebuilt: {registered} stored trace files had no catalog row and are listed again"
        );
    }
    if marked > 0 {
        tracing::warn!(
            marked,
            "{marked} catalogued traces have lost or changed a file since they were added"
        );
    }
    Ok(catalog
        .list()?
        .into_iter()
        .filter(|e| STALE.contains(&e.status.as_str()))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::stored_file_id;

    #[test]
    fn stored_names() {
        let id = "0123456789abcdef0123456789abcdef";
        assert_eq!(stored_file_id(&format!("{id}.etl")), Some(id));
        assert_eq!(stored_file_id(&format!("{id}.etl.zip")), Some(id));
        assert_eq!(stored_file_id("notes.etl"), None);
        assert_eq!(stored_file_id(&format!("{id}.tmp")), None);
    }
}
