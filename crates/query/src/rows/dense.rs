//! A row table level grouped into flat arrays indexed by key (a text or
//! number level has dense keys): no hash map and no heap vectors per group
//! while scanning. Each key is one compact record of `i64` words (count,
//! weight, first, last, the sums, then only the words each value column's
//! aggregation needs), so a row touches one or two cache lines and the
//! records of 100,000 keys stay in the cache; value columns counting
//! distinct values keep an `Acc` beside the record. Contiguous parts of the
//! rows are scanned in parallel, each into its own arrays, and merged
//! exactly as `Group::merge` does.

use crate::rows::group::{Group, Head};
use crate::rows::level::FlatLevel;
use crate::scan::cancel::Cancel;
use crate::scan::prefetch::{prefetch, AHEAD};
use crate::table::aggregate::{Acc, Aggregation};
use crate::table::columns::MISSING;
use rayon::prelude::*;

/// Rows per part at least: a part outweighs its arrays.
const MIN_PART: usize = 1 << 16;

/// A part's arrays above this many bytes make one part a thread.
const BIG_PART: usize = 1 << 20;

/// Memory of all parts' arrays together at most.
const BUDGET: usize = 512 << 20;

/// Rows of a block: its rows' heads are added row by row, then its value
/// columns column by column (the block's records stay in the L2 cache).
/// The cancel flag is looked at once a block.
const BLOCK: usize = 1024;

/// Record words of all keys above which records are prefetched (an L2
/// cache's worth).
const PREFETCH_FROM: usize = 64 << 10;

/// Words of a record before the sums: count, weight, first, last.
const HEAD: usize = 4;

/// What the rows add up to.
pub(crate) struct Dense {
    /// Rows the filters keep: count and weight.
    pub total: (u64, i64),
    /// Of those, the rows under the path.
    pub parent: (u64, i64),
    /// The groups with rows, by key.
    pub groups: Vec<(u32, Group)>,
    /// With a graph binned in the scan: `bins` cells per key, by key.
    pub cells: Vec<i64>,
}

/// How one value column is kept in a record.
#[derive(Clone, Copy)]
enum Slot {
    /// Rows with a value, at `at`.
    Count {
        at: usize,
    },
    /// Rows with a value, and the least / greatest one.
    Min {
        at: usize,
    },
    Max {
        at: usize,
    },
    /// Rows with a value and their exact (128-bit) sum in two words.
    Sum {
        at: usize,
    },
    /// An `Acc` beside the record (distinct values), its index there.
    Distinct {
        index: usize,
    },
    /// Distinct text keys (below `keys`) as one bit each in bitmap
    /// `index` (`words` per key of the level), and rows with a value and
    /// the least value in the record.
    Bits {
        at: usize,
        index: usize,
        words: usize,
    },
}

/// Bytes of one part's bitmaps at most: distinct text values take a bit
/// each per group while the groups times the values are this few.
const BITS_BUDGET: usize = 32 << 20;

/// Where each value column lives in a record; the record's width.
struct Layout {
    slots: Vec<Slot>,
    words: usize,
    distinct: usize,
    /// Bitmap words per key of the level, all bitmaps together.
    bits: usize,
}

impl Layout {
    /// `value_keys[j]`: the number of distinct keys of value column `j`
    /// when it is a text column (its values are keys below that).
    fn new(
        space: usize,
        sums: usize,
        aggregations: &[Aggregation],
        value_keys: &[Option<usize>],
    ) -> Layout {
        let mut words = HEAD + sums;
        let (mut distinct, mut bitmaps, mut bits) = (0, 0, 0usize);
        let slots = aggregations
            .iter()
            .enumerate()
            .map(|(j, a)| {
                let at = words;
                let (slot, w) = match a {
                    Aggregation::Count => (Slot::Count { at }, 1),
                    Aggregation::Min => (Slot::Min { at }, 2),
                    Aggregation::Max => (Slot::Max { at }, 2),
                    // Avg is a sum over a count.
                    Aggregation::Sum | Aggregation::Avg => (Slot::Sum { at }, 3),
                    Aggregation::UniqueCount | Aggregation::Single => {
                        let per_key = value_keys.get(j).copied().flatten().map(|n| n.div_ceil(64));
                        match per_key {
                            Some(w)
                                if space.saturating_mul(bits + w).saturating_mul(8)
                                    <= BITS_BUDGET =>
                            {
                                bits += w;
                                bitmaps += 1;
                                let slot = Slot::Bits {
                                    at,
                                    index: bitmaps - 1,
                                    words: w,
                                };
                                (slot, 2)
                            }
                            _ => {
                                distinct += 1;
                                (
                                    Slot::Distinct {
                                        index: distinct - 1,
                                    },
                                    0,
                                )
                            }
                        }
                    }
                };
                words += w;
                slot
            })
            .collect();
        Layout {
            slots,
            words,
            distinct,
            bits,
        }
    }

    /// An empty record.
    fn empty(&self) -> Vec<i64> {
        let mut r = vec![0i64; self.words];
        r[2] = i64::MAX;
        r[3] = i64::MIN;
        for s in &self.slots {
            match *s {
                Slot::Min { at } | Slot::Bits { at, .. } => r[at + 1] = i64::MAX,
                Slot::Max { at } => r[at + 1] = i64::MIN,
                _ => {}
            }
        }
        r
    }

    /// Bytes per key.
    fn bytes(&self) -> usize {
        (self.words + self.bits) * 8 + self.distinct * std::mem::size_of::<Acc>()
    }
}

/// Whether `space` keys with `sums` sums and `values` value columns fit
/// the memory budget in one part.
pub(crate) fn fits(
    space: usize,
    sums: usize,
    values: &[Aggregation],
    value_keys: &[Option<usize>],
) -> bool {
    space.saturating_mul(Layout::new(space, sums, values, value_keys).bytes()) <= BUDGET
}

/// Adds `v` to the 128-bit sum in words `w[0]` (low) and `w[1]` (high).
#[inline]
fn add128(w: &mut [i64], v: i128) {
    let s = ((i128::from(w[1]) << 64) | i128::from(w[0] as u64)).wrapping_add(v);
    w[0] = s as u64 as i64;
    w[1] = (s >> 64) as i64;
}

#[inline]
fn get128(w: &[i64]) -> i128 {
    (i128::from(w[1]) << 64) | i128::from(w[0] as u64)
}

/// One part's arrays: `words` per key, and the distinct `Acc`s per key.
struct Part {
    total: (u64, i64),
    parent: (u64, i64),
    records: Vec<i64>,
    accs: Vec<Acc>,
    /// Per bitmap slot, `words` per key.
    bitmaps: Vec<Vec<u64>>,
    /// The graph's cells (`bins` per key) and the last row's bin.
    cells: Vec<i64>,
    last: (i64, i64, usize),
}

/// Groups rows `0..rows` at `level`. `keep` gives a kept row's weight
/// (`None`: filtered out); `time` a row's time (first / last); `sum(j,
/// rows, out)` appends the `j`th summed number (`sums` of them) of each
/// of `rows`; `value(j, rows, out)` the `j`th value column's value
/// (`MISSING`: none), aggregated as `aggregations[j]` (`value_keys[j]`:
/// how many keys a text value column has). `graph`: bins per key and, to
/// bin the level's graph as well, each row's bin and value from the row
/// and its time (`None`: outside the graph's range), given the part's
/// last bin with its edges (rows mostly come in time order). A generic,
/// not a boxed, function, and the time read once for both: the binning
/// is inlined into the loop.
#[allow(clippy::too_many_arguments)]
pub(crate) fn scan<B>(
    rows: usize,
    level: &FlatLevel<'_>,
    graph: Option<(usize, B)>,
    sums: usize,
    aggregations: &[Aggregation],
    value_keys: &[Option<usize>],
    keep: impl Fn(usize, &mut Vec<u32>) -> Option<i64> + Sync,
    time: impl Fn(usize) -> i64 + Sync,
    sum: impl Fn(usize, &[usize], &mut Vec<i64>) + Sync,
    value: impl Fn(usize, &[usize], &mut Vec<i64>) + Sync,
) -> Dense
where
    B: Fn(&mut (i64, i64, usize), usize, i64) -> Option<(usize, i64)> + Sync,
{
    let space = level.space;
    let layout = Layout::new(space, sums, aggregations, value_keys);
    let bitmap_words: Vec<usize> = (layout.slots.iter())
        .filter_map(|s| match *s {
            Slot::Bits { words, .. } => Some(words),
            _ => None,
        })
        .collect();
    let (words, nd) = (layout.words, layout.distinct);
    let distinct_aggs: Vec<Aggregation> = aggregations
        .iter()
        .zip(&layout.slots)
        .filter(|(_, s)| matches!(s, Slot::Distinct { .. }))
        .map(|(a, _)| *a)
        .collect();
    let per_part = space.saturating_mul(layout.bytes()).max(1);
    let threads = rayon::current_num_threads().max(1);
    // Two parts a thread balance the load; with big arrays (many keys)
    // one a thread, as each part's arrays cost their page faults and merge.
    let per_thread = if per_part > BIG_PART { 1 } else { 2 };
    let parts = (rows / MIN_PART)
        .min(threads * per_thread)
        .min(BUDGET / per_part)
        .max(1);
    let len = rows.div_ceil(parts).max(1);
    let empty = layout.empty();
    let make = || Part {
        total: (0, 0),
        parent: (0, 0),
        records: empty.repeat(space),
        accs: (0..space)
            .flat_map(|_| distinct_aggs.iter().map(|&a| Acc::new(a)))
            .collect(),
        bitmaps: bitmap_words
            .iter()
            .map(|&w| vec![0u64; space * w])
            .collect(),
        cells: graph
            .as_ref()
            .map_or_else(Vec::new, |(bins, _)| vec![0i64; space * bins]),
        last: (i64::MAX, i64::MIN, 0),
    };
    let cancel = Cancel::current();
    // Records of many keys outgrow the cache: ask for a row's a few rows
    // before it is reached.
    let ahead = space.saturating_mul(words) > PREFETCH_FROM;
    let part = |i: usize| {
        let mut p = make();
        let mut scratch = Vec::new();
        // The block's rows kept under the path, their keys, and one
        // column's numbers of them.
        let mut kept = Vec::with_capacity(BLOCK);
        let mut keys = Vec::with_capacity(BLOCK);
        let mut cells = Vec::with_capacity(BLOCK);
        let end = ((i + 1) * len).min(rows);
        let mut from = i * len;
        while from < end && !cancel.is_set() {
            let to = (from + BLOCK).min(end);
            kept.clear();
            keys.clear();
            for row in from..to {
                if ahead && row + AHEAD < end {
                    // Both ends: a record may straddle two cache lines.
                    let k = level.key(row + AHEAD) as usize;
                    if let Some(r) = p.records.get(k * words..(k + 1) * words) {
                        prefetch(&r[0]);
                        prefetch(&r[words - 1]);
                    }
                }
                let Some(w) = keep(row, &mut scratch) else {
                    continue;
                };
                p.total = (p.total.0 + 1, p.total.1.saturating_add(w));
                if !level.under(row) {
                    continue;
                }
                p.parent = (p.parent.0 + 1, p.parent.1.saturating_add(w));
                let k = level.key(row) as usize;
                let t = time(row);
                if let Some((bins, bin_of)) = &graph {
                    if let Some((b, v)) = bin_of(&mut p.last, row, t) {
                        if let Some(x) = p.cells.get_mut(k * bins + b) {
                            *x = x.saturating_add(v);
                        }
                    }
                }
                let Some(r) = p.records.get_mut(k * words..(k + 1) * words) else {
                    continue;
                };
                r[0] += 1;
                r[1] = r[1].saturating_add(w);
                r[2] = r[2].min(t);
                r[3] = r[3].max(t);
                kept.push(row);
                keys.push(k);
            }
            from = to;
            // Then column by column over the block: one dispatch per
            // column and block, not per row (the records are still cached).
            for j in 0..sums {
                cells.clear();
                sum(j, &kept, &mut cells);
                for (&k, &v) in keys.iter().zip(&cells) {
                    if let Some(x) = p.records.get_mut(k * words + HEAD + j) {
                        *x = x.saturating_add(v);
                    }
                }
            }
            for (j, slot) in layout.slots.iter().enumerate() {
                cells.clear();
                value(j, &kept, &mut cells);
                let present = (keys.iter().zip(&cells)).filter(|(_, &v)| v != MISSING);
                let records = &mut p.records;
                match *slot {
                    Slot::Count { at } => {
                        for (&k, _) in present {
                            if let Some(x) = records.get_mut(k * words + at) {
                                *x += 1;
                            }
                        }
                    }
                    Slot::Min { at } => {
                        for (&k, &v) in present {
                            if let Some(r) = records.get_mut(k * words + at..k * words + at + 2) {
                                r[0] += 1;
                                r[1] = r[1].min(v);
                            }
                        }
                    }
                    Slot::Max { at } => {
                        for (&k, &v) in present {
                            if let Some(r) = records.get_mut(k * words + at..k * words + at + 2) {
                                r[0] += 1;
                                r[1] = r[1].max(v);
                            }
                        }
                    }
                    Slot::Sum { at } => {
                        for (&k, &v) in present {
                            if let Some(r) = records.get_mut(k * words + at..k * words + at + 3) {
                                r[0] += 1;
                                add128(&mut r[1..3], i128::from(v));
                            }
                        }
                    }
                    Slot::Distinct { index } => {
                        for (&k, &v) in present {
                            if let Some(a) = p.accs.get_mut(k * nd + index) {
                                a.add(v);
                            }
                        }
                    }
                    Slot::Bits {
                        at,
                        index,
                        words: w,
                    } => {
                        let mut m = p.bitmaps.get_mut(index);
                        for (&k, &v) in present {
                            if let Some(r) = records.get_mut(k * words + at..k * words + at + 2) {
                                r[0] += 1;
                                r[1] = r[1].min(v);
                            }
                            // A text key is below its column's key count.
                            let b = v as u64 as usize;
                            if b / 64 < w {
                                let cell = m.as_mut().and_then(|m| m.get_mut(k * w + b / 64));
                                if let Some(cell) = cell {
                                    *cell |= 1 << (b % 64);
                                }
                            }
                        }
                    }
                }
            }
        }
        p
    };
    let merge = |mut a: Part, b: Part| {
        let add = |x: (u64, i64), y: (u64, i64)| (x.0 + y.0, x.1.saturating_add(y.1));
        a.total = add(a.total, b.total);
        a.parent = add(a.parent, b.parent);
        for (r, o) in a
            .records
            .chunks_exact_mut(words)
            .zip(b.records.chunks_exact(words))
        {
            if o[0] == 0 {
                continue;
            }
            r[0] += o[0];
            r[1] = r[1].saturating_add(o[1]);
            r[2] = r[2].min(o[2]);
            r[3] = r[3].max(o[3]);
            for j in HEAD..HEAD + sums {
                r[j] = r[j].saturating_add(o[j]);
            }
            for slot in &layout.slots {
                match *slot {
                    Slot::Count { at } => r[at] += o[at],
                    Slot::Min { at } => {
                        r[at] += o[at];
                        r[at + 1] = r[at + 1].min(o[at + 1]);
                    }
                    Slot::Max { at } => {
                        r[at] += o[at];
                        r[at + 1] = r[at + 1].max(o[at + 1]);
                    }
                    Slot::Sum { at } => {
                        r[at] += o[at];
                        add128(&mut r[at + 1..at + 3], get128(&o[at + 1..at + 3]));
                    }
                    Slot::Bits { at, .. } => {
                        r[at] += o[at];
                        r[at + 1] = r[at + 1].min(o[at + 1]);
                    }
                    Slot::Distinct { .. } => {}
                }
            }
        }
        for (x, y) in a.accs.iter_mut().zip(&b.accs) {
            x.merge(y);
        }
        for (x, y) in a.bitmaps.iter_mut().zip(&b.bitmaps) {
            for (u, v) in x.iter_mut().zip(y) {
                *u |= v;
            }
        }
        for (x, y) in a.cells.iter_mut().zip(&b.cells) {
            *x = x.saturating_add(*y);
        }
        a
    };
    let p = (0..parts)
        .into_par_iter()
        .with_max_len(1)
        .map(part)
        .reduce_with(merge)
        .unwrap_or_else(make);
    let mut accs = p.accs.into_iter();
    let mut groups = Vec::new();
    for (k, r) in p.records.chunks_exact(words).enumerate() {
        let mut distinct: Vec<Acc> = accs.by_ref().take(nd).collect();
        if r[0] == 0 {
            continue;
        }
        let head = Head {
            count: r[0] as u64,
            weight: r[1],
            first: r[2],
            last: r[3],
        };
        let mut d = distinct.drain(..);
        let values = aggregations
            .iter()
            .zip(&layout.slots)
            .map(|(&a, slot)| match *slot {
                Slot::Count { at } => Acc::of_parts(a, r[at] as u64, 0, i64::MAX, i64::MIN),
                Slot::Min { at } => Acc::of_parts(a, r[at] as u64, 0, r[at + 1], i64::MIN),
                Slot::Max { at } => Acc::of_parts(a, r[at] as u64, 0, i64::MAX, r[at + 1]),
                Slot::Sum { at } => Acc::of_parts(
                    a,
                    r[at] as u64,
                    get128(&r[at + 1..at + 3]),
                    i64::MAX,
                    i64::MIN,
                ),
                Slot::Distinct { .. } => d.next().unwrap_or_else(|| Acc::new(a)),
                Slot::Bits { at, index, words } => {
                    let set = (p.bitmaps.get(index))
                        .and_then(|m| m.get(k * words..(k + 1) * words))
                        .map_or(0, |w| w.iter().map(|x| u64::from(x.count_ones())).sum());
                    Acc::of_distinct(r[at] as u64, r[at + 1], set)
                }
            })
            .collect();
        groups.push((
            k as u32,
            Group {
                head,
                sums: r[HEAD..HEAD + sums].to_vec(),
                accs: values,
                deeper: level.deeper,
            },
        ));
    }
    Dense {
        total: p.total,
        parent: p.parent,
        groups,
        cells: p.cells,
    }
}
