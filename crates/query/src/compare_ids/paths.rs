//! Stacks of both traces as one set of paths of frame labels: a path is
//! its parent path and its leaf frame's label (`Trace::frame_label`), so
//! two stacks, of one trace or of two, are one path exactly when their
//! Stack texts (`table_columns::stack_text`, labels root first joined by
//! `;`) are equal. Paths sort as those texts would, without making them.

use super::texts::Texts;
use model::{Trace, NONE};
use rustc_hash::FxHashMap;
use std::cmp::Ordering;

/// The path of no frames (no stack, or a stack row the model lacks).
pub(super) const EMPTY: u32 = 0;

pub(super) struct Paths {
    index: FxHashMap<(u32, u32), u32>,
    parent: Vec<u32>,
    label: Vec<u32>,
    pub labels: Texts,
}

impl Default for Paths {
    fn default() -> Paths {
        Paths {
            index: FxHashMap::default(),
            parent: vec![EMPTY],
            label: vec![u32::MAX],
            labels: Texts::default(),
        }
    }
}

impl Paths {
    /// The path of every stack row of `t`, and `EMPTY` for the extra class
    /// at `stacks.len()`; `None` when paths and texts might not match one
    /// to one (an empty label or one with `;`, a parent after its child).
    pub(super) fn of_trace(&mut self, t: &Trace) -> Option<Vec<u32>> {
        let st = &t.stacks;
        let mut label_of: FxHashMap<u32, u32> = FxHashMap::default();
        let mut out = Vec::with_capacity(st.len() + 1);
        for i in 0..st.len() {
            let parent = match *st.parent.get(i)? {
                NONE => EMPTY,
                p if (p as usize) < i => *out.get(p as usize)?,
                _ => return None,
            };
            let frame = *st.frame.get(i)?;
            let label = match label_of.get(&frame) {
                Some(&l) => l,
                None => {
                    let text = t.frame_label(frame);
                    if text.is_empty() || text.contains(';') {
                        return None;
                    }
                    let l = self.labels.id(text);
                    label_of.insert(frame, l);
                    l
                }
            };
            out.push(self.path(parent, label));
        }
        out.push(EMPTY);
        Some(out)
    }

    fn path(&mut self, parent: u32, label: u32) -> u32 {
        if let Some(&p) = self.index.get(&(parent, label)) {
            return p;
        }
        let p = self.parent.len() as u32;
        self.parent.push(parent);
        self.label.push(label);
        self.index.insert((parent, label), p);
        p
    }

    /// Labels of path `p`, root first.
    fn labels_of(&self, mut p: u32) -> Vec<u32> {
        let mut out = Vec::new();
        while p != EMPTY {
            let Some((&l, &parent)) = self.label.get(p as usize).zip(self.parent.get(p as usize))
            else {
                break;
            };
            out.push(l);
            p = parent;
        }
        out.reverse();
        out
    }

    /// The Stack text of path `p`.
    pub(super) fn text(&self, p: u32) -> String {
        let labels: Vec<&str> = self
            .labels_of(p)
            .into_iter()
            .map(|l| self.labels.get(l))
            .collect();
        labels.join(";")
    }

    /// The rank of each of `ids` (distinct paths) in the order of their texts.
    pub(super) fn ranks(&self, ids: &[u32]) -> FxHashMap<u32, u32> {
        let seqs: Vec<Vec<u32>> = ids.iter().map(|&p| self.labels_of(p)).collect();
        let mut order: Vec<usize> = (0..ids.len()).collect();
        order.sort_by(|&a, &b| joined_cmp(&seqs[a], &seqs[b], &self.labels));
        order
            .into_iter()
            .enumerate()
            .map(|(rank, i)| (ids[i], rank as u32))
            .collect()
    }
}

/// `a` against `b` as their labels joined by `;` compare, byte by byte.
fn joined_cmp(a: &[u32], b: &[u32], labels: &Texts) -> Ordering {
    let k = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let (a, b) = (&a[k..], &b[k..]);
    // Past the shared labels both go on with `;` and the rest, or end.
    match (a.is_empty(), b.is_empty()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        (false, false) => bytes(a, labels).cmp(bytes(b, labels)),
    }
}

fn bytes<'a>(seq: &'a [u32], labels: &'a Texts) -> impl Iterator<Item = u8> + 'a {
    seq.iter().enumerate().flat_map(move |(i, &l)| {
        (i > 0)
            .then_some(b';')
            .into_iter()
            .chain(labels.get(l).bytes())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joined_order_is_the_order_of_the_joined_texts() {
        let mut labels = Texts::default();
        let words = ["a", "a.dll", "ab", "b", "a!x", "A", "a;"];
        let ids: Vec<u32> = words.iter().map(|w| labels.id(w.to_string())).collect();
        let seqs: Vec<Vec<u32>> = vec![
            vec![ids[0]],
            vec![ids[0], ids[3]],
            vec![ids[1]],
            vec![ids[1], ids[0]],
            vec![ids[2], ids[0]],
            vec![ids[0], ids[0], ids[0]],
            vec![ids[4]],
            vec![ids[5], ids[3]],
            vec![],
        ];
        for x in &seqs {
            for y in &seqs {
                let text = |s: &Vec<u32>| {
                    s.iter()
                        .map(|&l| labels.get(l))
                        .collect::<Vec<_>>()
                        .join(";")
                };
                assert_eq!(
                    joined_cmp(x, y, &labels),
                    text(x).cmp(&text(y)),
                    "{x:?} {y:?}"
                );
            }
        }
    }
}
