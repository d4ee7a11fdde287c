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
            FileOp::Other => "Other",
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct FileIoTable {
    pub time: Vec<i64>,
    /// Duration when the completion was seen, else 0.
    pub duration_ns: Vec<i64>,
    pub op: Vec<FileOp>,
    pub thread: Vec<u32>,
    pub process: Vec<u32>,
    pub path: Vec<StrId>,
    pub size: Vec<u64>,
    pub offset: Vec<u64>,
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

#[derive(Debug, Clone, Default)]
pub struct DiskIoTable {
    pub time: Vec<i64>,
    /// Service time (HighResResponseTime), ns.
    pub duration_ns: Vec<i64>,
    pub write: Vec<bool>,
    pub disk: Vec<u32>,
    pub thread: Vec<u32>,
    pub process: Vec<u32>,
    pub path: Vec<StrId>,
    pub size: Vec<u32>,
    pub offset: Vec<u64>,
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
    pub time: Vec<i64>,
    pub thread: Vec<u32>,
    pub process: Vec<u32>,
    pub path: Vec<StrId>,
    pub size: Vec<u32>,
    pub offset: Vec<u64>,
    pub duration_ns: Vec<i64>,
}
