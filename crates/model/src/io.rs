//! File I/O and Disk I/O: one row per operation.

use crate::strings::StrId;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FileOp {
    Create,
    Cleanup,
    Close,
    Read,
    Write,
    Flush,
    Delete,
    Rename,
    SetInfo,
    QueryInfo,
    DirEnum,
    DirNotify,
    FsControl,
    Other,
}

impl FileOp {
    pub fn name(self) -> &'static str {
        match self {
            FileOp::Create => "Create",
            FileOp::Cleanup => "Cleanup",
            FileOp::Close => "Close",
            FileOp::Read => "Read",
            FileOp::Write => "Write",
            FileOp::Flush => "Flush",
            FileOp::Delete => "Delete",
            FileOp::Rename => "Rename",
            FileOp::SetInfo => "SetInfo",
            FileOp::QueryInfo => "QueryInfo",
            FileOp::DirEnum => "DirEnum",
            FileOp::DirNotify => "DirNotify",
            FileOp::FsControl => "FsControl",
            FileOp::Other => "Other",
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct FileIoTable {
    /// ns since trace start, sorted.
    pub time: Vec<i64>,
    /// Until the OperationEnd with the same IRP, when one was seen, else 0.
    pub duration_ns: Vec<i64>,
    pub op: Vec<FileOp>,
    pub thread: Vec<u32>,
    pub process: Vec<u32>,
    pub path: Vec<StrId>,
    pub size: Vec<u64>,
    pub offset: Vec<u64>,
    /// Raw kernel file object (joins with Disk I/O and hard faults).
    pub file_object: Vec<u64>,
    pub stack: Vec<u32>,
    /// Which provider reported it: kernel FileIo or Microsoft-Windows-Kernel-File.
    pub from_kernel_file_provider: Vec<bool>,
}

impl FileIoTable {
    pub fn len(&self) -> usize {
        self.time.len()
    }
    pub fn is_empty(&self) -> bool {
        self.time.is_empty()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DiskOp {
    Read,
    Write,
    Flush,
}

impl DiskOp {
    pub fn name(self) -> &'static str {
        match self {
            DiskOp::Read => "Read",
            DiskOp::Write => "Write",
            DiskOp::Flush => "Flush",
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct DiskIoTable {
    /// Issue time: completion time less the response time (ns since trace start).
    pub time: Vec<i64>,
    /// Service time (HighResResponseTime), ns; 0 when the event has none.
    pub duration_ns: Vec<i64>,
    pub op: Vec<DiskOp>,
    pub disk: Vec<u32>,
    pub thread: Vec<u32>,
    pub process: Vec<u32>,
    pub path: Vec<StrId>,
    pub size: Vec<u32>,
    pub offset: Vec<u64>,
    /// I/O priority from the IRP flags.
    pub priority: Vec<u8>,
    /// Stack of the init event (issue), `images::NONE` if none.
    pub stack: Vec<u32>,
}

impl DiskIoTable {
    pub fn len(&self) -> usize {
        self.time.len()
    }
    pub fn is_empty(&self) -> bool {
        self.time.is_empty()
    }
}

#[derive(Debug, Clone, Default)]
pub struct HardFaultTable {
    /// When the fault began (InitialTime), ns since trace start.
    pub time: Vec<i64>,
    pub thread: Vec<u32>,
    pub process: Vec<u32>,
    pub path: Vec<StrId>,
    pub size: Vec<u32>,
    pub offset: Vec<u64>,
    pub duration_ns: Vec<i64>,
    pub virtual_address: Vec<u64>,
    /// What was read: an image, a data file or the pagefile.
    pub kind: Vec<HardFaultKind>,
    /// The faulting thread's stack, `images::NONE` if none was walked.
    pub stack: Vec<u32>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum HardFaultKind {
    Image,
    #[default]
    Data,
    PageFile,
}

impl HardFaultKind {
    pub fn name(self) -> &'static str {
        match self {
            HardFaultKind::Image => "Image",
            HardFaultKind::Data => "Data",
            HardFaultKind::PageFile => "PageFile",
        }
    }

    /// The kind of a fault on `path`, given whether the trace loaded an
    /// image of that file name: pagefile.sys and swapfile.sys back the
    /// pagefile; an executable mapping is an image (code and data pages of
    /// the same file alike, as the kernel maps it once as an image).
    pub fn of(path: &str, loaded_as_image: bool) -> HardFaultKind {
        let name = path
            .rsplit(['\\', '/'])
            .next()
            .unwrap_or("")
            .to_ascii_lowercase();
        if name == "pagefile.sys" || name == "swapfile.sys" {
            return HardFaultKind::PageFile;
        }
        let ext = name.rsplit_once('.').map_or("", |(_, e)| e);
        if loaded_as_image || matches!(ext, "exe" | "dll" | "sys" | "drv" | "ocx" | "cpl" | "scr") {
            HardFaultKind::Image
        } else {
            HardFaultKind::Data
        }
    }
}

impl HardFaultTable {
    pub fn len(&self) -> usize {
        self.time.len()
    }
    pub fn is_empty(&self) -> bool {
        self.time.is_empty()
    }
}
