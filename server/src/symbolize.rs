//! Naming frames from PDBs: which symbol path a trace uses, and applying
//! the symbolizer's results to a model.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use symbols::{
    ModuleStatus, Progress, SymbolPath, SymbolPathEntry, SymbolStatus, Symbolization, Symbolizer,
    SymbolizerConfig,
};

/// The symbol path for a trace: uploaded PDBs (`uploads`, the server's
/// `--symbols-dir`) first, then a `symbols/` folder beside the trace (the
/// demo keeps its PDBs there), then the configured path (`--symbol-path` /
/// `_NT_SYMBOL_PATH`).
pub fn symbol_path(uploads: Option<&Path>, trace: &Path, configured: Option<&str>) -> SymbolPath {
    let mut entries = Vec::new();
    if let Some(d) = uploads {
        entries.push(SymbolPathEntry::Folder(d.to_path_buf()));
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
    lookup_searched(trace, config, progress).0
}

/// `lookup`, and the places searched (servers found unreachable say so).
pub fn lookup_searched(
    trace: &model::Trace,
    config: SymbolizerConfig,
    progress: &Progress,
) -> (Symbolization, Vec<String>) {
    let symbolizer = Symbolizer::new(config);
    let s = symbolizer.symbolize(&trace.modules, &trace.frames, &trace.strings, progress);
    (s, symbolizer.search_places(None))
}

/// Name a model's frames from a lookup.
pub fn apply(trace: &mut model::Trace, s: &Symbolization) {
    trace.apply_names(s.frames.iter().map(|(row, f)| (*row, f.name.as_str())));
}

/// Per-module status as JSON rows, one per module of the model; modules
/// looked up and not loaded list where they were looked for (`searched`,
/// then the PDB path the image recorded).
pub fn status_json(
    trace: &model::Trace,
    s: &Symbolization,
    searched: &[String],
) -> Vec<serde_json::Value> {
    s.modules
        .iter()
        .map(|m| {
            let looked = matches!(
                m.status,
                SymbolStatus::NotFound
                    | SymbolStatus::IdentityMismatch { .. }
                    | SymbolStatus::Malformed { .. }
                    | SymbolStatus::DownloadFailed { .. }
            );
            let places = if looked {
                let mut p = searched.to_vec();
                p.extend(recorded_pdb(trace, m.module as usize));
                p
            } else {
                Vec::new()
            };
            module_json(trace, m, m.status.label(), &m.status.to_string(), places)
        })
        .collect()
}

/// Rows while a lookup runs: modules finished so far with their status,
/// the others `waiting` (or `not needed` / `no PDB identity`, known at once).
pub fn running_json(trace: &model::Trace, progress: &Progress) -> Vec<serde_json::Value> {
    let finished: HashMap<u32, SymbolStatus> = progress.finished().into_iter().collect();
    let mut frames = vec![0u32; trace.modules.len()];
    for &m in &trace.frames.module {
        if let Some(n) = frames.get_mut(m as usize) {
            *n += 1;
        }
    }
    (0..trace.modules.len())
        .map(|m| {
            let identity = Symbolizer::module_identity(&trace.modules, &trace.strings, m);
            let n = frames.get(m).copied().unwrap_or(0);
            let status = match (finished.get(&(m as u32)), &identity, n) {
                (Some(st), _, _) => st.clone(),
                (None, None, _) => SymbolStatus::NoIdentity,
                (None, Some(_), 0) => SymbolStatus::NotNeeded,
                (None, Some(_), _) => {
                    let row = ModuleStatus {
                        module: m as u32,
                        identity,
                        status: SymbolStatus::NotFound,
                        frames: n,
                        resolved_frames: 0,
                    };
                    return module_json(trace, &row, "waiting", "waiting", Vec::new());
                }
            };
            let row = ModuleStatus {
                module: m as u32,
                identity,
                status,
                frames: n,
                resolved_frames: 0,
            };
            module_json(
                trace,
                &row,
                row.status.label(),
                &row.status.to_string(),
                Vec::new(),
            )
        })
        .collect()
}

fn module_json(
    trace: &model::Trace,
    m: &ModuleStatus,
    status: &str,
    detail: &str,
    searched: Vec<String>,
) -> serde_json::Value {
    let name = trace
        .modules
        .name
        .get(m.module as usize)
        .map_or("?", |&n| trace.strings.get(n));
    serde_json::json!({
        "module": name,
        "pdb": m.identity.as_ref().map(|i| format!("{}/{}", i.name, i.key())),
        "pdb_name": m.identity.as_ref().map(|i| i.name.clone()),
        "status": status,
        "detail": detail,
        "frames": m.frames,
        "resolved_frames": m.resolved_frames,
        "searched": searched,
    })
}

/// The PDB path module row `m` recorded, when it is a path (searched last).
fn recorded_pdb(trace: &model::Trace, m: usize) -> Option<String> {
    let s = trace.strings.get(*trace.modules.pdb_name.get(m)?);
    s.contains(['/', '\\']).then(|| s.to_string())
}
