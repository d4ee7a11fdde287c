//! The events a caller hands to the writer: header fields plus payload.

use crate::Guid;

/// One event to write.
#[derive(Debug, Clone, Copy)]
pub struct Record<'a> {
    /// Raw clock value (QPC ticks, like `WriterConfig::ts0`).
    pub timestamp: i64,
    pub header: Header<'a>,
    pub payload: &'a [u8],
    /// Pointer size of this event's header variant (32/64); `None` takes the
    /// trace's. EventHeader events of a WOW64 process use 4 in a 64-bit trace.
    pub pointer_size: Option<u8>,
}

/// Which header the event is written with, and its fields.
#[derive(Debug, Clone, Copy)]
pub enum Header<'a> {
    /// SYSTEM_TRACE_HEADER (0x20 bytes; kernel and user times are written as 0).
    System(KernelHeader),
    /// Compact system header (0x18 bytes).
    Compact(KernelHeader),
    /// PERFINFO_TRACE_HEADER (0x10 bytes); pid/tid of `KernelHeader` are ignored.
    PerfInfo(KernelHeader),
    /// EVENT_TRACE_HEADER (classic providers).
    Full(ClassicHeader),
    /// EVENT_INSTANCE_GUID_HEADER.
    Instance(ClassicHeader, InstanceInfo),
    /// EVENT_HEADER with optional extended data items.
    Event(EventHeaderFields<'a>),
}

/// Fields of the kernel headers (system, compact, perfinfo).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct KernelHeader {
    /// group << 8 | opcode.
    pub hook_id: u16,
    /// Event version (low byte only for perfinfo).
    pub version: u16,
    pub pid: u32,
    pub tid: u32,
}

/// Fields of EVENT_TRACE_HEADER.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ClassicHeader {
    /// Event class GUID.
    pub guid: Guid,
    pub opcode: u8,
    pub level: u8,
    pub version: u16,
    pub pid: u32,
    pub tid: u32,
}

/// The extra fields of EVENT_INSTANCE_GUID_HEADER.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct InstanceInfo {
    pub instance_id: u32,
    pub parent_instance_id: u32,
    pub parent_guid: Guid,
}

/// Fields of EVENT_HEADER (EVENT_DESCRIPTOR included).
#[derive(Debug, Clone, Copy, Default)]
pub struct EventHeaderFields<'a> {
    pub provider: Guid,
    pub id: u16,
    pub version: u8,
    pub channel: u8,
    pub level: u8,
    pub opcode: u8,
    pub task: u16,
    pub keyword: u64,
    pub pid: u32,
    pub tid: u32,
    pub activity_id: Guid,
    /// EVENT_HEADER_FLAG_* bits to add; EXTENDED_INFO and the 32/64-bit flag
    /// are set by the writer.
    pub extra_flags: u16,
    pub event_property: u16,
    pub extended: &'a [ExtendedData<'a>],
}

/// An EVENT_HEADER_EXTENDED_DATA_ITEM.
#[derive(Debug, Clone, Copy)]
pub enum ExtendedData<'a> {
    RelatedActivityId(Guid),
    /// Frames leaf first.
    StackTrace64 {
        match_id: u64,
        frames: &'a [u64],
    },
    StackTrace32 {
        match_id: u64,
        frames: &'a [u32],
    },
    /// TraceLogging metadata blob (starts with its u16 size).
    SchemaTl(&'a [u8]),
    /// Any other item type, data as is.
    Raw {
        ext_type: u16,
        data: &'a [u8],
    },
}

impl<'a> Record<'a> {
    pub fn system(timestamp: i64, h: KernelHeader, payload: &'a [u8]) -> Self {
        Record::new(timestamp, Header::System(h), payload)
    }
    pub fn compact(timestamp: i64, h: KernelHeader, payload: &'a [u8]) -> Self {
        Record::new(timestamp, Header::Compact(h), payload)
    }
    pub fn perfinfo(timestamp: i64, hook_id: u16, version: u16, payload: &'a [u8]) -> Self {
        let h = KernelHeader {
            hook_id,
            version,
            pid: 0,
            tid: 0,
        };
        Record::new(timestamp, Header::PerfInfo(h), payload)
    }
    pub fn full(timestamp: i64, h: ClassicHeader, payload: &'a [u8]) -> Self {
        Record::new(timestamp, Header::Full(h), payload)
    }
    pub fn event(timestamp: i64, h: EventHeaderFields<'a>, payload: &'a [u8]) -> Self {
        Record::new(timestamp, Header::Event(h), payload)
    }
    pub fn new(timestamp: i64, header: Header<'a>, payload: &'a [u8]) -> Self {
        Record {
            timestamp,
            header,
            payload,
            pointer_size: None,
        }
    }
    /// Write this event with the 32-bit (4) or 64-bit (8) header variant.
    pub fn with_pointer_size(mut self, pointer_size: u8) -> Self {
        self.pointer_size = Some(pointer_size);
        self
    }
}

impl ExtendedData<'_> {
    pub fn ext_type(&self) -> u16 {
        use crate::extended::ext_type as t;
        match self {
            ExtendedData::RelatedActivityId(_) => t::RELATED_ACTIVITYID,
            ExtendedData::StackTrace64 { .. } => t::STACK_TRACE64,
            ExtendedData::StackTrace32 { .. } => t::STACK_TRACE32,
            ExtendedData::SchemaTl(_) => t::EVENT_SCHEMA_TL,
            ExtendedData::Raw { ext_type, .. } => *ext_type,
        }
    }

    /// Bytes of the item's data (without its 8-byte item header).
    pub fn data_len(&self) -> usize {
        match self {
            ExtendedData::RelatedActivityId(_) => 16,
            ExtendedData::StackTrace64 { frames, .. } => 8 + 8 * frames.len(),
            ExtendedData::StackTrace32 { frames, .. } => 8 + 4 * frames.len(),
            ExtendedData::SchemaTl(d) | ExtendedData::Raw { data: d, .. } => d.len(),
        }
    }

    /// Append the item's data to `out`.
    pub fn put_data(&self, out: &mut Vec<u8>) {
        match self {
            ExtendedData::RelatedActivityId(g) => out.extend_from_slice(&g.to_bytes_le()),
            ExtendedData::StackTrace64 { match_id, frames } => {
                out.extend_from_slice(&match_id.to_le_bytes());
                for f in *frames {
                    out.extend_from_slice(&f.to_le_bytes());
                }
            }
            ExtendedData::StackTrace32 { match_id, frames } => {
                out.extend_from_slice(&match_id.to_le_bytes());
                for f in *frames {
                    out.extend_from_slice(&f.to_le_bytes());
                }
            }
            ExtendedData::SchemaTl(d) | ExtendedData::Raw { data: d, .. } => {
                out.extend_from_slice(d)
            }
        }
    }
}
