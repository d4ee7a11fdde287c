//! The Function column of a comparison from a per-trace array (issue 17):
//! each stack class's leaf frame's Function text as a label id of the
//! trace's own labels (equal ids, equal texts), made once per trace and
//! kept on the engine (`cache.rs`, 4 bytes per stack row plus the labels),
//! so a request only counts classes per label and matches the labels with
//! samples by their texts' fingerprints; texts are read only for the rows
//! returned (and those whose order is needed).

use super::class_totals::Tally;
use super::hash_keys::Keys;
use super::keys::{Parts, SideParts};
use super::labels::Labels;
use model::{Trace, NONE};
use rustc_hash::FxHashMap;

pub(super) struct FunctionLabels {
    /// Per stack class (`stacks.len() + 1`), its leaf frame's label.
    of_class: Vec<u32>,
    pub(super) labels: Labels,
}

impl FunctionLabels {
    pub(super) fn of_trace(t: &Trace) -> FunctionLabels {
        let mut labels = Labels::default();
        let mut module_text = vec![u32::MAX; t.modules.name.len()];
        // Per frame row, its label (`u32::MAX`: not read yet).
        let mut of_frame = vec![u32::MAX; t.frames.module.len()];
        let mut of_class = Vec::with_capacity(t.stacks.len() + 1);
        for st in 0..=t.stacks.len() {
            // As the column reads it: the extra class has no frame.
            let f = t.stacks.frame.get(st).copied().unwrap_or(NONE);
            let l = match of_frame.get(f as usize) {
                Some(&l) if l != u32::MAX => l,
                _ => {
                    let l = labels.of_function(t, f, &mut module_text);
                    if let Some(slot) = of_frame.get_mut(f as usize) {
                        *slot = l;
                    }
                    l
                }
            };
            of_class.push(l);
        }
        labels.freeze();
        FunctionLabels { of_class, labels }
    }

    pub(super) fn bytes(&self) -> usize {
        self.of_class.capacity() * 4 + self.labels.bytes()
    }

    /// The parts of one side's stack classes when the Function is the
    /// stack part's only column: one per label with samples, its id that
    /// of its text's fingerprint (no text is made).
    pub(super) fn parts(
        &self,
        side: u8,
        tallies: &[Tally],
        ids: &mut FunctionIds,
        shared: &mut Parts,
    ) -> SideParts {
        let keys = Keys::get();
        let mut part_of = vec![u32::MAX; self.labels.len()];
        let mut out = SideParts {
            of_class: vec![u32::MAX; tallies.len()],
            shared: Vec::new(),
        };
        let classes = out.of_class.iter_mut().zip(tallies).zip(&self.of_class);
        for ((slot, x), &l) in classes {
            if x.count == 0 {
                continue;
            }
            let Some(part) = part_of.get_mut(l as usize) else {
                continue;
            };
            if *part == u32::MAX {
                *part = out.shared.len() as u32;
                let next = ids.rep.len() as u32;
                let id = *ids
                    .index
                    .entry(self.labels.fingerprint(l, keys))
                    .or_insert(next);
                if id == next {
                    ids.rep.push((side, l));
                }
                out.shared.push(shared.id(&[id]));
            }
            *slot = *part;
        }
        out
    }
}

/// Dense ids of both traces' Function texts with samples, by the texts'
/// fingerprints; each id remembers a side and label to read its text.
#[derive(Default)]
pub(super) struct FunctionIds {
    index: FxHashMap<u128, u32>,
    pub(super) rep: Vec<(u8, u32)>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synthetic::{self, Shape};

    /// Each stack class's label reads the Function cell of its samples.
    #[test]
    fn labels_are_the_function_texts() {
        for seed in 0..4u64 {
            let t = synthetic::trace(&Shape::small(seed));
            let f = FunctionLabels::of_trace(&t);
            assert_eq!(f.of_class.len(), t.stacks.len() + 1);
            for (st, &l) in f.of_class.iter().enumerate() {
                let frame = t.stacks.frame.get(st).copied().unwrap_or(NONE);
                let text = match frame {
                    NONE => String::new(),
                    fr => t.frame_label(fr),
                };
                assert_eq!(f.labels.get(l), text, "seed {seed}, stack {st}");
            }
            // Equal texts are one label.
            let mut seen = std::collections::HashMap::new();
            for &l in &f.of_class {
                let text = f.labels.get(l).into_owned();
                assert_eq!(*seen.entry(text).or_insert(l), l, "seed {seed}");
            }
        }
    }
}
