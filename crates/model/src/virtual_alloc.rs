//! VirtualAlloc Commit Lifetimes: one row per committed region, from its
//! VirtualAlloc (MEM_COMMIT) to the VirtualFree (MEM_DECOMMIT or
//! MEM_RELEASE) that gave it back. A free of part of a region splits it:
//! the freed part ends, the rest stays committed as rows of their own.

#[derive(Debug, Clone, Default)]
pub struct CommitTable {
    pub process: Vec<u32>,
    pub base: Vec<u64>,
    pub size: Vec<u64>,
    /// The VirtualAlloc's flags (MEM_COMMIT, with MEM_RESERVE when both).
    pub flags: Vec<u32>,
    /// ns since trace start.
    pub alloc_time: Vec<i64>,
    /// `processes::OPEN` while still committed at the trace's end.
    pub free_time: Vec<i64>,
    pub thread: Vec<u32>,
    pub commit_stack: Vec<u32>,
    /// `images::NONE` while committed.
    pub decommit_stack: Vec<u32>,
}

impl CommitTable {
    pub fn len(&self) -> usize {
        self.base.len()
    }
    pub fn is_empty(&self) -> bool {
        self.base.is_empty()
    }
}

/// WPA's Commit Type text of VirtualAlloc flags.
pub fn commit_type(flags: u32) -> &'static str {
    if flags & 0x2000 != 0 {
        "Reserve and Commit"
    } else {
        "Commit"
    }
}
