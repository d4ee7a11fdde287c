//! A bounded folder of trace files fetched from the object store
//! (`--cache-dir`, `--cache-gb`): adding a file past the bound removes the
//! least recently used others first. A removed file that a loaded trace
//! still maps stays readable until it is unmapped (Linux semantics), so
//! eviction never breaks a trace in memory.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

pub struct LruCache {
    pub dir: PathBuf,
    limit: u64,
    /// File name -> (bytes, last use).
    files: Mutex<HashMap<String, (u64, u64)>>,
    clock: AtomicU64,
}

// Opened and read only by the object store (the `team` build).
#[cfg_attr(not(all(feature = "team", not(windows))), allow(dead_code))]
impl LruCache {
    /// The cache in `dir`, its files found there counted (oldest first by
    /// modification time, as the order of their last use is not kept).
    pub fn open(dir: &Path, limit: u64) -> std::io::Result<LruCache> {
        std::fs::create_dir_all(dir)?;
        let mut found: Vec<(std::time::SystemTime, String, u64)> = Vec::new();
        for e in std::fs::read_dir(dir)?.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let Ok(meta) = e.metadata() else { continue };
            if name.ends_with(".part") {
                // A download a stop interrupted.
                let _ = std::fs::remove_file(e.path());
                continue;
            }
            if meta.is_file() {
                let t = meta.modified().unwrap_or(std::time::UNIX_EPOCH);
                found.push((t, name, meta.len()));
            }
        }
        found.sort();
        let files = found
            .into_iter()
            .enumerate()
            .map(|(i, (_, name, size))| (name, (size, i as u64)))
            .collect::<HashMap<_, _>>();
        let cache = LruCache {
            dir: dir.to_path_buf(),
            limit,
            clock: AtomicU64::new(files.len() as u64),
            files: Mutex::new(files),
        };
        cache.make_room(0, "");
        Ok(cache)
    }

    fn tick(&self) -> u64 {
        self.clock.fetch_add(1, Ordering::Relaxed)
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// Whether `name` is cached (and then its use now), checked on disk too.
    pub fn hit(&self, name: &str) -> bool {
        let mut files = self.files.lock().unwrap_or_else(|p| p.into_inner());
        if !self.dir.join(name).is_file() {
            files.remove(name);
            return false;
        }
        let now = self.tick();
        match files.get_mut(name) {
            Some(f) => f.1 = now,
            None => {
                let size = std::fs::metadata(self.dir.join(name)).map_or(0, |m| m.len());
                files.insert(name.to_string(), (size, now));
            }
        }
        true
    }

    /// Remove least recently used files (never `keep`) until `incoming`
    /// more bytes fit under the bound.
    pub fn make_room(&self, incoming: u64, keep: &str) {
        let mut files = self.files.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            let held: u64 = files.values().map(|f| f.0).sum();
            if held.saturating_add(incoming) <= self.limit {
                return;
            }
            let Some(oldest) = files
                .iter()
                .filter(|(n, _)| n.as_str() != keep)
                .min_by_key(|(_, f)| f.1)
                .map(|(n, _)| n.clone())
            else {
                return;
            };
            tracing::info!(file = %oldest, "dropping a trace file from the cache (over --cache-gb)");
            let _ = std::fs::remove_file(self.dir.join(&oldest));
            files.remove(&oldest);
        }
    }

    /// Count `name` (now in the folder) as just used.
    pub fn added(&self, name: &str, size: u64) {
        self.make_room(size, name);
        let now = self.tick();
        self.files
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(name.to_string(), (size, now));
    }

    pub fn remove(&self, name: &str) {
        let _ = std::fs::remove_file(self.dir.join(name));
        self.files
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(name);
    }

    /// Bytes held (tests).
    #[cfg(test)]
    pub fn held(&self) -> u64 {
        let files = self.files.lock().unwrap_or_else(|p| p.into_inner());
        files.values().map(|f| f.0).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn least_recently_used_files_go_first_and_the_bound_holds() {
        let dir = testdata::TempDir::new("etlscope-lru");
        let c = LruCache::open(dir.path(), 250).unwrap();
        for name in ["a", "b", "c"] {
            c.make_room(100, name);
            std::fs::write(c.path(name), [0u8; 100]).unwrap();
            c.added(name, 100);
            // a used again after b was added: b is now the oldest.
            if name == "b" {
                assert!(c.hit("a"));
            }
        }
        assert!(c.held() <= 250, "{}", c.held());
        assert!(c.hit("a") && c.hit("c"));
        assert!(!c.hit("b"), "the least recently used file was dropped");
        assert!(!c.path("b").exists());
        // Reopened: the files on disk are counted, the bound applied again.
        drop(c);
        let c = LruCache::open(dir.path(), 150).unwrap();
        assert_eq!(c.held(), 100);
        std::fs::write(c.path("x.part"), b"half").unwrap();
        drop(c);
        let _ = LruCache::open(dir.path(), 150).unwrap();
        assert!(
            !dir.path().join("x.part").exists(),
            "partial download removed"
        );
    }
}
