//! Payloads of kernel events, laid out as in the format notes (section C)
//! for pointer size `p` (4 or 8).

/// Appends little-endian fields; pointer-sized ones take `p` bytes.
pub(crate) struct Payload {
    p: u8,
    pub(crate) b: Vec<u8>,
}

impl Payload {
    pub(crate) fn new(p: u8) -> Payload {
        Payload {
            p,
            b: Vec::with_capacity(128),
        }
    }
    pub(crate) fn ptr(&mut self, v: u64) -> &mut Self {
        if self.p == 4 {
            self.b.extend_from_slice(&(v as u32).to_le_bytes());
        } else {
            self.b.extend_from_slice(&v.to_le_bytes());
        }
        self
    }
    pub(crate) fn u8(&mut self, v: u8) -> &mut Self {
        self.b.push(v);
        self
    }
    pub(crate) fn u16(&mut self, v: u16) -> &mut Self {
        self.b.extend_from_slice(&v.to_le_bytes());
        self
    }
    pub(crate) fn u32(&mut self, v: u32) -> &mut Self {
        self.b.extend_from_slice(&v.to_le_bytes());
        self
    }
    pub(crate) fn u64(&mut self, v: u64) -> &mut Self {
        self.b.extend_from_slice(&v.to_le_bytes());
        self
    }
    pub(crate) fn ansiz(&mut self, s: &str) -> &mut Self {
        self.b.extend_from_slice(s.as_bytes());
        self.b.push(0);
        self
    }
    pub(crate) fn utf16z(&mut self, s: &str) -> &mut Self {
        for u in s.encode_utf16().chain([0]) {
            self.b.extend_from_slice(&u.to_le_bytes());
        }
        self
    }
    pub(crate) fn done(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.b)
    }
}

pub mod hooks {
    pub const PROCESS_DC_START: u16 = 0x0303;
    pub const THREAD_DC_START: u16 = 0x0503;
    pub const IMAGE_DC_START: u16 = 0x1403;
    pub const SAMPLED_PROFILE: u16 = 0x0F2E;
    pub const STACK_WALK: u16 = 0x1820;
}

/// Header versions written with each payload (those of recent Windows).
pub mod versions {
    pub const PROCESS: u16 = 4;
    pub const THREAD: u16 = 3;
    pub const IMAGE: u16 = 3;
    pub const SAMPLED_PROFILE: u16 = 2;
    pub const STACK_WALK: u16 = 2;
}

/// Process v4 (DCStart 0x0303): key, ids, DirectoryTableBase, flags, the
/// user SID (TOKEN_USER of 2P bytes + SID S-1-5-21-...-1001), image file
/// name, command line, package name, application id.
pub struct ProcessFields<'a> {
    pub unique_process_key: u64,
    pub pid: u32,
    pub parent_pid: u32,
    pub session_id: u32,
    pub directory_table_base: u64,
    pub image_file_name: &'a str,
    pub command_line: &'a str,
}

pub fn process(p: u8, f: &ProcessFields<'_>) -> Vec<u8> {
    let mut w = Payload::new(p);
    w.ptr(f.unique_process_key)
        .u32(f.pid)
        .u32(f.parent_pid)
        .u32(f.session_id)
        .u32(0) // ExitStatus
        .ptr(f.directory_table_base)
        .u32(0); // Flags
                 // TOKEN_USER: SID pointer + attributes, padded to 2P.
    w.ptr(0x1000).ptr(0);
    // SID: revision 1, 5 sub-authorities, authority 5 (NT).
    w.u8(1).u8(5);
    w.b.extend_from_slice(&[0, 0, 0, 0, 0, 5]);
    for sub in [21u32, 0x1234_5678, 0x2345_6789, 0x3456_789A, 1001] {
        w.u32(sub);
    }
    w.ansiz(f.image_file_name)
        .utf16z(f.command_line)
        .utf16z("")
        .utf16z("");
    w.done()
}

/// Thread v3 (DCStart 0x0503): 72 bytes with P = 8, 44 with P = 4.
pub struct ThreadFields {
    pub pid: u32,
    pub tid: u32,
    pub stack_base: u64,
    pub stack_limit: u64,
    pub start_addr: u64,
    pub win32_start_addr: u64,
    pub teb_base: u64,
    pub base_priority: u8,
}

pub fn thread(p: u8, f: &ThreadFields) -> Vec<u8> {
    let mut w = Payload::new(p);
    w.u32(f.pid)
        .u32(f.tid)
        .ptr(f.stack_base)
        .ptr(f.stack_limit)
        .ptr(0) // UserStackBase
        .ptr(0) // UserStackLimit
        .ptr(f.start_addr)
        .ptr(f.win32_start_addr)
        .ptr(f.teb_base)
        .u32(0) // SubProcessTag
        .u8(f.base_priority)
        .u8(5) // PagePriority
        .u8(2) // IoPriority
        .u8(0); // ThreadFlags
    w.done()
}

/// Image v3 (DCStart 0x1403): FileName at HostOffset(44, 3).
pub struct ImageFields<'a> {
    pub base: u64,
    pub size: u64,
    pub pid: u32,
    pub checksum: u32,
    pub time_date_stamp: u32,
    pub file_name: &'a str,
}

pub fn image(p: u8, f: &ImageFields<'_>) -> Vec<u8> {
    let mut w = Payload::new(p);
    w.ptr(f.base)
        .ptr(f.size)
        .u32(f.pid)
        .u32(f.checksum)
        .u32(f.time_date_stamp)
        .u8(0x0C) // SignatureLevel
        .u8(1) // SignatureType
        .u16(0)
        .ptr(f.base) // DefaultBase
        .u32(0)
        .u32(0)
        .u32(0)
        .u32(0)
        .utf16z(f.file_name);
    w.done()
}

/// SampledProfile (0x0F2E): IP, ThreadId, Count, flags.
pub fn sampled_profile(p: u8, ip: u64, tid: u32, flags: u16) -> Vec<u8> {
    let mut w = Payload::new(p);
    w.ptr(ip).u32(tid).u16(1).u16(flags);
    w.done()
}

/// StackWalk (0x1820): EventTimeStamp, process, thread, frames leaf first.
pub fn stack_walk(p: u8, event_ts: i64, pid: u32, tid: u32, frames: &[u64]) -> Vec<u8> {
    let mut w = Payload::new(p);
    w.u64(event_ts as u64).u32(pid).u32(tid);
    for &f in frames {
        w.ptr(f);
    }
    w.done()
}

/// KernelTraceControl DbgID_RSDS (opcode 36, classic header): the image's
/// base, pid, PDB GUID (Windows byte order), age and PDB path (ANSI).
pub fn dbgid_rsds(p: u8, base: u64, pid: u32, guid: etl::Guid, age: u32, pdb: &str) -> Vec<u8> {
    let mut w = Payload::new(p);
    w.ptr(base).u32(pid);
    w.b.extend_from_slice(&guid.to_bytes_le());
    w.u32(age).ansiz(pdb);
    w.done()
}
