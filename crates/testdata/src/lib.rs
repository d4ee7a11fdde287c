//! Where tests find the real traces and PDBs recorded by other tools
//! (`../shared/` next to the repository), and the one rule for anything a
//! test needs but cannot find (a folder, a file, python3): a loud notice and
//! a skip on a developer's machine, a failure under CI (the `CI` variable
//! set to anything but empty, `0` or `false`, as CI services set it).

use std::path::PathBuf;

/// The repository's parent folder (where `shared/` sits).
fn beside_repository(sub: &str) -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../..")).join(sub)
}

/// Whether the tests run under CI, where nothing may be skipped.
pub fn under_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| means_ci(&v))
}

fn means_ci(v: &str) -> bool {
    !matches!(v.trim().to_ascii_lowercase().as_str(), "" | "0" | "false")
}

/// Skip a test for want of `what`: panics under CI, else prints a notice that
/// the test harness shows (it goes to stderr, which `cargo test` captures for
/// passing tests, so it is also printed to stdout under `--nocapture`).
pub fn skip(what: &str) {
    if under_ci() {
        panic!("{what}: tests may not be skipped under CI");
    }
    eprintln!("\n!!!!!!!! SKIPPED: {what} !!!!!!!!\n");
}

fn folder(var: &str, default: &str, what: &str) -> Option<PathBuf> {
    let dir = std::env::var_os(var)
        .map(PathBuf::from)
        .unwrap_or_else(|| beside_repository(default));
    if dir.is_dir() {
        return Some(dir);
    }
    skip(&format!(
        "{what} folder {} is missing (set {var})",
        dir.display()
    ));
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

/// `python3`, run with `args`; `None` (after [`skip`]) when it cannot start.
pub fn python3(args: &[&std::ffi::OsStr]) -> Option<std::process::Output> {
    match std::process::Command::new("python3").args(args).output() {
        Ok(o) => Some(o),
        Err(err) => {
            skip(&format!("cannot run python3: {err}"));
            None
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn any_ci_value_but_off_means_ci() {
        for v in ["true", "1", "yes", "TRUE", "on"] {
            assert!(super::means_ci(v), "{v}");
        }
        for v in ["", "0", "false", "False", " "] {
            assert!(!super::means_ci(v), "{v:?}");
        }
    }
}
