//! The bundled demo: `traces/explorer-overlay.etl` and the PDBs of its
//! modules, embedded in the binary, so that a binary copied anywhere (a
//! release download, `etlscope.exe` on Windows) serves the demo with its
//! symbols. They are written once into the data directory's `demo/` folder,
//! which is the server's own.

use std::path::{Path, PathBuf};

const TRACE_NAME: &str = "explorer-overlay.etl";
const TRACE: &[u8] = include_bytes!("../../../traces/explorer-overlay.etl");
/// The same scenario after the shell extension is uninstalled, to compare with.
const FIXED_NAME: &str = "explorer-fixed.etl";
const FIXED: &[u8] = include_bytes!("../../../traces/explorer-fixed.etl");

macro_rules! pdbs {
    ($($name:literal),* $(,)?) => {
        &[$(($name, include_bytes!(concat!("../../../traces/symbols/", $name)) as &[u8])),*]
    };
}

/// The demo's PDBs in symstore layout (`name.pdb/GUIDAGE/name.pdb`), found
/// by the symbol lookup in `symbols/` beside the trace.
const PDBS: &[(&str, &[u8])] = pdbs![
    "explorer.pdb/6D53AE206F0ACFB34C4C44205044422E1/explorer.pdb",
    "kernel32.pdb/AF937648DBC7D90D4C4C44205044422E1/kernel32.pdb",
    "kernelbase.pdb/6E9B204AAC7692DD4C4C44205044422E1/kernelbase.pdb",
    "ntdll.pdb/AFF3E4E147405FDA4C4C44205044422E1/ntdll.pdb",
    "ntkrnlmp.pdb/225CA59A2419F8814C4C44205044422E1/ntkrnlmp.pdb",
    "shcore.pdb/2D2B7A2EBD8120DB4C4C44205044422E1/shcore.pdb",
    "shell32.pdb/E737D1BAAE0361D54C4C44205044422E1/shell32.pdb",
    "user32.pdb/BCBF3732D2C61C184C4C44205044422E1/user32.pdb",
    "windows.storage.pdb/A7F8B396E0A0585E4C4C44205044422E1/windows.storage.pdb",
];

/// The demo trace to serve: the embedded copy, written under
/// `data_dir/demo/` (the same bytes as the source tree's, a test checks), so
/// that a binary copied anywhere serves it with its symbols.
pub fn demo_traces(data_dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let dir = data_dir.join("demo");
    let demo = materialize(&dir)?;
    let fixed = dir.join(FIXED_NAME);
    write_if_changed(&fixed, FIXED)?;
    Ok(vec![demo, fixed])
}

/// Write the embedded demo into `dir` (the trace, and its PDBs in
/// `dir/symbols/`), leaving files that already hold the right bytes alone.
pub fn materialize(dir: &Path) -> anyhow::Result<PathBuf> {
    use anyhow::Context;
    let symbols = dir.join("symbols");
    std::fs::create_dir_all(&symbols)
        .with_context(|| format!("cannot create {}", symbols.display()))?;
    for (name, bytes) in PDBS {
        let path = symbols.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("cannot create {}", parent.display()))?;
        }
        write_if_changed(&path, bytes)?;
    }
    let trace = dir.join(TRACE_NAME);
    write_if_changed(&trace, TRACE)?;
    Ok(trace)
}

fn write_if_changed(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    use anyhow::Context;
    if std::fs::read(path).is_ok_and(|have| have == bytes) {
        return Ok(());
    }
    // Write beside it, then rename: a reader never sees half a file.
    let tmp = path.with_extension("partial");
    std::fs::write(&tmp, bytes).with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_demo_is_the_source_trees() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../traces");
        assert_eq!(
            std::fs::read(root.join(TRACE_NAME)).ok().as_deref(),
            Some(TRACE)
        );
        assert_eq!(
            std::fs::read(root.join(FIXED_NAME)).ok().as_deref(),
            Some(FIXED)
        );
        let mut names = Vec::new();
        let mut dirs = vec![root.join("symbols")];
        while let Some(d) = dirs.pop() {
            for e in std::fs::read_dir(&d).unwrap().flatten() {
                let p = e.path();
                if p.is_dir() {
                    dirs.push(p);
                } else if let Ok(rel) = p.strip_prefix(root.join("symbols")) {
                    names.push(rel.to_string_lossy().replace('\\', "/"));
                }
            }
        }
        names.sort();
        let embedded: Vec<&str> = PDBS.iter().map(|p| p.0).collect();
        assert_eq!(names, embedded, "every PDB of traces/symbols is embedded");
    }

    #[test]
    fn materialize_writes_once_and_keeps_right_files() {
        let dir = testdata::TempDir::new("demo-materialize");
        let trace = materialize(dir.path()).unwrap();
        assert_eq!(std::fs::read(&trace).unwrap(), TRACE);
        let pdb = dir.path().join("symbols").join(PDBS[0].0);
        let before = std::fs::metadata(&pdb).unwrap().modified().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        materialize(dir.path()).unwrap();
        assert_eq!(std::fs::metadata(&pdb).unwrap().modified().unwrap(), before);
        // A damaged copy is rewritten.
        std::fs::write(&trace, b"not a trace").unwrap();
        materialize(dir.path()).unwrap();
        assert_eq!(std::fs::read(&trace).unwrap(), TRACE);
    }
}
