//! Trace bytes kept away from the replica (`--store s3://...`): the
//! interface the store uses, so that the Windows build (without the
//! object store client) compiles the same code with no remote store.

use super::lru_cache::LruCache;
use std::path::{Path, PathBuf};

/// Why the object store could not be used: unreachable (`Away`, retried
/// later: the API's 503) or something else.
#[derive(Debug)]
pub enum StoreError {
    Away(String),
    Other(String),
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreError::Away(m) => write!(f, "the object store is unavailable: {m}"),
            StoreError::Other(m) => write!(f, "object store: {m}"),
        }
    }
}

impl std::error::Error for StoreError {}

impl From<StoreError> for std::io::Error {
    fn from(e: StoreError) -> std::io::Error {
        let kind = match e {
            StoreError::Away(_) => std::io::ErrorKind::NotConnected,
            StoreError::Other(_) => std::io::ErrorKind::Other,
        };
        std::io::Error::new(kind, e.to_string())
    }
}

pub trait RemoteTraces: Send + Sync {
    /// The local files (a bounded LRU folder).
    fn cache(&self) -> &LruCache;
    /// Copy the file at `from` to the object `name`, in parts.
    fn put_file(&self, from: &Path, name: &str) -> Result<(), StoreError>;
    /// The cached file of object `name` (`size` bytes), fetched on a miss.
    fn local(&self, name: &str, size: u64) -> Result<PathBuf, StoreError>;
    /// Remove the object and its cached file (an absent one is no error).
    fn delete(&self, name: &str) -> Result<(), StoreError>;
    /// Every object's name and age.
    fn list(&self) -> Result<Vec<(String, std::time::Duration)>, StoreError>;
    /// Copy object `name` (`size` bytes; `/` separates folders) to `dest`,
    /// outside the cache: streamed to a file beside it, renamed when whole.
    fn download(&self, name: &str, size: u64, dest: &Path) -> Result<(), StoreError>;
}

/// How old an object without a catalog row must be before the sweep
/// removes it: an upload in flight on another replica writes its object
/// first and its row just after. `ETLSCOPE_ORPHAN_GRACE_SECS` sets it (tests).
pub fn orphan_grace() -> std::time::Duration {
    let secs = std::env::var("ETLSCOPE_ORPHAN_GRACE_SECS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(600);
    std::time::Duration::from_secs(secs)
}

/// Remove objects that no catalog row names (an upload killed between its
/// object and its row, a delete while the store was away) once older than
/// `grace`. Returns how many went.
pub fn sweep_orphans(
    remote: &dyn RemoteTraces,
    catalog: &dyn crate::catalog::Catalog,
    grace: std::time::Duration,
) -> anyhow::Result<usize> {
    let mut removed = 0;
    for (name, age) in remote.list()? {
        let Some(id) = crate::heal::stored_file_id(&name) else {
            continue;
        };
        if age < grace {
            continue;
        }
        let named = catalog.get(id)?.is_some_and(|e| e.file_name == name);
        if !named {
            tracing::warn!(object = %name, "removing an object that no catalog row names");
            remote.delete(&name)?;
            removed += 1;
        }
    }
    Ok(removed)
}

/// The remote store named by `--store` (None: local files).
#[cfg(all(feature = "team", not(windows)))]
pub fn open(
    url: &str,
    cache_dir: &Path,
    cache_bytes: u64,
) -> anyhow::Result<std::sync::Arc<dyn RemoteTraces>> {
    Ok(std::sync::Arc::new(super::object::ObjectTraces::open(
        url,
        cache_dir,
        cache_bytes,
    )?))
}

#[cfg(not(all(feature = "team", not(windows))))]
pub fn open(
    url: &str,
    _cache_dir: &Path,
    _cache_bytes: u64,
) -> anyhow::Result<std::sync::Arc<dyn RemoteTraces>> {
    anyhow::bail!(
        "--store {url}: object stores need a build with the team server: cargo build --release -p etlscope --features team (not on Windows)"
    )
}
