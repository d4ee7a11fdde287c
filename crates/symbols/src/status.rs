//! Per-module symbol status, as the query layer and `etlscope symbols` show it.

use crate::identity::PdbIdentity;
use etl::Guid;
use std::fmt;
use std::path::PathBuf;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SymbolStatus {
    /// The PDB with the module's identity is loaded from `path`.
    Loaded { path: PathBuf },
    /// The trace recorded no PDB identity (no DbgID_RSDS) for the module.
    NoIdentity,
    /// Not looked up: none of the trace's frames fall in the module.
    NotNeeded,
    /// No place on the symbol path had a PDB of that name.
    NotFound,
    /// A PDB of that name was found, but it belongs to another build.
    IdentityMismatch { path: PathBuf, guid: Guid, age: u32 },
    /// A file of that name was found but does not parse.
    Malformed { path: PathBuf, error: String },
    /// A symbol server could not be asked, or its answer not stored.
    DownloadFailed { reason: String },
    /// The run was cancelled before the module was looked up.
    Cancelled,
}

impl SymbolStatus {
    /// Short label: `loaded`, `not found`, `identity mismatch`, ...
    pub fn label(&self) -> &'static str {
        match self {
            SymbolStatus::Loaded { .. } => "loaded",
            SymbolStatus::NoIdentity => "no PDB identity",
            SymbolStatus::NotNeeded => "not needed",
            SymbolStatus::NotFound => "not found",
            SymbolStatus::IdentityMismatch { .. } => "identity mismatch",
            SymbolStatus::Malformed { .. } => "malformed PDB",
            SymbolStatus::DownloadFailed { .. } => "download failed",
            SymbolStatus::Cancelled => "cancelled",
        }
    }

    pub fn is_loaded(&self) -> bool {
        matches!(self, SymbolStatus::Loaded { .. })
    }
}

impl fmt::Display for SymbolStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SymbolStatus::Loaded { path } => write!(f, "loaded: {}", path.display()),
            SymbolStatus::IdentityMismatch { path, guid, age } => write!(
                f,
                "identity mismatch: {} is {{{guid}}} age {age}",
                path.display()
            ),
            SymbolStatus::Malformed { path, error } => {
                write!(f, "malformed PDB: {}: {error}", path.display())
            }
            SymbolStatus::DownloadFailed { reason } => write!(f, "download failed: {reason}"),
            other => f.write_str(other.label()),
        }
    }
}

/// One module's symbols: identity, status, and how many of its frames got names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModuleStatus {
    /// Row in the model's module table.
    pub module: u32,
    pub identity: Option<PdbIdentity>,
    pub status: SymbolStatus,
    /// Frames of the trace inside the module, and how many were named.
    pub frames: u32,
    pub resolved_frames: u32,
}
