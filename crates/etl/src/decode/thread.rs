//! Thread events (kernel group 0x05): start, end, rundown, and SetName.
//!
//! v0: u32 tid, u32 pid. v1: u32 pid, u32 tid (rest not decoded).
//! v2: u32 pid, u32 tid, then seven pointers (StackBase, StackLimit,
//! UserStackBase, UserStackLimit, StartAddr, Win32StartAddr, TebBase) and a
//! u32 SubProcessTag. v3 adds four priority/flag bytes and, when the event is
//! long enough, a UTF-16 thread name. TE-K `ThreadTraceData`, etl-format C.2.
//! The ids come from the payload: the header of a Start names the creator.

use super::reader::{Reader, Result};
use super::Decode;
use crate::Event;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ThreadKind {
    Start,
    End,
    DcStart,
    DcEnd,
}

impl ThreadKind {
    pub fn from_hook(hook: u16) -> Option<ThreadKind> {
        Some(match hook {
            0x0501 => ThreadKind::Start,
            0x0502 => ThreadKind::End,
            0x0503 => ThreadKind::DcStart,
            0x0504 => ThreadKind::DcEnd,
            _ => return None,
        })
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Thread {
    pub kind: ThreadKind,
    pub pid: u32,
    pub tid: u32,
    pub stack_base: u64,
    pub stack_limit: u64,
    pub user_stack_base: u64,
    pub user_stack_limit: u64,
    pub start_address: u64,
    pub win32_start_address: u64,
    pub teb_base: u64,
    pub sub_process_tag: u32,
    /// v3: BasePriority, PagePriority, IoPriority, ThreadFlags.
    pub priorities: Option<[u8; 4]>,
    /// Thread name (v3+ events long enough to carry one; empty names are None).
    pub name: Option<String>,
}

impl<'a> Decode<'a> for Thread {
    const NAME: &'static str = "Thread";

    fn read(ev: &Event<'a>, r: &mut Reader<'a>) -> Result<Thread> {
        let kind = ev
            .hook_id
            .and_then(ThreadKind::from_hook)
            .ok_or_else(|| r.malformed("not a thread hook id"))?;
        let mut t = Thread {
            kind,
            pid: 0,
            tid: 0,
            stack_base: 0,
            stack_limit: 0,
            user_stack_base: 0,
            user_stack_limit: 0,
            start_address: 0,
            win32_start_address: 0,
            teb_base: 0,
            sub_process_tag: 0,
            priorities: None,
            name: None,
        };
        if ev.version == 0 {
            t.tid = r.u32()?;
            t.pid = r.u32()?;
            return Ok(t);
        }
        t.pid = r.u32()?;
        t.tid = r.u32()?;
        if ev.version == 1 {
            // v1 fields after the ids are not documented well enough to trust.
            r.rest();
            return Ok(t);
        }
        t.stack_base = r.ptr()?;
        t.stack_limit = r.ptr()?;
        t.user_stack_base = r.ptr()?;
        t.user_stack_limit = r.ptr()?;
        t.start_address = r.ptr()?;
        t.win32_start_address = r.ptr()?;
        t.teb_base = r.ptr()?;
        t.sub_process_tag = r.u32()?;
        if ev.version >= 3 && r.remaining() >= 4 {
            let b = r.bytes(4)?;
            t.priorities = Some([b[0], b[1], b[2], b[3]]);
            if r.remaining() >= 2 {
                let name = r.utf16z()?;
                t.name = (!name.is_empty()).then_some(name);
            }
        }
        Ok(t)
    }
}

/// Thread SetName (0x0548): u32 pid, u32 tid, UTF-16 name. [R TE-K]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThreadSetName {
    pub pid: u32,
    pub tid: u32,
    pub name: String,
}

impl<'a> Decode<'a> for ThreadSetName {
    const NAME: &'static str = "ThreadSetName";

    fn read(_ev: &Event<'a>, r: &mut Reader<'a>) -> Result<ThreadSetName> {
        Ok(ThreadSetName {
            pid: r.u32()?,
            tid: r.u32()?,
            name: r.utf16z()?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::test_util::{kernel_event, utf16z};

    #[test]
    fn v3_with_32_bit_pointers_and_name() {
        let mut b = Vec::new();
        b.extend(100u32.to_le_bytes());
        b.extend(200u32.to_le_bytes());
        for i in 1..=7u32 {
            b.extend((0x1000 * i).to_le_bytes());
        }
        b.extend(7u32.to_le_bytes()); // SubProcessTag
        b.extend([8, 5, 2, 0]);
        b.extend(utf16z("worker"));
        let t = Thread::decode(&kernel_event(0x0501, 3, 4, &b)).unwrap();
        assert_eq!((t.pid, t.tid), (100, 200));
        assert_eq!(t.stack_base, 0x1000);
        assert_eq!(t.teb_base, 0x7000);
        assert_eq!(t.win32_start_address, 0x6000);
        assert_eq!(t.sub_process_tag, 7);
        assert_eq!(t.priorities, Some([8, 5, 2, 0]));
        assert_eq!(t.name.as_deref(), Some("worker"));
    }

    #[test]
    fn v2_stops_after_sub_process_tag() {
        let b = [0u8; 8 + 7 * 8 + 4];
        let t = Thread::decode(&kernel_event(0x0504, 2, 8, &b)).unwrap();
        assert_eq!(t.kind, ThreadKind::DcEnd);
        assert_eq!(t.priorities, None);
        let e = Thread::decode(&kernel_event(0x0504, 2, 8, &b[..40])).unwrap_err();
        assert_eq!(e.offset, 40);
    }

    #[test]
    fn set_name() {
        let mut b = Vec::new();
        b.extend(4u32.to_le_bytes());
        b.extend(8u32.to_le_bytes());
        b.extend(utf16z("Main"));
        let n = ThreadSetName::decode(&kernel_event(0x0548, 2, 8, &b)).unwrap();
        assert_eq!((n.pid, n.tid, n.name.as_str()), (4, 8, "Main"));
    }
}
