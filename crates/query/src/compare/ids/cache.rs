//! What a comparison reads of one trace that no request changes, kept on
//! the engine and made on the first comparison that needs it: the first
//! sample row of each thread class and of each stack class (a class's
//! key cells are read at that row; finding them scanned the samples on
//! every request), 4 bytes per thread and per stack row; each stack
//! class's Function label (`function.rs`, 4 bytes per stack row and the
//! labels); each stack row's path fingerprint (`fingerprint.rs`, 16 bytes
//! per stack row); the per-pair counts of the last few groupings by
//! thread and stack columns without a range (`pair_cache.rs`).

use super::class_totals::{stack_class, thread_class};
use super::fingerprint;
use super::function::FunctionLabels;
use super::pair_cache::{PairCache, PairKey, Pairs};
use model::Trace;
use std::sync::OnceLock;

#[derive(Default)]
pub struct CompareCache {
    first_of_thread: OnceLock<Vec<u32>>,
    first_of_stack: OnceLock<Vec<u32>>,
    function: OnceLock<FunctionLabels>,
    fingerprints: OnceLock<Option<Vec<u128>>>,
    pairs: PairCache,
}

impl CompareCache {
    /// The first sample row of each thread class (`u32::MAX`: none).
    pub(super) fn first_of_thread(&self, t: &Trace) -> &[u32] {
        self.first_of_thread
            .get_or_init(|| first_rows(t, t.threads.len() + 1, thread_class))
    }

    /// The first sample row of each stack class (`u32::MAX`: none).
    pub(super) fn first_of_stack(&self, t: &Trace) -> &[u32] {
        self.first_of_stack
            .get_or_init(|| first_rows(t, t.stacks.len() + 1, stack_class))
    }

    /// Each stack class's Function label.
    pub(super) fn function(&self, t: &Trace) -> &FunctionLabels {
        self.function.get_or_init(|| FunctionLabels::of_trace(t))
    }

    /// The Function labels, if made.
    pub(super) fn function_made(&self) -> Option<&FunctionLabels> {
        self.function.get()
    }

    /// Each stack class's path fingerprint (`None`: paths would not match
    /// texts one to one).
    pub(super) fn fingerprints(&self, t: &Trace) -> Option<&[u128]> {
        self.fingerprints
            .get_or_init(|| fingerprint::of_trace(t))
            .as_deref()
    }

    /// The pairs kept for `key`, else those `pass` counts (then kept).
    pub(super) fn pairs(
        &self,
        key: PairKey,
        pass: impl FnOnce() -> Vec<(u32, u32, super::class_totals::Tally)>,
    ) -> Pairs {
        self.pairs.get_or(key, pass)
    }

    /// Makes what every comparison of this trace reads (all but the
    /// pairs), so that the first comparison after a trace opens does not
    /// pay for it; the server calls it once the trace is ready and named.
    pub fn warm(&self, t: &Trace) {
        self.first_of_thread(t);
        self.first_of_stack(t);
        self.function(t);
        self.fingerprints(t);
    }

    /// Bytes held by what has been made so far.
    pub fn bytes(&self) -> usize {
        let rows = |v: Option<&Vec<u32>>| v.map_or(0, |v| v.capacity() * 4);
        let fps = self.fingerprints.get().and_then(|v| v.as_ref());
        rows(self.first_of_thread.get())
            + rows(self.first_of_stack.get())
            + self.function.get().map_or(0, FunctionLabels::bytes)
            + fps.map_or(0, |v| v.capacity() * 16)
            + self.pairs.bytes()
    }
}

impl std::fmt::Debug for CompareCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CompareCache({} bytes)", self.bytes())
    }
}

/// The first sample row of each of `classes` classes, `class` mapping a
/// row to its class (rows past u32 are not read).
fn first_rows(t: &Trace, classes: usize, class: impl Fn(&Trace, usize) -> usize) -> Vec<u32> {
    let mut first = vec![u32::MAX; classes];
    let mut left = classes;
    for i in 0..t.samples.len().min(u32::MAX as usize) {
        if left == 0 {
            break;
        }
        if let Some(f) = first.get_mut(class(t, i)) {
            if *f == u32::MAX {
                *f = i as u32;
                left -= 1;
            }
        }
    }
    first
}
