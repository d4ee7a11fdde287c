//! WMI_BUFFER_HEADER: the 0x48-byte header in front of every buffer.

use crate::error::Diagnostic;
use crate::le::{i64_at, u16_at, u32_at, u64_at};
use crate::walk::WalkError;

pub const BUFFER_HEADER_SIZE: usize = 0x48;

/// BufferFlag bits.
pub mod flags {
    pub const FLUSH_MARKER: u16 = 0x0001;
    pub const EVENTS_LOST: u16 = 0x0002;
    pub const BUFFER_LOST: u16 = 0x0004;
    pub const RT_BACKUP_CORRUPT: u16 = 0x0008;
    pub const RT_BACKUP: u16 = 0x0010;
    pub const PROCESSOR_INDEX: u16 = 0x0020;
    pub const COMPRESSED: u16 = 0x0040;
}

/// BufferType values.
pub mod types {
    pub const GENERIC: u16 = 0;
    pub const RUNDOWN: u16 = 1;
    pub const CONTEXT_SWAP: u16 = 2;
    pub const REFTIME: u16 = 3;
    pub const HEADER: u16 = 4;
    pub const BATCHED: u16 = 5;
    pub const EMPTY_MARKER: u16 = 6;
    pub const DEBUG_INFO: u16 = 7;
}

/// The fields of a buffer header a reader needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BufferHeader {
    /// Bytes the buffer occupies in the file, header included.
    pub buffer_size: u32,
    /// End of valid data, from buffer start, in uncompressed terms, as the
    /// logger saved it. 0 in the header buffer of pre-Windows 8 files; see
    /// [`BufferHeader::used_bytes`] for where the events really end.
    pub saved_offset: u32,
    pub timestamp: i64,
    pub sequence_number: u64,
    /// The buffer's processor, decoded for the layout the buffer uses (see
    /// [`processor_of`]).
    pub processor_index: u16,
    pub logger_id: u16,
    pub state: u32,
    /// `Offset` at 0x30: the bytes used when the buffer was written out
    /// (dissect.etl calls it FilledBytes).
    pub filled_bytes: u32,
    pub flags: u16,
    pub buffer_type: u16,
}

/// ETW_BUFFER_CONTEXT at 0x28 is a union: Windows 8 and later write a u16
/// ProcessorIndex and say so with BufferFlag PROCESSOR_INDEX (0x0020);
/// earlier systems (and writers that leave the flag clear) write a u8
/// ProcessorNumber followed by an alignment byte, which Windows 7 sets to 8
/// (etl-format.md A.1; evntrace.h's ETW_BUFFER_CONTEXT). Reading the u16 there
/// turns CPU 0 of a Windows 7 trace into CPU 2048.
fn processor_of(b: &[u8], flags: u16) -> Option<u16> {
    if flags & flags::PROCESSOR_INDEX != 0 {
        u16_at(b, 0x28)
    } else {
        b.get(0x28).map(|&n| u16::from(n))
    }
}

impl BufferHeader {
    pub fn parse(b: &[u8]) -> Option<BufferHeader> {
        if b.len() < BUFFER_HEADER_SIZE {
            return None;
        }
        let flags = u16_at(b, 0x34)?;
        Some(BufferHeader {
            buffer_size: u32_at(b, 0x00)?,
            saved_offset: u32_at(b, 0x04)?,
            timestamp: i64_at(b, 0x10)?,
            sequence_number: u64_at(b, 0x18)?,
            processor_index: processor_of(b, flags)?,
            logger_id: u16_at(b, 0x2A)?,
            state: u32_at(b, 0x2C)?,
            filled_bytes: u32_at(b, 0x30)?,
            flags,
            buffer_type: u16_at(b, 0x36)?,
        })
    }

    pub fn is_compressed(&self) -> bool {
        self.flags & flags::COMPRESSED != 0
    }

    /// Where the buffer's events end, from buffer start, in uncompressed
    /// terms. Two fields say it and real files disagree only in header
    /// buffers: pre-Windows 8 files leave SavedOffset 0 there (the fill is in
    /// Offset at 0x30), and Windows 10/11 relogged files append EventTrace
    /// extension events (0x0050, 0x0052) after SavedOffset and count them in
    /// Offset only. So the larger of the two that fits the buffer; compressed
    /// buffers decompress to exactly SavedOffset (etl-format.md A.4), with
    /// Offset standing in when SavedOffset is 0.
    pub fn used_bytes(&self) -> u32 {
        let (saved, filled) = (self.saved_offset, self.filled_bytes);
        if self.is_compressed() {
            return if saved != 0 { saved } else { filled };
        }
        let fits = |v: u32| v <= self.buffer_size;
        match (fits(saved), fits(filled)) {
            (true, true) => saved.max(filled),
            (false, true) => filled,
            _ => saved,
        }
    }

    /// Bytes of event data once decompressed: `[0x48, used_bytes)`.
    pub fn payload_len(&self) -> usize {
        (self.used_bytes() as usize).saturating_sub(BUFFER_HEADER_SIZE)
    }
}

/// Where a buffer sits in the file, and what its header says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BufferInfo {
    /// Position of this buffer in file order (0 = header buffer), across the
    /// members of a multi-file trace (each member's buffers in turn).
    pub index: u32,
    /// Which file of a multi-file trace holds it (0 for a single file).
    pub member: u16,
    /// Offset of the buffer header in its member's file.
    pub offset: u64,
    pub header: BufferHeader,
}

impl BufferInfo {
    /// File range of the bytes after the header: events, or compressed data.
    pub fn data_range(&self) -> std::ops::Range<usize> {
        let start = self.offset as usize + BUFFER_HEADER_SIZE;
        let end = if self.header.is_compressed() {
            self.offset as usize + self.header.buffer_size as usize
        } else {
            // Uncompressed: events end at used_bytes (the rest is 0xFF fill).
            self.offset as usize
                + (self.header.used_bytes() as usize).min(self.header.buffer_size as usize)
        };
        start..end.max(start)
    }

    pub fn cpu(&self) -> u16 {
        self.header.processor_index
    }

    /// A walk error in this buffer's event area as a diagnostic. Its offset is
    /// the file offset of the bad event when the buffer is stored plainly;
    /// inside a compressed buffer there is no such file offset, so it is the
    /// buffer's, and the message gives the position in the decompressed data.
    pub fn walk_diagnostic(&self, w: &WalkError) -> Diagnostic {
        if self.header.is_compressed() {
            Diagnostic {
                offset: self.offset,
                message: format!(
                    "buffer {} (compressed), decompressed byte {:#x}: {}",
                    self.index,
                    BUFFER_HEADER_SIZE + w.offset,
                    w.message
                ),
            }
        } else {
            Diagnostic {
                offset: self.offset + (BUFFER_HEADER_SIZE + w.offset) as u64,
                message: format!("buffer {}: {}", self.index, w.message),
            }
        }
    }
}
