//! `etlscope symbols FILE... [--symbol-path P]`: every module of a trace with
//! the PDB identity it recorded and its symbol status; and the naming step
//! `etlscope export` runs before grouping. Both use the server's symbol
//! path rules: a `symbols/` folder beside the trace (its first file), then
//! the given path.

use std::path::{Path, PathBuf};
use symbols::report::{format_report, module_report};
use symbols::{Symbolizer, SymbolizerConfig};

fn config(files: &[PathBuf], symbol_path: Option<&str>) -> SymbolizerConfig {
    let first = files.first().map_or(Path::new("."), PathBuf::as_path);
    SymbolizerConfig::new(crate::symbolize::symbol_path(None, first, symbol_path))
}

pub fn run(paths: &[PathBuf], companions: bool, symbol_path: Option<&str>) -> anyhow::Result<()> {
    let opened = super::files::open(paths, companions)?;
    let trace = model::build(&opened.file);
    drop(opened.file);
    let symbolizer = Symbolizer::new(config(&opened.files, symbol_path));
    let (reports, _) = module_report(&trace, &symbolizer);
    print!("{}", format_report(&reports));
    Ok(())
}

/// Name `trace`'s frames from the PDBs along the symbol path of `files`.
/// Says on stderr how many frames got names when there was a path to search.
pub fn name_frames(trace: &mut model::Trace, files: &[PathBuf], symbol_path: Option<&str>) {
    let config = config(files, symbol_path);
    let searched = !config.path.is_empty();
    let s = crate::symbolize::symbolize(trace, config, &symbols::Progress::default());
    if searched {
        let loaded = s.modules.iter().filter(|m| m.status.is_loaded()).count();
        let frames: u64 = s.modules.iter().map(|m| u64::from(m.frames)).sum();
        eprintln!(
            "symbols: {loaded} PDBs loaded, {} of {frames} module frames named",
            s.frames.len()
        );
    }
}
