//! Manifest-style event schemas: what WPA gets from TDH on the recording
//! machine. A schema names an event (provider, task, opcode, level,
//! keywords) and lists its fields with TDH in/out types, so a payload
//! decodes into named text values.
//!
//! Sources, most trusted first: the KernelTraceControl MetaData events a
//! merged trace carries (TRACE_EVENT_INFO / EVENT_MAP_INFO blobs, [`tdh`]),
//! EventSource providers' manifests that travel in the trace
//! ([`manifest`], ManifestData events), then our own table of the .NET runtime providers ([`clr`], written from
//! the public runtime manifest); after those, schema packs ([`pack`]): the
//! user's (`--manifests`, [`manifest_file`]) and the built-in one
//! ([`packs`]). [`SchemaRegistry`] keeps them and finds
//! the schema of an event; [`payload`] decodes with one.

pub mod clr;
mod clr_table;
pub mod coverage;
pub mod kernel;
mod kernel_table;
pub mod manifest;
pub mod manifest_file;
pub mod pack;
pub mod packs;
pub mod payload;
pub mod registry;
mod table;
pub mod tdh;
mod xml;

pub use coverage::Coverage;
pub use registry::{SchemaKey, SchemaRegistry};

use crate::Guid;

/// How many elements or bytes a field has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Extent {
    /// Not set: one element; strings run to their terminator.
    Default,
    Fixed(u16),
    /// The value of the top-level field with this index.
    Field(u16),
}

/// One field (TDH property) of a schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    pub name: String,
    /// TDH_INTYPE (`in_type::STRUCT` for structs).
    pub in_type: u16,
    /// TDH_OUTTYPE, 0 when absent.
    pub out_type: u16,
    /// Name of the value or bitmap map in the provider's maps.
    pub map: Option<String>,
    /// Array element count.
    pub count: Extent,
    /// Byte (binary) or character (string) length.
    pub length: Extent,
    /// Struct members.
    pub members: Vec<Field>,
}

impl Field {
    pub fn new(name: &str, in_type: u16) -> Field {
        Field {
            name: name.to_string(),
            in_type,
            out_type: 0,
            map: None,
            count: Extent::Default,
            length: Extent::Default,
            members: Vec::new(),
        }
    }
}

/// A value map (`VALUEMAP`) or bitmap (`BITMAP`) of a provider.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValueMap {
    pub name: String,
    pub bitmap: bool,
    pub entries: Vec<(u64, String)>,
}

impl ValueMap {
    /// A value as the map names it: a value map's entry, a bitmap's set bits
    /// joined as `A | B` (unnamed bits in hex); `None` when nothing matches.
    pub fn show(&self, v: u64) -> Option<String> {
        if !self.bitmap {
            return self
                .entries
                .iter()
                .find(|(k, _)| *k == v)
                .map(|(_, s)| s.clone());
        }
        let mut parts = Vec::new();
        let mut left = v;
        for (k, s) in &self.entries {
            if *k != 0 && v & k == *k {
                parts.push(s.clone());
                left &= !k;
            }
        }
        if v == 0 {
            return self
                .entries
                .iter()
                .find(|(k, _)| *k == 0)
                .map(|(_, s)| s.clone());
        }
        if left != 0 {
            parts.push(format!("{left:#x}"));
        }
        Some(parts.join(" | "))
    }
}

/// Everything WPA needs to name and decode one event kind.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EventSchema {
    pub provider: Guid,
    pub provider_name: String,
    /// `Task/Opcode` (or a provider's own event name), as shown in the
    /// Event Name column.
    pub event_name: String,
    pub task_name: String,
    pub opcode_name: String,
    pub level_name: String,
    pub keywords_name: String,
    pub fields: Vec<Field>,
}

/// TDH_INTYPE values (tdh.h).
pub mod in_type {
    pub const NULL: u16 = 0;
    pub const UNICODE_STRING: u16 = 1;
    pub const ANSI_STRING: u16 = 2;
    pub const INT8: u16 = 3;
    pub const UINT8: u16 = 4;
    pub const INT16: u16 = 5;
    pub const UINT16: u16 = 6;
    pub const INT32: u16 = 7;
    pub const UINT32: u16 = 8;
    pub const INT64: u16 = 9;
    pub const UINT64: u16 = 10;
    pub const FLOAT: u16 = 11;
    pub const DOUBLE: u16 = 12;
    pub const BOOLEAN: u16 = 13;
    pub const BINARY: u16 = 14;
    pub const GUID: u16 = 15;
    pub const POINTER: u16 = 16;
    pub const FILETIME: u16 = 17;
    pub const SYSTEMTIME: u16 = 18;
    pub const SID: u16 = 19;
    pub const HEXINT32: u16 = 20;
    pub const HEXINT64: u16 = 21;
    pub const MANIFEST_COUNTED_STRING: u16 = 22;
    pub const MANIFEST_COUNTED_ANSI_STRING: u16 = 23;
    pub const MANIFEST_COUNTED_BINARY: u16 = 25;
    pub const COUNTED_STRING: u16 = 300;
    pub const COUNTED_ANSI_STRING: u16 = 301;
    pub const REVERSED_COUNTED_STRING: u16 = 302;
    pub const REVERSED_COUNTED_ANSI_STRING: u16 = 303;
    pub const NON_NULL_TERMINATED_STRING: u16 = 304;
    pub const NON_NULL_TERMINATED_ANSI_STRING: u16 = 305;
    pub const UNICODE_CHAR: u16 = 306;
    pub const ANSI_CHAR: u16 = 307;
    pub const SIZET: u16 = 308;
    pub const HEXDUMP: u16 = 309;
    pub const WBEM_SID: u16 = 310;
    /// Not a TDH value: marks a struct field of our schemas.
    pub const STRUCT: u16 = 0xFFFF;
}

/// TDH_OUTTYPE values used for display (tdh.h).
pub mod out_type {
    pub const BOOLEAN: u16 = 13;
    pub const HEXBINARY: u16 = 15;
    pub const HEXINT8: u16 = 16;
    pub const HEXINT16: u16 = 17;
    pub const HEXINT32: u16 = 18;
    pub const HEXINT64: u16 = 19;
    pub const PORT: u16 = 22;
    pub const IPV4: u16 = 23;
    pub const IPV6: u16 = 24;
    pub const SOCKETADDRESS: u16 = 25;
    pub const WIN32ERROR: u16 = 30;
    pub const NTSTATUS: u16 = 31;
    pub const HRESULT: u16 = 32;
}
