//! Per-stack and per-thread totals of the samples, precomputed per bucket
//! of consecutive sample rows, so a query that depends only on the stack
//! (or only on the thread) of a sample reads the buckets inside its range
//! and scans only the rows at the range's edges.

use crate::scan::pass::Cell;
use model::samples::SampleTable;
use rayon::prelude::*;
use std::borrow::Cow;
use std::ops::Range;

/// Memory allowed for the per-bucket stack totals.
const BUDGET_BYTES: usize = 64 << 20;
/// Below this many samples one bucket (the whole trace) is enough.
const MIN_SAMPLES_FOR_BUCKETS: usize = 1 << 21;
const MAX_BUCKETS: usize = 32;

/// Totals of the buckets inside a range, and the rows left to scan.
pub(crate) type Cover<'a> = (Cow<'a, [Cell]>, Vec<Range<usize>>);

#[derive(Debug, Default, Clone)]
pub(crate) struct SampleTotals {
    /// Bucket k holds sample rows `bounds[k]..bounds[k + 1]`.
    bounds: Vec<usize>,
    /// `[bucket][stack row]`; the last entry of a row is "no stack".
    by_stack: Vec<Vec<Cell>>,
    /// `[bucket][thread row]`.
    by_thread: Vec<Vec<Cell>>,
    whole_stack: Vec<Cell>,
    whole_thread: Vec<Cell>,
}

impl SampleTotals {
    /// Bytes held.
    pub(crate) fn heap_bytes(&self) -> usize {
        let cells = |v: &[Vec<Cell>]| -> usize { v.iter().map(Vec::capacity).sum() };
        let cell = std::mem::size_of::<Cell>();
        self.bounds.capacity() * 8
            + (cells(&self.by_stack) + cells(&self.by_thread)) * cell
            + (self.whole_stack.capacity() + self.whole_thread.capacity()) * cell
    }

    /// `buckets`: how many, or `None` to fit the memory budget.
    pub(crate) fn build(
        s: &SampleTable,
        stacks: usize,
        threads: usize,
        buckets: Option<usize>,
    ) -> SampleTotals {
        let n = s.len().min(s.stack.len()).min(s.thread_cpu.len());
        let per_bucket = (stacks + 1) * std::mem::size_of::<Cell>();
        let buckets = match buckets {
            Some(b) => b.clamp(1, MAX_BUCKETS),
            None if n < MIN_SAMPLES_FOR_BUCKETS => 1,
            None => (BUDGET_BYTES / per_bucket.max(1)).clamp(1, MAX_BUCKETS),
        };
        let bounds: Vec<usize> = (0..=buckets).map(|k| k * n / buckets).collect();
        let (by_stack, by_thread): (Vec<Vec<Cell>>, Vec<Vec<Cell>>) = (0..buckets)
            .into_par_iter()
            .map(|k| {
                let mut st = vec![Cell::default(); stacks + 1];
                let mut th = vec![Cell::default(); threads];
                for i in bounds[k]..bounds[k + 1] {
                    let (t, w) = (s.time[i], s.weight_ns(i));
                    // Samples of a thread row the model lacks never pass a scan.
                    if let Some(c) = th.get_mut(s.thread(i) as usize) {
                        c.add(t, w);
                        st[(s.stack[i] as usize).min(stacks)].add(t, w);
                    }
                }
                (st, th)
            })
            .unzip();
        let merge_all = |v: &[Vec<Cell>], len: usize| {
            let mut out = vec![Cell::default(); len];
            for b in v {
                for (x, y) in out.iter_mut().zip(b) {
                    x.merge(y);
                }
            }
            out
        };
        SampleTotals {
            whole_stack: merge_all(&by_stack, stacks + 1),
            whole_thread: merge_all(&by_thread, threads),
            bounds,
            by_stack,
            by_thread,
        }
    }

    /// Totals of the buckets inside `rows` (per thread or per stack row),
    /// and the rows of `rows` outside those buckets; `None` when no bucket
    /// lies inside.
    pub(crate) fn cover(&self, rows: Range<usize>, per_thread: bool) -> Option<Cover<'_>> {
        let b = &self.bounds;
        let first = b.partition_point(|&x| x < rows.start);
        let end = b.partition_point(|&x| x <= rows.end).checked_sub(1)?;
        if first >= end || end >= b.len() {
            return None;
        }
        let (buckets, whole) = if per_thread {
            (&self.by_thread, &self.whole_thread)
        } else {
            (&self.by_stack, &self.whole_stack)
        };
        let cells = if first == 0 && end == buckets.len() {
            Cow::Borrowed(whole.as_slice())
        } else {
            let mut out = vec![Cell::default(); whole.len()];
            for bucket in buckets.get(first..end)? {
                for (x, y) in out.iter_mut().zip(bucket) {
                    x.merge(y);
                }
            }
            Cow::Owned(out)
        };
        let edges = [rows.start..b[first], b[end]..rows.end]
            .into_iter()
            .filter(|r| !r.is_empty())
            .collect();
        Some((cells, edges))
    }
}
