//! Image identities for traces recorded without xperf.
//!
//! xperf's merge step reads every loaded image from disk and adds
//! KernelTraceControl events (ImageID, DbgID_RSDS, FileVersion) next to the
//! image's kernel events; the model joins them by timestamp to show PDB
//! identities and the File Version column. This crate does the same:
//! - [`identity`]: a PE file's TimeDateStamp, size, PDB record and version
//!   strings (read with `object`);
//! - [`ktc`]: the KernelTraceControl payloads for one identity;
//! - [`merge`]: copy an .etl, adding those events after each image event.

pub mod identity;
pub mod ktc;
pub mod merge;
pub mod version;

pub use identity::{read_identity, Identity, PdbRecord};
pub use merge::{merge_identities, MergeSummary};
pub use version::VersionStrings;
