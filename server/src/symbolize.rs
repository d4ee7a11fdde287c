//! Naming frames from PDBs: which symbol path a trace uses, and applying
//! the symbolizer's results to a model.

use std::path::{Path, PathBuf};
use symbols::{Progress, SymbolPath, SymbolPathEntry, Symbolization, Symbolizer, SymbolizerConfig};

/// The symbol path for a trace: uploaded PDBs (`data_dir/symbols`) first,
/// then a `symbols/` folder beside the trace (the demo keeps its PDBs
/// there), then the configured path (`--symbol-path` / `_NT_SYMBOL_PATH`).
pub fn symbol_path(data_dir: Option<&Path>, trace: &Path, configured: Option<&str>) -> SymbolPath {
    let mut entries = Vec::new();
    if let Some(d) = data_dir {
        entries.push(SymbolPathEntry::Folder(d.join("symbols")));
    }
    if let Some(beside) = trace
        .parent()
        .map(|p| p.join("symbols"))
        .filter(|p| p.is_dir())
    {
        entries.push(SymbolPathEntry::Folder(beside));
    }
    let local = SymbolPath { entries };
    local.then(SymbolPath::parse(configured.unwrap_or("")))
}

pub fn config(path: SymbolPath, cache: PathBuf) -> SymbolizerConfig {
    let mut c = SymbolizerConfig::new(path);
    c.default_cache = cache;
    c
}

/// Run the symbolizer over a model and name its frames; returns the result
/// (per-module status) for reporting.
pub fn symbolize(
    trace: &mut model::Trace,
    config: SymbolizerConfig,
    progress: &Progress,
) -> Symbolization {
    let s = lookup(trace, config, progress);
    apply(trace, &s);
    s
}

/// The names the symbol path has for a model's frames, without changing it.
pub fn lookup(
    trace: &model::Trace,
    config: SymbolizerConfig,
    progress: &Progress,
) -> Symbolization {
    Symbolizer::new(config).symbolize(&trace.modules, &trace.frames, &trace.strings, progress)
}

/// Name a model's frames from a lookup.
pub fn apply(trace: &mut model::Trace, s: &Symbolization) {
    trace.apply_names(s.frames.iter().map(|(row, f)| (*row, f.name.as_str())));
}

/// Per-module status as JSON rows (only modules with frames).
pub fn status_json(trace: &model::Trace, s: &Symbolization) -> Vec<serde_json::Value> {
    s.modules
        .iter()
        .map(|m| {
            let name = trace
                .modules
                .name
                .get(m.module as usize)
                .map_or("?", |&n| trace.strings.get(n));
            serde_json::json!({
                "module": name,
                "pdb": m.identity.as_ref().map(|i| format!("{}/{}", i.name, i.key())),
                "status": m.status.label(),
                "detail": m.status.to_string(),
                "frames": m.frames,
                "resolved_frames": m.resolved_frames,
            })
        })
        .collect()
}
