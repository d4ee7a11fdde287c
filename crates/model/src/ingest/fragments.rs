//! Distinct stack fragments (leaf-first address lists), so that millions of
//! identical stacks cost one copy. Addresses sit back to back in one vector
//! (no allocation per fragment) and each fragment keeps its hash, taken once
//! in the parallel pass: merging a buffer's set into the trace's compares
//! against stored hashes instead of hashing every fragment again.

use rustc_hash::FxHashMap;

const END: u32 = u32::MAX;

#[derive(Debug, Default, Clone)]
pub struct FragmentSet {
    /// Every fragment's addresses, back to back.
    frames: Vec<u64>,
    /// Fragment `i` is `frames[ends[i - 1]..ends[i]]` (from 0 for the first).
    ends: Vec<usize>,
    hashes: Vec<u64>,
    /// Next fragment with the same hash (`END` for none).
    next: Vec<u32>,
    /// Hash -> the latest fragment with it (the head of its chain).
    heads: FxHashMap<u64, u32>,
}

/// A fast, deterministic hash of an address list (FxHash-style mixing).
fn hash_of(frames: &[u64]) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let mut h = (frames.len() as u64).wrapping_mul(K);
    for &a in frames {
        h = (h.rotate_left(5) ^ a).wrapping_mul(K);
    }
    h
}

impl FragmentSet {
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The id of `frames`, added if new.
    pub fn intern(&mut self, frames: &[u64]) -> u32 {
        self.intern_hashed(hash_of(frames), frames)
    }

    fn intern_hashed(&mut self, hash: u64, frames: &[u64]) -> u32 {
        let head = self.heads.get(&hash).copied().unwrap_or(END);
        let mut id = head;
        while id != END {
            if self.get(id) == frames {
                return id;
            }
            id = self.next.get(id as usize).copied().unwrap_or(END);
        }
        let id = self.ends.len() as u32;
        self.frames.extend_from_slice(frames);
        self.ends.push(self.frames.len());
        self.hashes.push(hash);
        self.next.push(head);
        self.heads.insert(hash, id);
        id
    }

    /// Add every fragment of `other`; returns its ids renumbered into ours.
    pub fn absorb(&mut self, other: &FragmentSet) -> Vec<u32> {
        (0..other.len())
            .map(|i| {
                let hash = other.hashes.get(i).copied().unwrap_or(0);
                self.intern_hashed(hash, other.get(i as u32))
            })
            .collect()
    }

    /// The addresses of fragment `id` (empty for an unknown id).
    pub fn get(&self, id: u32) -> &[u64] {
        let i = id as usize;
        let Some(&end) = self.ends.get(i) else {
            return &[];
        };
        let start = match i.checked_sub(1) {
            Some(p) => self.ends.get(p).copied().unwrap_or(0),
            None => 0,
        };
        self.frames.get(start..end).unwrap_or_default()
    }

    /// Release the slack of the growing vectors (a buffer's set is kept
    /// until the merge).
    pub fn shrink_to_fit(&mut self) {
        self.frames.shrink_to_fit();
        self.ends.shrink_to_fit();
        self.hashes.shrink_to_fit();
        self.next.shrink_to_fit();
        self.heads.shrink_to_fit();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// Same ids as a naive map from address lists to first-seen ids, also
    /// across a merge, with fragments that collide in length and content.
    #[test]
    fn interns_like_a_map_of_address_lists() {
        let mut rng = testdata::Rng::new(7);
        let mut merged = FragmentSet::default();
        let mut naive: HashMap<Vec<u64>, u32> = HashMap::new();
        for _ in 0..50 {
            let mut part = FragmentSet::default();
            let mut local: HashMap<Vec<u64>, u32> = HashMap::new();
            for _ in 0..40 {
                let len = rng.below(4);
                let f: Vec<u64> = (0..len).map(|_| rng.below_u64(3)).collect();
                let next = local.len() as u32;
                let want = *local.entry(f.clone()).or_insert(next);
                assert_eq!(part.intern(&f), want);
                assert_eq!(part.get(want), &f[..]);
            }
            part.shrink_to_fit();
            let map = merged.absorb(&part);
            for (f, &id) in &local {
                let next = naive.len() as u32;
                let want = *naive.entry(f.clone()).or_insert(next);
                let got = map[id as usize];
                assert_eq!(merged.get(got), &f[..]);
                // Equal lists share an id; distinct ones never do.
                assert_eq!(naive.iter().filter(|(_, &v)| v == want).count(), 1);
                assert_eq!(merged.intern(f), got);
            }
            assert_eq!(merged.len(), naive.len());
        }
        assert_eq!(merged.get(u32::MAX), &[] as &[u64]);
    }
}
