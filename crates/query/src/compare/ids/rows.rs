//! Both traces' groups matched into rows by identity, in flat arrays (one
//! identity and `width` value pairs per row) instead of a hash map and a
//! `Vec` per row: groups are bucketed by their thread part (few), and
//! within a bucket a dense array over stack parts finds a group's row.
//! An identity's values on one side are its groups' values added
//! heaviest group first, as `table::flat` lists them and `compare` adds them.

use super::class_totals::Tally;
use std::cmp::Reverse;

/// A row's identity: its thread part's and its stack part's shared ids.
pub(super) type Identity = (u32, u32);

/// One group of one side: its identity and its count and weight.
pub(super) type Group = (u32, u32, Tally);

pub(super) struct Rows {
    pub width: usize,
    pub ids: Vec<Identity>,
    /// Row i's (baseline scaled, comparison) pairs at `i * width..`.
    pub values: Vec<(f64, f64)>,
}

impl Rows {
    pub(super) fn len(&self) -> usize {
        self.ids.len()
    }

    /// The change of the first value (0 without values).
    pub(super) fn delta(&self, i: usize) -> f64 {
        if self.width == 0 {
            return 0.0;
        }
        self.values.get(i * self.width).map_or(0.0, |(b, n)| n - b)
    }

    pub(super) fn values_of(&self, i: usize) -> &[(f64, f64)] {
        self.values
            .get(i * self.width..(i + 1) * self.width)
            .unwrap_or_default()
    }
}

/// Rows of the groups of both sides (`sides[0]` the baseline, scaled by
/// `scale`); `value(side, tally, out)` writes one group's values.
/// `thread_ids` and `stack_ids` bound the identities' parts.
pub(super) fn merge(
    sides: [&[Group]; 2],
    (thread_ids, stack_ids): (usize, usize),
    width: usize,
    scale: f64,
    value: impl Fn(usize, Tally, &mut [f64]),
) -> Rows {
    // Groups bucketed by thread part, each side's in its order.
    let mut start = vec![0usize; thread_ids + 1];
    for g in sides.iter().flat_map(|s| s.iter()) {
        if let Some(c) = start.get_mut(g.0 as usize) {
            *c += 1;
        }
    }
    let mut at = 0;
    for c in start.iter_mut() {
        (*c, at) = (at, at + *c);
    }
    let mut bucketed: Vec<(u8, u32, Tally)> = vec![(0, 0, Tally::default()); at];
    for (side, list) in sides.iter().enumerate() {
        for &(a, b, x) in list.iter() {
            let Some(pos) = start.get_mut(a as usize) else {
                continue;
            };
            if let Some(slot) = bucketed.get_mut(*pos) {
                *slot = (side as u8, b, x);
            }
            *pos += 1;
        }
    }
    // `start[a]` is now bucket a's end.
    let mut ids: Vec<Identity> = Vec::new();
    // Each row's first group per side (count 0: none), and the others.
    let mut first: Vec<[Tally; 2]> = Vec::new();
    let mut more: Vec<(u32, u8, Tally)> = Vec::new();
    let mut row_of = vec![u32::MAX; stack_ids];
    let mut lo = 0;
    for (a, &hi) in start.iter().enumerate() {
        let bucket = bucketed.get(lo..hi).unwrap_or_default();
        for &(side, b, x) in bucket {
            let Some(slot) = row_of.get_mut(b as usize) else {
                continue;
            };
            if *slot == u32::MAX {
                *slot = ids.len() as u32;
                ids.push((a as u32, b));
                first.push([Tally::default(); 2]);
            }
            let Some(f) = first
                .get_mut(*slot as usize)
                .and_then(|f| f.get_mut(side as usize))
            else {
                continue;
            };
            if f.count == 0 {
                *f = x;
            } else {
                more.push((*slot, side, x));
            }
        }
        for &(_, b, _) in bucket {
            if let Some(slot) = row_of.get_mut(b as usize) {
                *slot = u32::MAX;
            }
        }
        lo = hi;
    }
    let mut rows = Rows {
        width,
        values: vec![(0.0, 0.0); ids.len() * width],
        ids,
    };
    more.sort_unstable_by_key(|&(row, side, _)| (row, side));
    let mut extra = more.iter().peekable();
    let mut tallies: Vec<Tally> = Vec::new();
    let (mut one, mut sum) = (vec![0.0; width], vec![0.0; width]);
    for (row, f) in first.iter().enumerate() {
        for (side, &x) in f.iter().enumerate() {
            if x.count == 0 {
                continue;
            }
            tallies.clear();
            tallies.push(x);
            while let Some(&&(r, s, y)) = extra.peek() {
                if (r as usize, s as usize) != (row, side) {
                    break;
                }
                tallies.push(y);
                extra.next();
            }
            tallies.sort_by_key(|x| Reverse((x.weight, x.count)));
            sum.iter_mut().for_each(|s| *s = 0.0);
            for &x in &tallies {
                value(side, x, &mut one);
                for (s, v) in sum.iter_mut().zip(&one) {
                    *s += v;
                }
            }
            let slots = rows
                .values
                .get_mut(row * width..(row + 1) * width)
                .unwrap_or_default();
            for (slot, &v) in slots.iter_mut().zip(&sum) {
                if side == 1 {
                    slot.1 = v;
                } else {
                    slot.0 = v * scale;
                }
            }
        }
    }
    rows
}
