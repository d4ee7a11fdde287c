//! 128-bit fingerprints of stack paths (issue 17): a stack row's is its
//! parent's combined with its leaf label's text hash, so stacks of equal
//! Stack text have equal fingerprints in any trace, and a comparison
//! matches stacks of two traces without building their paths. Two keyed
//! SipHash passes (keys drawn once per process) make the 128 bits; a
//! collision of distinct paths is about 2^-64 likely among 2^32 paths.

use super::hash_keys::Keys;
use super::labels::frame_fingerprint;
use model::{Trace, NONE};

/// The path of no frames.
pub(super) const EMPTY: u128 = 0;

/// The fingerprint of every stack row of `t`, and `EMPTY` for the extra
/// class at `stacks.len()`; `None` when paths and texts might not match
/// one to one (as `Paths::of_trace`: an empty label or one with `;`, a
/// parent after its child).
pub(super) fn of_trace(t: &Trace) -> Option<Vec<u128>> {
    let st = &t.stacks;
    let keys = Keys::get();
    // Per frame row, its label's fingerprint (0: not read yet).
    let mut label_fp = vec![0u128; t.frames.module.len()];
    let mut out = Vec::with_capacity(st.len() + 1);
    for i in 0..st.len() {
        let parent = match *st.parent.get(i)? {
            NONE => EMPTY,
            p if (p as usize) < i => *out.get(p as usize)?,
            _ => return None,
        };
        let frame = *st.frame.get(i)?;
        let label = match label_fp.get(frame as usize) {
            Some(&l) if l != 0 => l,
            _ => {
                let l = frame_fingerprint(t, frame, keys)?;
                if let Some(slot) = label_fp.get_mut(frame as usize) {
                    *slot = l;
                }
                l
            }
        };
        out.push(keys.hash(|h| {
            h.write_u128(parent);
            h.write_u128(label);
        }));
    }
    out.push(EMPTY);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synthetic::{self, Shape};
    use crate::table::columns::stack_text;
    use rustc_hash::FxHashMap;

    /// Equal fingerprints exactly when the Stack texts are equal, within a
    /// trace and across two traces of differing frames.
    #[test]
    fn fingerprints_are_equal_exactly_for_equal_stack_texts() {
        for seed in 0..6 {
            let traces = [seed, seed + 100].map(|s| synthetic::trace(&Shape::small(s)));
            let mut by_fp: FxHashMap<u128, String> = FxHashMap::default();
            let mut by_text: FxHashMap<String, u128> = FxHashMap::default();
            for t in &traces {
                let Some(fps) = of_trace(t) else {
                    panic!("seed {seed}: no fingerprints");
                };
                assert_eq!(fps.len(), t.stacks.len() + 1);
                for (st, &fp) in fps.iter().enumerate().take(t.stacks.len()) {
                    let text = stack_text(t, st as u32);
                    assert_ne!(fp, EMPTY);
                    assert_eq!(by_fp.entry(fp).or_insert_with(|| text.clone()), &text);
                    assert_eq!(*by_text.entry(text).or_insert(fp), fp, "seed {seed}");
                }
            }
        }
    }
}
