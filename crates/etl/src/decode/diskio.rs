//! Disk I/O (kernel group 0x01). Sources: TE-K `DiskIOTraceData`,
//! `DiskIOInitTraceData`, `DiskIOFlushBuffersTraceData`; etl-format C.7.
//! Verified on the x64 trace (v3): completions are 52 bytes, inits 12,
//! flush 28, and the fields decode to plausible values.

use super::reader::{Reader, Result};
use super::Decode;
use crate::Event;

/// 0x010A Read / 0x010B Write completion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DiskIo {
    pub write: bool,
    pub disk_number: u32,
    /// IRP flags; bits 17..19 hold the I/O priority.
    pub irp_flags: u32,
    pub transfer_size: u32,
    pub byte_offset: u64,
    /// The file's FileKey (matches FileIo name events).
    pub file_key: u64,
    pub irp: u64,
    /// Time from issue to completion, in clock ticks (v2+, else None).
    pub high_res_response_time: Option<u64>,
    /// v3+.
    pub issuing_tid: Option<u32>,
}

impl DiskIo {
    pub fn priority(&self) -> u8 {
        ((self.irp_flags >> 17) & 7) as u8
    }
}

impl<'a> Decode<'a> for DiskIo {
    const NAME: &'static str = "DiskIo";

    fn read(ev: &Event<'a>, r: &mut Reader<'a>) -> Result<DiskIo> {
        let write = match ev.hook_id {
            Some(0x010A) => false,
            Some(0x010B) => true,
            _ => return Err(r.malformed("not a disk read/write hook id")),
        };
        let mut d = DiskIo {
            write,
            disk_number: r.u32()?,
            irp_flags: r.u32()?,
            transfer_size: r.u32()?,
            byte_offset: {
                r.skip(4)?; // reserved
                r.u64()?
            },
            file_key: r.ptr()?,
            irp: r.ptr()?,
            high_res_response_time: None,
            issuing_tid: None,
        };
        if ev.version >= 2 {
            d.high_res_response_time = Some(r.u64()?);
        }
        if ev.version >= 3 {
            d.issuing_tid = Some(r.u32()?);
        }
        Ok(d)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiskInitKind {
    Read,
    Write,
    Flush,
}

/// 0x010C ReadInit, 0x010D WriteInit, 0x010F FlushInit: P Irp, u32 issuing
/// thread (v3). System header: stacks attach to these by (time, thread).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DiskIoInit {
    pub kind: DiskInitKind,
    pub irp: u64,
    pub issuing_tid: Option<u32>,
}

impl<'a> Decode<'a> for DiskIoInit {
    const NAME: &'static str = "DiskIoInit";

    fn read(ev: &Event<'a>, r: &mut Reader<'a>) -> Result<DiskIoInit> {
        let kind = match ev.hook_id {
            Some(0x010C) => DiskInitKind::Read,
            Some(0x010D) => DiskInitKind::Write,
            Some(0x010F) => DiskInitKind::Flush,
            _ => return Err(r.malformed("not a disk init hook id")),
        };
        let irp = r.ptr()?;
        let issuing_tid = if ev.version >= 3 {
            Some(r.u32()?)
        } else {
            None
        };
        Ok(DiskIoInit {
            kind,
            irp,
            issuing_tid,
        })
    }
}

/// 0x010E FlushBuffers completion: u32 disk, u32 IRP flags,
/// u64 HighResResponseTime, P Irp, u32 issuing thread (v3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DiskFlush {
    pub disk_number: u32,
    pub irp_flags: u32,
    pub high_res_response_time: u64,
    pub irp: u64,
    pub issuing_tid: Option<u32>,
}

impl<'a> Decode<'a> for DiskFlush {
    const NAME: &'static str = "DiskFlush";

    fn read(ev: &Event<'a>, r: &mut Reader<'a>) -> Result<DiskFlush> {
        Ok(DiskFlush {
            disk_number: r.u32()?,
            irp_flags: r.u32()?,
            high_res_response_time: r.u64()?,
            irp: r.ptr()?,
            issuing_tid: if ev.version >= 3 {
                Some(r.u32()?)
            } else {
                None
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::test_util::kernel_event;

    /// P = 4: FileKey at 24, Irp at 28, response time at 32, thread at 40.
    #[test]
    fn read_v3_with_32_bit_pointers() {
        let mut b = Vec::new();
        b.extend(1u32.to_le_bytes());
        b.extend((0x43u32 | (2 << 17)).to_le_bytes());
        b.extend(4096u32.to_le_bytes());
        b.extend(0u32.to_le_bytes());
        b.extend(0x1_0000_0000u64.to_le_bytes());
        b.extend(0xAAAAu32.to_le_bytes());
        b.extend(0xBBBBu32.to_le_bytes());
        b.extend(12345u64.to_le_bytes());
        b.extend(66u32.to_le_bytes());
        let d = DiskIo::decode(&kernel_event(0x010A, 3, 4, &b)).unwrap();
        assert!(!d.write);
        assert_eq!((d.disk_number, d.transfer_size, d.priority()), (1, 4096, 2));
        assert_eq!(
            (d.byte_offset, d.file_key, d.irp),
            (0x1_0000_0000, 0xAAAA, 0xBBBB)
        );
        assert_eq!(
            (d.high_res_response_time, d.issuing_tid),
            (Some(12345), Some(66))
        );
    }
}
