//! Where tests find the real traces and PDBs recorded by other tools
//! (`../shared/` next to the repository), and the one rule for anything a
//! test needs but cannot find (a folder, a file, python3): a loud notice and
//! a skip on a developer's machine, a failure under CI (the `CI` variable
//! set to anything but empty, `0` or `false`, as CI services set it).

pub mod counting_alloc;
mod cpu_time;

pub use counting_alloc::Counting;
pub use cpu_time::process_cpu_ms;
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

/// Every trace in [`real_traces_dir`] (`.etl`, `.etl.zip`, `.diagsession`),
/// sorted by path; None (after [`skip`]) when the folder is missing.
pub fn real_trace_files() -> Option<Vec<PathBuf>> {
    let dir = real_traces_dir()?;
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let n = p.to_string_lossy();
            n.ends_with(".etl") || n.ends_with(".etl.zip") || n.ends_with(".diagsession")
        })
        .collect();
    files.sort();
    Some(files)
}

/// `$ETLSCOPE_WPA_FILES`, else `../shared/wpa-files` next to the repository:
/// WPA users' own files (`.wpaProfile`, `.stacktags`) from public projects.
pub fn wpa_files_dir() -> Option<PathBuf> {
    folder("ETLSCOPE_WPA_FILES", "shared/wpa-files", "public WPA files")
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

/// A per-test temporary folder (unique per process, tag and call), removed
/// on drop. The one helper every crate's tests use.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let p = std::env::temp_dir().join(format!("etlscope-{tag}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        if let Err(e) = std::fs::create_dir_all(&p) {
            panic!("cannot create {}: {e}", p.display());
        }
        TempDir(p)
    }

    pub fn path(&self) -> &std::path::Path {
        &self.0
    }

    /// Write `bytes` to `name` inside the folder.
    pub fn write(&self, name: &str, bytes: &[u8]) -> PathBuf {
        let p = self.0.join(name);
        if let Err(e) = std::fs::write(&p, bytes) {
            panic!("cannot write {}: {e}", p.display());
        }
        p
    }

    /// Keep the folder (for a test that hands it to another process).
    pub fn keep(self) -> PathBuf {
        let p = self.0.clone();
        std::mem::forget(self);
        p
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// SplitMix64: a small seeded generator, so every run of a test draws the
/// same cases. The one PRNG of the tests (the writer has its own in synth,
/// the query benchmarks theirs in query::synthetic, which tests cannot share).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (0 when n is 0).
    pub fn below(&mut self, n: usize) -> usize {
        self.below_u64(n as u64) as usize
    }

    /// Uniform in `0..n` (0 when n is 0).
    pub fn below_u64(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    pub fn pick<T: Copy>(&mut self, v: &[T]) -> T {
        v[self.below(v.len())]
    }

    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next_u64() as u8).collect()
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
