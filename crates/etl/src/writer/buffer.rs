//! Buffer assembly: the event area of one per-CPU buffer, and the
//! WMI_BUFFER_HEADER in front of it.

use crate::buffer::{flags, types, BUFFER_HEADER_SIZE};

/// ETW_BUFFER_STATE "flush"; in a compressed file the header buffer's value
/// doubles as the compression format (3 = COMPRESSION_FORMAT_XPRESS).
const STATE_FLUSH: u32 = 3;

/// The fields of a WMI_BUFFER_HEADER the writer sets.
#[derive(Debug, Clone, Copy, Default)]
pub struct BufferHeaderFields {
    pub buffer_size: u32,
    pub saved_offset: u32,
    pub timestamp: i64,
    pub sequence_number: u64,
    pub processor_index: u16,
    pub logger_id: u16,
    pub flags: u16,
    pub buffer_type: u16,
}

impl BufferHeaderFields {
    pub fn encode(&self) -> [u8; BUFFER_HEADER_SIZE] {
        let mut h = [0u8; BUFFER_HEADER_SIZE];
        let mut put = |off: usize, bytes: &[u8]| {
            if let Some(d) = h.get_mut(off..off + bytes.len()) {
                d.copy_from_slice(bytes);
            }
        };
        put(0x00, &self.buffer_size.to_le_bytes());
        put(0x04, &self.saved_offset.to_le_bytes());
        // CurrentOffset: the fill pointer, equal to SavedOffset once flushed.
        put(0x08, &self.saved_offset.to_le_bytes());
        put(0x10, &self.timestamp.to_le_bytes());
        put(0x18, &self.sequence_number.to_le_bytes());
        put(0x28, &self.processor_index.to_le_bytes());
        put(0x2A, &self.logger_id.to_le_bytes());
        put(0x2C, &STATE_FLUSH.to_le_bytes());
        put(0x30, &self.saved_offset.to_le_bytes());
        put(0x34, &self.flags.to_le_bytes());
        put(0x36, &self.buffer_type.to_le_bytes());
        h
    }

    /// A data buffer of one CPU.
    pub fn data(cpu: u16, logger_id: u16, compressed: bool) -> Self {
        BufferHeaderFields {
            processor_index: cpu,
            logger_id,
            flags: flags::PROCESSOR_INDEX | if compressed { flags::COMPRESSED } else { 0 },
            buffer_type: types::GENERIC,
            ..Default::default()
        }
    }

    /// The header buffer (first in the file), like the kernel logger's.
    pub fn header(logger_id: u16) -> Self {
        BufferHeaderFields {
            logger_id,
            flags: flags::FLUSH_MARKER | flags::PROCESSOR_INDEX,
            buffer_type: types::HEADER,
            ..Default::default()
        }
    }
}

/// The event area of a buffer being filled.
pub struct EventArea {
    /// Encoded events, each padded to 8 bytes.
    pub data: Vec<u8>,
    /// Bytes available for events: buffer size minus the header.
    capacity: usize,
    /// Largest event timestamp in the area (the buffer's flush time).
    pub last_timestamp: i64,
}

impl EventArea {
    pub fn new(buffer_size: u32) -> EventArea {
        let capacity = (buffer_size as usize).saturating_sub(BUFFER_HEADER_SIZE);
        EventArea {
            data: Vec::with_capacity(capacity),
            capacity,
            last_timestamp: i64::MIN,
        }
    }

    pub fn capacity(&self) -> usize {
        self.capacity
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// Whether an event of `len` bytes fits after what is there.
    pub fn fits(&self, len: usize) -> bool {
        self.data.len() + len <= self.capacity
    }

    /// Pad the last event to the 8-byte boundary where the next one starts.
    pub fn align(&mut self) {
        let pad = (8 - self.data.len() % 8) % 8;
        self.data.extend_from_slice(&[0u8; 8][..pad]);
    }

    pub fn clear(&mut self) {
        self.data.clear();
        self.last_timestamp = i64::MIN;
    }
}
