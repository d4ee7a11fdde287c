//! Sample count and weight per class of one trace in a time range: per
//! thread (from the samples the engine sorted by thread, `views.rs`), per
//! stack (from its load-time per-stack totals, `totals.rs`, scanning only
//! the rows at the range's edges), or per pair of a thread part and a
//! stack part (one pass over each thread's run of the sorted samples).
//! A class is a thread or stack row; every row the model lacks (and no
//! stack) is the one extra class at the end, as the columns read it.

use crate::scan::filter::TimeRange;
use crate::table::columns::MISSING;
use crate::Engine;
use model::samples::SampleTable;
use model::Trace;
use rayon::prelude::*;
use std::ops::Range;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Tally {
    pub count: u64,
    pub weight: i64,
}

impl Tally {
    pub(super) fn add(&mut self, count: u64, weight: i64) {
        self.count += count;
        self.weight = self.weight.saturating_add(weight);
    }
}

/// The weight of sample `i`, as the Weight column reads it.
fn weight_at(s: &SampleTable, t: i64) -> i64 {
    match s.interval_at(t) {
        MISSING => 0,
        w => w,
    }
}

/// The sample rows whose time lies in `range` (rows are sorted by time).
pub(super) fn rows(t: &Trace, range: Option<TimeRange>) -> Range<usize> {
    let time = &t.samples.time;
    let n = t.samples.len().min(time.len());
    match range {
        None => 0..n,
        Some(r) => {
            let time = &time[..n];
            let lo = time.partition_point(|&x| x < r.start_ns);
            let hi = time.partition_point(|&x| x < r.end_ns).max(lo);
            lo..hi
        }
    }
}

pub(super) fn thread_class(t: &Trace, i: usize) -> usize {
    let th = t.samples.thread(i) as usize;
    th.min(t.threads.len())
}

pub(super) fn stack_class(t: &Trace, i: usize) -> usize {
    let st = t.samples.stack.get(i).copied().unwrap_or(model::NONE) as usize;
    st.min(t.stacks.len())
}

/// Whether the engine's totals hold every sample: they leave out samples
/// of thread rows the model lacks, and read parallel columns of one length.
fn totals_hold_all(e: &Engine) -> bool {
    let s = &e.trace().samples;
    s.stack.len() == s.len() && s.thread_cpu.len() == s.len() && e.threads_valid
}

/// Totals per class from the engine's buckets inside the range, plus the
/// rows at its edges; `None` when no bucket lies inside.
fn from_totals(
    e: &Engine,
    range: Option<TimeRange>,
    per_thread: bool,
    classes: usize,
    class: impl Fn(&Trace, usize) -> usize,
) -> Option<Vec<Tally>> {
    if !totals_hold_all(e) {
        return None;
    }
    let t = e.trace();
    let s = &t.samples;
    let (cells, edges) = e.totals.cover(rows(t, range), per_thread)?;
    let mut out = vec![Tally::default(); classes];
    for (o, c) in out.iter_mut().zip(cells.iter()) {
        o.add(c.count, c.weight_ns);
    }
    for r in edges {
        for i in r {
            let w = s.time.get(i).map_or(0, |&time| weight_at(s, time));
            if let Some(o) = out.get_mut(class(t, i)) {
                o.add(1, w);
            }
        }
    }
    Some(out)
}

/// Per thread class (`threads.len() + 1` entries).
pub(super) fn by_thread(e: &Engine, range: Option<TimeRange>) -> Vec<Tally> {
    let t = e.trace();
    if let Some(out) = from_totals(e, range, true, t.threads.len() + 1, thread_class) {
        return out;
    }
    let s = &t.samples;
    let v = &e.by_thread;
    let (lo, hi) = range.map_or((i64::MIN, i64::MAX), |r| (r.start_ns, r.end_ns));
    (0..=t.threads.len())
        .map(|th| {
            let run = v.narrow(v.run(th), lo, hi);
            let mut tally = Tally::default();
            for &time in v.time.get(run).unwrap_or_default() {
                tally.add(1, weight_at(s, time));
            }
            tally
        })
        .collect()
}

/// Per stack class (`stacks.len() + 1` entries).
pub(super) fn by_stack(e: &Engine, range: Option<TimeRange>) -> Vec<Tally> {
    let t = e.trace();
    if let Some(out) = from_totals(e, range, false, t.stacks.len() + 1, stack_class) {
        return out;
    }
    let s = &t.samples;
    let mut out = vec![Tally::default(); t.stacks.len() + 1];
    for i in rows(t, range) {
        let w = s.time.get(i).map_or(0, |&time| weight_at(s, time));
        if let Some(o) = out.get_mut(stack_class(t, i)) {
            o.add(1, w);
        }
    }
    out
}

/// Per pair (thread part, stack part) with samples in `range`: threads of
/// one part are read together into one dense vector over stack parts.
pub(super) fn by_pair(
    e: &Engine,
    range: Option<TimeRange>,
    (thread_part, parts): (&[u32], usize),
    (stack_part, stack_parts): (&[u32], usize),
) -> Vec<(u32, u32, Tally)> {
    let t = e.trace();
    let s = &t.samples;
    let v = &e.by_thread;
    let (lo, hi) = range.map_or((i64::MIN, i64::MAX), |r| (r.start_ns, r.end_ns));
    let mut threads_of: Vec<Vec<usize>> = vec![Vec::new(); parts];
    for (th, &p) in thread_part.iter().enumerate() {
        if let Some(list) = threads_of.get_mut(p as usize) {
            list.push(th);
        }
    }
    let none = t.stacks.len();
    let fixed = s
        .constant_interval()
        .map(|w| if w == MISSING { 0 } else { w });
    threads_of
        .par_iter()
        .enumerate()
        .map_init(
            || (vec![Tally::default(); stack_parts], Vec::new()),
            |(dense, touched), (tp, threads)| {
                let mut add = |st: u32, w: i64| {
                    let class = (st as usize).min(none);
                    let sp = stack_part.get(class).copied().unwrap_or(0) as usize;
                    if let Some(d) = dense.get_mut(sp) {
                        if d.count == 0 {
                            touched.push(sp as u32);
                        }
                        d.add(1, w);
                    }
                };
                for &th in threads {
                    let run = v.narrow(v.run(th), lo, hi);
                    let stacks = v.stack.get(run.clone()).unwrap_or_default();
                    match fixed {
                        // One interval: the times need not be read.
                        Some(w) => stacks.iter().for_each(|&st| add(st, w)),
                        None => {
                            let times = v.time.get(run).unwrap_or_default();
                            for (&st, &time) in stacks.iter().zip(times) {
                                add(st, weight_at(s, time));
                            }
                        }
                    }
                }
                let out: Vec<(u32, u32, Tally)> = touched
                    .drain(..)
                    .map(|sp| {
                        let d = std::mem::take(&mut dense[sp as usize]);
                        (tp as u32, sp, d)
                    })
                    .collect();
                out
            },
        )
        .flatten()
        .collect()
}
