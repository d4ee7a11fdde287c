//! The catalog heals at start: the stored trace files (named by content
//! hash) are the truth, and the SQLite catalog is brought in line with them.
//!
//! - A missing, empty or unreadable catalog is rebuilt from `traces/` (a
//!   broken one is kept aside as `catalog.sqlite.broken-<time>`).
//! - A row whose file vanished is marked `missing`; uploading the same bytes
//!   restores it. A row whose file came back is `pending` again.
//! - A stored file without a row is registered again (its upload name is
//!   lost: it is listed under its file name).
//! - Rows left `pending` or `ingesting` by a stop are returned, to resume.

use crate::catalog::{Catalog, TraceEntry};
use crate::upload::valid_id;
use std::path::Path;
use std::time::UNIX_EPOCH;

/// Status of a row whose file is gone.
pub const MISSING: &str = "missing";
pub const MISSING_MESSAGE: &str =
    "the stored file of this trace is gone; upload the same file again to restore it";

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

/// Open the catalog, starting a new one when it is missing, empty or broken.
pub fn open_catalog(data_dir: &Path) -> anyhow::Result<Catalog> {
    let path = data_dir.join("catalog.sqlite");
    let empty = std::fs::metadata(&path).map_or(true, |m| m.len() == 0);
    if empty {
        // A journal left by a lost catalog belongs to other pages.
        remove_journal(&path);
    }
    let opened = Catalog::open(&path).and_then(|c| c.list().map(|_| c));
    match opened {
        Ok(c) => Ok(c),
        Err(e) => {
            let aside = path.with_extension(format!("sqlite.broken-{}", now_secs()));
            tracing::warn!(error = %format!("{e:#}"), aside = %aside.display(), "the catalog cannot be read; starting a new one from the stored traces");
            std::fs::rename(&path, &aside)?;
            remove_journal(&path);
            Catalog::open(&path)
        }
    }
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

/// Bring `catalog` in line with `traces/`; returns the rows to ingest again.
pub fn reconcile(
    catalog: &Catalog,
    traces_dir: &Path,
    paths_of: impl Fn(&TraceEntry) -> Vec<std::path::PathBuf>,
) -> anyhow::Result<Vec<TraceEntry>> {
    let rows = catalog.list()?;
    let mut marked = 0;
    for e in &rows {
        // A trace of several files is whole only with every one of them.
        let gone: Vec<String> = paths_of(e)
            .iter()
            .filter(|p| !p.is_file())
            .map(|p| p.display().to_string())
            .collect();
        let present = gone.is_empty();
        if !present && e.status != MISSING {
            catalog.set_status(&e.id, MISSING, &missing_message(e, &gone))?;
            marked += 1;
        } else if present && e.status == MISSING {
            catalog.set_status(&e.id, "pending", "")?;
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
            "{marked} catalogued traces have lost their stored file"
        );
    }
    Ok(catalog
        .list()?
        .into_iter()
        .filter(|e| e.status == "pending" || e.status == "ingesting")
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
