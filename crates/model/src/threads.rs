//! Thread instances: one row per (tid, lifetime), each in one process.

use crate::strings::StrId;

#[derive(Debug, Clone, Default)]
pub struct ThreadTable {
    pub tid: Vec<u32>,
    /// Row in the process table.
    pub process: Vec<u32>,
    /// ns since trace start, `processes::OPEN` when unknown.
    pub start: Vec<i64>,
    pub end: Vec<i64>,
    pub name: Vec<StrId>,
    pub start_address: Vec<u64>,
}

impl ThreadTable {
    pub fn len(&self) -> usize {
        self.tid.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tid.is_empty()
    }

    pub fn push(&mut self, tid: u32, process: u32, start: i64) -> u32 {
        let i = self.tid.len() as u32;
        self.tid.push(tid);
        self.process.push(process);
        self.start.push(start);
        self.end.push(crate::processes::OPEN);
        self.name.push(StrId::EMPTY);
        self.start_address.push(0);
        i
    }
}
