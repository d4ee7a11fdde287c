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

    /// The row of a frame already interned (read only: lookups in parallel).
    pub fn get_module_frame(&self, module: u32, rva: u64) -> Option<u32> {
        self.index.get(&(module, rva, NONE)).copied()
    }

    pub fn get_raw_frame(&self, process: u32, address: u64) -> Option<u32> {
        self.index.get(&(NONE, address, process)).copied()
    }

    fn intern(&mut self, module: u32, address: u64, process: u32) -> u32 {
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
