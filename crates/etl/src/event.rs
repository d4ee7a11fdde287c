//! The zero-copy event view handed to consumers.

use crate::extended::ExtendedItems;
use crate::Guid;

/// The header an event was written with (the marker's HeaderType byte).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HeaderType {
    System32,
    System64,
    Compact32,
    Compact64,
    PerfInfo32,
    PerfInfo64,
    /// EVENT_TRACE_HEADER (classic MOF providers, KernelTraceControl).
    Full32,
    Full64,
    /// EVENT_INSTANCE_GUID_HEADER.
    Instance32,
    Instance64,
    /// EVENT_HEADER (manifest, EventSource, TraceLogging).
    EventHeader32,
    EventHeader64,
    /// TraceMessage / WPP. Only size and raw bytes are exposed.
    Message,
}

impl HeaderType {
    pub fn from_byte(b: u8) -> Option<HeaderType> {
        Some(match b {
            0x01 => HeaderType::System32,
            0x02 => HeaderType::System64,
            0x03 => HeaderType::Compact32,
            0x04 => HeaderType::Compact64,
            0x0A => HeaderType::Full32,
            0x0B => HeaderType::Instance32,
            0x0F => HeaderType::Message,
            0x10 => HeaderType::PerfInfo32,
            0x11 => HeaderType::PerfInfo64,
            0x12 => HeaderType::EventHeader32,
            0x13 => HeaderType::EventHeader64,
            0x14 => HeaderType::Full64,
            0x15 => HeaderType::Instance64,
            _ => return None,
        })
    }

    pub fn to_byte(self) -> u8 {
        match self {
            HeaderType::System32 => 0x01,
            HeaderType::System64 => 0x02,
            HeaderType::Compact32 => 0x03,
            HeaderType::Compact64 => 0x04,
            HeaderType::Full32 => 0x0A,
            HeaderType::Instance32 => 0x0B,
            HeaderType::Message => 0x0F,
            HeaderType::PerfInfo32 => 0x10,
            HeaderType::PerfInfo64 => 0x11,
            HeaderType::EventHeader32 => 0x12,
            HeaderType::EventHeader64 => 0x13,
            HeaderType::Full64 => 0x14,
            HeaderType::Instance64 => 0x15,
        }
    }

    /// Pointer size of the payload (the 32/64 variant of the header).
    pub fn pointer_size(self) -> u8 {
        match self {
            HeaderType::System32
            | HeaderType::Compact32
            | HeaderType::PerfInfo32
            | HeaderType::Full32
            | HeaderType::Instance32
            | HeaderType::EventHeader32 => 4,
            _ => 8,
        }
    }

    /// Kernel-style headers identified by a hook id (group << 8 | opcode).
    pub fn is_kernel(self) -> bool {
        matches!(
            self,
            HeaderType::System32
                | HeaderType::System64
                | HeaderType::Compact32
                | HeaderType::Compact64
                | HeaderType::PerfInfo32
                | HeaderType::PerfInfo64
        )
    }

    pub fn name(self) -> &'static str {
        match self {
            HeaderType::System32 => "system32",
            HeaderType::System64 => "system64",
            HeaderType::Compact32 => "compact32",
            HeaderType::Compact64 => "compact64",
            HeaderType::PerfInfo32 => "perfinfo32",
            HeaderType::PerfInfo64 => "perfinfo64",
            HeaderType::Full32 => "full32",
            HeaderType::Full64 => "full64",
            HeaderType::Instance32 => "instance32",
            HeaderType::Instance64 => "instance64",
            HeaderType::EventHeader32 => "eventheader32",
            HeaderType::EventHeader64 => "eventheader64",
            HeaderType::Message => "message",
        }
    }
}

/// One event, borrowing its payload from the (possibly decompressed) buffer.
#[derive(Debug, Clone, Copy)]
pub struct Event<'a> {
    pub header_type: HeaderType,
    /// Raw clock value (see `LogfileHeader::ticks_per_second`).
    pub timestamp: i64,
    /// Processor index of the buffer that holds the event.
    pub cpu: u16,
    /// Process and thread ids, where the header has them (PerfInfo has not).
    pub pid: Option<u32>,
    pub tid: Option<u32>,
    /// Kernel hook id (group << 8 | opcode) for system/compact/perfinfo headers.
    pub hook_id: Option<u16>,
    /// Provider (EventHeader) or event class (full/instance) GUID.
    pub provider: Option<Guid>,
    /// EVENT_DESCRIPTOR.Id (EventHeader only, else 0).
    pub event_id: u16,
    pub opcode: u8,
    pub version: u16,
    pub level: u8,
    pub channel: u8,
    pub task: u16,
    pub keyword: u64,
    /// EventHeader Flags (EVENT_HEADER_FLAG_*), else 0.
    pub flags: u16,
    /// EventHeader ActivityId.
    pub activity_id: Option<Guid>,
    /// Pointer size that applies to the payload.
    pub pointer_size: u8,
    pub payload: &'a [u8],
    /// Raw extended data items (EventHeader with EXTENDED_INFO).
    pub extended: &'a [u8],
    /// Position: index of the buffer in file order, and byte offset of the
    /// event within the buffer's (decompressed) event area.
    pub buffer_index: u32,
    pub offset_in_buffer: u32,
}

impl<'a> Event<'a> {
    pub fn extended_items(&self) -> ExtendedItems<'a> {
        ExtendedItems::new(self.extended)
    }

    /// Group of a kernel hook id (e.g. 0x0F for PerfInfo).
    pub fn group(&self) -> Option<u8> {
        self.hook_id.map(|h| (h >> 8) as u8)
    }
}
