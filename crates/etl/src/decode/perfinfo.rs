//! PerfInfo (kernel group 0x0F): sampled profile and the profile interval.
//! Sources: TE-K `SampledProfileTraceData`, `SampledProfileIntervalTraceData`,
//! etl-format C.4. The PerfInfo header has no thread id: it is in the payload.

use super::reader::{Reader, Result};
use super::Decode;
use crate::Event;

/// 0x0F2E SampledProfile: P InstructionPointer, u32 ThreadId, u16 Count,
/// u16 flags. Plain `Copy` data: decoding a sample allocates nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SampledProfile {
    pub instruction_pointer: u64,
    pub tid: u32,
    pub count: u16,
    /// Bit 0: executing a DPC, bit 1: an ISR, bits 3..7: thread priority.
    pub flags: u16,
}

impl SampledProfile {
    pub fn executing_dpc(&self) -> bool {
        self.flags & 1 != 0
    }
    pub fn executing_isr(&self) -> bool {
        self.flags & 2 != 0
    }
    pub fn priority(&self) -> u8 {
        ((self.flags >> 3) & 0x1F) as u8
    }
}

impl<'a> Decode<'a> for SampledProfile {
    const NAME: &'static str = "SampledProfile";

    #[inline]
    fn read(_ev: &Event<'a>, r: &mut Reader<'a>) -> Result<SampledProfile> {
        Ok(SampledProfile {
            instruction_pointer: r.ptr()?,
            tid: r.u32()?,
            count: r.u16()?,
            flags: r.u16()?,
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntervalKind {
    /// 0x0F48: the interval was changed during the trace.
    Set,
    /// 0x0F49: rundown at the start of the collection.
    CollectionStart,
    /// 0x0F4A: rundown at the end of the collection.
    CollectionEnd,
}

/// 0x0F48 / 0x0F49 / 0x0F4A: u32 Source (0 = timer), u32 NewInterval,
/// u32 OldInterval (100 ns units), UTF-16 SourceName (v3+, when present).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileInterval {
    pub kind: IntervalKind,
    pub source: u32,
    /// In 100 ns units: 10000 means 1 ms.
    pub new_interval: u32,
    pub old_interval: u32,
    pub source_name: String,
}

impl<'a> Decode<'a> for ProfileInterval {
    const NAME: &'static str = "ProfileInterval";

    fn read(ev: &Event<'a>, r: &mut Reader<'a>) -> Result<ProfileInterval> {
        let kind = match ev.hook_id {
            Some(0x0F48) => IntervalKind::Set,
            Some(0x0F49) => IntervalKind::CollectionStart,
            Some(0x0F4A) => IntervalKind::CollectionEnd,
            _ => return Err(r.malformed("not a profile interval hook id")),
        };
        let source = r.u32()?;
        let new_interval = r.u32()?;
        let old_interval = r.u32()?;
        let source_name = if r.at_end() {
            String::new()
        } else {
            r.utf16z()?
        };
        Ok(ProfileInterval {
            kind,
            source,
            new_interval,
            old_interval,
            source_name,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::test_util::kernel_event;

    #[test]
    fn sample_with_32_bit_pointer() {
        let mut b = Vec::new();
        b.extend(0x8123_4567u32.to_le_bytes());
        b.extend(42u32.to_le_bytes());
        b.extend(1u16.to_le_bytes());
        b.extend((1u16 | (9 << 3)).to_le_bytes());
        let s = SampledProfile::decode(&kernel_event(0x0F2E, 2, 4, &b)).unwrap();
        assert_eq!(
            (s.instruction_pointer, s.tid, s.count),
            (0x8123_4567, 42, 1)
        );
        assert!(s.executing_dpc() && !s.executing_isr());
        assert_eq!(s.priority(), 9);
        assert!(SampledProfile::decode(&kernel_event(0x0F2E, 2, 8, &b)).is_err());
    }
}
