//! Payloads of the events the `explorer-overlay` scenario adds to the
//! bench set: profile interval, cached stack keys, FileIo and the
//! KernelTraceControl image information xperf adds when merging. Layouts
//! are those `etl::decode` reads (perfinfo.rs, stackwalk.rs, fileio.rs,
//! image_id.rs).

use crate::kernel::Payload;
use etl::Guid;

pub mod hooks {
    pub const PROFILE_INTERVAL_START: u16 = 0x0F49;
    pub const PROFILE_INTERVAL_END: u16 = 0x0F4A;
    pub const STACK_KEY_RUNDOWN: u16 = 0x1824;
    pub const STACK_KEY_KERNEL: u16 = 0x1825;
    pub const STACK_KEY_USER: u16 = 0x1826;
    pub const FILEIO_CREATE: u16 = 0x0440;
    pub const FILEIO_RUNDOWN: u16 = 0x0424;
}

/// KernelTraceControl {b3e675d7-2554-4f18-830b-2762732560de} and its opcodes.
pub const KERNEL_TRACE_CONTROL: Guid = Guid::from_u128(0xb3e675d7_2554_4f18_830b_2762732560de);
pub mod ktc_opcodes {
    pub const IMAGE_ID: u8 = 0;
    pub const DBG_ID_RSDS: u8 = 36;
    pub const FILE_VERSION: u8 = 64;
}

/// SysConfig {9b79ee91-b5fd-41c0-a243-4248e266e9d0}: the rundown xperf
/// writes so that NT paths can be shown with drive letters.
pub const SYSCONFIG: Guid = Guid::from_u128(0x9b79ee91_b5fd_41c0_a243_4248e266e9d0);
pub mod sysconfig_opcodes {
    pub const SYSTEM_PATHS: u8 = 33;
    pub const VOLUME_MAPPING: u8 = 35;
}

/// SysConfig SystemPaths: system directory, Windows directory.
pub fn system_paths(system_directory: &str, windows_directory: &str) -> Vec<u8> {
    let mut w = Payload::new(8);
    w.utf16z(system_directory).utf16z(windows_directory);
    w.done()
}

/// SysConfig VolumeMapping: NT device path, DOS drive.
pub fn volume_mapping(nt_path: &str, dos_path: &str) -> Vec<u8> {
    let mut w = Payload::new(8);
    w.utf16z(nt_path).utf16z(dos_path);
    w.done()
}

/// 0x0F49 / 0x0F4A (v3): Source 0 (timer), new and old interval in 100 ns.
pub fn profile_interval(interval_100ns: u32) -> Vec<u8> {
    let mut w = Payload::new(8);
    w.u32(0)
        .u32(interval_100ns)
        .u32(interval_100ns)
        .utf16z("Timer");
    w.done()
}

/// 0x1824 KeyRundown: P key, then frames leaf first.
pub fn stack_key_definition(p: u8, key: u64, frames: &[u64]) -> Vec<u8> {
    let mut w = Payload::new(p);
    w.ptr(key);
    for &f in frames {
        w.ptr(f);
    }
    w.done()
}

/// 0x1825 / 0x1826: EventTimeStamp, process, thread, P key.
pub fn stack_key_reference(p: u8, event_ts: i64, pid: u32, tid: u32, key: u64) -> Vec<u8> {
    let mut w = Payload::new(p);
    w.u64(event_ts as u64).u32(pid).u32(tid).ptr(key);
    w.done()
}

/// 0x0440 Create v3: IRP, FileObject, TTID (u32), CreateOptions,
/// FileAttributes, ShareAccess, OpenPath.
pub fn file_create(p: u8, irp: u64, file_object: u64, ttid: u32, path: &str) -> Vec<u8> {
    let mut w = Payload::new(p);
    // FILE_OPEN (1) << 24 | FILE_NON_DIRECTORY_FILE | FILE_SYNCHRONOUS_IO_NONALERT.
    let options = 1u32 << 24 | 0x40 | 0x20;
    w.ptr(irp)
        .ptr(file_object)
        .u32(ttid)
        .u32(options)
        .u32(0x80) // FILE_ATTRIBUTE_NORMAL
        .u32(0x7) // share read, write, delete
        .utf16z(path);
    w.done()
}

/// 0x0424 FileRundown (v2): P FileKey, FileName.
pub fn file_rundown(p: u8, file_key: u64, path: &str) -> Vec<u8> {
    let mut w = Payload::new(p);
    w.ptr(file_key).utf16z(path);
    w.done()
}

/// KernelTraceControl ImageID: base, size, pid, TimeDateStamp, OriginalFileName.
pub fn image_id(
    p: u8,
    base: u64,
    size: u64,
    pid: u32,
    time_date_stamp: u32,
    name: &str,
) -> Vec<u8> {
    let mut w = Payload::new(p);
    w.ptr(base)
        .ptr(size)
        .u32(pid)
        .u32(time_date_stamp)
        .utf16z(name);
    w.done()
}

/// KernelTraceControl DbgID_RSDS: base, pid, GUID, age, PDB file name (ANSI).
pub fn dbg_id_rsds(p: u8, base: u64, pid: u32, guid: Guid, age: u32, pdb: &str) -> Vec<u8> {
    let mut w = Payload::new(p);
    w.ptr(base).u32(pid);
    w.b.extend_from_slice(&guid.to_bytes_le());
    w.u32(age).ansiz(pdb);
    w.done()
}

/// The version resource strings of one image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VersionInfo<'a> {
    pub original_file_name: &'a str,
    pub file_description: &'a str,
    pub file_version: &'a str,
    pub product_name: &'a str,
    pub company_name: &'a str,
    pub product_version: &'a str,
}

/// KernelTraceControl FileVersion: ImageSize, TimeDateStamp, then strings
/// (BinFileVersion repeats FileVersion, VerLanguage is "0409").
pub fn file_version(size: u32, time_date_stamp: u32, v: &VersionInfo<'_>) -> Vec<u8> {
    file_version_with(size, time_date_stamp, v, v.file_version, "0409")
}

/// FileVersion with BinFileVersion (VS_FIXEDFILEINFO's "a.b.c.d") and
/// VerLanguage (the language id in decimal, "1033") given, as xperf writes them.
pub fn file_version_with(
    size: u32,
    time_date_stamp: u32,
    v: &VersionInfo<'_>,
    bin_file_version: &str,
    ver_language: &str,
) -> Vec<u8> {
    let mut w = Payload::new(8);
    w.u32(size)
        .u32(time_date_stamp)
        .utf16z(v.original_file_name)
        .utf16z(v.file_description)
        .utf16z(v.file_version)
        .utf16z(bin_file_version)
        .utf16z(ver_language)
        .utf16z(v.product_name)
        .utf16z(v.company_name)
        .utf16z(v.product_version)
        .utf16z("") // FileId
        .utf16z(""); // ProgramId
    w.done()
}
