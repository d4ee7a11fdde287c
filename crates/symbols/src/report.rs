//! `etlscope symbols FILE`: each module of a trace with its PDB identity
//! and symbol status, after symbolizing the trace's frames.

use crate::identity::PdbIdentity;
use crate::status::SymbolStatus;
use crate::symbolizer::{Progress, Symbolization, Symbolizer, SymbolizerConfig};
use std::fmt::Write as _;
use std::path::Path;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModuleReport {
    pub module: u32,
    /// File name of the module (`ntdll.dll`).
    pub name: String,
    pub identity: Option<PdbIdentity>,
    pub status: SymbolStatus,
    pub frames: u32,
    pub resolved_frames: u32,
}

/// Symbolize `trace` and describe every module. The `Symbolization` is
/// returned too, so a caller can fill the model with it.
pub fn module_report(
    trace: &model::Trace,
    symbolizer: &Symbolizer,
) -> (Vec<ModuleReport>, Symbolization) {
    let s = symbolizer.symbolize(
        &trace.modules,
        &trace.frames,
        &trace.strings,
        &Progress::default(),
    );
    let reports = s
        .modules
        .iter()
        .map(|st| ModuleReport {
            module: st.module,
            name: trace
                .modules
                .name
                .get(st.module as usize)
                .map_or_else(String::new, |&n| trace.strings.get(n).to_string()),
            identity: st.identity.clone(),
            status: st.status.clone(),
            frames: st.frames,
            resolved_frames: st.resolved_frames,
        })
        .collect();
    (reports, s)
}

/// All of `etlscope symbols FILE`: read the trace, symbolize it along
/// `config`'s symbol path, and return the text table.
pub fn symbols_command(file: &Path, config: SymbolizerConfig) -> Result<String, etl::Error> {
    let etl = etl::EtlFile::open(file)?;
    let trace = model::build(&etl);
    let (reports, _) = module_report(&trace, &Symbolizer::new(config));
    Ok(format_report(&reports))
}

/// A plain-text table: module, PDB identity, frames named / in module, status.
/// Modules with frames come first, most frames first.
pub fn format_report(reports: &[ModuleReport]) -> String {
    let mut rows: Vec<&ModuleReport> = reports.iter().collect();
    rows.sort_by(|a, b| b.frames.cmp(&a.frames).then(a.name.cmp(&b.name)));
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<32} {:<60} {:>15}  status",
        "module", "pdb (name GUIDAGE)", "named/frames"
    );
    for r in rows {
        let id = r
            .identity
            .as_ref()
            .map_or_else(|| "-".to_string(), |i| format!("{} {}", i.name, i.key()));
        let _ = writeln!(
            out,
            "{:<32} {:<60} {:>15}  {}",
            r.name,
            id,
            format!("{}/{}", r.resolved_frames, r.frames),
            r.status
        );
    }
    let loaded = reports.iter().filter(|r| r.status.is_loaded()).count();
    let frames: u64 = reports.iter().map(|r| u64::from(r.frames)).sum();
    let named: u64 = reports.iter().map(|r| u64::from(r.resolved_frames)).sum();
    let _ = writeln!(
        out,
        "{} modules, {loaded} PDBs loaded, {named} of {frames} module frames named",
        reports.len()
    );
    out
}
