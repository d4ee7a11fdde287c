//! Shared helpers for the model's real-trace acceptance tests.

#![allow(dead_code)]

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

/// Build the model of one real trace, or `None` when the folder is missing.
pub fn model_of(name: &str) -> Option<model::Trace> {
    let dir = real_traces_dir()?;
    let path = dir.join(name);
    assert!(path.is_file(), "{} is missing from {}", name, dir.display());
    let file = etl::EtlFile::open(&path).unwrap();
    Some(model::build(&file))
}
