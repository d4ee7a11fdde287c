//! A pure-Rust reader for Windows ETW `.etl` trace files.
//!
//! Layers, bottom up: [`buffer`] (WMI_BUFFER_HEADER), [`xca`] (decompression
//! of compressed buffers), [`walk`] (event headers inside a buffer, as
//! zero-copy [`Event`] views), [`trace::EtlFile`] (the buffer index, parallel
//! and time-ordered access), [`census`] (the summary behind `etlscope info`),
//! and [`decode`] (typed payloads of the events a trace viewer needs).
//! No function here panics on malformed input: damage becomes a
//! [`Diagnostic`] naming the file offset, and reading goes on.

pub mod buffer;
pub mod census;
pub mod container;
pub mod decode;
pub mod error;
pub mod event;
pub mod extended;
mod guid;
pub mod le;
pub mod logfile;
pub mod ordered;
pub mod source;
pub mod trace;
pub mod walk;
#[cfg(feature = "writer")]
pub mod writer;
pub mod xca;

pub use error::{Diagnostic, Error};
pub use event::{Event, HeaderType};
pub use guid::Guid;
pub use logfile::LogfileHeader;
pub use trace::{BufferData, EtlFile, Probe, ProfileMix};
