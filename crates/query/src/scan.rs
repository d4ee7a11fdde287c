//! The one pass over the samples every query makes: in parallel over
//! chunks of the time range, three table lookups per sample, totals added
//! into dense per-slot cells.

use crate::plan::{Plan, FILTER_FAIL, PATH_FAIL, SLOT_MASK};
use crate::Engine;
use rayon::prelude::*;
use std::ops::Range;

/// Count, weight and first/last time of a group of samples.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cell {
    pub count: u64,
    pub weight_ns: i64,
    pub first_ns: i64,
    pub last_ns: i64,
}

impl Cell {
    #[inline]
    fn add(&mut self, t: i64, w: i64) {
        if self.count == 0 {
            self.first_ns = t;
        }
        self.count += 1;
        self.weight_ns += w;
        self.last_ns = t;
    }

    pub fn merge(&mut self, o: &Cell) {
        if o.count == 0 {
            return;
        }
        if self.count == 0 {
            *self = *o;
            return;
        }
        self.count += o.count;
        self.weight_ns += o.weight_ns;
        self.first_ns = self.first_ns.min(o.first_ns);
        self.last_ns = self.last_ns.max(o.last_ns);
    }
}

pub(crate) struct Acc {
    pub cells: Vec<Cell>,
    /// Every sample passing the filters (the path ignored).
    pub total: Cell,
}

impl Acc {
    fn new(slots: usize) -> Acc {
        Acc {
            cells: vec![Cell::default(); slots],
            total: Cell::default(),
        }
    }

    fn merge(mut self, o: Acc) -> Acc {
        for (a, b) in self.cells.iter_mut().zip(&o.cells) {
            a.merge(b);
        }
        self.total.merge(&o.total);
        self
    }

    /// Sum of every slot: the samples under the path.
    pub fn path_total(&self) -> Cell {
        let mut c = Cell::default();
        for x in &self.cells {
            c.merge(x);
        }
        c
    }
}

/// Samples per parallel job: large enough that a job outweighs its
/// accumulator, small enough to balance two cores.
const MIN_CHUNK: usize = 1 << 16;

impl Engine {
    /// Rows of `rows` split where the sampling interval changes, each with
    /// its weight per sample in ns.
    pub(crate) fn weight_segments(&self, rows: Range<usize>) -> Vec<(Range<usize>, i64)> {
        let s = &self.trace.samples;
        let iv = &s.intervals;
        if iv.len() <= 1 {
            let w = iv.first().map_or(1_000_000, |x| x.1);
            return vec![(rows, w)];
        }
        let mut out = Vec::new();
        let mut lo = rows.start;
        while lo < rows.end {
            let w = s.weight_ns(lo);
            let t = s.time[lo];
            // The interval in force at `t` ends where the next one starts.
            let k = iv.partition_point(|&(start, _)| start <= t);
            let hi = match iv.get(k) {
                Some(&(next, _)) => lo + s.time[lo..rows.end].partition_point(|&x| x < next),
                None => rows.end,
            };
            let hi = hi.max(lo + 1);
            out.push((lo..hi, w));
            lo = hi;
        }
        out
    }

    pub(crate) fn scan(&self, plan: &Plan) -> Acc {
        self.scan_with(
            plan,
            || Acc::new(plan.slots),
            |a: &mut Acc, h: Hit| {
                a.total.add(h.time, h.weight);
                if h.path_ok {
                    if let Some(c) = a.cells.get_mut(h.slot as usize) {
                        c.add(h.time, h.weight);
                    }
                }
            },
            Acc::merge,
        )
    }

    /// Calls `add` for every sample of the plan's range that passes its
    /// filters, in parallel over chunks, and merges the accumulators.
    pub(crate) fn scan_with<A: Send>(
        &self,
        plan: &Plan,
        make: impl Fn() -> A + Sync + Send,
        add: impl Fn(&mut A, Hit) + Sync + Send,
        merge: impl Fn(A, A) -> A + Sync + Send,
    ) -> A {
        let mut acc = make();
        for (rows, w) in self.weight_segments(plan.rows.clone()) {
            let threads = rayon::current_num_threads().max(1);
            let chunk = (rows.len() / (threads * 4)).max(MIN_CHUNK);
            let starts: Vec<usize> = rows.clone().step_by(chunk).collect();
            let part = starts
                .into_par_iter()
                .fold(&make, |mut a, lo| {
                    let hi = (lo + chunk).min(rows.end);
                    self.scan_rows(plan, lo..hi, w, &mut a, &add);
                    a
                })
                .reduce(&make, &merge);
            acc = merge(acc, part);
        }
        acc
    }

    #[inline(always)]
    fn scan_rows<A>(
        &self,
        plan: &Plan,
        rows: Range<usize>,
        w: i64,
        a: &mut A,
        add: &impl Fn(&mut A, Hit),
    ) {
        let s = &self.trace.samples;
        let (Some(time), Some(tc), Some(stack)) = (
            s.time.get(rows.clone()),
            s.thread_cpu.get(rows.clone()),
            s.stack.get(rows),
        ) else {
            return;
        };
        let last = plan.stack.len().saturating_sub(1);
        for ((&t, &tc), &st) in time.iter().zip(tc).zip(stack) {
            let th = (tc & (model::samples::MAX_THREADS - 1)) as usize;
            let cpu = (tc >> 20) as usize;
            let st = (st as usize).min(last);
            let v = plan.thread.get(th).copied().unwrap_or(FILTER_FAIL)
                | plan.cpu.get(cpu).copied().unwrap_or(FILTER_FAIL)
                | plan.stack.get(st).copied().unwrap_or(FILTER_FAIL);
            if v & FILTER_FAIL != 0 {
                continue;
            }
            if let Some(m) = &plan.selection {
                let hit = m.thread.get(th).copied().unwrap_or(0)
                    & m.cpu.get(cpu).copied().unwrap_or(0)
                    & m.stack.get(st).copied().unwrap_or(0);
                if hit == 0 {
                    continue;
                }
            }
            add(
                a,
                Hit {
                    thread: th as u32,
                    slot: v & SLOT_MASK,
                    path_ok: v & PATH_FAIL == 0,
                    time: t,
                    weight: w,
                },
            );
        }
    }
}

/// A sample that passed the filters.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Hit {
    pub thread: u32,
    pub slot: u32,
    pub path_ok: bool,
    pub time: i64,
    pub weight: i64,
}
