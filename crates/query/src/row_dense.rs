//! A row table level grouped into flat arrays indexed by key (a text or
//! number level has dense keys): no hash map and no heap vectors per group
//! while scanning. Contiguous parts of the rows are scanned in parallel,
//! each into its own arrays, and merged exactly as `Group::merge` does.

use crate::aggregate::Acc;
use crate::row_level::FlatLevel;
use crate::row_tables::{Group, Head};
use rayon::prelude::*;

/// Rows per part at least: a part outweighs its arrays.
const MIN_PART: usize = 1 << 16;

/// Memory of all parts' arrays together at most.
const BUDGET: usize = 512 << 20;

/// What the rows add up to.
pub(crate) struct Dense {
    /// Rows the filters keep: count and weight.
    pub total: (u64, i64),
    /// Of those, the rows under the path.
    pub parent: (u64, i64),
    /// The groups with rows, by key.
    pub groups: Vec<(u32, Group)>,
}

/// Whether `space` keys with `sums` sums and `values` value columns fit
/// the memory budget in one part.
pub(crate) fn fits(space: usize, sums: usize, values: usize) -> bool {
    space.saturating_mul(stride(sums, values)) <= BUDGET
}

fn stride(sums: usize, values: usize) -> usize {
    std::mem::size_of::<Head>()
        + sums * std::mem::size_of::<i64>()
        + values * std::mem::size_of::<Acc>()
}

/// One part's arrays: per key a head, `ns` sums and `nv` accumulators.
struct Part {
    total: (u64, i64),
    parent: (u64, i64),
    heads: Vec<Head>,
    sums: Vec<i64>,
    accs: Vec<Acc>,
}

impl Part {
    fn merge(mut self, o: Part) -> Part {
        let add = |a: (u64, i64), b: (u64, i64)| (a.0 + b.0, a.1.saturating_add(b.1));
        self.total = add(self.total, o.total);
        self.parent = add(self.parent, o.parent);
        for (h, x) in self.heads.iter_mut().zip(&o.heads) {
            if x.count > 0 {
                h.merge(x);
            }
        }
        for (s, x) in self.sums.iter_mut().zip(&o.sums) {
            *s = s.saturating_add(*x);
        }
        for (a, x) in self.accs.iter_mut().zip(&o.accs) {
            a.merge(x);
        }
        self
    }
}

/// Groups rows `0..rows` at `level`. `keep` gives a kept row's weight
/// (`None`: filtered out); `add` adds a row to its group's head, sums and
/// accumulators; `new_accs` gives a group's empty accumulators.
pub(crate) fn scan<I>(
    rows: usize,
    level: &FlatLevel<'_>,
    ns: usize,
    new_accs: &(impl Fn() -> I + Sync),
    keep: impl Fn(usize, &mut Vec<u32>) -> Option<i64> + Sync,
    add: impl Fn(&mut Head, &mut [i64], &mut [Acc], usize, i64) + Sync,
) -> Dense
where
    I: Iterator<Item = Acc>,
{
    let space = level.space;
    let nv = new_accs().count();
    let per_part = space.saturating_mul(stride(ns, nv)).max(1);
    let threads = rayon::current_num_threads().max(1);
    let parts = (rows / MIN_PART)
        .min(threads * 2)
        .min(BUDGET / per_part)
        .max(1);
    let len = rows.div_ceil(parts).max(1);
    let make = || Part {
        total: (0, 0),
        parent: (0, 0),
        heads: vec![Head::default(); space],
        sums: vec![0; space * ns],
        accs: (0..space).flat_map(|_| new_accs()).collect(),
    };
    let part = |i: usize| {
        let mut p = make();
        let mut scratch = Vec::new();
        for row in i * len..((i + 1) * len).min(rows) {
            let Some(w) = keep(row, &mut scratch) else {
                continue;
            };
            p.total = (p.total.0 + 1, p.total.1.saturating_add(w));
            if !level.under(row) {
                continue;
            }
            p.parent = (p.parent.0 + 1, p.parent.1.saturating_add(w));
            let k = level.key(row) as usize;
            let (Some(h), Some(s), Some(a)) = (
                p.heads.get_mut(k),
                p.sums.get_mut(k * ns..(k + 1) * ns),
                p.accs.get_mut(k * nv..(k + 1) * nv),
            ) else {
                continue;
            };
            add(h, s, a, row, w);
        }
        p
    };
    let p = (0..parts)
        .into_par_iter()
        .with_max_len(1)
        .map(part)
        .reduce_with(Part::merge)
        .unwrap_or_else(make);
    let mut sums = p.sums.chunks(ns.max(1));
    let mut accs = p.accs.into_iter();
    let mut groups = Vec::new();
    for (k, h) in p.heads.into_iter().enumerate() {
        let s = if ns > 0 { sums.next() } else { None };
        let a: Vec<Acc> = accs.by_ref().take(nv).collect();
        if h.count > 0 {
            groups.push((
                k as u32,
                Group {
                    head: h,
                    sums: s.map_or_else(Vec::new, <[i64]>::to_vec),
                    accs: a,
                    deeper: level.deeper,
                },
            ));
        }
    }
    Dense {
        total: p.total,
        parent: p.parent,
        groups,
    }
}
