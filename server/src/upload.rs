//! Receiving an uploaded file: streamed to a temporary file (never held in
//! memory), size-limited, hashed for its id, checked to be a readable trace,
//! then renamed into place so nothing half-written is ever visible.

use futures_util::{Stream, StreamExt};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use tokio::io::AsyncWriteExt;

#[derive(Debug)]
pub enum UploadError {
    TooLarge {
        limit: u64,
    },
    /// The client stopped sending the body.
    Timeout,
    /// The disk (or quota) is full.
    NoSpace(String),
    Io(String),
    Client(String),
    /// The catalog or the object store is unreachable for now (503).
    Unavailable(String),
}

impl UploadError {
    /// A write error: `NoSpace` when the disk is full, else `Io`.
    pub fn write(what: &str, e: &std::io::Error) -> UploadError {
        if is_no_space(e) {
            UploadError::NoSpace(format!("{what}: the server's disk is full"))
        } else {
            UploadError::Io(format!("{what}: {e}"))
        }
    }
}

/// ENOSPC / EDQUOT and their Windows kin.
pub fn is_no_space(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::StorageFull | std::io::ErrorKind::QuotaExceeded
    )
}

/// A temporary file removed on drop unless it was kept.
pub struct TempFile {
    pub path: PathBuf,
    keep: bool,
}

impl TempFile {
    pub fn new(dir: &Path) -> TempFile {
        static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        TempFile {
            path: dir.join(format!("upload-{}-{nanos}-{n}.tmp", std::process::id())),
            keep: false,
        }
    }

    /// Move into place atomically (same filesystem) and stop owning it.
    pub fn persist(mut self, dest: &Path) -> std::io::Result<()> {
        std::fs::rename(&self.path, dest)?;
        self.keep = true;
        Ok(())
    }

    /// Move into place; across filesystems (a cache folder on another
    /// disk), by a copy to a temporary name there and a rename.
    pub fn persist_or_copy(self, dest: &Path) -> std::io::Result<()> {
        if std::fs::rename(&self.path, dest).is_ok() {
            let mut me = self;
            me.keep = true;
            return Ok(());
        }
        let part = dest.with_extension("part");
        let copied = std::fs::copy(&self.path, &part).and_then(|_| std::fs::rename(&part, dest));
        if copied.is_err() {
            let _ = std::fs::remove_file(&part);
        }
        copied
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if !self.keep {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

pub struct Received {
    pub temp: TempFile,
    pub size: u64,
    /// First 128 bits of the SHA-256 of the content, as hex.
    pub id: String,
}

/// Stream `body` to a temp file in `tmp_dir`, refusing more than `limit` bytes.
pub async fn receive<S>(mut body: S, tmp_dir: &Path, limit: u64) -> Result<Received, UploadError>
where
    S: Stream<Item = Result<axum::body::Bytes, UploadError>> + Unpin,
{
    let temp = TempFile::new(tmp_dir);
    let mut file = tokio::fs::File::create(&temp.path)
        .await
        .map_err(|e| UploadError::write("cannot create a temporary file", &e))?;
    let mut hasher = Sha256::new();
    let mut size = 0u64;
    while let Some(chunk) = body.next().await {
        let chunk = chunk?;
        size = size.saturating_add(chunk.len() as u64);
        if size > limit {
            return Err(UploadError::TooLarge { limit });
        }
        hasher.update(&chunk);
        file.write_all(&chunk)
            .await
            .map_err(|e| UploadError::write("cannot write the upload", &e))?;
    }
    file.flush()
        .await
        .map_err(|e| UploadError::write("cannot write the upload", &e))?;
    // Durable before it can be renamed into the library (a crash after the
    // rename must not leave a file whose bytes are not its name's hash).
    file.sync_all()
        .await
        .map_err(|e| UploadError::write("cannot write the upload", &e))?;
    let digest = hasher.finalize();
    let id = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
    Ok(Received { temp, size, id })
}

/// Whether `id` has the shape of our ids (so it is safe in a path).
pub fn valid_id(id: &str) -> bool {
    id.len() == 32
        && id
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_hex_only() {
        assert!(valid_id("0123456789abcdef0123456789abcdef"));
        assert!(!valid_id("../../etc/passwd"));
        assert!(!valid_id("0123456789ABCDEF0123456789abcdef"));
        assert!(!valid_id(""));
    }
}
