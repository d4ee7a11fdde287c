//! The keys of the 128-bit text and path fingerprints (`fingerprint.rs`,
//! `labels.rs`): two SipHash keys drawn once per process, so fingerprints
//! of two traces of one process compare.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::sync::OnceLock;

/// The hash keys, one pair for every trace of the process.
pub(super) struct Keys([RandomState; 2]);

impl Keys {
    pub(super) fn get() -> &'static Keys {
        static KEYS: OnceLock<Keys> = OnceLock::new();
        KEYS.get_or_init(|| Keys([RandomState::new(), RandomState::new()]))
    }

    /// What `write` writes, hashed under both keys.
    pub(super) fn hash(&self, write: impl Fn(&mut dyn Hasher)) -> u128 {
        let [a, b] = &self.0;
        let (mut x, mut y) = (a.build_hasher(), b.build_hasher());
        write(&mut x);
        write(&mut y);
        (u128::from(x.finish()) << 64) | u128::from(y.finish())
    }
}
