//! Errors and diagnostics. Opening a file can fail as a whole (`Error`);
//! damage inside a readable file is recorded as `Diagnostic`s with the file
//! offset, and everything else is still read.

use std::fmt;

/// A problem found at a place in the file; reading went on past it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// Byte offset in the (container-extracted) .etl file. For data inside a
    /// compressed buffer this is the buffer's offset.
    pub offset: u64,
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at offset {:#x}: {}", self.offset, self.message)
    }
}

/// Why a trace could not be opened at all.
#[derive(Debug)]
pub enum Error {
    Io(std::io::Error),
    /// The bytes are not an ETL file (or container holding one).
    NotEtl {
        offset: u64,
        message: String,
    },
    /// A zip / .diagsession container problem.
    Container(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Io(e) => write!(f, "I/O error: {e}"),
            Error::NotEtl { offset, message } => {
                write!(f, "not an ETL trace (at offset {offset:#x}): {message}")
            }
            Error::Container(m) => write!(f, "container: {m}"),
        }
    }
}

impl Error {
    /// The file offset the error names, if any.
    pub fn offset(&self) -> Option<u64> {
        match self {
            Error::NotEtl { offset, .. } => Some(*offset),
            _ => None,
        }
    }
}

impl std::error::Error for Error {}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Io(e)
    }
}
