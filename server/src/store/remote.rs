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
}

/// The remote store named by `--store` (None: local files).
#[cfg(not(windows))]
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

#[cfg(windows)]
pub fn open(
    url: &str,
    _cache_dir: &Path,
    _cache_bytes: u64,
) -> anyhow::Result<std::sync::Arc<dyn RemoteTraces>> {
    anyhow::bail!("--store {url}: object stores are not available in the Windows build")
}
