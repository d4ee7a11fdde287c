//! Flame graph: the call tree of the filtered samples laid out as columns
//! (depth, start, width, func, self), pruned below a fraction of the total.

use crate::call_tree::ROOT;
use crate::filter::Filters;
use crate::plan::SlotOf;
use crate::scan::{Cell, Hit, Mode};
use crate::table_query::Totals;
use crate::{Engine, QueryError};
use model::NONE;
use rayon::prelude::*;
use rustc_hash::FxHashMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum FlameOrder {
    /// Siblings by function name (a classic flame graph).
    #[default]
    Name,
    /// Heaviest sibling first (an icicle / call tree order).
    Weight,
}

#[derive(Debug, Clone, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct FlameRequest {
    pub filters: Filters,
    /// Drop boxes narrower than this fraction of the total weight (0..1).
    pub min_fraction: f64,
    pub order: FlameOrder,
    /// One root box per process under the "all" box.
    pub per_process: bool,
}

/// Boxes in depth-first order, as parallel columns. Box 0 is the "all" root
/// (depth 0); with `per_process`, process boxes sit at depth 1.
#[derive(Debug, Clone, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct FlameGraph {
    pub total: Totals,
    pub depth: Vec<u16>,
    /// Weight (ns) left of the box on its row, from the root's start.
    pub start: Vec<i64>,
    pub width: Vec<i64>,
    /// Func key (`NONE` for the root and process boxes).
    pub func: Vec<u32>,
    /// Weight of the samples ending in this box.
    pub self_ns: Vec<i64>,
    /// Call node (`ROOT` for the root, `NONE` for process boxes).
    pub node: Vec<u32>,
    /// Process row of a process box, else `NONE`.
    pub process: Vec<u32>,
    pub label: Vec<String>,
}

impl Engine {
    /// Self cells per call node of the samples the filters keep.
    pub(crate) fn node_self(&self, filters: &Filters) -> Result<Vec<Cell>, QueryError> {
        if filters.columns.is_empty() && filters.selection.is_none() && self.threads_valid {
            return Ok(self.node_self_by_runs(filters));
        }
        // Accumulate by stack row (no per-sample lookup of its call node,
        // and none at all without stack filters), then fold into nodes.
        let plan = self.plan(filters, &[], SlotOf::One, 1)?;
        let mode = Mode {
            skip_path_fail: false,
            by_stack_ok: true,
            by_thread_ok: false,
        };
        let rows = self.tree.of_stack.len();
        // Count and weight only: half the memory of full cells per worker.
        let light = self.scan_with(
            &plan,
            mode,
            || vec![(0u64, 0i64); rows],
            |v: &mut Vec<(u64, i64)>, h: Hit| {
                if let Some(x) = v.get_mut(h.stack as usize) {
                    x.0 += h.cell.count;
                    x.1 += h.cell.weight_ns;
                }
            },
            |mut a, b| {
                for (x, y) in a.iter_mut().zip(&b) {
                    x.0 += y.0;
                    x.1 += y.1;
                }
                a
            },
        );
        let mut cells = vec![Cell::default(); self.tree.len()];
        for ((count, weight_ns), &n) in light.into_iter().zip(&self.tree.of_stack) {
            if let Some(c) = cells.get_mut(n as usize) {
                c.count += count;
                c.weight_ns += weight_ns;
            }
        }
        Ok(cells)
    }

    /// `node_self` for a time range alone (and a minimum depth): each
    /// node's own samples are a time-sorted run of the by-node view, so a
    /// range is two binary searches per node and interval segment, instead
    /// of a scan scattering every sample into a per-stack array (which
    /// misses the cache once a trace has millions of stacks).
    fn node_self_by_runs(&self, filters: &Filters) -> Vec<Cell> {
        let (lo, hi) = filters
            .range
            .map_or((i64::MIN, i64::MAX), |r| (r.start_ns, r.end_ns));
        // Weight per sample is the interval in force at its time: cut the
        // range where the interval changes (as SampleTable::weight_ns).
        let iv = &self.trace.samples.intervals;
        let mut segments = Vec::with_capacity(iv.len().max(1));
        let first_w = iv.first().map_or(1_000_000, |x| x.1);
        let mut from = i64::MIN;
        let mut w = first_w;
        for &(start, interval) in iv.iter().skip(1) {
            segments.push((from, start, w));
            from = start;
            w = interval;
        }
        segments.push((from, i64::MAX, w));
        let segments: Vec<(i64, i64, i64)> = segments
            .into_iter()
            .map(|(a, b, w)| (a.max(lo), b.min(hi), w))
            .filter(|&(a, b, _)| a < b)
            .collect();
        let v = &self.by_node;
        let min_depth = filters.min_stack_depth;
        let tree = &self.tree;
        let mut cells = vec![Cell::default(); tree.len()];
        cells
            .par_chunks_mut(64 * 1024)
            .enumerate()
            .for_each(|(chunk, out)| {
                let base = chunk * 64 * 1024;
                for (i, cell) in out.iter_mut().enumerate() {
                    let n = base + i;
                    if tree.depth.get(n).is_some_and(|&d| d < min_depth) {
                        continue;
                    }
                    let run = v.run(n);
                    if run.is_empty() {
                        continue;
                    }
                    for &(a, b, w) in &segments {
                        let r = v.narrow(run.clone(), a, b);
                        if r.is_empty() {
                            continue;
                        }
                        let k = r.len() as u64;
                        cell.merge(&Cell {
                            count: k,
                            weight_ns: k as i64 * w,
                            first_ns: v.time[r.start],
                            last_ns: v.time[r.end - 1],
                        });
                    }
                }
            });
        cells
    }

    pub fn flame(&self, req: &FlameRequest) -> Result<FlameGraph, QueryError> {
        let (groups, count) = if req.per_process {
            self.self_by_process(&req.filters)?
        } else {
            let cells = self.node_self(&req.filters)?;
            let count = cells.iter().map(|c| c.count).sum();
            (
                vec![(NONE, cells.iter().map(|c| c.weight_ns).collect())],
                count,
            )
        };
        let total: i64 = groups.iter().flat_map(|g| g.1.iter()).sum();
        let min = (req.min_fraction.max(0.0) * total as f64).ceil().max(1.0) as i64;
        let mut g = FlameGraph {
            total: Totals {
                count,
                weight_ns: total,
            },
            ..FlameGraph::default()
        };
        g.push(0, 0, total, NONE, 0, ROOT, NONE, "all".into());
        let mut ordered: Vec<(u32, Vec<i64>, Vec<i64>)> = groups
            .into_iter()
            .map(|(p, own)| {
                let inc = self.inclusive(&own);
                (p, own, inc)
            })
            .collect();
        if req.per_process {
            ordered.sort_by(|a, b| b.2[0].cmp(&a.2[0]).then(a.0.cmp(&b.0)));
        }
        let mut start = 0;
        for (p, own, inc) in &ordered {
            let w = inc.first().copied().unwrap_or(0);
            if w < min {
                continue;
            }
            let base = if req.per_process {
                let label = self.trace.process_label(*p);
                g.push(1, start, w, NONE, own[0], NONE, *p, label);
                1
            } else {
                g.self_ns[0] = own[0];
                0
            };
            self.lay_out(&mut g, own, inc, base, start, min, req.order);
            start += w;
        }
        Ok(g)
    }

    /// Subtree sums of per-node self weights (reverse preorder).
    fn inclusive(&self, own: &[i64]) -> Vec<i64> {
        let mut inc = own.to_vec();
        for n in (1..inc.len()).rev() {
            let p = self.tree.parent[n] as usize;
            let v = inc[n];
            if let Some(x) = inc.get_mut(p) {
                *x += v;
            }
        }
        inc
    }

    /// Boxes of the root's descendants, depth-first with an explicit stack.
    #[allow(clippy::too_many_arguments)]
    fn lay_out(
        &self,
        g: &mut FlameGraph,
        own: &[i64],
        inc: &[i64],
        base: u16,
        start: i64,
        min: i64,
        order: FlameOrder,
    ) {
        let mut todo = vec![(ROOT, base, start)];
        while let Some((n, depth, s)) = todo.pop() {
            if n != ROOT {
                let f = self.tree.func[n as usize];
                let label = self.func_label(f);
                g.push(
                    depth,
                    s,
                    inc[n as usize],
                    f,
                    own[n as usize],
                    n,
                    NONE,
                    label,
                );
            }
            let mut kids: Vec<(u32, String)> = self
                .tree
                .children(n)
                .filter(|&c| inc[c as usize] >= min)
                .map(|c| {
                    let label = match order {
                        FlameOrder::Name => self.func_label(self.tree.func[c as usize]),
                        FlameOrder::Weight => String::new(),
                    };
                    (c, label)
                })
                .collect();
            match order {
                FlameOrder::Name => kids.sort_by(|a, b| a.1.cmp(&b.1).then(a.0.cmp(&b.0))),
                FlameOrder::Weight => kids.sort_by(|a, b| {
                    inc[b.0 as usize]
                        .cmp(&inc[a.0 as usize])
                        .then(a.0.cmp(&b.0))
                }),
            }
            // Push in reverse so the first child is laid out first.
            let mut offsets = Vec::with_capacity(kids.len());
            let mut x = s;
            for (c, _) in &kids {
                offsets.push((*c, x));
                x += inc[*c as usize];
            }
            for (c, x) in offsets.into_iter().rev() {
                todo.push((c, depth.saturating_add(1), x));
            }
        }
    }

    /// Self weight per (process, call node): one scan, hashed per worker.
    #[allow(clippy::type_complexity)]
    fn self_by_process(
        &self,
        filters: &Filters,
    ) -> Result<(Vec<(u32, Vec<i64>)>, u64), QueryError> {
        let plan = self.plan(filters, &[], SlotOf::One, 1)?;
        let proc_of = &self.keys.thread[0];
        let mode = Mode {
            skip_path_fail: false,
            by_stack_ok: false,
            by_thread_ok: false,
        };
        let map = self.scan_with(
            &plan,
            mode,
            FxHashMap::<u64, (u64, i64)>::default,
            |m, h: Hit| {
                let p = proc_of.get(h.thread as usize).copied().unwrap_or(NONE);
                let e = m.entry(((p as u64) << 32) | h.stack as u64).or_default();
                e.0 += h.cell.count;
                e.1 += h.cell.weight_ns;
            },
            |mut a, b| {
                for (k, v) in b {
                    let e = a.entry(k).or_default();
                    e.0 += v.0;
                    e.1 += v.1;
                }
                a
            },
        );
        let mut count = 0;
        let mut by: FxHashMap<u32, Vec<i64>> = FxHashMap::default();
        for (k, (c, w)) in map {
            count += c;
            let own = by
                .entry((k >> 32) as u32)
                .or_insert_with(|| vec![0; self.tree.len()]);
            let node = self.tree.node_of_stack((k & 0xFFFF_FFFF) as u32);
            if let Some(x) = own.get_mut(node as usize) {
                *x += w;
            }
        }
        Ok((by.into_iter().collect(), count))
    }
}

impl FlameGraph {
    #[allow(clippy::too_many_arguments)]
    fn push(
        &mut self,
        depth: u16,
        start: i64,
        width: i64,
        func: u32,
        self_ns: i64,
        node: u32,
        process: u32,
        label: String,
    ) {
        self.depth.push(depth);
        self.start.push(start);
        self.width.push(width);
        self.func.push(func);
        self.self_ns.push(self_ns);
        self.node.push(node);
        self.process.push(process);
        self.label.push(label);
    }

    pub fn len(&self) -> usize {
        self.depth.len()
    }

    pub fn is_empty(&self) -> bool {
        self.depth.is_empty()
    }
}
