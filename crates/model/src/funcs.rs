//! Functions: named code, one row per (module, name). Frames point here once
//! they are named (by CLR method events now, by PDBs in the symbols crate).

use crate::images::NONE;
use crate::strings::StrId;
use rustc_hash::FxHashMap as HashMap;

#[derive(Debug, Clone, Default)]
pub struct FuncTable {
    pub name: Vec<StrId>,
    /// Module row, or `NONE` for JIT-compiled code outside any image.
    pub module: Vec<u32>,
    index: HashMap<(u32, StrId), u32>,
}

impl FuncTable {
    /// Bytes held (the columns and the index's buckets).
    pub fn heap_bytes(&self) -> usize {
        (self.name.capacity() + self.module.capacity()) * 4
            + self.index.capacity() * (std::mem::size_of::<((u32, StrId), u32)>() + 1)
    }

    pub fn len(&self) -> usize {
        self.name.len()
    }

    pub fn is_empty(&self) -> bool {
        self.name.is_empty()
    }

    pub fn intern(&mut self, module: u32, name: StrId) -> u32 {
        let next = self.name.len() as u32;
        let id = *self.index.entry((module, name)).or_insert(next);
        if id == next {
            self.name.push(name);
            self.module.push(module);
        }
        id
    }
}

/// Code ranges of JIT-compiled methods of one process, sorted by start.
#[derive(Debug, Clone, Default)]
pub struct JitRanges {
    /// (start, end, func row).
    pub ranges: Vec<(u64, u64, u32)>,
}

impl JitRanges {
    pub fn lookup(&self, addr: u64) -> Option<u32> {
        let i = self.ranges.partition_point(|r| r.0 <= addr);
        let r = self.ranges.get(i.checked_sub(1)?)?;
        (addr < r.1).then_some(r.2)
    }
}

pub const NO_MODULE: u32 = NONE;
