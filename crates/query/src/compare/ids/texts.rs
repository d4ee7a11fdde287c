//! Dense ids of texts, shared by both traces of a comparison: equal texts
//! have equal ids whichever trace or key they came from.

use crate::table::flat::Interner;
use rustc_hash::FxHashMap;

/// `table::flat`'s interner, with the u32 ids the comparison keeps.
#[derive(Default)]
pub(super) struct Texts(Interner);

impl Texts {
    pub(super) fn id(&mut self, s: String) -> u32 {
        self.0.id(s) as u32
    }

    pub(super) fn get(&self, id: u32) -> &str {
        self.0.texts.get(id as usize).map_or("", |s| s.as_str())
    }

    /// Bytes held, about: each text twice (listed and as its index's key)
    /// and a slot of the index.
    pub(super) fn bytes(&self) -> usize {
        let slot = std::mem::size_of::<(String, i64)>() + 1;
        self.0
            .texts
            .iter()
            .map(|s| 2 * s.capacity() + std::mem::size_of::<String>() + slot)
            .sum()
    }

    /// The rank of each of `ids` (distinct) in the order of their texts.
    pub(super) fn ranks(&self, ids: &[u32]) -> FxHashMap<u32, u32> {
        let mut sorted = ids.to_vec();
        sorted.sort_by(|&a, &b| self.get(a).cmp(self.get(b)));
        sorted
            .into_iter()
            .enumerate()
            .map(|(rank, id)| (id, rank as u32))
            .collect()
    }
}
