//! The one pass over the samples every query makes: in parallel over
//! chunks of the time range, three table lookups per sample, totals added
//! into dense per-slot cells.

use crate::index::views::View;
use crate::scan::plan::{Plan, FILTER_FAIL, PATH_FAIL, SLOT_MASK};
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
    pub(crate) fn add(&mut self, t: i64, w: i64) {
        // Views are time-sorted per run only: take min and max.
        if self.count == 0 {
            self.first_ns = t;
            self.last_ns = t;
        }
        self.count += 1;
        self.weight_ns += w;
        self.first_ns = self.first_ns.min(t);
        self.last_ns = self.last_ns.max(t);
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
}

/// Samples per parallel job: large enough that a job outweighs its
/// accumulator, small enough to balance two cores.
const MIN_CHUNK: usize = 1 << 16;

/// Accumulators larger than this are costly to zero and merge: split the
/// scan into one job per core instead of several.
const BIG_ACC_SLOTS: usize = 1 << 15;

/// Prefer a re-sorted view only when it reads this many times fewer rows.
const VIEW_ADVANTAGE: usize = 2;

/// A contiguous run of sample columns to scan.
#[derive(Clone, Copy)]
pub(crate) struct Job<'a> {
    time: &'a [i64],
    thread_cpu: &'a [u32],
    stack: &'a [u32],
    /// Weight of every sample in ns, or `None` to look it up by time.
    weight: Option<i64>,
    /// Whether rows outside the plan's time range may occur.
    check_time: bool,
}

impl<'a> Job<'a> {
    fn len(&self) -> usize {
        self.time.len()
    }

    fn split_at(self, at: usize) -> (Job<'a>, Job<'a>) {
        let at = at.min(self.len());
        let (t0, t1) = self.time.split_at(at);
        let (c0, c1) = self.thread_cpu.split_at(at.min(self.thread_cpu.len()));
        let (s0, s1) = self.stack.split_at(at.min(self.stack.len()));
        let a = Job {
            time: t0,
            thread_cpu: c0,
            stack: s0,
            ..self
        };
        let b = Job {
            time: t1,
            thread_cpu: c1,
            stack: s1,
            ..self
        };
        (a, b)
    }
}

impl Engine {
    /// Rows of `rows` split where the sampling interval changes, each with
    /// its weight per sample in ns.
    pub(crate) fn weight_segments(&self, rows: Range<usize>) -> Vec<(Range<usize>, i64)> {
        let s = &self.trace.samples;
        if let Some(w) = s.constant_interval() {
            return vec![(rows, w)];
        }
        let iv = &s.intervals;
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

    /// What to read for `plan`: the time range of the sample table, or the
    /// runs of the by-thread or by-node view holding every sample that can
    /// pass, whichever is smallest. With `skip_path_fail`, samples failing
    /// the path need not be read (the caller knows the filters' total).
    pub(crate) fn jobs(&self, plan: &Plan, skip_path_fail: bool) -> Vec<Job<'_>> {
        let s = &self.trace.samples;
        let mask = FILTER_FAIL | if skip_path_fail { PATH_FAIL } else { 0 };
        let (lo, hi) = plan.time;
        let constant = s.constant_interval();

        let v = &self.by_thread;
        let mut thread_runs = Vec::new();
        let mut thread_rows = 0;
        for (t, &bits) in plan.thread.iter().enumerate() {
            if bits & mask == 0 {
                let r = v.narrow(v.run(t), lo, hi);
                thread_rows += r.len();
                if !r.is_empty() {
                    thread_runs.push(r);
                }
            }
        }
        let v = &self.by_node;
        let mut node_runs: Vec<Range<usize>> = Vec::new();
        let mut node_rows = 0;
        for (n, &bits) in plan.node.iter().enumerate() {
            if bits & mask != 0 {
                continue;
            }
            let r = v.run(n);
            node_rows += r.len();
            match node_runs.last_mut() {
                Some(last) if last.end == r.start => last.end = r.end,
                _ if !r.is_empty() => node_runs.push(r),
                _ => {}
            }
        }
        let range_rows = plan.rows.len();
        if thread_rows * VIEW_ADVANTAGE < range_rows && thread_rows <= node_rows {
            return thread_runs
                .into_iter()
                .map(|r| view_job(&self.by_thread, r, constant, false))
                .collect();
        }
        if node_rows * VIEW_ADVANTAGE < range_rows {
            return node_runs
                .into_iter()
                .map(|r| view_job(&self.by_node, r, constant, true))
                .collect();
        }
        self.weight_segments(plan.rows.clone())
            .into_iter()
            .map(|(r, w)| Job {
                time: s.time.get(r.clone()).unwrap_or(&[]),
                thread_cpu: s.thread_cpu.get(r.clone()).unwrap_or(&[]),
                stack: s.stack.get(r).unwrap_or(&[]),
                weight: Some(w),
                check_time: false,
            })
            .collect()
    }

    /// Per-slot cells and the filters' total. With `known_total`, samples
    /// failing the path may be skipped and `total` is that value.
    pub(crate) fn scan(&self, plan: &Plan, known_total: Option<Cell>) -> Acc {
        let mode = Mode {
            skip_path_fail: known_total.is_some(),
            by_stack_ok: true,
            by_thread_ok: true,
        };
        let mut acc = self.scan_with(
            plan,
            mode,
            || Acc::new(plan.slots),
            |a: &mut Acc, h: Hit| {
                a.total.merge(&h.cell);
                if h.path_ok {
                    if let Some(c) = a.cells.get_mut(h.slot as usize) {
                        c.merge(&h.cell);
                    }
                }
            },
            Acc::merge,
        );
        if let Some(t) = known_total {
            acc.total = t;
        }
        acc
    }

    /// A plan that reads only the stack (or only the thread) of a sample
    /// gets the same answer from per-stack (or per-thread) totals: those
    /// precomputed for the sample buckets inside the range, plus a scan of
    /// the rows at its edges. Returns the accumulator of the covered buckets
    /// and the edge rows still to scan.
    fn scan_totals<A>(
        &self,
        plan: &Plan,
        mode: Mode,
        make: impl Fn() -> A,
        add: impl Fn(&mut A, Hit),
    ) -> Option<(A, Vec<Range<usize>>)> {
        // Totals are per thread or stack: they know no CPU nor time (Region).
        if plan.selection.is_some() || plan.uses.1 || plan.uses_region {
            return None;
        }
        let per_thread = match plan.uses {
            (false, _, _) if mode.by_stack_ok => false,
            (_, _, false) if mode.by_thread_ok => true,
            _ => return None,
        };
        let totals = &self.totals;
        let (cells, edges) = totals.cover(plan.rows.clone(), per_thread)?;
        let bits = if per_thread {
            &plan.thread
        } else {
            &plan.stack
        };
        let mut a = make();
        for (i, (c, &v)) in cells.iter().zip(bits).enumerate() {
            if c.count == 0 || v & FILTER_FAIL != 0 {
                continue;
            }
            let hit = Hit {
                thread: if per_thread { i as u32 } else { model::NONE },
                cpu: model::NONE,
                stack: if per_thread { model::NONE } else { i as u32 },
                slot: v & SLOT_MASK,
                path_ok: v & PATH_FAIL == 0,
                cell: *c,
            };
            add(&mut a, hit);
        }
        Some((a, edges))
    }

    /// Jobs over rows of the time-sorted sample table.
    fn row_jobs(&self, ranges: Vec<Range<usize>>) -> Vec<Job<'_>> {
        let s = &self.trace.samples;
        ranges
            .into_iter()
            .flat_map(|r| self.weight_segments(r))
            .map(|(r, w)| Job {
                time: s.time.get(r.clone()).unwrap_or(&[]),
                thread_cpu: s.thread_cpu.get(r.clone()).unwrap_or(&[]),
                stack: s.stack.get(r).unwrap_or(&[]),
                weight: Some(w),
                check_time: false,
            })
            .collect()
    }

    /// Calls `add` for every sample of the plan that passes its filters, in
    /// parallel over chunks, and merges the accumulators.
    pub(crate) fn scan_with<A: Send>(
        &self,
        plan: &Plan,
        mode: Mode,
        make: impl Fn() -> A + Sync + Send,
        add: impl Fn(&mut A, Hit) + Sync + Send,
        merge: impl Fn(A, A) -> A + Sync + Send,
    ) -> A {
        let (from_totals, jobs) = match self.scan_totals(plan, mode, &make, &add) {
            Some((a, edges)) => (Some(a), self.row_jobs(edges)),
            None => (None, self.jobs(plan, mode.skip_path_fail)),
        };
        let rows: usize = jobs.iter().map(Job::len).sum();
        let threads = rayon::current_num_threads().max(1);
        let per_core = if plan.slots > BIG_ACC_SLOTS { 1 } else { 4 };
        let chunk = (rows / (threads * per_core)).max(MIN_CHUNK);
        // Contiguous groups of about `chunk` rows, one accumulator each: a
        // filter that leaves many short jobs (one per thread of a process)
        // must not cost an accumulator, zeroed and merged, per job.
        let mut groups: Vec<Vec<Job<'_>>> = Vec::new();
        let mut group = Vec::new();
        let mut group_rows = 0;
        for &j in &jobs {
            let mut rest = j;
            while rest.len() > 0 {
                let take = (chunk - group_rows).min(rest.len());
                let (a, b) = rest.split_at(take);
                group.push(a);
                group_rows += take;
                rest = b;
                if group_rows >= chunk {
                    groups.push(std::mem::take(&mut group));
                    group_rows = 0;
                }
            }
        }
        if !group.is_empty() {
            groups.push(group);
        }
        let scanned = groups
            .into_par_iter()
            .with_max_len(1)
            .map(|g| {
                let mut a = make();
                for j in g {
                    self.scan_one(plan, j, &mut a, &add);
                }
                a
            })
            .reduce_with(&merge)
            .unwrap_or_else(&make);
        match from_totals {
            Some(a) => merge(a, scanned),
            None => scanned,
        }
    }

    /// `scan_job` for the sources the plan reads (skips the lookups of
    /// those that decide nothing).
    fn scan_one<A>(&self, plan: &Plan, j: Job<'_>, a: &mut A, add: &impl Fn(&mut A, Hit)) {
        match (plan.uses.0, plan.uses.1, plan.uses.2) {
            (true, true, true) => self.scan_job::<A, true, true, true>(plan, j, a, add),
            (true, true, false) => self.scan_job::<A, true, true, false>(plan, j, a, add),
            (true, false, true) => self.scan_job::<A, true, false, true>(plan, j, a, add),
            (true, false, false) => self.scan_job::<A, true, false, false>(plan, j, a, add),
            (false, true, true) => self.scan_job::<A, false, true, true>(plan, j, a, add),
            (false, true, false) => self.scan_job::<A, false, true, false>(plan, j, a, add),
            (false, false, true) => self.scan_job::<A, false, false, true>(plan, j, a, add),
            (false, false, false) => self.scan_job::<A, false, false, false>(plan, j, a, add),
        }
    }

    #[inline(always)]
    fn scan_job<A, const T: bool, const C: bool, const S: bool>(
        &self,
        plan: &Plan,
        j: Job<'_>,
        a: &mut A,
        add: &impl Fn(&mut A, Hit),
    ) {
        let last = plan.stack.len().saturating_sub(1);
        let (lo, hi) = plan.time;
        for ((&t, &tc), &st) in j.time.iter().zip(j.thread_cpu).zip(j.stack) {
            if j.check_time && (t < lo || t >= hi) {
                continue;
            }
            let th = (tc & (model::samples::MAX_THREADS - 1)) as usize;
            let cpu = (tc >> 20) as usize;
            let st = (st as usize).min(last);
            let mut v = 0;
            if T {
                v |= plan.thread.get(th).copied().unwrap_or(FILTER_FAIL);
            } else if th >= plan.thread.len() {
                // A thread row the model lacks never passes, whatever reads it.
                continue;
            }
            if C {
                v |= plan.cpu.get(cpu).copied().unwrap_or(FILTER_FAIL);
            }
            if S {
                v |= plan.stack.get(st).copied().unwrap_or(FILTER_FAIL);
            }
            // The Region column's key is the sample's time's (a lookup
            // only when a filter, path or level names Region).
            let region = if plan.uses_region {
                self.region_key(t)
            } else {
                0
            };
            if plan.uses_region {
                v |= plan.region.get(region).copied().unwrap_or(FILTER_FAIL);
            }
            if v & FILTER_FAIL != 0 {
                continue;
            }
            if let Some(m) = &plan.selection {
                let by_region = match &m.region {
                    Some(r) => r.get(region).copied().unwrap_or(0),
                    None => u64::MAX,
                };
                let hit = m.thread.get(th).copied().unwrap_or(0)
                    & m.cpu.get(cpu).copied().unwrap_or(0)
                    & m.stack.get(st).copied().unwrap_or(0)
                    & by_region;
                if hit == 0 {
                    continue;
                }
            }
            let weight = match j.weight {
                Some(w) => w,
                None => self.trace.samples.interval_at(t),
            };
            add(
                a,
                Hit {
                    thread: th as u32,
                    cpu: cpu as u32,
                    stack: st as u32,
                    slot: v & SLOT_MASK,
                    path_ok: v & PATH_FAIL == 0,
                    cell: Cell {
                        count: 1,
                        weight_ns: weight,
                        first_ns: t,
                        last_ns: t,
                    },
                },
            );
        }
    }
}

fn view_job(v: &View, r: Range<usize>, weight: Option<i64>, check_time: bool) -> Job<'_> {
    Job {
        time: v.time.get(r.clone()).unwrap_or(&[]),
        thread_cpu: v.thread_cpu.get(r.clone()).unwrap_or(&[]),
        stack: v.stack.get(r).unwrap_or(&[]),
        weight,
        check_time,
    }
}

/// A sample (or, from the precomputed totals, a group of samples) that
/// passed the filters.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Hit {
    /// Thread row, `NONE` for a group of samples of many threads.
    pub thread: u32,
    /// CPU, `NONE` for a group of samples of many CPUs.
    pub cpu: u32,
    /// Stack row (the stack count for "no stack"), `NONE` for a group of
    /// samples of many stacks.
    pub stack: u32,
    pub slot: u32,
    pub path_ok: bool,
    pub cell: Cell,
}

/// What a scan may skip or fold.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Mode {
    /// Samples failing the path need not be seen (the caller knows the total).
    pub skip_path_fail: bool,
    /// The caller takes hits that group the samples of one stack row (no
    /// single time or thread).
    pub by_stack_ok: bool,
    /// The caller takes hits that group the samples of one thread (no
    /// single time or stack).
    pub by_thread_ok: bool,
}
