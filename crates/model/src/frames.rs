//! Frames: one row per distinct code location. A frame inside a module is
//! (module, RVA), shared by every process that loaded the module; an address
//! no image covers stays a raw address, keyed per process (JIT code lives
//! there, named later from CLR method events).

use crate::images::NONE;
use rustc_hash::FxHashMap as HashMap;

#[derive(Debug, Clone, Default)]
pub struct FrameTable {
    /// Row in the module table, or `NONE`.
    pub module: Vec<u32>,
    /// RVA within the module, or the raw address when `module` is `NONE`.
    pub address: Vec<u64>,
    /// Process of a raw-address frame (`NONE` for module frames).
    pub process: Vec<u32>,
    /// Function row once symbolized (`NONE` until then).
    pub func: Vec<u32>,
    index: HashMap<(u32, u64, u32), u32>,
}

/// What identifies a frame row: (module, RVA) or (`NONE`, raw address, process).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FrameKey {
    module: u32,
    address: u64,
    process: u32,
}

impl FrameKey {
    pub fn module(module: u32, rva: u64) -> FrameKey {
        FrameKey {
            module,
            address: rva,
            process: NONE,
        }
    }

    pub fn raw(process: u32, address: u64) -> FrameKey {
        FrameKey {
            module: NONE,
            address,
            process,
        }
    }
}

impl FrameTable {
    pub fn len(&self) -> usize {
        self.module.len()
    }

    pub fn is_empty(&self) -> bool {
        self.module.is_empty()
    }

    pub fn intern_module_frame(&mut self, module: u32, rva: u64) -> u32 {
        self.intern(module, rva, NONE)
    }

    pub fn intern_raw_frame(&mut self, process: u32, address: u64) -> u32 {
        self.intern(NONE, address, process)
    }

    pub fn intern_key(&mut self, k: FrameKey) -> u32 {
        self.intern(k.module, k.address, k.process)
    }

    /// The row of a frame already interned (read only: lookups in parallel).
    pub fn get_key(&self, k: FrameKey) -> Option<u32> {
        self.get(k.module, k.address, k.process)
    }

    /// A row by its key (a scan of the rows once sealed: only the build
    /// looks rows up).
    fn get(&self, module: u32, address: u64, process: u32) -> Option<u32> {
        if self.index.is_empty() {
            let mut rows = self.module.iter().zip(&self.address).zip(&self.process);
            return rows
                .position(|((&m, &a), &p)| (m, a, p) == (module, address, process))
                .map(|i| i as u32);
        }
        self.index.get(&(module, address, process)).copied()
    }

    /// Drop the interning index once the build is done (about half the
    /// table's bytes): `intern` makes it again should it be needed.
    pub fn seal(&mut self) {
        self.index = HashMap::default();
    }

    /// Bytes held (the columns' capacity and the index's buckets).
    pub fn heap_bytes(&self) -> usize {
        self.module.capacity() * 4
            + self.address.capacity() * 8
            + self.process.capacity() * 4
            + self.func.capacity() * 4
            + self.index.capacity() * (std::mem::size_of::<((u32, u64, u32), u32)>() + 1)
    }

    /// The index of every row, made again after `seal`.
    fn unseal(&mut self) {
        if self.index.is_empty() && !self.module.is_empty() {
            let rows = self.module.iter().zip(&self.address).zip(&self.process);
            self.index = rows
                .enumerate()
                .map(|(i, ((&m, &a), &p))| ((m, a, p), i as u32))
                .collect();
        }
    }

    fn intern(&mut self, module: u32, address: u64, process: u32) -> u32 {
        self.unseal();
        let next = self.module.len() as u32;
        let id = *self.index.entry((module, address, process)).or_insert(next);
        if id == next {
            self.module.push(module);
            self.address.push(address);
            self.process.push(process);
            self.func.push(NONE);
        }
        id
    }
}
