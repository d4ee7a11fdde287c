//! Every module's inclusive sample count in each of a few processes at
//! once: what `inclusive_by_module` gives with a Process filter, for all
//! of them in one pass. The by-node view lists each call node's samples
//! together, so the pass reads their threads in order (no random access
//! per sample) and counts them per process; each node with samples then
//! credits every module on its path to the root once. A call-tree walk per
//! process cost two tree-sized arrays (tens of MB) and a scan per process
//! on a 10M-sample trace.

use crate::index::call_tree::ROOT;
use crate::{Engine, QueryError};
use model::samples::MAX_THREADS;
use model::NONE;
use rayon::prelude::*;

/// Call nodes per parallel job.
const NODES_PER_JOB: usize = 1 << 14;

impl Engine {
    /// Per entry of `processes` (Process column keys), indexed by Module
    /// key: the samples of that process whose stack has a frame of the
    /// module, each counted once however often the module recurs. Equals
    /// `inclusive_by_module` with a filter on that one process.
    pub fn inclusive_by_module_per_process(
        &self,
        processes: &[u32],
    ) -> Result<Vec<Vec<u64>>, QueryError> {
        let space = self.keys.no_stack_module as usize + 1;
        let groups = processes.len();
        if groups == 0 {
            return Ok(Vec::new());
        }
        // Group of each thread row: the index of its process in
        // `processes`; `NONE` for other threads (their samples count nowhere).
        let group_of_thread: Vec<u32> = self.keys.thread[0]
            .iter()
            .map(|p| {
                processes
                    .iter()
                    .position(|q| q == p)
                    .map_or(NONE, |g| g as u32)
            })
            .collect();
        let view = &self.by_node;
        let tree = &self.tree;
        let modules = &self.keys.node[0];
        let nodes = tree.len();
        let jobs = nodes.div_ceil(NODES_PER_JOB);
        let out = (0..jobs)
            .into_par_iter()
            .map(|job| {
                let mut out = vec![0u64; groups * space];
                let mut here = vec![0u64; groups];
                // The last node that credited each module: once per node.
                let mut seen = vec![NONE; space];
                let lo = job * NODES_PER_JOB;
                for n in lo..(lo + NODES_PER_JOB).min(nodes) {
                    if n == ROOT as usize {
                        continue; // samples without a stack: no module
                    }
                    let run = view.run(n);
                    let Some(threads) = view.thread_cpu.get(run) else {
                        continue;
                    };
                    if threads.is_empty() {
                        continue;
                    }
                    here.iter_mut().for_each(|x| *x = 0);
                    let mut any = false;
                    for &tc in threads {
                        let th = (tc & (MAX_THREADS - 1)) as usize;
                        let g = group_of_thread.get(th).copied().unwrap_or(NONE);
                        if let Some(x) = here.get_mut(g as usize) {
                            *x += 1;
                            any = true;
                        }
                    }
                    if !any {
                        continue;
                    }
                    let mut at = n;
                    // Parents precede children in preorder: the walk ends at the root.
                    while at != ROOT as usize {
                        if tree.func.get(at).is_some_and(|&f| f != NONE) {
                            let m = modules.get(at).map_or(space - 1, |&m| m as usize);
                            let m = m.min(space - 1);
                            if seen[m] != n as u32 {
                                seen[m] = n as u32;
                                for (g, &c) in here.iter().enumerate() {
                                    out[g * space + m] += c;
                                }
                            }
                        }
                        match tree.parent.get(at) {
                            Some(&p) if (p as usize) < at => at = p as usize,
                            _ => break, // not a preorder parent: malformed
                        }
                    }
                }
                out
            })
            .reduce_with(|mut a, b| {
                for (x, y) in a.iter_mut().zip(&b) {
                    *x += y;
                }
                a
            })
            .unwrap_or_else(|| vec![0u64; groups * space]);
        Ok(out.chunks(space).map(<[u64]>::to_vec).collect())
    }
}
