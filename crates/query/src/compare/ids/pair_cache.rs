//! The per-pair counts of a comparison kept on the engine for requests
//! without a time range (issue 17): the pass over every sample sorted by
//! thread (`class_totals::by_pair`) answers the same pairs for the same
//! grouping of one trace, so its answer is kept, per grouping, and used
//! again when the request's parts of each class are the same (checked
//! by a hash of them, not assumed). A few groupings are kept, 24 bytes
//! per pair.

use super::class_totals::Tally;
use super::hash_keys::Keys;
use std::sync::{Arc, Mutex};

/// Groupings kept per trace (the oldest dropped first).
const KEPT: usize = 4;

/// What a pass's answer depends on: each class's local part, per side
/// (keyed 128-bit hashes: a trace cannot be made to collide them).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) struct PairKey(u128, u128);

impl PairKey {
    pub(super) fn of(thread_part: &[u32], stack_part: &[u32]) -> PairKey {
        let hash = |v: &[u32]| {
            Keys::get().hash(|h| {
                h.write_usize(v.len());
                let mut bytes = Vec::with_capacity(4096);
                for chunk in v.chunks(1024) {
                    bytes.clear();
                    chunk
                        .iter()
                        .for_each(|x| bytes.extend_from_slice(&x.to_le_bytes()));
                    h.write(&bytes);
                }
            })
        };
        PairKey(hash(thread_part), hash(stack_part))
    }
}

pub(super) type Pairs = Arc<Vec<(u32, u32, Tally)>>;

#[derive(Default)]
pub(super) struct PairCache(Mutex<Vec<(PairKey, Pairs)>>);

impl PairCache {
    /// The pairs kept for `key`, else those `make` answers (then kept).
    pub(super) fn get_or(
        &self,
        key: PairKey,
        make: impl FnOnce() -> Vec<(u32, u32, Tally)>,
    ) -> Pairs {
        if let Ok(kept) = self.0.lock() {
            if let Some((_, p)) = kept.iter().find(|(k, _)| *k == key) {
                return p.clone();
            }
        }
        let pairs = Arc::new(make());
        if let Ok(mut kept) = self.0.lock() {
            if kept.len() >= KEPT {
                kept.remove(0);
            }
            kept.push((key, pairs.clone()));
        }
        pairs
    }

    pub(super) fn bytes(&self) -> usize {
        self.0.lock().map_or(0, |kept| {
            kept.iter()
                .map(|(_, p)| p.capacity() * std::mem::size_of::<(u32, u32, Tally)>())
                .sum()
        })
    }
}
