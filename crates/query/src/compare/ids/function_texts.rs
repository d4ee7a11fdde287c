//! The texts of a comparison's Function ids (`function.rs`), read back
//! from the labels each trace's `CompareCache` keeps.

use super::cache::CompareCache;
use super::function::FunctionIds;
use rustc_hash::FxHashMap;
use std::sync::Arc;

/// The texts of a comparison's Function ids, read from the traces' labels.
pub(super) struct FunctionTexts {
    ids: FunctionIds,
    caches: [Arc<CompareCache>; 2],
}

impl FunctionTexts {
    pub(super) fn new(ids: FunctionIds, caches: [Arc<CompareCache>; 2]) -> FunctionTexts {
        FunctionTexts { ids, caches }
    }

    pub(super) fn text(&self, id: u32) -> String {
        let Some(&(side, l)) = self.ids.rep.get(id as usize) else {
            return String::new();
        };
        self.caches
            .get(usize::from(side))
            .and_then(|c| c.function_made())
            .map_or_else(String::new, |f| f.labels.get(l).into_owned())
    }

    /// The rank of each of `ids` (distinct) in the order of their texts.
    pub(super) fn ranks(&self, ids: &[u32]) -> FxHashMap<u32, u32> {
        let mut texts: Vec<(String, u32)> = ids.iter().map(|&id| (self.text(id), id)).collect();
        texts.sort_unstable();
        texts
            .into_iter()
            .enumerate()
            .map(|(rank, (_, id))| (id, rank as u32))
            .collect()
    }
}
