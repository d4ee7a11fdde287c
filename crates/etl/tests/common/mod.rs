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

#[allow(unused_imports)] // not every test binary writes files
pub use testdata::TempDir;
