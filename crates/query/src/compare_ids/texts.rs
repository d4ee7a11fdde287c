//! Dense ids of texts, shared by both traces of a comparison: equal texts
//! have equal ids whichever trace or key they came from.

use rustc_hash::FxHashMap;

#[derive(Default)]
pub(super) struct Texts {
    index: FxHashMap<String, u32>,
    texts: Vec<String>,
}

impl Texts {
    pub(super) fn id(&mut self, s: String) -> u32 {
        if let Some(&i) = self.index.get(&s) {
            return i;
        }
        let i = self.texts.len() as u32;
        self.texts.push(s.clone());
        self.index.insert(s, i);
        i
    }

    pub(super) fn get(&self, id: u32) -> &str {
        self.texts.get(id as usize).map_or("", |s| s.as_str())
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
