//! Heap trace events (kernel group 0x10, or the classic HeapTrace class
//! 222962ab-6180-4b88-a825-346b75f2a24a), logged by a heap-tracing session
//! for the processes it traces. Sources: Microsoft's MSNT_SystemTrace
//! `HeapTrace` classes (`Heap_Alloc`, `Heap_ReAlloc`, `Heap_Free`,
//! `Heap_Destroy`; EventType 33 Alloc, 34 ReAlloc, 35 Destroy, 36 Free)
//! and TraceEvent's HeapTraceProviderTraceEventParser (`HeapAllocTraceData`:
//! ptr HeapHandle, ptr AllocSize, ptr AllocAddress, u32 SourceId;
//! `HeapReallocTraceData`: ptr HeapHandle, ptr NewAllocAddress, ptr
//! OldAllocAddress, ptr NewAllocSize, ptr OldAllocSize, u32 SourceId;
//! `HeapFreeTraceData`: ptr HeapHandle, ptr FreeAddress, u32 SourceId;
//! `HeapTraceData` (Destroy): ptr HeapHandle). The header names the
//! process and thread.

use super::reader::{Reader, Result};
use super::Decode;
use crate::Event;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeapOp {
    Alloc {
        size: u64,
        address: u64,
    },
    Realloc {
        new_address: u64,
        old_address: u64,
        new_size: u64,
        old_size: u64,
    },
    Free {
        address: u64,
    },
    Destroy,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HeapEvent {
    pub handle: u64,
    pub op: HeapOp,
}

/// Whether `hook` (group 0x10) is one of the heap events decoded here.
pub fn is_heap_hook(hook: u16) -> bool {
    matches!(hook, 0x1021..=0x1024)
}

impl<'a> Decode<'a> for HeapEvent {
    const NAME: &'static str = "Heap";

    fn read(ev: &Event<'a>, r: &mut Reader<'a>) -> Result<HeapEvent> {
        let handle = r.ptr()?;
        let op = match ev.hook_id {
            Some(0x1021) => {
                let size = r.ptr()?;
                HeapOp::Alloc {
                    size,
                    address: r.ptr()?,
                }
            }
            Some(0x1022) => HeapOp::Realloc {
                new_address: r.ptr()?,
                old_address: r.ptr()?,
                new_size: r.ptr()?,
                old_size: r.ptr()?,
            },
            Some(0x1023) => HeapOp::Destroy,
            Some(0x1024) => HeapOp::Free { address: r.ptr()? },
            _ => return Err(r.malformed("not a heap Alloc/ReAlloc/Destroy/Free hook id")),
        };
        Ok(HeapEvent { handle, op })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::test_util::kernel_event;

    #[test]
    fn alloc_realloc_free_destroy() {
        let words = |w: &[u64]| w.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
        let a =
            HeapEvent::decode(&kernel_event(0x1021, 2, 8, &words(&[0x50, 24, 0x5000]))).unwrap();
        assert_eq!(a.handle, 0x50);
        assert_eq!(
            a.op,
            HeapOp::Alloc {
                size: 24,
                address: 0x5000
            }
        );
        let r = HeapEvent::decode(&kernel_event(
            0x1022,
            2,
            8,
            &words(&[0x50, 0x6000, 0x5000, 48, 24]),
        ))
        .unwrap();
        assert_eq!(
            r.op,
            HeapOp::Realloc {
                new_address: 0x6000,
                old_address: 0x5000,
                new_size: 48,
                old_size: 24
            }
        );
        let f = HeapEvent::decode(&kernel_event(0x1024, 2, 8, &words(&[0x50, 0x6000]))).unwrap();
        assert_eq!(f.op, HeapOp::Free { address: 0x6000 });
        let d = HeapEvent::decode(&kernel_event(0x1023, 2, 4, &0x50u32.to_le_bytes())).unwrap();
        assert_eq!((d.handle, d.op), (0x50, HeapOp::Destroy));
        assert!(HeapEvent::decode(&kernel_event(0x1021, 2, 8, &words(&[0x50, 24]))).is_err());
    }
}
