//! `etlscope symbols FILE [--symbol-path P]`: every module of a trace with
//! the PDB identity it recorded and its symbol status; and the naming step
//! `etlscope export` runs before grouping. Both use the server's symbol
//! path rules: a `symbols/` folder beside the trace, then the given path.

use anyhow::Context;
use std::path::Path;
use symbols::SymbolizerConfig;

fn config(file: &Path, symbol_path: Option<&str>) -> SymbolizerConfig {
    SymbolizerConfig::new(crate::symbolize::symbol_path(None, file, symbol_path))
}

pub fn run(file: &Path, symbol_path: Option<&str>) -> anyhow::Result<()> {
    let text = symbols::report::symbols_command(file, config(file, symbol_path))
        .with_context(|| format!("cannot open {}", file.display()))?;
    print!("{text}");
    Ok(())
}

/// Name `trace`'s frames from the PDBs along the symbol path of `file`.
/// Says on stderr how many frames got names when there was a path to search.
pub fn name_frames(trace: &mut model::Trace, file: &Path, symbol_path: Option<&str>) {
    let config = config(file, symbol_path);
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
