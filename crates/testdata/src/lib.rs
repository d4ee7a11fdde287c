//! Where tests find the real traces and PDBs recorded by other tools
//! (`../shared/` next to the repository), and the rule when they are
//! missing: a loud notice and a skip, except under `CI=true`, where the
//! test fails.

use std::path::PathBuf;

/// The repository's parent folder (where `shared/` sits).
fn beside_repository(sub: &str) -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../..")).join(sub)
}

fn folder(var: &str, default: &str, what: &str) -> Option<PathBuf> {
    let dir = std::env::var_os(var)
        .map(PathBuf::from)
        .unwrap_or_else(|| beside_repository(default));
    if dir.is_dir() {
        return Some(dir);
    }
    let msg = format!("{what} folder {} is missing (set {var})", dir.display());
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("{msg}");
    }
    eprintln!("\n!!!!!!!! SKIPPED: {msg} !!!!!!!!\n");
    None
}

/// `$ETLSCOPE_REAL_TRACES`, else `../shared/traces` next to the repository.
pub fn real_traces_dir() -> Option<PathBuf> {
    folder("ETLSCOPE_REAL_TRACES", "shared/traces", "real traces")
}

/// `$ETLSCOPE_SHARED_SYMBOLS`, else `../shared/symbols` next to the repository.
pub fn shared_symbols_dir() -> Option<PathBuf> {
    folder(
        "ETLSCOPE_SHARED_SYMBOLS",
        "shared/symbols",
        "shared symbols",
    )
}
