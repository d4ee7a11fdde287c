//! Dispatcher events: CSwitch (0x0524) and ReadyThread (0x0532).
//! Read only (none in the real traces): TE-K `CSwitchTraceData`,
//! `DispatcherReadyThreadTraceData`, MOF CSwitch / ReadyThread, etl-format C.2.
//! The CPU of a switch is the buffer's processor index (`Event::cpu`).

use super::reader::{Reader, Result};
use super::Decode;
use crate::Event;

/// 0x0524 CSwitch (24 bytes, v2+; later versions may append fields).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CSwitch {
    pub new_tid: u32,
    pub old_tid: u32,
    pub new_thread_priority: i8,
    pub old_thread_priority: i8,
    pub previous_c_state: u8,
    /// KWAIT_REASON of the thread switched out.
    pub old_thread_wait_reason: i8,
    /// 0 kernel (non-swappable), 1 user (swappable).
    pub old_thread_wait_mode: i8,
    /// KTHREAD_STATE of the thread switched out (e.g. 5 Waiting, 1 Ready).
    pub old_thread_state: i8,
    pub old_thread_wait_ideal_processor: i8,
    /// How long the new thread waited, in ms ticks of the clock interrupt.
    pub new_thread_wait_time: u32,
}

impl<'a> Decode<'a> for CSwitch {
    const NAME: &'static str = "CSwitch";

    #[inline]
    fn read(_ev: &Event<'a>, r: &mut Reader<'a>) -> Result<CSwitch> {
        let c = CSwitch {
            new_tid: r.u32()?,
            old_tid: r.u32()?,
            new_thread_priority: r.i8()?,
            old_thread_priority: r.i8()?,
            previous_c_state: r.u8()?,
            old_thread_wait_reason: {
                r.skip(1)?; // SpareByte
                r.i8()?
            },
            old_thread_wait_mode: r.i8()?,
            old_thread_state: r.i8()?,
            old_thread_wait_ideal_processor: r.i8()?,
            new_thread_wait_time: r.u32()?,
        };
        r.skip(4)?; // Reserved
        Ok(c)
    }
}

/// 0x0532 ReadyThread: u32 readied thread, i8 AdjustReason, i8 AdjustIncrement,
/// i8 Flags, i8 reserved. The readying thread is the header's thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadyThread {
    pub readied_tid: u32,
    /// 0 none, 1 unwait, 2 boost.
    pub adjust_reason: i8,
    pub adjust_increment: i8,
    /// 1 readied from a DPC, 2 kernel stack swapped out, 4 process swapped out.
    pub flags: i8,
}

impl<'a> Decode<'a> for ReadyThread {
    const NAME: &'static str = "ReadyThread";

    #[inline]
    fn read(_ev: &Event<'a>, r: &mut Reader<'a>) -> Result<ReadyThread> {
        let t = ReadyThread {
            readied_tid: r.u32()?,
            adjust_reason: r.i8()?,
            adjust_increment: r.i8()?,
            flags: r.i8()?,
        };
        r.skip(1)?;
        Ok(t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::test_util::kernel_event;

    /// Bytes laid out per the MOF CSwitch class (offsets 0..24).
    #[test]
    fn cswitch_fields() {
        let mut b = Vec::new();
        b.extend(1200u32.to_le_bytes()); // new
        b.extend(3400u32.to_le_bytes()); // old
        b.extend([10, 8, 1, 0, 6, 1, 5, 3]); // prios, cstate, spare, reason, mode, state, ideal
        b.extend(15u32.to_le_bytes());
        b.extend(0u32.to_le_bytes());
        let c = CSwitch::decode(&kernel_event(0x0524, 2, 8, &b)).unwrap();
        assert_eq!((c.new_tid, c.old_tid), (1200, 3400));
        assert_eq!((c.new_thread_priority, c.old_thread_priority), (10, 8));
        assert_eq!(c.previous_c_state, 1);
        assert_eq!((c.old_thread_wait_reason, c.old_thread_wait_mode), (6, 1));
        assert_eq!(
            (c.old_thread_state, c.old_thread_wait_ideal_processor),
            (5, 3)
        );
        assert_eq!(c.new_thread_wait_time, 15);
        let e = CSwitch::decode(&kernel_event(0x0524, 2, 8, &b[..20])).unwrap_err();
        assert_eq!(e.offset, 20);
    }

    #[test]
    fn ready_thread_fields() {
        let mut b = Vec::new();
        b.extend(777u32.to_le_bytes());
        b.extend([1, 2, 1, 0]);
        let t = ReadyThread::decode(&kernel_event(0x0532, 2, 4, &b)).unwrap();
        assert_eq!(
            (t.readied_tid, t.adjust_reason, t.adjust_increment, t.flags),
            (777, 1, 2, 1)
        );
    }
}
