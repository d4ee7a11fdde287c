//! Microsoft-Windows-Kernel-Process (22fb2cd6-...): process, thread and image
//! lifetimes from the manifest provider that perfmon Data Collector Sets and
//! many tools record instead of the kernel logger. They decode into the same
//! [`Process`], [`Thread`] and [`Image`] structs as the kernel's own events,
//! so the model's tables fill the same way.
//!
//! Layouts by event id and version from the provider's manifest
//! (`wevtutil gp Microsoft-Windows-Kernel-Process /ge /gm`, as published for
//! Windows 10 10240; Windows 7 writes the version 0/1 forms):
//! - 1 ProcessStart: u32 ProcessID, FILETIME CreateTime, u32 ParentProcessID,
//!   u32 SessionID, [v1+: u32 Flags], UTF-16 ImageName, [v2: u32 ImageChecksum,
//!   u32 TimeDateStamp, UTF-16 PackageFullName, UTF-16 PackageRelativeAppId].
//! - 2 ProcessStop: u32 ProcessID, FILETIME CreateTime, FILETIME ExitTime,
//!   u32 ExitCode, u32 TokenElevationType, u32 HandleCount, u64 CommitCharge,
//!   u64 CommitPeak, [v1: u64 CPUCycleCount, 5 x u32 I/O and fault counts],
//!   ANSI ImageName.
//! - 15 ProcessRundown: as ProcessStart v2 (a process alive at the start).
//! - 3 ThreadStart / 4 ThreadStop: u32 ProcessID, u32 ThreadID, then seven
//!   pointers (StackBase, StackLimit, UserStackBase, UserStackLimit,
//!   StartAddr, Win32StartAddr, TebBase), [v1: u32 SubProcessTag, and for
//!   ThreadStop u64 CycleTime].
//! - 5 ImageLoad / 6 ImageUnload: ptr ImageBase, ptr ImageSize, u32
//!   ProcessID, u32 ImageCheckSum, u32 TimeDateStamp, ptr DefaultBase,
//!   UTF-16 ImageName.
//!
//! Pointers have the event's pointer size (the EventHeader's 32/64-bit flag).

use super::image::{Image, ImageKind};
use super::process::{Process, ProcessKind};
use super::reader::{Reader, Result};
use super::thread::{Thread, ThreadKind};
use super::{Decode, Decoded};
use crate::Event;

/// What a Kernel-Process event id holds, for the ids decoded here.
pub fn decode<'a>(ev: &Event<'a>) -> Option<Result<(Decoded<'a>, usize)>> {
    let name = match ev.event_id {
        1 | 2 | 15 => Process::NAME,
        3 | 4 => Thread::NAME,
        5 | 6 => Image::NAME,
        _ => return None,
    };
    let mut r = Reader::new(ev.payload, ev.pointer_size, name);
    let d = match ev.event_id {
        1 => process_start(ev, &mut r, ProcessKind::Start).map(Decoded::Process),
        15 => process_start(ev, &mut r, ProcessKind::DcStart).map(Decoded::Process),
        2 => process_stop(ev, &mut r).map(Decoded::Process),
        3 => thread(ev, &mut r, ThreadKind::Start).map(Decoded::Thread),
        4 => thread(ev, &mut r, ThreadKind::End).map(Decoded::Thread),
        5 => image(&mut r, ImageKind::Load).map(Decoded::Image),
        _ => image(&mut r, ImageKind::Unload).map(Decoded::Image),
    };
    Some(d.map(|d| (d, r.pos())))
}

/// The file name of an NT or DOS path: the kernel's own process events name
/// a process by its short image name (`notepad.exe`), this provider by path.
fn file_name_of(path: &str) -> String {
    path.rsplit(['\\', '/']).next().unwrap_or(path).to_string()
}

fn process_start(ev: &Event<'_>, r: &mut Reader<'_>, kind: ProcessKind) -> Result<Process> {
    let mut p = Process::new(kind, r.u32()?);
    let _create_time = r.i64()?;
    p.parent_pid = r.u32()?;
    p.session_id = r.u32()?;
    // Rundown (id 15) has the v2 layout whatever its version says.
    let v = if kind == ProcessKind::DcStart {
        2
    } else {
        ev.version
    };
    if v >= 1 {
        p.flags = r.u32()?;
    }
    let path = r.utf16z()?;
    p.image_file_name = file_name_of(&path);
    if v >= 2 && !r.at_end() {
        let _checksum = r.u32()?;
        let _time_date_stamp = r.u32()?;
        p.package_full_name = r.utf16z()?;
        p.application_id = r.utf16z()?;
    }
    Ok(p)
}

fn process_stop(ev: &Event<'_>, r: &mut Reader<'_>) -> Result<Process> {
    let mut p = Process::new(ProcessKind::End, r.u32()?);
    let _create_time = r.i64()?;
    p.exit_time = Some(r.i64()?);
    p.exit_status = r.i32()?;
    let _token_elevation_type = r.u32()?;
    let _handle_count = r.u32()?;
    let _commit_charge = r.u64()?;
    let _commit_peak = r.u64()?;
    if ev.version >= 1 {
        let _cpu_cycles = r.u64()?;
        r.skip(5 * 4)?;
    }
    p.image_file_name = r.cstr()?;
    Ok(p)
}

fn thread(ev: &Event<'_>, r: &mut Reader<'_>, kind: ThreadKind) -> Result<Thread> {
    let pid = r.u32()?;
    let tid = r.u32()?;
    let mut t = Thread {
        kind,
        pid,
        tid,
        stack_base: r.ptr()?,
        stack_limit: r.ptr()?,
        user_stack_base: r.ptr()?,
        user_stack_limit: r.ptr()?,
        start_address: r.ptr()?,
        win32_start_address: r.ptr()?,
        teb_base: r.ptr()?,
        sub_process_tag: 0,
        priorities: None,
        name: None,
    };
    if ev.version >= 1 {
        t.sub_process_tag = r.u32()?;
        if kind == ThreadKind::End {
            let _cycle_time = r.u64()?;
        }
    }
    Ok(t)
}

fn image(r: &mut Reader<'_>, kind: ImageKind) -> Result<Image> {
    Ok(Image {
        kind,
        image_base: r.ptr()?,
        image_size: r.ptr()?,
        pid: r.u32()?,
        checksum: r.u32()?,
        time_date_stamp: r.u32()?,
        signature_level: 0,
        signature_type: 0,
        default_base: r.ptr()?,
        file_name: r.utf16z()?,
    })
}
