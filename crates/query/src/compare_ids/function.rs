//! The Function column of a comparison from a per-trace array (issue 17):
//! each stack class's leaf frame's Function text as a label id of the
//! trace's own labels (equal ids, equal texts), made once per trace and
//! kept on the engine (`cache.rs`, 4 bytes per stack row plus the labels),
//! so a request only counts classes per label and reads the text of each
//! label with samples, not the key of every class.

use super::class_totals::Tally;
use super::keys::{KeyColumn, Parts, SideParts};
use super::labels::Labels;
use crate::cell_value::CellValue;
use model::{Trace, NONE};

pub(super) struct FunctionLabels {
    /// Per stack class (`stacks.len() + 1`), its leaf frame's label.
    of_class: Vec<u32>,
    labels: Labels,
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
    /// stack part's only column: one per label with samples.
    pub(super) fn parts(
        &self,
        tallies: &[Tally],
        col: &mut KeyColumn,
        shared: &mut Parts,
    ) -> SideParts {
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
                let text = self.labels.get(l).into_owned();
                let (_, ident) = col.ids(CellValue::Text(text), None);
                out.shared.push(shared.id(&[ident]));
            }
            *slot = *part;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synthetic::{self, Shape};

    /// Each stack class's label reads the Function cell of its samples.
    #[test]
    fn labels_are_the_function_texts() {
        for seed in 0..4u64 {
            let t = synthetic::trace(&Shape {
                samples: 2_000,
                stacks: 300,
                threads: 8,
                processes: 3,
                modules: 4,
                frames_per_module: 6,
                cpus: 2,
                symbolized: if seed.is_multiple_of(2) { 0.5 } else { 0.0 },
                two_intervals: false,
                seed,
            });
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
