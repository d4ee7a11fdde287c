//! Soft page faults (kernel group 0x02, opcodes 10..=15). Sources:
//! Microsoft's MSNT_SystemTrace class `PageFault_TypeGroup1` (EventType
//! 10 TransitionFault, 11 DemandZeroFault, 12 CopyOnWrite, 13
//! GuardPageFault, 14 HardPageFault, 15 AccessViolation; fields ptr
//! VirtualAddress, ptr ProgramCounter) and TraceEvent's
//! KernelTraceEventParser `PageFaultTraceData` (VirtualAddress at 0,
//! ProgramCounter at HostOffset(4, 1)). The system header names the
//! faulting thread and process.

use super::reader::{Reader, Result};
use super::Decode;
use crate::Event;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PageFaultKind {
    Transition,
    DemandZero,
    CopyOnWrite,
    Guard,
    HardPage,
    AccessViolation,
}

impl PageFaultKind {
    pub fn of_hook(hook: u16) -> Option<PageFaultKind> {
        Some(match hook {
            0x020A => PageFaultKind::Transition,
            0x020B => PageFaultKind::DemandZero,
            0x020C => PageFaultKind::CopyOnWrite,
            0x020D => PageFaultKind::Guard,
            0x020E => PageFaultKind::HardPage,
            0x020F => PageFaultKind::AccessViolation,
            _ => return None,
        })
    }

    /// WPA's / TraceEvent's event names.
    pub fn name(self) -> &'static str {
        match self {
            PageFaultKind::Transition => "Transition",
            PageFaultKind::DemandZero => "Demand Zero",
            PageFaultKind::CopyOnWrite => "Copy on Write",
            PageFaultKind::Guard => "Guard Page",
            PageFaultKind::HardPage => "Hard Page",
            PageFaultKind::AccessViolation => "Access Violation",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageFault {
    pub kind: PageFaultKind,
    pub virtual_address: u64,
    pub program_counter: u64,
}

impl<'a> Decode<'a> for PageFault {
    const NAME: &'static str = "PageFault";

    fn read(ev: &Event<'a>, r: &mut Reader<'a>) -> Result<PageFault> {
        let kind = ev
            .hook_id
            .and_then(PageFaultKind::of_hook)
            .ok_or_else(|| r.malformed("not a soft page fault hook id"))?;
        Ok(PageFault {
            kind,
            virtual_address: r.ptr()?,
            program_counter: r.ptr()?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::test_util::kernel_event;

    #[test]
    fn both_pointer_sizes() {
        let mut b = 0x7FF0_1000u32.to_le_bytes().to_vec();
        b.extend(0x7FF0_2345u32.to_le_bytes());
        let f = PageFault::decode(&kernel_event(0x020B, 2, 4, &b)).unwrap();
        assert_eq!(f.kind, PageFaultKind::DemandZero);
        assert_eq!(
            (f.virtual_address, f.program_counter),
            (0x7FF0_1000, 0x7FF0_2345)
        );
        let mut b = 0x1_0000_2000u64.to_le_bytes().to_vec();
        b.extend(0xFFFF_F800_0000_1234u64.to_le_bytes());
        let f = PageFault::decode(&kernel_event(0x020F, 2, 8, &b)).unwrap();
        assert_eq!(f.kind, PageFaultKind::AccessViolation);
        assert_eq!(f.program_counter, 0xFFFF_F800_0000_1234);
        assert!(PageFault::decode(&kernel_event(0x020A, 2, 8, &b[..7])).is_err());
    }
}
