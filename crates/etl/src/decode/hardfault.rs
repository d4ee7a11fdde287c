//! 0x0220 HardFault (kernel group 0x02). Source: TE-K
//! `MemoryHardFaultTraceData`, etl-format C.7. Verified on the x64 trace
//! (153 events of 40 bytes, P = 8).

use super::reader::{Reader, Result};
use super::Decode;
use crate::Event;

/// u64 InitialTime, u64 ReadOffset, P VirtualAddress, P FileObject,
/// u32 TThreadId, u32 ByteCount.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HardFault {
    /// Clock value when the fault began; the event time is when it ended.
    pub initial_time: i64,
    pub read_offset: u64,
    pub virtual_address: u64,
    pub file_object: u64,
    pub tid: u32,
    pub byte_count: u32,
}

impl<'a> Decode<'a> for HardFault {
    const NAME: &'static str = "HardFault";

    fn read(_ev: &Event<'a>, r: &mut Reader<'a>) -> Result<HardFault> {
        Ok(HardFault {
            initial_time: r.i64()?,
            read_offset: r.u64()?,
            virtual_address: r.ptr()?,
            file_object: r.ptr()?,
            tid: r.u32()?,
            byte_count: r.u32()?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::test_util::kernel_event;

    #[test]
    fn with_32_bit_pointers() {
        let mut b = Vec::new();
        b.extend(100i64.to_le_bytes());
        b.extend(0x2000u64.to_le_bytes());
        b.extend(0x7FF0_0000u32.to_le_bytes());
        b.extend(0x8555_0000u32.to_le_bytes());
        b.extend(12u32.to_le_bytes());
        b.extend(0x8000u32.to_le_bytes());
        let h = HardFault::decode(&kernel_event(0x0220, 2, 4, &b)).unwrap();
        assert_eq!((h.initial_time, h.read_offset), (100, 0x2000));
        assert_eq!(
            (h.virtual_address, h.file_object),
            (0x7FF0_0000, 0x8555_0000)
        );
        assert_eq!((h.tid, h.byte_count), (12, 0x8000));
    }
}
