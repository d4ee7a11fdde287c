//! A streaming writer of ETL files, for synthetic traces (demo, benchmarks,
//! round-trip tests). Behind the `writer` cargo feature.
//!
//! Layout it produces, mirroring what Windows writes:
//! - buffer 0 is the header buffer (BufferType 4, never compressed) holding
//!   one event, hook 0x0000 with the TRACE_LOGFILE_HEADER;
//! - then per-CPU buffers (BufferFlag 0x20, ProcessorIndex set), flushed in
//!   the order they fill up. Uncompressed buffers have the fixed session size
//!   with 0xFF fill after SavedOffset; compressed ones (BufferFlag 0x40) are
//!   as long as their MS-XCA data plus the 0x48-byte header.
//!
//! Events are 8-byte aligned. The output depends only on the configuration
//! and the sequence of `write` calls. Only one buffer per CPU is held in
//! memory, so traces of any size stream to the sink.

mod buffer;
mod compress;
mod config;
mod file;
mod headers;
mod logfile;
mod record;

pub use compress::{compress, Compressor};
pub use config::WriterConfig;
pub use file::{EtlWriter, WriteSummary};
pub use headers::encoded_len;
pub use record::{
    ClassicHeader, EventHeaderFields, ExtendedData, Header, InstanceInfo, KernelHeader, Record,
};
