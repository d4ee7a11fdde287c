//! Typed decoders: one [`Event`] in, one typed struct out.
//!
//! Each event group has its own file; every decoder reads the payload through
//! a bounds-checked [`Reader`] with the event's pointer size, and fails with
//! a [`DecodeError`] (payload offset and reason) instead of panicking.
//! [`decode`] dispatches on hook id (kernel headers), provider + opcode
//! (classic headers) or provider + event id (EventHeader). Samples and stacks
//! decode without allocating: frames are borrowed views over the payload.
//! No state is kept here: joining stacks, images and versions is the
//! model's job.

pub mod clr;
pub mod cswitch;
pub mod diskio;
pub mod dpc_isr;
pub mod fileio;
pub mod hardfault;
pub mod heap;
pub mod image;
pub mod image_id;
pub mod kernel_classes;
pub mod kernel_file;
pub mod kernel_process;
pub mod lznt1;
pub mod pagefault;
pub mod perfinfo;
pub mod process;
pub mod providers;
pub mod reader;
pub mod registry;
pub mod schema;
pub mod stackwalk;
pub mod sysconfig;
pub mod sysconfig_hw;
pub mod sysconfig_sw;
pub mod tcpip;
pub mod thread;
pub mod tracelogging;
pub mod virtual_alloc;
pub mod winsat;

#[cfg(test)]
mod dispatch_tests;
#[cfg(test)]
pub(crate) mod test_util;

use crate::event::{Event, HeaderType};
use crate::extended::ext_type;

pub use clr::{ClrMethod, ClrModule, ClrPdb, MethodEventKind, ModuleEventKind};
pub use cswitch::{CSwitch, ReadyThread};
pub use diskio::{DiskFlush, DiskInitKind, DiskIo, DiskIoInit};
pub use dpc_isr::{DpcIsr, DpcIsrKind};
pub use fileio::{
    FileInfoKind, FileIoCreate, FileIoDirEnum, FileIoInfo, FileIoName, FileIoOpEnd, FileIoPathOp,
    FileIoReadWrite, FileIoSimpleOp, FileNameKind, FilePathOpKind, FileSimpleOpKind,
};
pub use hardfault::HardFault;
pub use heap::{HeapEvent, HeapOp};
pub use image::{Image, ImageKind, KernelAddress};
pub use image_id::{DbgId, DbgPortablePdb, FileVersion, ImageId};
pub use pagefault::{PageFault, PageFaultKind};
pub use perfinfo::{IntervalKind, ProfileInterval, SampledProfile};
pub use process::{Process, ProcessKind};
pub use providers::{
    provider_name, CLR_PRIVATE, CLR_RUNDOWN, CLR_RUNTIME, KERNEL_FILE, KERNEL_PROCESS,
    KERNEL_TRACE_CONTROL, SYSCONFIG,
};
pub use reader::{DecodeError, DecodeErrorKind, Reader};
pub use registry::Registry;
pub use stackwalk::{
    event_stack, event_stack_key, EventStack, EventStackKey, StackKeyDefinition,
    StackKeyDefinitionKind, StackKeyReference, StackWalk,
};
pub use sysconfig::{CpuConfig, LogicalDisk, SystemPaths, VolumeMapping};
pub use sysconfig_hw::{NetworkAdapter, PhysicalDisk, PowerStates, VideoAdapter};
pub use sysconfig_sw::{PnpDevice, Service};
pub use tcpip::{NetEvent, NetOp};
pub use thread::{Thread, ThreadKind, ThreadSetName};
pub use tracelogging::{TlEvent, TlField, TlNamedValue, TlSchema, TlValue};
pub use virtual_alloc::VirtualAlloc;
pub use winsat::WinSatXml;

/// A typed view of one event payload.
pub trait Decode<'a>: Sized {
    /// Event kind named in errors.
    const NAME: &'static str;

    /// Read the payload from `r` (positioned at its start).
    fn read(ev: &Event<'a>, r: &mut Reader<'a>) -> Result<Self, DecodeError>;

    /// Decode the whole payload of `ev`. Bytes after the documented fields
    /// are ignored (newer versions append fields).
    fn decode(ev: &Event<'a>) -> Result<Self, DecodeError> {
        let mut r = Reader::new(ev.payload, ev.pointer_size, Self::NAME);
        Self::read(ev, &mut r)
    }
}

/// Every event kind this module decodes.
#[derive(Debug, Clone)]
pub enum Decoded<'a> {
    Process(Process),
    Thread(Thread),
    ThreadSetName(ThreadSetName),
    Image(Image),
    KernelAddress(KernelAddress),
    ImageId(ImageId),
    DbgId(DbgId),
    DbgPortablePdb(DbgPortablePdb),
    FileVersion(FileVersion),
    SampledProfile(SampledProfile),
    ProfileInterval(ProfileInterval),
    StackWalk(StackWalk<'a>),
    StackKeyDefinition(StackKeyDefinition<'a>),
    StackKeyReference(StackKeyReference),
    CSwitch(CSwitch),
    ReadyThread(ReadyThread),
    FileIoName(FileIoName),
    FileIoCreate(FileIoCreate),
    FileIoSimpleOp(FileIoSimpleOp),
    FileIoReadWrite(FileIoReadWrite),
    FileIoInfo(FileIoInfo),
    FileIoDirEnum(FileIoDirEnum),
    FileIoOpEnd(FileIoOpEnd),
    FileIoPathOp(FileIoPathOp),
    DiskIo(DiskIo),
    DiskIoInit(DiskIoInit),
    DiskFlush(DiskFlush),
    HardFault(HardFault),
    DpcIsr(DpcIsr),
    Net(NetEvent),
    PageFault(PageFault),
    Registry(Registry),
    VirtualAlloc(VirtualAlloc),
    Heap(HeapEvent),
    ClrMethod(ClrMethod),
    ClrModule(ClrModule),
    TraceLogging(TlEvent),
    CpuConfig(CpuConfig),
    LogicalDisk(LogicalDisk),
    PhysicalDisk(PhysicalDisk),
    NetworkAdapter(NetworkAdapter),
    VideoAdapter(VideoAdapter),
    Service(Service),
    PowerStates(PowerStates),
    PnpDevice(PnpDevice),
    VolumeMapping(VolumeMapping),
    SystemPaths(SystemPaths),
    WinSatXml(WinSatXml),
}

/// Decode an event if its kind is known: `None` for kinds this module does
/// not decode, `Some(Err)` for a known kind with a malformed payload.
pub fn decode<'a>(ev: &Event<'a>) -> Option<Result<Decoded<'a>, DecodeError>> {
    decode_measured(ev).map(|r| r.map(|(d, _)| d))
}

/// As [`decode`], also returning how many payload bytes the decoder read
/// (for checks that a layout accounts for the whole payload).
pub fn decode_measured<'a>(ev: &Event<'a>) -> Option<Result<(Decoded<'a>, usize), DecodeError>> {
    if ev.header_type.is_kernel() {
        return decode_kernel(ev);
    }
    let provider = ev.provider?;
    if matches!(
        ev.header_type,
        HeaderType::EventHeader32 | HeaderType::EventHeader64
    ) {
        return decode_event_header(ev, provider);
    }
    decode_classic(ev, provider)
}

fn run<'a, T: Decode<'a>>(
    ev: &Event<'a>,
    wrap: fn(T) -> Decoded<'a>,
) -> Option<Result<(Decoded<'a>, usize), DecodeError>> {
    let mut r = Reader::new(ev.payload, ev.pointer_size, T::NAME);
    Some(T::read(ev, &mut r).map(|t| (wrap(t), r.pos())))
}

fn decode_kernel<'a>(ev: &Event<'a>) -> Option<Result<(Decoded<'a>, usize), DecodeError>> {
    match ev.hook_id? {
        0x0301..=0x0304 | 0x0327 => run(ev, Decoded::Process),
        0x0501..=0x0504 => run(ev, Decoded::Thread),
        0x0548 => run(ev, Decoded::ThreadSetName),
        0x0524 => run(ev, Decoded::CSwitch),
        0x0532 => run(ev, Decoded::ReadyThread),
        0x140A | 0x030A | 0x1402..=0x1404 => run(ev, Decoded::Image),
        0x1421 | 0x1422 => run(ev, Decoded::KernelAddress),
        0x0F2E => run(ev, Decoded::SampledProfile),
        0x0F48..=0x0F4A => run(ev, Decoded::ProfileInterval),
        h if dpc_isr::is_dpc_isr_hook(h) => run(ev, Decoded::DpcIsr),
        0x1820 => run(ev, Decoded::StackWalk),
        0x1822..=0x1824 => run(ev, Decoded::StackKeyDefinition),
        0x1825 | 0x1826 => run(ev, Decoded::StackKeyReference),
        0x0400 | 0x0420 | 0x0423 | 0x0424 => run(ev, Decoded::FileIoName),
        0x0440 => run(ev, Decoded::FileIoCreate),
        0x0441 | 0x0442 | 0x0449 => run(ev, Decoded::FileIoSimpleOp),
        0x0443 | 0x0444 => run(ev, Decoded::FileIoReadWrite),
        0x0445..=0x0447 | 0x044A | 0x044B => run(ev, Decoded::FileIoInfo),
        0x0448 | 0x044D => run(ev, Decoded::FileIoDirEnum),
        0x044C => run(ev, Decoded::FileIoOpEnd),
        0x010A | 0x010B => run(ev, Decoded::DiskIo),
        0x010C | 0x010D | 0x010F => run(ev, Decoded::DiskIoInit),
        0x010E => run(ev, Decoded::DiskFlush),
        0x0220 => run(ev, Decoded::HardFault),
        0x020A..=0x020F => run(ev, Decoded::PageFault),
        0x0262 | 0x0263 => run(ev, Decoded::VirtualAlloc),
        h if heap::is_heap_hook(h) => run(ev, Decoded::Heap),
        // Version 2 (Vista on): InitialTime first.
        0x090A..=0x091B if ev.version >= 2 => run(ev, Decoded::Registry),
        // Version 2 (Vista on) is the documented layout: PID first.
        h if tcpip::is_net_hook(h) && ev.version >= 2 => run(ev, Decoded::Net),
        0x0B0A => run(ev, Decoded::CpuConfig),
        0x0B0B => run(ev, Decoded::PhysicalDisk),
        0x0B0C => run(ev, Decoded::LogicalDisk),
        0x0B0D => run(ev, Decoded::NetworkAdapter),
        0x0B0E => run(ev, Decoded::VideoAdapter),
        0x0B0F => run(ev, Decoded::Service),
        0x0B10 => run(ev, Decoded::PowerStates),
        0x0B16 => run(ev, Decoded::PnpDevice),
        _ => None,
    }
}

fn decode_classic<'a>(
    ev: &Event<'a>,
    provider: crate::Guid,
) -> Option<Result<(Decoded<'a>, usize), DecodeError>> {
    if provider == KERNEL_TRACE_CONTROL {
        return match ev.opcode {
            0 => run(ev, Decoded::ImageId),
            36 | 37 => run(ev, Decoded::DbgId),
            38 => run(ev, Decoded::DbgPortablePdb),
            64 => run(ev, Decoded::FileVersion),
            _ => None,
        };
    }
    if provider == providers::WINSAT {
        return match ev.opcode {
            33 | 35 | 37 => run(ev, Decoded::WinSatXml),
            _ => None,
        };
    }
    if provider == SYSCONFIG {
        return match ev.opcode {
            33 => run(ev, Decoded::SystemPaths),
            35 => run(ev, Decoded::VolumeMapping),
            _ => None,
        };
    }
    let hook = kernel_classes::hook_of(provider, ev.opcode)?;
    decode_kernel_class(ev, hook)
}

/// A classic-header event of a kernel event class, decoded as the system
/// header event with the same hook id. Its header's 32/64-bit form says how
/// the writing process was built, which for kernel-shaped payloads logged by
/// a 32-bit tool on a 64-bit system is not the payload's layout (sawbuck's
/// 64-bit image events carry a FULL_HEADER32). So when the header's pointer
/// size leaves the payload unaccounted for (a decode error, or bytes left
/// after the last field) and the other one decodes it exactly, the other one
/// is the layout.
fn decode_kernel_class<'a>(
    ev: &Event<'a>,
    hook: u16,
) -> Option<Result<(Decoded<'a>, usize), DecodeError>> {
    let as_kernel = Event {
        hook_id: Some(hook),
        ..*ev
    };
    let first = decode_kernel(&as_kernel)?;
    if matches!(&first, Ok((_, n)) if *n == ev.payload.len()) {
        return Some(first);
    }
    let other = Event {
        pointer_size: if ev.pointer_size == 4 { 8 } else { 4 },
        ..as_kernel
    };
    match decode_kernel(&other) {
        Some(Ok((d, n))) if n == ev.payload.len() => Some(Ok((d, n))),
        _ => Some(first),
    }
}

fn decode_event_header<'a>(
    ev: &Event<'a>,
    provider: crate::Guid,
) -> Option<Result<(Decoded<'a>, usize), DecodeError>> {
    if provider == KERNEL_FILE {
        if matches!(ev.event_id, 26..=28) {
            let mut k = *ev;
            k.version = kernel_file::layout_version(ev.version);
            return run(&k, Decoded::FileIoPathOp);
        }
        let k = kernel_file::as_kernel_fileio(ev)?;
        return decode_kernel(&k);
    }
    if provider == KERNEL_PROCESS {
        return kernel_process::decode(ev);
    }
    // Kernel-Network's events are the kernel TcpIp/UdpIp layouts (from the
    // PID to the ports): decoded as the classic event of the same kind.
    if provider == tcpip::KERNEL_NETWORK {
        let mut k = *ev;
        k.hook_id = Some(tcpip::kernel_network_hook(ev.event_id)?);
        return run(&k, Decoded::Net);
    }
    if provider == CLR_RUNTIME || provider == CLR_RUNDOWN {
        if clr::method_event(provider, ev.event_id).is_some() {
            return run(ev, Decoded::ClrMethod);
        }
        if clr::module_event(provider, ev.event_id).is_some() {
            return run(ev, Decoded::ClrModule);
        }
        return None;
    }
    let has_schema = ev
        .extended_items()
        .any(|i| i.ext_type == ext_type::EVENT_SCHEMA_TL);
    if has_schema {
        return run(ev, Decoded::TraceLogging);
    }
    None
}
