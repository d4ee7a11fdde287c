//! Shared helpers for tests that read the real traces in `../shared/traces/`.

#![allow(dead_code)]

pub mod zips;

use std::path::PathBuf;

#[allow(unused_imports)]
pub use testdata::real_traces_dir;

/// Path of one real trace; panics if the folder exists but the file does not.
pub fn real_trace(dir: &std::path::Path, name: &str) -> PathBuf {
    let p = dir.join(name);
    assert!(p.is_file(), "{} is missing from {}", name, dir.display());
    p
}

/// A per-test temporary folder, removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        let p = std::env::temp_dir().join(format!("etlscope-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        TempDir(p)
    }

    pub fn write(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let p = self.0.join(name);
        std::fs::write(&p, bytes).unwrap();
        p
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
