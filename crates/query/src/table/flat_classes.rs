//! CPU Usage (Sampled) samples pre-grouped by what the requested key and
//! filter columns depend on: the thread, the stack, or both. Samples of
//! one class show the same text in every such column, so `table::flat`
//! reads the columns once per class instead of once per sample; the class
//! totals come from one parallel pass of plain array updates.

use crate::scan::filter::TimeRange;
use crate::table::aggregate::{Acc, Aggregation};
use crate::table::columns::{Cells, Numbers, TableDef, MISSING};
use crate::table::row_range::in_range;
use model::{Trace, NONE};
use rayon::prelude::*;
use rustc_hash::FxHashMap;

/// What a set of columns of `cpu-sampled` is a function of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dep {
    Nothing,
    Thread,
    Stack,
    Both,
}

/// Columns read through the sample's thread (its process too) or through
/// its stack (the leaf frame and its module); `None` for the rest (CPU,
/// Time, Weight), which vary within a class.
fn column_dep(name: &str) -> Option<Dep> {
    match name {
        "Count" => Some(Dep::Nothing),
        "Process" | "Process Name" | "PID" | "Thread ID" | "Thread Name" => Some(Dep::Thread),
        "Module" | "Function" | "Stack" | "Image Path" | "File Version" | "Company Name" => {
            Some(Dep::Stack)
        }
        _ => None,
    }
}

/// The dependency of `columns` of `def`, `None` when some column is not a
/// function of thread and stack (or the table is not `cpu-sampled`).
pub(crate) fn dependency(def: &TableDef<'_>, columns: &[usize]) -> Option<Dep> {
    if def.name != "cpu-sampled" {
        return None;
    }
    let (mut thread, mut stack) = (false, false);
    for &c in columns {
        match column_dep(def.columns.get(c)?.def.name)? {
            Dep::Nothing => {}
            Dep::Thread => thread = true,
            Dep::Stack => stack = true,
            Dep::Both => (thread, stack) = (true, true),
        }
    }
    Some(match (thread, stack) {
        (false, false) => Dep::Nothing,
        (true, false) => Dep::Thread,
        (false, true) => Dep::Stack,
        (true, true) => Dep::Both,
    })
}

/// The samples of one class in the range.
#[derive(Clone)]
pub(crate) struct Class {
    /// A sample row of the class (the first), to read its key cells.
    pub first: usize,
    pub count: u64,
    pub weight: i64,
    /// One per value column, fed as `table::flat::group` feeds its groups.
    pub accs: Vec<Acc>,
}

impl Class {
    fn merge(&mut self, o: Class) {
        self.first = self.first.min(o.first);
        self.count += o.count;
        self.weight = self.weight.saturating_add(o.weight);
        for (a, b) in self.accs.iter_mut().zip(&o.accs) {
            a.merge(b);
        }
    }
}

/// Classes of dense keys in a vector, the others (out-of-range ids, pairs)
/// in a map.
#[derive(Default)]
struct Partial {
    dense: Vec<Option<Class>>,
    sparse: FxHashMap<u64, Class>,
}

impl Partial {
    fn merge(mut self, o: Partial) -> Partial {
        for (a, b) in self.dense.iter_mut().zip(o.dense) {
            match (a.as_mut(), b) {
                (Some(a), Some(b)) => a.merge(b),
                (None, b) => *a = b,
                (_, None) => {}
            }
        }
        for (k, b) in o.sparse {
            match self.sparse.get_mut(&k) {
                Some(a) => a.merge(b),
                None => {
                    self.sparse.insert(k, b);
                }
            }
        }
        self
    }
}

/// A numeric value column to aggregate per sample.
pub(crate) struct ValueIn<'f, 'a> {
    pub cells: Option<&'f Numbers<'a>>,
    pub numeric: bool,
    pub aggregation: Aggregation,
    /// A Sum the class's count or weight already holds (`Count:Sum`,
    /// `Weight:Sum`), or nothing to add (`% Weight`, `None` cells).
    pub derived: Option<Derived>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Derived {
    Count,
    Weight,
    Nothing,
}

/// A class's count and weight, packed for cache-friendly random updates.
#[derive(Clone, Copy, Default)]
struct Slot {
    count: u64,
    weight: i64,
    first: u32,
}

/// The classes of `def`'s samples in `range` (any order), by `dep`.
pub(crate) fn classes(
    t: &Trace,
    def: &TableDef<'_>,
    dep: Dep,
    range: Option<TimeRange>,
    weight: Option<&Numbers<'_>>,
    values: &[ValueIn<'_, '_>],
) -> Vec<Class> {
    let s = &t.samples;
    let stack = |i: usize| s.stack.get(i).copied().unwrap_or(NONE);
    let key = |i: usize| -> u64 {
        match dep {
            Dep::Nothing => 0,
            Dep::Thread => u64::from(s.thread(i)),
            Dep::Stack => u64::from(stack(i)),
            Dep::Both => u64::from(s.thread(i)) << 32 | u64::from(stack(i)),
        }
    };
    let dense_len = match dep {
        Dep::Nothing => 1,
        Dep::Thread => t.threads.len(),
        Dep::Stack => t.stacks.len(),
        Dep::Both => 0,
    };
    let rows = def.rows;
    // Enough chunks to keep every core busy, each large enough to pay for
    // its dense vector.
    let chunks = (rows >> 18).clamp(1, rayon::current_num_threads());
    let derived: Option<Vec<Derived>> = values.iter().map(|v| v.derived).collect();
    if let (Some(derived), Ok(_)) = (derived, u32::try_from(rows)) {
        let slots = slots(def, &key, dense_len, chunks, range, weight);
        return slots
            .into_iter()
            .map(|s| Class {
                first: s.first as usize,
                count: s.count,
                weight: s.weight,
                accs: derived
                    .iter()
                    .zip(values)
                    .map(|(d, v)| match d {
                        Derived::Count => Acc::of_sum(s.count, s.count as i64),
                        Derived::Weight => Acc::of_sum(s.count, s.weight),
                        Derived::Nothing => Acc::new(v.aggregation),
                    })
                    .collect(),
            })
            .collect();
    }
    let one = |k: usize| {
        let mut p = Partial {
            dense: vec![None; dense_len],
            sparse: FxHashMap::default(),
        };
        for i in k * rows / chunks..(k + 1) * rows / chunks {
            if range.is_some_and(|r| !in_range(def, i, &r)) {
                continue;
            }
            let w = weight.map_or(0, |f| f.at(i));
            let w = if w == MISSING { 0 } else { w };
            let k = key(i);
            let new = || Class {
                first: i,
                count: 0,
                weight: 0,
                accs: values.iter().map(|v| Acc::new(v.aggregation)).collect(),
            };
            let c = match p.dense.get_mut(k as usize) {
                Some(slot) => slot.get_or_insert_with(new),
                None => p.sparse.entry(k).or_insert_with(new),
            };
            c.count += 1;
            c.weight = c.weight.saturating_add(w);
            for (acc, v) in c.accs.iter_mut().zip(values) {
                if let Some(f) = v.cells {
                    let x = f.at(i);
                    if x != MISSING || !v.numeric {
                        acc.add(x);
                    }
                }
            }
        }
        p
    };
    let all = (0..chunks)
        .into_par_iter()
        .map(one)
        .reduce(Partial::default, |a, b| {
            // The identity has no dense vector: keep the side that has one.
            if a.dense.len() >= b.dense.len() {
                a.merge(b)
            } else {
                b.merge(a)
            }
        });
    all.dense
        .into_iter()
        .flatten()
        .chain(all.sparse.into_values())
        .collect()
}

/// Count, weight and first row per class, when the values need nothing
/// else: one 24-byte slot per dense key (rows fit in `u32`).
fn slots(
    def: &TableDef<'_>,
    key: &(impl Fn(usize) -> u64 + Sync),
    dense_len: usize,
    chunks: usize,
    range: Option<TimeRange>,
    weight: Option<&Numbers<'_>>,
) -> Vec<Slot> {
    let rows = def.rows;
    let one = |k: usize| {
        let mut dense = vec![Slot::default(); dense_len];
        let mut sparse: FxHashMap<u64, Slot> = FxHashMap::default();
        for i in k * rows / chunks..(k + 1) * rows / chunks {
            if range.is_some_and(|r| !in_range(def, i, &r)) {
                continue;
            }
            let w = weight.map_or(0, |f| f.at(i));
            let w = if w == MISSING { 0 } else { w };
            let k = key(i);
            let s = match dense.get_mut(k as usize) {
                Some(s) => s,
                None => sparse.entry(k).or_default(),
            };
            if s.count == 0 {
                s.first = i as u32;
            }
            s.count += 1;
            s.weight = s.weight.saturating_add(w);
        }
        (dense, sparse)
    };
    let merge = |a: &mut Slot, b: &Slot| {
        if b.count > 0 {
            a.first = if a.count == 0 {
                b.first
            } else {
                a.first.min(b.first)
            };
            a.count += b.count;
            a.weight = a.weight.saturating_add(b.weight);
        }
    };
    let parts: Vec<(Vec<Slot>, FxHashMap<u64, Slot>)> =
        (0..chunks).into_par_iter().map(one).collect();
    let mut parts = parts.into_iter();
    let (mut dense, mut sparse) = parts.next().unwrap_or_default();
    for (d, sp) in parts {
        for (a, b) in dense.iter_mut().zip(&d) {
            merge(a, b);
        }
        for (k, b) in sp {
            merge(sparse.entry(k).or_default(), &b);
        }
    }
    dense
        .into_iter()
        .chain(sparse.into_values())
        .filter(|s| s.count > 0)
        .collect()
}

/// The per-row reader of a `Number` column.
pub(crate) fn number_cells<'f, 'a>(def: &'f TableDef<'a>, c: usize) -> Option<&'f Numbers<'a>> {
    match &def.columns.get(c)?.cells {
        Cells::Number(f) => Some(f),
        _ => None,
    }
}
