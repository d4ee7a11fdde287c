//! Process events (kernel group 0x03): start, end, rundown, defunct.
//!
//! Layout by version (P = pointer size; TE-K `ProcessTraceData`, etl-format C.1):
//! v0: P pid, P parent, SID, ANSI name. v1: P (unused), u32 pid, u32 parent,
//! u32 session, i32 exit status, SID, name. v2: P UniqueProcessKey then as v1,
//! plus UTF-16 command line. v3: adds P DirectoryTableBase before the SID.
//! v4+: adds u32 Flags before the SID and PackageFullName, ApplicationId
//! strings after the command line. v5 (defunct, seen in shut) appends 8 bytes
//! whose values are FILETIMEs within the trace's wall-clock span: read as the
//! exit time (inferred from the bytes, not from a source).

use super::reader::{Reader, Result};
use super::Decode;
use crate::Event;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProcessKind {
    Start,
    End,
    /// Rundown of a process alive when the trace started.
    DcStart,
    /// Rundown of a process alive when the trace ended.
    DcEnd,
    /// A process that exited but whose object is still referenced.
    Defunct,
}

impl ProcessKind {
    pub fn from_hook(hook: u16) -> Option<ProcessKind> {
        Some(match hook {
            0x0301 => ProcessKind::Start,
            0x0302 => ProcessKind::End,
            0x0303 => ProcessKind::DcStart,
            0x0304 => ProcessKind::DcEnd,
            0x0327 => ProcessKind::Defunct,
            _ => return None,
        })
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Process {
    pub kind: ProcessKind,
    /// EPROCESS address (v2+, else 0).
    pub unique_process_key: u64,
    pub pid: u32,
    pub parent_pid: u32,
    pub session_id: u32,
    pub exit_status: i32,
    pub directory_table_base: u64,
    pub flags: u32,
    /// The user SID as `S-1-5-...`, when the event carries one.
    pub user_sid: Option<String>,
    /// Short image name (e.g. `notepad.exe`).
    pub image_file_name: String,
    pub command_line: String,
    pub package_full_name: String,
    pub application_id: String,
    /// v5+ events with 8 trailing bytes: the exit time as a FILETIME (inferred).
    pub exit_time: Option<i64>,
}

impl Process {
    /// A process of `kind` and `pid` with every other field empty, for the
    /// decoders (kernel events, Microsoft-Windows-Kernel-Process) to fill.
    pub fn new(kind: ProcessKind, pid: u32) -> Process {
        Process {
            kind,
            unique_process_key: 0,
            pid,
            parent_pid: 0,
            session_id: 0,
            exit_status: 0,
            directory_table_base: 0,
            flags: 0,
            user_sid: None,
            image_file_name: String::new(),
            command_line: String::new(),
            package_full_name: String::new(),
            application_id: String::new(),
            exit_time: None,
        }
    }
}

impl<'a> Decode<'a> for Process {
    const NAME: &'static str = "Process";

    fn read(ev: &Event<'a>, r: &mut Reader<'a>) -> Result<Process> {
        let kind = ev
            .hook_id
            .and_then(ProcessKind::from_hook)
            .ok_or_else(|| r.malformed("not a process hook id"))?;
        let v = ev.version;
        let mut p = Process::new(kind, 0);
        if v == 0 {
            p.pid = r.ptr()? as u32;
            p.parent_pid = r.ptr()? as u32;
        } else {
            let first = r.ptr()?;
            if v >= 2 {
                p.unique_process_key = first;
            }
            p.pid = r.u32()?;
            p.parent_pid = r.u32()?;
            p.session_id = r.u32()?;
            p.exit_status = r.i32()?;
            if v >= 3 {
                p.directory_table_base = r.ptr()?;
            }
            if v >= 4 {
                p.flags = r.u32()?;
            }
        }
        p.user_sid = read_sid(r)?;
        p.image_file_name = r.cstr()?;
        if v >= 2 {
            p.command_line = r.utf16z()?;
        }
        if v >= 4 {
            p.package_full_name = r.utf16z()?;
            p.application_id = r.utf16z()?;
        }
        if v >= 5 && r.remaining() >= 8 {
            p.exit_time = Some(r.i64()?);
        }
        Ok(p)
    }
}

/// A user SID as logged by the kernel: a u32 0 when absent, else a
/// TOKEN_USER (2P bytes) followed by the SID, whose byte 1 is the number of
/// sub-authorities n (SID length 8 + 4n). TE `SkipSID`, verified on x64/shut.
///
/// Tools that log kernel-shaped process events themselves (sawbuck's
/// Windows 7 sessions) leave the TOKEN_USER's Sid pointer 0 yet write the SID
/// after it. A truly absent SID is followed by the image name, whose bytes at
/// 2P are text or the end of it, never a SID's revision 1, sub-authority count
/// and zero-led identifier authority, so that pattern there means a SID.
pub fn read_sid(r: &mut Reader<'_>) -> Result<Option<String>> {
    let start = r.pos();
    if r.u32()? == 0 && !sid_follows(r.data(), start + 2 * r.pointer_size() as usize) {
        return Ok(None);
    }
    r.seek(start)?;
    r.skip(2 * r.pointer_size() as usize)?;
    let revision = r.u8()?;
    let count = r.u8()?;
    let authority = r.bytes(6)?;
    let mut s = format!("S-{revision}-");
    let auth = authority.iter().fold(0u64, |a, &b| (a << 8) | u64::from(b));
    s.push_str(&auth.to_string());
    for _ in 0..count {
        s.push('-');
        s.push_str(&r.u32()?.to_string());
    }
    Ok(Some(s))
}

/// Whether the bytes at `at` start a SID: revision 1, at most 15
/// sub-authorities, and an identifier authority whose first five bytes are 0
/// (every well-known authority is below 256).
fn sid_follows(data: &[u8], at: usize) -> bool {
    match data.get(at..at + 8) {
        Some([1, count, 0, 0, 0, 0, 0, _]) => *count <= 15,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::test_util::{kernel_event, utf16z};

    /// A v4 start event with 32-bit pointers and a SID (hand-built per C.1).
    #[test]
    fn v4_with_32_bit_pointers_and_sid() {
        let mut b = Vec::new();
        b.extend(0x8123_4560u32.to_le_bytes()); // UniqueProcessKey
        b.extend(1234u32.to_le_bytes());
        b.extend(567u32.to_le_bytes());
        b.extend(1u32.to_le_bytes()); // session
        b.extend(0x103i32.to_le_bytes()); // exit status
        b.extend(0x1ab000u32.to_le_bytes()); // DirectoryTableBase
        b.extend(0x10u32.to_le_bytes()); // flags
        b.extend([0xAA; 8]); // TOKEN_USER (2P)
        b.extend([1, 2, 0, 0, 0, 0, 0, 5]); // revision 1, 2 sub-authorities, NT authority
        b.extend(21u32.to_le_bytes());
        b.extend(1000u32.to_le_bytes());
        b.extend(b"app.exe\0");
        b.extend(utf16z("app.exe -x"));
        b.extend(utf16z("pkg"));
        b.extend(utf16z("App"));
        let ev = kernel_event(0x0301, 4, 4, &b);
        let p = Process::decode(&ev).unwrap();
        assert_eq!(p.kind, ProcessKind::Start);
        assert_eq!((p.pid, p.parent_pid, p.session_id), (1234, 567, 1));
        assert_eq!(p.exit_status, 0x103);
        assert_eq!(p.unique_process_key, 0x8123_4560);
        assert_eq!(p.directory_table_base, 0x1ab000);
        assert_eq!(p.flags, 0x10);
        assert_eq!(p.user_sid.as_deref(), Some("S-1-5-21-1000"));
        assert_eq!(p.image_file_name, "app.exe");
        assert_eq!(p.command_line, "app.exe -x");
        assert_eq!(
            (p.package_full_name.as_str(), p.application_id.as_str()),
            ("pkg", "App")
        );
    }

    #[test]
    fn v1_has_no_command_line_and_null_sid() {
        let mut b = Vec::new();
        b.extend(0u32.to_le_bytes());
        b.extend(8u32.to_le_bytes());
        b.extend(4u32.to_le_bytes());
        b.extend(0u32.to_le_bytes());
        b.extend(0u32.to_le_bytes());
        b.extend(0u32.to_le_bytes()); // null SID
        b.extend(b"smss.exe\0");
        let p = Process::decode(&kernel_event(0x0303, 1, 4, &b)).unwrap();
        assert_eq!((p.pid, p.parent_pid), (8, 4));
        assert_eq!(p.user_sid, None);
        assert_eq!(p.image_file_name, "smss.exe");
        assert_eq!(p.command_line, "");
    }

    #[test]
    fn truncated_payload_names_the_offset() {
        let b = [0u8; 10];
        let e = Process::decode(&kernel_event(0x0301, 4, 8, &b)).unwrap_err();
        assert_eq!(e.offset, 8);
        assert_eq!(e.event, "Process");
    }
}
