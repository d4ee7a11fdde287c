//! Shared helpers for tests that read the real traces in `../shared/traces/`.

#![allow(dead_code)]

pub mod zips;

use std::path::PathBuf;

/// The folder of real traces: `$ETLSCOPE_REAL_TRACES`, else `../shared/traces`
/// next to the repository. `None` (with a loud notice) when it is missing;
/// with `CI=true` a missing folder fails the test instead.
pub fn real_traces_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("ETLSCOPE_REAL_TRACES")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../../shared/traces"
            ))
        });
    if dir.is_dir() {
        return Some(dir);
    }
    let msg = format!(
        "real traces folder {} is missing (set ETLSCOPE_REAL_TRACES)",
        dir.display()
    );
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("{msg}");
    }
    eprintln!("\n!!!!!!!! SKIPPED: {msg} !!!!!!!!\n");
    None
}

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
