//! The files of one trace as given on the command line, plus PerfView's
//! unmerged companions.
//!
//! PerfView collects a kernel session and user sessions into `x.etl`,
//! `x.kernel.etl`, `x.clr*.etl` and `x.user*.etl` and merges them only when
//! asked; TraceEvent's `ETWTraceEventSource`, given `x.etl` with its default
//! `MergeAll`, reads `x.etl` and every `x.kernel*.etl`, `x.clr*.etl` and
//! `x.user*.etl` of the same folder as one trace. We do the same for every
//! `.etl` given, unless told to read only the files given.

use std::path::{Path, PathBuf};

/// PerfView's companion patterns, in the order TraceEvent adds them.
const PATTERNS: [&str; 3] = [".kernel", ".clr", ".user"];

/// `given` with each `.etl`'s companions after it (when `companions`), each
/// file once, in order.
pub fn trace_files(given: &[PathBuf], companions: bool) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    let mut seen: Vec<PathBuf> = Vec::new();
    let mut push = |p: PathBuf, out: &mut Vec<PathBuf>| {
        // The same file by two names (x.etl and ./x.etl) is read once.
        let key = std::fs::canonicalize(&p).unwrap_or_else(|_| p.clone());
        if !seen.contains(&key) {
            seen.push(key);
            out.push(p);
        }
    };
    for p in given {
        push(p.clone(), &mut out);
        if companions {
            for c in companions_of(p) {
                push(c, &mut out);
            }
        }
    }
    out
}

/// The files beside `path` that PerfView reads with it: for `x.etl`,
/// `x.kernel*.etl`, then `x.clr*.etl`, then `x.user*.etl` (names compared
/// without regard to case, as on Windows), each group sorted by name.
pub fn companions_of(path: &Path) -> Vec<PathBuf> {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return Vec::new();
    };
    let lower = name.to_ascii_lowercase();
    let Some(base) = lower.strip_suffix(".etl").filter(|b| !b.is_empty()) else {
        return Vec::new();
    };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let Ok(rd) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = rd
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .collect();
    names.sort();
    let mut out = Vec::new();
    for pattern in PATTERNS {
        let prefix = format!("{base}{pattern}");
        for n in &names {
            let l = n.to_ascii_lowercase();
            if l != lower && l.starts_with(&prefix) && l.ends_with(".etl") {
                out.push(dir.join(n));
            }
        }
    }
    out
}

/// Say on stderr which companions were added to the files given.
pub fn announce(given: &[PathBuf], files: &[PathBuf]) {
    let added: Vec<String> = files
        .iter()
        .filter(|f| !given.contains(f))
        .map(|f| f.display().to_string())
        .collect();
    if !added.is_empty() {
        eprintln!(
            "etlscope: also reading {} (PerfView's unmerged files of the same trace; --no-companions reads only the files given)",
            added.join(", ")
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perfviews_set_in_its_order() {
        let dir = testdata::TempDir::new("companions");
        for n in [
            "x.etl",
            "x.user_paged.1.etl",
            "x.kernel.etl",
            "X.CLRRundown.etl",
            "x.kernel.etl.txt",
            "xy.kernel.etl",
            "y.kernel.etl",
        ] {
            dir.write(n, b"");
        }
        let x = dir.path().join("x.etl");
        let got: Vec<String> = companions_of(&x)
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            got,
            ["x.kernel.etl", "X.CLRRundown.etl", "x.user_paged.1.etl"]
        );
        // Given explicitly too: each file once, in the order given first.
        let k = dir.path().join("x.kernel.etl");
        let files = trace_files(&[k.clone(), x.clone()], true);
        assert_eq!(files.len(), 4);
        assert_eq!(files[0], k);
        assert_eq!(files[1], x);
        assert_eq!(trace_files(std::slice::from_ref(&x), false), vec![x]);
        // A companion has no companions of its own.
        assert!(companions_of(&k).is_empty());
    }
}
