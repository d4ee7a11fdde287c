//! DPC and ISR events (kernel group 0x0F, PerfInfo). Sources:
//! Microsoft's MSNT_SystemTrace classes `DPC` (EventType 66 ThreadDPC,
//! 68 DPC, 69 TimerDPC: object InitialTime, ptr Routine) and `ISR`
//! (EventType 67: InitialTime, ptr Routine, then ReturnValue, Vector,
//! Reserved in 4 bytes); TraceEvent's KernelTraceEventParser
//! `DPCTraceData` / `ISRTraceData` (InitialTime an i64 at 0, Routine
//! `GetAddressAt(8)`); LibTrace's etw_raw_kernel_payload_decoder (ISR v2:
//! u8 ReturnValue, u16 Vector, u8 Reserved; ISR-MSI, EventType 50, adds
//! u32 MessageNumber). The event is logged when the routine returns:
//! InitialTime is its entry on the same clock, the header time its exit.
//! The PerfInfo header has no thread: the buffer's processor is the CPU.

use super::reader::{Reader, Result};
use super::Decode;
use crate::Event;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum DpcIsrKind {
    #[default]
    Dpc,
    TimerDpc,
    ThreadDpc,
    Isr,
}

impl DpcIsrKind {
    pub fn of_hook(hook: u16) -> Option<DpcIsrKind> {
        Some(match hook {
            0x0F42 => DpcIsrKind::ThreadDpc,
            0x0F32 | 0x0F43 => DpcIsrKind::Isr,
            0x0F44 => DpcIsrKind::Dpc,
            0x0F45 => DpcIsrKind::TimerDpc,
            _ => return None,
        })
    }

    /// WPA's Type.
    pub fn name(self) -> &'static str {
        match self {
            DpcIsrKind::Dpc => "DPC",
            DpcIsrKind::TimerDpc => "Timer DPC",
            DpcIsrKind::ThreadDpc => "Thread DPC",
            DpcIsrKind::Isr => "ISR",
        }
    }

    pub fn is_isr(self) -> bool {
        self == DpcIsrKind::Isr
    }
}

pub fn is_dpc_isr_hook(hook: u16) -> bool {
    DpcIsrKind::of_hook(hook).is_some()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DpcIsr {
    pub kind: DpcIsrKind,
    /// Clock value at entry; the event's time is the exit.
    pub initial_time: i64,
    pub routine: u64,
    /// ISRs' interrupt vector (0 for DPCs).
    pub vector: u16,
    /// ISR-MSI's message number.
    pub message: Option<u32>,
}

impl<'a> Decode<'a> for DpcIsr {
    const NAME: &'static str = "DpcIsr";

    fn read(ev: &Event<'a>, r: &mut Reader<'a>) -> Result<DpcIsr> {
        let hook = ev.hook_id.unwrap_or(0);
        let kind = DpcIsrKind::of_hook(hook).ok_or_else(|| r.malformed("not a DPC/ISR hook id"))?;
        let initial_time = r.i64()?;
        let routine = r.ptr()?;
        let (mut vector, mut message) = (0, None);
        if kind.is_isr() {
            let _return_value = r.u8()?;
            vector = r.u16()?;
            let _reserved = r.u8()?;
            if hook == 0x0F32 {
                message = Some(r.u32()?);
            }
        }
        Ok(DpcIsr {
            kind,
            initial_time,
            routine,
            vector,
            message,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::test_util::kernel_event;

    #[test]
    fn dpc_and_isr_layouts_of_both_pointer_sizes() {
        let mut b = 1_000i64.to_le_bytes().to_vec();
        b.extend(0xFFFF_F800_0010_2000u64.to_le_bytes());
        let d = DpcIsr::decode(&kernel_event(0x0F44, 2, 8, &b)).unwrap();
        assert_eq!(d.kind, DpcIsrKind::Dpc);
        assert_eq!((d.initial_time, d.routine), (1_000, 0xFFFF_F800_0010_2000));
        let mut b = 7i64.to_le_bytes().to_vec();
        b.extend(0x8010_2000u32.to_le_bytes());
        b.extend([1, 0x91, 0, 0]);
        let d = DpcIsr::decode(&kernel_event(0x0F43, 2, 4, &b)).unwrap();
        assert_eq!(
            (d.kind, d.routine, d.vector),
            (DpcIsrKind::Isr, 0x8010_2000, 0x91)
        );
        b.extend(3u32.to_le_bytes());
        let d = DpcIsr::decode(&kernel_event(0x0F32, 2, 4, &b)).unwrap();
        assert_eq!(d.message, Some(3));
        assert!(DpcIsr::decode(&kernel_event(0x0F43, 2, 8, &b[..12])).is_err());
        assert!(DpcIsr::decode(&kernel_event(0x0F45, 2, 8, &b[..10])).is_err());
    }
}
