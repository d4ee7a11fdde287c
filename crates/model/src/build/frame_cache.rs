//! The stack resolver's memo of frame rows by (process, address): one
//! small map per process. One map keyed by the pair held 8 M entries of
//! 24 bytes on a 10M-sample trace and, doubling from 176 to 352 MB in one
//! step, made the peak of the whole build; per process an entry is 16
//! bytes and each map grows on its own.

use rustc_hash::FxHashMap;

#[derive(Debug, Clone, Default)]
pub(crate) struct FrameCache {
    /// Process row (`NONE` for kernel addresses) -> address -> frame row.
    by_process: FxHashMap<u32, FxHashMap<u64, u32>>,
}

impl FrameCache {
    pub(crate) fn get(&self, process: u32, addr: u64) -> Option<u32> {
        self.by_process.get(&process)?.get(&addr).copied()
    }

    pub(crate) fn insert(&mut self, process: u32, addr: u64, frame: u32) {
        self.by_process
            .entry(process)
            .or_default()
            .insert(addr, frame);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_is_remembered_per_process() {
        let mut c = FrameCache::default();
        c.insert(1, 0x1000, 7);
        c.insert(2, 0x1000, 8);
        c.insert(1, 0x1000, 9); // a second insert replaces, as a map's would
        assert_eq!(c.get(1, 0x1000), Some(9));
        assert_eq!(c.get(2, 0x1000), Some(8));
        assert_eq!(c.get(3, 0x1000), None);
        assert_eq!(c.get(1, 0x2000), None);
    }
}
