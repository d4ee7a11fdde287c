//! Stacks of both traces as one set of paths of frame labels: a path is
//! its parent path and its leaf frame's label (`Trace::frame_label`), so
//! two stacks, of one trace or of two, are one path exactly when their
//! Stack texts (`table::columns::stack_text`, labels root first joined by
//! `;`) are equal. Paths sort as those texts would, without making them.

use super::labels::Labels;
use model::{Trace, NONE};
use rustc_hash::FxHashMap;
use std::cmp::Ordering;

/// The path of no frames (no stack, or a stack row the model lacks).
pub(super) const EMPTY: u32 = 0;

pub(super) struct Paths {
    index: FxHashMap<(u32, u32), u32>,
    parent: Vec<u32>,
    label: Vec<u32>,
    pub labels: Labels,
}

impl Default for Paths {
    fn default() -> Paths {
        Paths {
            index: FxHashMap::default(),
            parent: vec![EMPTY],
            label: vec![u32::MAX],
            labels: Labels::default(),
        }
    }
}

impl Paths {
    /// The path of every stack row of `t`, and `EMPTY` for the extra class
    /// at `stacks.len()`; `None` when paths and texts might not match one
    /// to one (an empty label or one with `;`, a parent after its child).
    pub(super) fn of_trace(&mut self, t: &Trace) -> Option<Vec<u32>> {
        let st = &t.stacks;
        // Per frame row, its label (`u32::MAX`: not read yet).
        let mut label_of = vec![u32::MAX; t.frames.module.len()];
        let mut module_text = vec![u32::MAX; t.modules.name.len()];
        let mut out = Vec::with_capacity(st.len() + 1);
        self.index.reserve(st.len());
        for i in 0..st.len() {
            let parent = match *st.parent.get(i)? {
                NONE => EMPTY,
                p if (p as usize) < i => *out.get(p as usize)?,
                _ => return None,
            };
            let frame = *st.frame.get(i)?;
            let label = match label_of.get(frame as usize) {
                Some(&l) if l != u32::MAX => l,
                _ => {
                    let l = self.labels.of_frame(t, frame, &mut module_text)?;
                    if let Some(slot) = label_of.get_mut(frame as usize) {
                        *slot = l;
                    }
                    l
                }
            };
            out.push(self.path(parent, label));
        }
        out.push(EMPTY);
        Some(out)
    }

    pub(super) fn path(&mut self, parent: u32, label: u32) -> u32 {
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
        let labels: Vec<_> = self
            .labels_of(p)
            .into_iter()
            .map(|l| self.labels.get(l))
            .collect();
        labels.join(";")
    }

    /// The rank of each of `ids` (distinct paths) in the order of their
    /// texts: from the order of all paths when `ids` are many of them.
    pub(super) fn ranks(&self, ids: &[u32]) -> FxHashMap<u32, u32> {
        if ids.len().saturating_mul(16) > self.parent.len() {
            let all = self.order();
            return ids
                .iter()
                .map(|&p| (p, all.get(p as usize).copied().unwrap_or(0)))
                .collect();
        }
        let seqs: Vec<Vec<u32>> = ids.iter().map(|&p| self.labels_of(p)).collect();
        let mut order: Vec<usize> = (0..ids.len()).collect();
        order.sort_by(|&a, &b| joined_cmp(&seqs[a], &seqs[b], &self.labels));
        order
            .into_iter()
            .enumerate()
            .map(|(rank, i)| (ids[i], rank as u32))
            .collect()
    }

    /// The rank of every path in the order of the texts, from one walk of
    /// the tree of paths. The texts below a path `P;x` are those starting
    /// with `P;x;` (no label holds `;`), so among the children of `P`, each
    /// child `x` is two entries: itself (`x`) and all below it (`x;`), and
    /// the entries sort by those strings.
    fn order(&self) -> Vec<u32> {
        let n = self.parent.len();
        // Children of each path, by counting sort of their parents.
        let mut start = vec![0u32; n + 1];
        for &p in self.parent.iter().skip(1) {
            if let Some(c) = start.get_mut(p as usize) {
                *c += 1;
            }
        }
        let mut at = 0u32;
        for c in start.iter_mut() {
            (*c, at) = (at, at + *c);
        }
        let mut children = vec![0u32; n.saturating_sub(1)];
        for (child, &p) in self.parent.iter().enumerate().skip(1) {
            if let Some(pos) = start.get_mut(p as usize) {
                if let Some(slot) = children.get_mut(*pos as usize) {
                    *slot = child as u32;
                }
                *pos += 1;
            }
        }
        // `start[p]` is now the end of p's children; entries: (child, below).
        let label = |c: u32| {
            let l = self.label.get(c as usize).copied().unwrap_or(u32::MAX);
            self.labels.get(l)
        };
        let entry_cmp = |&(a, ba): &(u32, bool), &(b, bb): &(u32, bool)| {
            let (x, y) = (label(a), label(b));
            let tail = |below: bool| below.then_some(b';');
            x.bytes().chain(tail(ba)).cmp(y.bytes().chain(tail(bb)))
        };
        let entries = |p: u32| -> Vec<(u32, bool)> {
            let hi = start.get(p as usize).copied().unwrap_or(0) as usize;
            let lo = match p as usize {
                0 => 0,
                q => start.get(q - 1).copied().unwrap_or(0) as usize,
            };
            let mut e: Vec<(u32, bool)> = children
                .get(lo..hi)
                .unwrap_or_default()
                .iter()
                .flat_map(|&c| [(c, false), (c, true)])
                .collect();
            e.sort_by(entry_cmp);
            e
        };
        let mut rank = vec![0u32; n];
        let mut next = 1; // EMPTY (no text) is first.
        let mut stack: Vec<std::vec::IntoIter<(u32, bool)>> = vec![entries(EMPTY).into_iter()];
        while let Some(top) = stack.last_mut() {
            match top.next() {
                Some((c, false)) => {
                    if let Some(r) = rank.get_mut(c as usize) {
                        *r = next;
                    }
                    next += 1;
                }
                Some((c, true)) => stack.push(entries(c).into_iter()),
                None => {
                    stack.pop();
                }
            }
        }
        rank
    }
}

/// `a` against `b` as their labels joined by `;` compare, byte by byte.
fn joined_cmp(a: &[u32], b: &[u32], labels: &Labels) -> Ordering {
    let k = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let (a, b) = (&a[k..], &b[k..]);
    // Past the shared labels both go on with `;` and the rest, or end.
    match (a.is_empty(), b.is_empty()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        (false, false) => bytes(a, labels).cmp(&bytes(b, labels)),
    }
}

fn bytes(seq: &[u32], labels: &Labels) -> Vec<u8> {
    let mut out = Vec::new();
    for (i, &l) in seq.iter().enumerate() {
        if i > 0 {
            out.push(b';');
        }
        out.extend_from_slice(labels.get(l).as_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joined_order_is_the_order_of_the_joined_texts() {
        let mut labels = Labels::default();
        let words = ["a", "a.dll", "ab", "b", "a!x", "A", "a;", "a!0x10"];
        let ids: Vec<u32> = words
            .iter()
            .map(|w| labels.of_text(w.to_string()))
            .collect();
        let seqs: Vec<Vec<u32>> = vec![
            vec![ids[0]],
            vec![ids[0], ids[3]],
            vec![ids[1]],
            vec![ids[1], ids[0]],
            vec![ids[2], ids[0]],
            vec![ids[0], ids[0], ids[0]],
            vec![ids[4]],
            vec![ids[5], ids[3]],
            vec![ids[7], ids[0]],
            vec![ids[0], ids[7]],
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

    #[test]
    fn the_order_of_all_paths_is_the_order_of_their_texts() {
        let mut rng = testdata::Rng::new(11);
        let words = [
            "a", "a.dll", "ab", "b", "a!x", "A", "a:b", "a<", "z", "a!0x1f", "0x1",
        ];
        for case in 0..50 {
            let mut paths = Paths::default();
            let ids: Vec<u32> = words
                .iter()
                .map(|w| paths.labels.of_text(w.to_string()))
                .collect();
            for _ in 0..rng.below(80) {
                let mut p = EMPTY;
                for _ in 0..1 + rng.below(5) {
                    p = paths.path(p, ids[rng.below(ids.len())]);
                }
            }
            let all: Vec<u32> = (0..paths.parent.len() as u32).collect();
            let rank = paths.order();
            let mut by_text = all.clone();
            by_text.sort_by_key(|&p| paths.text(p));
            let mut by_rank = all.clone();
            by_rank.sort_by_key(|&p| rank[p as usize]);
            assert_eq!(by_rank, by_text, "case {case}");
            let few: Vec<u32> = all.iter().copied().step_by(3).collect();
            let (a, b) = (paths.ranks(&few), paths.ranks(&all));
            for x in &few {
                for y in &few {
                    assert_eq!(a[x].cmp(&a[y]), b[x].cmp(&b[y]), "case {case}");
                }
            }
        }
    }
}
