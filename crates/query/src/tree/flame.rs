//! Flame graph: the call tree of the filtered samples laid out as columns
//! (depth, start, width, func, self), pruned below a fraction of the total.

use crate::index::call_tree::{CallTree, ROOT};
use crate::scan::filter::Filters;
use crate::scan::pass::{Cell, Hit, Mode};
use crate::scan::plan::SlotOf;
use crate::table::sampled::Totals;
use crate::{Engine, QueryError};
use model::NONE;
use rayon::prelude::*;
use rustc_hash::FxHashMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FlameOrder {
    /// Siblings by function name (a classic flame graph).
    #[default]
    Name,
    /// Heaviest sibling first (an icicle / call tree order).
    Weight,
}

#[derive(Debug, Clone, PartialEq, Default)]
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
    /// Whether the filters are a time range (and a minimum depth) only: then
    /// each call node's samples are counted from its time-sorted run.
    fn range_only(&self, filters: &Filters) -> bool {
        filters.columns.is_empty() && filters.selection.is_none() && self.threads_valid
    }

    /// Self cells per call node of the samples the filters keep.
    pub(crate) fn node_self(&self, filters: &Filters) -> Result<Vec<Cell>, QueryError> {
        if self.range_only(filters) {
            return Ok(self.node_self_by_runs(filters));
        }
        // Accumulate by stack row (no per-sample lookup of its call node,
        // and none at all without stack filters), then fold into nodes.
        let plan = self.plan(filters, &[], SlotOf::One, 1)?;
        if let Some(cells) = self.node_self_from_view(&plan) {
            return Ok(cells);
        }
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

    /// The filters' time range cut where the sampling interval changes.
    fn range_segments(&self, filters: &Filters) -> Vec<(i64, i64, i64)> {
        let (lo, hi) = filters
            .range
            .map_or((i64::MIN, i64::MAX), |r| (r.start_ns, r.end_ns));
        self.trace.samples.interval_spans(lo, hi)
    }

    /// `self_by_process` for a time range alone, from the by-node view:
    /// nodes come in preorder, so each process's entries come out sorted by
    /// node with no hashing per sample.
    #[allow(clippy::type_complexity)]
    fn self_by_process_runs(&self, filters: &Filters) -> (Vec<(u32, Vec<(u32, i64)>)>, u64) {
        let segments = self.range_segments(filters);
        let v = &self.by_node;
        let tree = &self.tree;
        let proc_of = &self.keys.thread[0];
        let slots = self.trace.processes.len() + 1; // the last: no process
        let min_depth = filters.min_stack_depth;
        const CHUNK: usize = 16 * 1024;
        let parts: Vec<(Vec<Vec<(u32, i64)>>, u64)> = (0..tree.len().div_ceil(CHUNK))
            .into_par_iter()
            .map(|chunk| {
                let mut lists: Vec<Vec<(u32, i64)>> = vec![Vec::new(); slots];
                let mut count = 0u64;
                let end = ((chunk + 1) * CHUNK).min(tree.len());
                for n in chunk * CHUNK..end {
                    if tree.depth.get(n).is_some_and(|&d| d < min_depth) {
                        continue;
                    }
                    let run = v.run(n);
                    if run.is_empty() {
                        continue;
                    }
                    for &(a, b, w) in &segments {
                        let r = v.narrow(run.clone(), a, b);
                        count += r.len() as u64;
                        for &tc in v.thread_cpu.get(r).unwrap_or_default() {
                            let th = tc & (model::samples::MAX_THREADS - 1);
                            let p = proc_of.get(th as usize).copied().unwrap_or(NONE);
                            let slot = (p as usize).min(slots - 1);
                            if let Some(l) = lists.get_mut(slot) {
                                match l.last_mut() {
                                    Some(last) if last.0 == n as u32 => last.1 += w,
                                    _ => l.push((n as u32, w)),
                                }
                            }
                        }
                    }
                }
                (lists, count)
            })
            .collect();
        let mut count = 0;
        let mut by: Vec<Vec<(u32, i64)>> = vec![Vec::new(); slots];
        for (lists, c) in parts {
            count += c;
            for (all, l) in by.iter_mut().zip(lists) {
                all.extend(l);
            }
        }
        let groups = by
            .into_iter()
            .enumerate()
            .filter(|(_, l)| !l.is_empty())
            .map(|(slot, l)| {
                let p = if slot == slots - 1 { NONE } else { slot as u32 };
                (p, l)
            })
            .collect();
        (groups, count)
    }

    /// One process's weights from its (node, self weight) entries: sorted
    /// by node with prefix sums, so a node's inclusive weight (its subtree
    /// is the preorder range `n..end[n]`) is two binary searches, and
    /// nothing is sized by the whole call tree.
    fn process_weights(&self, mut own: Vec<(u32, i64)>) -> NodeWeights {
        own.sort_unstable_by_key(|e| e.0);
        let mut nodes: Vec<u32> = Vec::with_capacity(own.len());
        let mut weights: Vec<i64> = Vec::with_capacity(own.len());
        for (n, w) in own {
            match (nodes.last(), weights.last_mut()) {
                (Some(&last), Some(x)) if last == n => *x += w,
                _ => {
                    nodes.push(n);
                    weights.push(w);
                }
            }
        }
        let mut prefix = Vec::with_capacity(weights.len() + 1);
        let mut acc = 0i64;
        prefix.push(0);
        for &w in &weights {
            acc += w;
            prefix.push(acc);
        }
        NodeWeights::Sorted {
            nodes,
            own: weights,
            prefix,
        }
    }

    /// `node_self` for a time range alone (and a minimum depth): each
    /// node's own samples are a time-sorted run of the by-node view, so a
    /// range is two binary searches per node and interval segment, instead
    /// of a scan scattering every sample into a per-stack array (which
    /// misses the cache once a trace has millions of stacks).
    fn node_self_by_runs(&self, filters: &Filters) -> Vec<Cell> {
        let segments = self.range_segments(filters);
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
        let (groups, count): (Vec<(u32, NodeWeights)>, u64) = if req.per_process {
            let (by, count) = if self.range_only(&req.filters) {
                self.self_by_process_runs(&req.filters)
            } else {
                self.self_by_process(&req.filters)?
            };
            let groups = by
                .into_iter()
                .map(|(p, own)| (p, self.process_weights(own)))
                .collect();
            (groups, count)
        } else {
            let cells = self.node_self(&req.filters)?;
            let count = cells.iter().map(|c| c.count).sum();
            let own: Vec<i64> = cells.iter().map(|c| c.weight_ns).collect();
            let inc = self.inclusive(&own);
            (vec![(NONE, NodeWeights::Dense { own, inc })], count)
        };
        let label = |p: u32| (self.trace.process_label(p), p);
        let boxes: Option<&dyn Fn(u32) -> (String, u32)> = req.per_process.then_some(&label);
        Ok(self.assemble(req, groups, count, boxes))
    }

    /// The flame graph with one box per stack tag (of the engine's set)
    /// under "all", as WPA shows Stack Tag above Stack: each sample goes to
    /// its stack's tag, so a tag's box holds the stacks with that tag.
    pub fn flame_by_stack_tag(&self, req: &FlameRequest) -> Result<FlameGraph, QueryError> {
        let cells = self.node_self(&req.filters)?;
        let count = cells.iter().map(|c| c.count).sum();
        let tags = &self.keys.node[5];
        let mut by: std::collections::BTreeMap<u32, Vec<(u32, i64)>> = Default::default();
        for (n, c) in cells.iter().enumerate() {
            if c.count > 0 {
                let tag = tags.get(n).copied().unwrap_or(NONE);
                by.entry(tag).or_default().push((n as u32, c.weight_ns));
            }
        }
        let groups = by
            .into_iter()
            .map(|(k, own)| (k, self.process_weights(own)))
            .collect();
        let label = |k: u32| (self.stack_tags.label(k), NONE);
        Ok(self.assemble(req, groups, count, Some(&label)))
    }

    /// Boxes under "all": one per group when `group_box` names them (label,
    /// process row), else the single group's call tree directly.
    fn assemble(
        &self,
        req: &FlameRequest,
        mut groups: Vec<(u32, NodeWeights)>,
        count: u64,
        group_box: Option<&dyn Fn(u32) -> (String, u32)>,
    ) -> FlameGraph {
        let total: i64 = groups.iter().map(|g| g.1.inc(&self.tree, ROOT)).sum();
        let min = (req.min_fraction.max(0.0) * total as f64).ceil().max(1.0) as i64;
        let mut g = FlameGraph {
            total: Totals {
                count,
                weight_ns: total,
            },
            ..FlameGraph::default()
        };
        g.push(0, 0, total, NONE, 0, ROOT, NONE, "all".into());
        if group_box.is_some() {
            groups.sort_by(|a, b| {
                b.1.inc(&self.tree, ROOT)
                    .cmp(&a.1.inc(&self.tree, ROOT))
                    .then(a.0.cmp(&b.0))
            });
        }
        let mut start = 0;
        for (p, w8) in &groups {
            let w = w8.inc(&self.tree, ROOT);
            if w < min {
                continue;
            }
            let base = if let Some(name) = group_box {
                let (label, process) = name(*p);
                g.push(1, start, w, NONE, w8.own(ROOT), NONE, process, label);
                1
            } else {
                g.self_ns[0] = w8.own(ROOT);
                0
            };
            self.lay_out(&mut g, w8, base, start, min, req.order);
            start += w;
        }
        g
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
    fn lay_out(
        &self,
        g: &mut FlameGraph,
        w8: &NodeWeights,
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
                    w8.inc(&self.tree, n),
                    f,
                    w8.own(n),
                    n,
                    NONE,
                    label,
                );
            }
            let mut kids: Vec<(u32, String)> = self
                .tree
                .children(n)
                .filter(|&c| w8.inc(&self.tree, c) >= min)
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
                    w8.inc(&self.tree, b.0)
                        .cmp(&w8.inc(&self.tree, a.0))
                        .then(a.0.cmp(&b.0))
                }),
            }
            // Push in reverse so the first child is laid out first.
            let mut offsets = Vec::with_capacity(kids.len());
            let mut x = s;
            for (c, _) in &kids {
                offsets.push((*c, x));
                x += w8.inc(&self.tree, *c);
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
    ) -> Result<(Vec<(u32, Vec<(u32, i64)>)>, u64), QueryError> {
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
        // Sparse per process: a dense array per process would cost
        // processes x call nodes (gigabytes on traces with many of both).
        let mut count = 0;
        let mut by: FxHashMap<u32, Vec<(u32, i64)>> = FxHashMap::default();
        for (k, (c, w)) in map {
            count += c;
            let node = self.tree.node_of_stack((k & 0xFFFF_FFFF) as u32);
            by.entry((k >> 32) as u32).or_default().push((node, w));
        }
        Ok((by.into_iter().collect(), count))
    }
}

/// Self and inclusive weight per call node of one flame group: dense
/// arrays for the whole trace; per process, the touched nodes sorted with
/// prefix sums of their self weights.
enum NodeWeights {
    Dense {
        own: Vec<i64>,
        inc: Vec<i64>,
    },
    Sorted {
        nodes: Vec<u32>,
        own: Vec<i64>,
        prefix: Vec<i64>,
    },
}

impl NodeWeights {
    fn own(&self, n: u32) -> i64 {
        match self {
            NodeWeights::Dense { own, .. } => own.get(n as usize).copied().unwrap_or(0),
            NodeWeights::Sorted { nodes, own, .. } => nodes
                .binary_search(&n)
                .ok()
                .and_then(|i| own.get(i).copied())
                .unwrap_or(0),
        }
    }

    fn inc(&self, tree: &CallTree, n: u32) -> i64 {
        match self {
            NodeWeights::Dense { inc, .. } => inc.get(n as usize).copied().unwrap_or(0),
            NodeWeights::Sorted { nodes, prefix, .. } => {
                let end = tree.end.get(n as usize).copied().unwrap_or(n);
                let lo = nodes.partition_point(|&x| x < n);
                let hi = nodes.partition_point(|&x| x < end).max(lo);
                prefix.get(hi).copied().unwrap_or(0) - prefix.get(lo).copied().unwrap_or(0)
            }
        }
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
