//! `node_self` for filters on threads, CPUs and call nodes, from the
//! by-node view: each call node's samples are one contiguous run there, so
//! the pass reads them in order and counts those whose thread and CPU pass,
//! with nothing scattered. The scan it replaces gave each job a per-stack
//! array (16 bytes x millions of stacks), zeroed, filled at random and
//! merged, which cost several times the unfiltered flame graph for one
//! process of a 10M-sample trace.

use crate::scan::pass::Cell;
use crate::scan::plan::{Plan, FILTER_FAIL};
use crate::Engine;
use model::samples::MAX_THREADS;
use rayon::prelude::*;

/// Call nodes per parallel job.
const NODES_PER_JOB: usize = 64 * 1024;

/// A sample read in order costs a fraction of one scattered into a
/// per-stack array: read the passing nodes' runs whole unless the thread
/// filter keeps fewer than this fraction of their samples.
const SCATTER_COST: usize = 8;

impl Engine {
    /// Self count and weight per call node of the samples `plan` keeps
    /// (first and last time left at 0, as the scan's), or `None` when a
    /// scan is cheaper or the plan has a selection (its masks are per stack
    /// row, not per node).
    pub(crate) fn node_self_from_view(&self, plan: &Plan) -> Option<Vec<Cell>> {
        if plan.selection.is_some() || plan.uses_region || !self.threads_valid {
            return None;
        }
        let v = &self.by_node;
        let (lo, hi) = plan.time;
        let passes = |n: usize| plan.node.get(n).is_some_and(|&b| b & FILTER_FAIL == 0);
        if plan.uses.0 {
            let node_rows: usize = (0..self.tree.len())
                .filter(|&n| passes(n))
                .map(|n| v.run(n).len())
                .sum();
            let t = &self.by_thread;
            let thread_rows: usize = plan
                .thread
                .iter()
                .enumerate()
                .filter(|(_, &b)| b & FILTER_FAIL == 0)
                .map(|(th, _)| t.narrow(t.run(th), lo, hi).len())
                .sum();
            if node_rows > thread_rows.saturating_mul(SCATTER_COST) {
                return None;
            }
        }
        let segments = self.trace.samples.interval_spans(lo, hi);
        let mut cells = vec![Cell::default(); self.tree.len()];
        let (by_thread, by_cpu) = (plan.uses.0, plan.uses.1);
        cells
            .par_chunks_mut(NODES_PER_JOB)
            .enumerate()
            .for_each(|(job, out)| {
                let base = job * NODES_PER_JOB;
                for (i, cell) in out.iter_mut().enumerate() {
                    let n = base + i;
                    if !passes(n) {
                        continue;
                    }
                    let run = v.run(n);
                    if run.is_empty() {
                        continue;
                    }
                    for &(a, b, w) in &segments {
                        let r = v.narrow(run.clone(), a, b);
                        let tcs = v.thread_cpu.get(r).unwrap_or_default();
                        let kept = match (by_thread, by_cpu) {
                            (false, false) => tcs.len() as u64,
                            _ => tcs.iter().filter(|&&tc| keeps(plan, tc)).count() as u64,
                        };
                        cell.count += kept;
                        cell.weight_ns += kept as i64 * w;
                    }
                }
            });
        Some(cells)
    }
}

/// Whether a sample's thread and CPU pass `plan` (what the scan checks).
#[inline]
fn keeps(plan: &Plan, tc: u32) -> bool {
    let th = (tc & (MAX_THREADS - 1)) as usize;
    let cpu = (tc >> 20) as usize;
    let t = plan.thread.get(th).copied().unwrap_or(FILTER_FAIL);
    let c = if plan.uses.1 {
        plan.cpu.get(cpu).copied().unwrap_or(FILTER_FAIL)
    } else {
        0
    };
    (t | c) & FILTER_FAIL == 0
}
