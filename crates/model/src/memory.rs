//! Page Faults: one row per soft fault (PageFault opcodes 10..=15).

pub use etl::decode::PageFaultKind;

#[derive(Debug, Clone, Default)]
pub struct PageFaultTable {
    /// ns since trace start, sorted.
    pub time: Vec<i64>,
    pub thread: Vec<u32>,
    pub process: Vec<u32>,
    pub kind: Vec<PageFaultKind>,
    pub virtual_address: Vec<u64>,
    pub program_counter: Vec<u64>,
    /// `images::NONE` without a stack walk.
    pub stack: Vec<u32>,
}

impl PageFaultTable {
    pub fn len(&self) -> usize {
        self.time.len()
    }
    pub fn is_empty(&self) -> bool {
        self.time.is_empty()
    }
}

/// Where an address lies: the upper half of a 64-bit (or the top 2 GiB
/// of a 32-bit) address space is the kernel's.
pub fn region(address: u64, pointer_size: u32) -> &'static str {
    let kernel = if pointer_size == 4 {
        address >= 0x8000_0000
    } else {
        address >= 0xFFFF_8000_0000_0000
    };
    if kernel {
        "Kernel"
    } else {
        "User"
    }
}
