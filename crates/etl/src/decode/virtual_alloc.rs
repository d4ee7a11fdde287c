//! VirtualAlloc (0x0262) and VirtualFree (0x0263), kernel group 0x02
//! (PageFault), logged with the VIRT_ALLOC flag. Sources: Microsoft's
//! MSNT_SystemTrace class `PageFault_VirtualAlloc` (EventType 98
//! VirtualAlloc, 99 VirtualFree; ptr BaseAddress, ptr RegionSize, u32
//! ProcessId, u32 Flags) and TraceEvent's KernelTraceEventParser
//! `VirtualAllocTraceData` (BaseAddr at 0, Length at HostOffset(4, 1),
//! ProcessID at HostOffset(8, 2), Flags at HostOffset(12, 2)). The system
//! header names the calling thread, whose stack walk follows.

use super::reader::{Reader, Result};
use super::Decode;
use crate::Event;

pub const MEM_COMMIT: u32 = 0x1000;
pub const MEM_RESERVE: u32 = 0x2000;
pub const MEM_DECOMMIT: u32 = 0x4000;
pub const MEM_RELEASE: u32 = 0x8000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VirtualAlloc {
    /// VirtualFree (0x0263) rather than VirtualAlloc (0x0262).
    pub free: bool,
    pub base: u64,
    pub size: u64,
    pub pid: u32,
    pub flags: u32,
}

impl<'a> Decode<'a> for VirtualAlloc {
    const NAME: &'static str = "VirtualAlloc";

    fn read(ev: &Event<'a>, r: &mut Reader<'a>) -> Result<VirtualAlloc> {
        let free = match ev.hook_id {
            Some(0x0262) => false,
            Some(0x0263) => true,
            _ => return Err(r.malformed("not a VirtualAlloc/VirtualFree hook id")),
        };
        Ok(VirtualAlloc {
            free,
            base: r.ptr()?,
            size: r.ptr()?,
            pid: r.u32()?,
            flags: r.u32()?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::test_util::kernel_event;

    #[test]
    fn alloc_and_free() {
        let mut b = 0x1_2340_0000u64.to_le_bytes().to_vec();
        b.extend(0x3000u64.to_le_bytes());
        b.extend(100u32.to_le_bytes());
        b.extend((MEM_COMMIT | MEM_RESERVE).to_le_bytes());
        let a = VirtualAlloc::decode(&kernel_event(0x0262, 2, 8, &b)).unwrap();
        assert!(!a.free);
        assert_eq!(
            (a.base, a.size, a.pid, a.flags),
            (0x1_2340_0000, 0x3000, 100, 0x3000)
        );
        let mut b = 0x1000u32.to_le_bytes().to_vec();
        b.extend(0x2000u32.to_le_bytes());
        b.extend(7u32.to_le_bytes());
        b.extend(MEM_RELEASE.to_le_bytes());
        let f = VirtualAlloc::decode(&kernel_event(0x0263, 2, 4, &b)).unwrap();
        assert!(f.free && f.flags == MEM_RELEASE && f.pid == 7 && f.size == 0x2000);
    }
}
