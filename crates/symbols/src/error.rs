//! Why a PDB could not be read.

use std::fmt;

/// A PDB that did not parse. Carries the parser's own message, which names
/// the stream or offset at fault.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PdbError {
    pub message: String,
}

impl PdbError {
    pub(crate) fn new(message: impl Into<String>) -> PdbError {
        PdbError {
            message: message.into(),
        }
    }
}

impl fmt::Display for PdbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "malformed PDB: {}", self.message)
    }
}

impl std::error::Error for PdbError {}

impl From<pdb_addr2line::Error> for PdbError {
    fn from(e: pdb_addr2line::Error) -> PdbError {
        PdbError::new(e.to_string())
    }
}

impl From<pdb_addr2line::pdb::Error> for PdbError {
    fn from(e: pdb_addr2line::pdb::Error) -> PdbError {
        PdbError::new(e.to_string())
    }
}
