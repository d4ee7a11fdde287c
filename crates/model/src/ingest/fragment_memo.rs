//! The stack row a user fragment became the first time it was interned,
//! with the (module, RVA) each of its addresses resolved to then. Another
//! process that maps every address to the same (module, RVA) gets the same
//! frame rows and so the same stack row: the memo finds it with the
//! processes' small image lists alone, instead of a frame and a stack-row
//! hash lookup per address in tables of millions of rows. (On a trace with
//! 10 M samples, 100 k distinct stacks and 100 processes sharing their
//! DLLs' bases, each stack is first seen in most processes.)

use super::images::AddressMap;
use crate::images::ImageTable;

/// Not memoized (yet).
const UNSET: u32 = u32::MAX;
/// Holds an address no image covers (a per-process raw frame): never memoized.
const RAW: u32 = u32::MAX - 1;

#[derive(Debug, Default)]
pub(super) struct FragmentMemo {
    /// Per fragment id: (start in `module`/`rva`, stack row) or UNSET/RAW.
    entry: Vec<(u32, u32)>,
    /// Each memoized fragment's addresses, leaf first, as resolved then.
    module: Vec<u32>,
    rva: Vec<u64>,
}

impl FragmentMemo {
    /// The stack row of `fragment` (its addresses `leaf_first`) seen in
    /// `process` at `time_ns`, if it resolves as the memoized one did.
    pub(super) fn node(
        &self,
        fragment: u32,
        leaf_first: &[u64],
        process: u32,
        time_ns: i64,
        images: &ImageTable,
        addresses: &AddressMap,
    ) -> Option<u32> {
        let &(start, node) = self.entry.get(fragment as usize)?;
        if start >= RAW {
            return None;
        }
        let range = start as usize..start as usize + leaf_first.len();
        let modules = self.module.get(range.clone())?;
        let rvas = self.rva.get(range)?;
        for ((&addr, &module), &rva) in leaf_first.iter().zip(modules).zip(rvas) {
            if addresses.module_rva(images, process, addr, time_ns)? != (module, rva) {
                return None;
            }
        }
        Some(node)
    }

    /// Remember that `fragment` became stack row `node` in `process` at
    /// `time_ns` (only its first time counts).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn learn(
        &mut self,
        fragment: u32,
        leaf_first: &[u64],
        node: u32,
        process: u32,
        time_ns: i64,
        images: &ImageTable,
        addresses: &AddressMap,
    ) {
        let i = fragment as usize;
        if self.entry.len() <= i {
            self.entry.resize(i + 1, (UNSET, 0));
        }
        if self.entry[i].0 != UNSET || self.module.len() >= RAW as usize {
            return;
        }
        let start = self.module.len();
        for &addr in leaf_first {
            match addresses.module_rva(images, process, addr, time_ns) {
                Some((module, rva)) => {
                    self.module.push(module);
                    self.rva.push(rva);
                }
                None => {
                    self.module.truncate(start);
                    self.rva.truncate(start);
                    self.entry[i] = (RAW, 0);
                    return;
                }
            }
        }
        self.entry[i] = (start as u32, node);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::strings::StrId;

    #[test]
    fn a_fragment_is_found_again_only_where_it_resolves_the_same() {
        // Module 0 at one base in processes 1 and 3, at another in 2; an
        // unload in 3 and an address no image covers.
        let mut images = ImageTable::default();
        images.push(1, 0, StrId::EMPTY, 0x10_0000, 0x1_0000, 0, false);
        images.push(2, 0, StrId::EMPTY, 0x20_0000, 0x1_0000, 0, false);
        let row = images.push(3, 0, StrId::EMPTY, 0x10_0000, 0x1_0000, 0, false);
        images.unload[row as usize] = 500;
        let map = AddressMap::new(&images);
        let frag = [0x10_0100u64, 0x10_0200];
        let mut memo = FragmentMemo::default();
        assert_eq!(memo.node(4, &frag, 1, 100, &images, &map), None);
        memo.learn(4, &frag, 77, 1, 100, &images, &map);
        assert_eq!(memo.node(4, &frag, 1, 100, &images, &map), Some(77));
        assert_eq!(memo.node(4, &frag, 3, 100, &images, &map), Some(77));
        assert_eq!(memo.node(4, &frag, 3, 600, &images, &map), None, "unloaded");
        assert_eq!(
            memo.node(4, &frag, 2, 100, &images, &map),
            None,
            "other base"
        );
        // The first learnt wins; a raw address is never memoized.
        memo.learn(4, &frag, 78, 3, 100, &images, &map);
        assert_eq!(memo.node(4, &frag, 1, 100, &images, &map), Some(77));
        let raw = [0x10_0100u64, 0x90_0000];
        memo.learn(9, &raw, 5, 1, 100, &images, &map);
        assert_eq!(memo.node(9, &raw, 1, 100, &images, &map), None);
        assert_eq!(
            memo.node(2, &frag, 1, 100, &images, &map),
            None,
            "not learnt"
        );
    }
}
