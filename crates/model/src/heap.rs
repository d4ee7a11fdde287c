//! Heap Allocations: one row per heap block, from its Alloc (or the
//! ReAlloc that made it) to the Free, ReAlloc or Destroy that ended it.

/// WPA's classes of a block against the whole trace (the tables class
/// rows against the selected range: `query::table::columns::range_class`):
/// Allocated Inside/Outside,
/// Freed Inside/Outside. Here the range is the whole trace: AIFI freed in
/// the trace, AIFO still allocated at its end, AOFI allocated before it
/// (a free of a block no Alloc named), AOFO never seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum HeapClass {
    Aifi,
    Aifo,
    Aofi,
}

impl HeapClass {
    pub fn name(self) -> &'static str {
        match self {
            HeapClass::Aifi => "AIFI",
            HeapClass::Aifo => "AIFO",
            HeapClass::Aofi => "AOFI",
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct HeapTable {
    pub process: Vec<u32>,
    pub handle: Vec<u64>,
    pub address: Vec<u64>,
    /// 0 for AOFI blocks (their Alloc was not seen).
    pub size: Vec<u64>,
    /// ns since trace start; `processes::OPEN` for AOFI.
    pub alloc_time: Vec<i64>,
    /// `processes::OPEN` while allocated at the trace's end.
    pub free_time: Vec<i64>,
    pub thread: Vec<u32>,
    pub alloc_stack: Vec<u32>,
    pub free_stack: Vec<u32>,
}

impl HeapTable {
    pub fn len(&self) -> usize {
        self.address.len()
    }
    pub fn is_empty(&self) -> bool {
        self.address.is_empty()
    }

    pub fn class(&self, row: usize) -> HeapClass {
        use crate::processes::OPEN;
        match (self.alloc_time.get(row), self.free_time.get(row)) {
            (Some(&OPEN), _) => HeapClass::Aofi,
            (_, Some(&OPEN)) => HeapClass::Aifo,
            _ => HeapClass::Aifi,
        }
    }
}
