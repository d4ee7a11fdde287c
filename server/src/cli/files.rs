//! The files a command reads as one trace: those given, with PerfView's
//! companions (see `crate::companions`), opened together.

use anyhow::Context;
use etl::EtlFile;
use std::path::{Path, PathBuf};

/// One trace opened from the files given.
pub struct Opened {
    pub file: EtlFile,
    /// Every file read, in reading order (the first is the trace's own, whose
    /// folder is searched for `symbols/`).
    pub files: Vec<PathBuf>,
    /// The files as the output names them: `a.etl + b.etl`.
    pub shown: String,
}

pub fn open(given: &[PathBuf], companions: bool) -> anyhow::Result<Opened> {
    // A path that names no file is a mistake in the command, not a damaged
    // member to read around.
    for p in given {
        std::fs::metadata(p).with_context(|| format!("cannot open {}", p.display()))?;
    }
    let files = crate::companions::trace_files(given, companions);
    crate::companions::announce(given, &files);
    let shown = files
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(" + ");
    let refs: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    let file = EtlFile::open_many(&refs).with_context(|| format!("cannot open {shown}"))?;
    Ok(Opened { file, files, shown })
}
