//! Stacks: inline StackWalk events, stack-key definitions and references
//! (kernel group 0x18), and the stack items of EventHeader extended data.
//! Frames are borrowed from the payload (leaf first), never copied.
//! Sources: TE-K `StackWalkStackTraceData`, `StackWalkRefTraceData`,
//! `StackWalkDefTraceData`; etl-format C.5 and F.2.

use super::reader::{DecodeError, DecodeErrorKind, Reader, Result};
use super::Decode;
use crate::extended::{ext_type, StackFrames};
use crate::Event;

/// 0x1820 StackWalk: u64 EventTimeStamp, u32 StackProcess, u32 StackThread,
/// then frames of P bytes each.
#[derive(Debug, Clone, Copy)]
pub struct StackWalk<'a> {
    /// Timestamp of the event this stack belongs to.
    pub event_timestamp: i64,
    pub pid: u32,
    pub tid: u32,
    pub frames: StackFrames<'a>,
}

/// Frames of `P` bytes filling the rest of the payload.
fn frames<'a>(r: &mut Reader<'a>) -> Result<StackFrames<'a>> {
    let p = r.pointer_size() as usize;
    let odd_bytes = r.remaining() % p;
    if odd_bytes != 0 {
        return Err(r.malformed("stack frames are not a whole number of pointers"));
    }
    Ok(StackFrames::new(r.rest(), p))
}

impl<'a> Decode<'a> for StackWalk<'a> {
    const NAME: &'static str = "StackWalk";

    #[inline]
    fn read(_ev: &Event<'a>, r: &mut Reader<'a>) -> Result<StackWalk<'a>> {
        Ok(StackWalk {
            event_timestamp: r.i64()?,
            pid: r.u32()?,
            tid: r.u32()?,
            frames: frames(r)?,
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StackKeyDefinitionKind {
    /// 0x1822 KeyCreate. [R: assumed to share the definition layout; none seen]
    Create,
    /// 0x1823 KeyDelete: emitted when a cached key is evicted.
    Delete,
    /// 0x1824 KeyRundown: keys still cached when the trace ends.
    Rundown,
}

/// 0x1822 / 0x1823 / 0x1824: P StackKey, then frames of P bytes.
#[derive(Debug, Clone, Copy)]
pub struct StackKeyDefinition<'a> {
    pub kind: StackKeyDefinitionKind,
    pub key: u64,
    pub frames: StackFrames<'a>,
}

impl<'a> Decode<'a> for StackKeyDefinition<'a> {
    const NAME: &'static str = "StackKeyDefinition";

    #[inline]
    fn read(ev: &Event<'a>, r: &mut Reader<'a>) -> Result<StackKeyDefinition<'a>> {
        let kind = match ev.hook_id {
            Some(0x1822) => StackKeyDefinitionKind::Create,
            Some(0x1823) => StackKeyDefinitionKind::Delete,
            Some(0x1824) => StackKeyDefinitionKind::Rundown,
            _ => return Err(r.malformed("not a stack key definition hook id")),
        };
        Ok(StackKeyDefinition {
            kind,
            key: r.ptr()?,
            frames: frames(r)?,
        })
    }
}

/// 0x1825 StackKeyKernel / 0x1826 StackKeyUser: u64 EventTimeStamp,
/// u32 StackProcess, u32 StackThread, P StackKey.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StackKeyReference {
    /// True for 0x1826 (user half), false for 0x1825 (kernel half).
    pub user: bool,
    pub event_timestamp: i64,
    pub pid: u32,
    pub tid: u32,
    pub key: u64,
}

impl<'a> Decode<'a> for StackKeyReference {
    const NAME: &'static str = "StackKeyReference";

    #[inline]
    fn read(ev: &Event<'a>, r: &mut Reader<'a>) -> Result<StackKeyReference> {
        Ok(StackKeyReference {
            user: ev.hook_id == Some(0x1826),
            event_timestamp: r.i64()?,
            pid: r.u32()?,
            tid: r.u32()?,
            key: r.ptr()?,
        })
    }
}

/// A stack carried in an EventHeader event's extended data:
/// STACK_TRACE32 / STACK_TRACE64 (u64 MatchId, then 4- or 8-byte frames).
#[derive(Debug, Clone, Copy)]
pub struct EventStack<'a> {
    pub match_id: u64,
    pub frames: StackFrames<'a>,
}

/// A stack key carried in extended data: STACK_KEY32 / STACK_KEY64
/// (u64 MatchId, then a u32 or u64 key). [R evntcons.h; none in the traces]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventStackKey {
    pub match_id: u64,
    pub key: u64,
}

fn ext_error(what: &'static str, offset: usize, kind: DecodeErrorKind) -> DecodeError {
    DecodeError {
        event: what,
        offset,
        kind,
    }
}

/// The stack of an EventHeader event, if its extended data has one.
/// Offsets in errors are relative to the extended item's data.
pub fn event_stack<'a>(ev: &Event<'a>) -> Option<Result<EventStack<'a>>> {
    let item = ev.extended_items().find(|i| {
        matches!(
            i.ext_type,
            ext_type::STACK_TRACE32 | ext_type::STACK_TRACE64
        )
    })?;
    let width = if item.ext_type == ext_type::STACK_TRACE32 {
        4
    } else {
        8
    };
    let name = "EventStack";
    let mut r = Reader::new(item.data, 8, name);
    let match_id = match r.u64() {
        Ok(m) => m,
        Err(e) => return Some(Err(e)),
    };
    let odd_bytes = r.remaining() % width;
    if odd_bytes != 0 {
        let kind = DecodeErrorKind::Malformed("stack frames are not a whole number of pointers");
        return Some(Err(ext_error(name, 8, kind)));
    }
    Some(Ok(EventStack {
        match_id,
        frames: StackFrames::new(r.rest(), width),
    }))
}

/// The stack key of an EventHeader event, if its extended data has one.
pub fn event_stack_key(ev: &Event<'_>) -> Option<Result<EventStackKey>> {
    let item = ev
        .extended_items()
        .find(|i| matches!(i.ext_type, ext_type::STACK_KEY32 | ext_type::STACK_KEY64))?;
    let mut r = Reader::new(item.data, 8, "EventStackKey");
    let read = |r: &mut Reader<'_>| -> Result<EventStackKey> {
        let match_id = r.u64()?;
        let key = if item.ext_type == ext_type::STACK_KEY32 {
            u64::from(r.u32()?)
        } else {
            r.u64()?
        };
        Ok(EventStackKey { match_id, key })
    };
    Some(read(&mut r))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::test_util::{event_header_event, kernel_event};
    use crate::Guid;

    #[test]
    fn inline_stack_with_32_bit_frames() {
        let mut b = Vec::new();
        b.extend(123456789i64.to_le_bytes());
        b.extend(40u32.to_le_bytes());
        b.extend(41u32.to_le_bytes());
        for f in [0x8000_1000u32, 0x8000_2000, 0x0040_1000] {
            b.extend(f.to_le_bytes());
        }
        let s = StackWalk::decode(&kernel_event(0x1820, 2, 4, &b)).unwrap();
        assert_eq!((s.event_timestamp, s.pid, s.tid), (123456789, 40, 41));
        assert_eq!(
            s.frames.iter().collect::<Vec<_>>(),
            [0x8000_1000, 0x8000_2000, 0x0040_1000]
        );
        b.push(0);
        let e = StackWalk::decode(&kernel_event(0x1820, 2, 4, &b)).unwrap_err();
        assert_eq!(e.offset, 16);
    }

    #[test]
    fn key_definition_and_reference_with_32_bit_pointers() {
        let mut b = Vec::new();
        b.extend(0xAB00u32.to_le_bytes());
        b.extend(0x8000_0010u32.to_le_bytes());
        let d = StackKeyDefinition::decode(&kernel_event(0x1823, 2, 4, &b)).unwrap();
        assert_eq!(
            (d.kind, d.key, d.frames.len()),
            (StackKeyDefinitionKind::Delete, 0xAB00, 1)
        );
        let mut b = Vec::new();
        b.extend(5i64.to_le_bytes());
        b.extend(1u32.to_le_bytes());
        b.extend(2u32.to_le_bytes());
        b.extend(0xAB00u32.to_le_bytes());
        let k = StackKeyReference::decode(&kernel_event(0x1826, 2, 4, &b)).unwrap();
        assert_eq!(
            (k.user, k.event_timestamp, k.pid, k.tid, k.key),
            (true, 5, 1, 2, 0xAB00)
        );
    }

    #[test]
    fn stack_trace32_extended_item() {
        let mut item = Vec::new();
        item.extend(7u64.to_le_bytes());
        item.extend(0x7700_1000u32.to_le_bytes());
        item.extend(0x7700_2000u32.to_le_bytes());
        let ext = crate::decode::test_util::ext_items(&[(ext_type::STACK_TRACE32, &item)]);
        let ev = event_header_event(Guid::default(), 1, 0, 4, &ext, &[]);
        let s = event_stack(&ev).unwrap().unwrap();
        assert_eq!(s.match_id, 7);
        assert_eq!(
            s.frames.iter().collect::<Vec<_>>(),
            [0x7700_1000, 0x7700_2000]
        );
        assert!(event_stack_key(&ev).is_none());
    }
}
