//! Names for trace frames from PDBs.
//!
//! The pieces, each usable alone and none needing an async runtime:
//! - [`SymbolPath`]: the `_NT_SYMBOL_PATH` syntax (folders, `srv*CACHE*URL`,
//!   `cache*CACHE`, `;`-separated).
//! - [`PdbIdentity`]: name + GUID + age, the key of symstore layout.
//! - [`locate`]: finding a PDB with a given identity in local folders
//!   (symstore layout, flat folders, the recorded path), checking identity.
//! - [`SymbolServer`]: a blocking HTTP client with a symstore disk cache and
//!   a negative cache of misses; `.pd_` (CAB) answers are expanded;
//!   redirects are followed only where [`redirect`] allows.
//! - [`Pdb`]: one loaded PDB answering RVA -> function, inline chain, file:line.
//! - [`Symbolizer`]: the model's modules + frames in, per-module status and
//!   per-frame [`FunctionInfo`] out; PDBs are loaded once and cached.
//! - [`report`]: what `etlscope symbols FILE` prints.

mod cab_file;
mod demangle;
mod error;
mod func_rows;
mod identity;
pub mod locate;
mod pdb;
pub mod redirect;
pub mod report;
mod server;
mod status;
mod symbol_path;
mod symbolizer;

pub use server::{Fetched, ServerConfig, SymbolServer};
pub use status::{ModuleStatus, SymbolStatus};
pub use symbolizer::{Progress, SharedPdb, Symbolization, Symbolizer, SymbolizerConfig};

pub use error::PdbError;
pub use func_rows::FuncRows;
pub use identity::PdbIdentity;
pub use pdb::{FunctionInfo, Pdb, SourceFrame};

pub use symbol_path::{SymbolPath, SymbolPathEntry};
