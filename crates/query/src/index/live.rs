//! The index of a live trace's next model, extended from the previous
//! model's: the sample join resumed from a checkpoint, so the new model's
//! first samples (and the threads and stacks they name) are the previous
//! model's, and the sample views keep those runs, copied in bulk, placing
//! only the new samples one by one. The rest of the index (functions, call
//! tree, totals) is built as `Engine::new` builds it; the result is the
//! same engine.

use crate::index::views::View;
use crate::{Engine, EngineOptions};
use model::Trace;
use std::sync::Arc;

/// What the next model's index is extended from: the previous engine's
/// trace and views (kept alive until the next model is built).
#[derive(Debug, Clone)]
pub struct LiveSeed {
    trace: Arc<Trace>,
    of_stack: Vec<u32>,
    by_thread: Arc<View>,
    by_node: Arc<View>,
}

/// How much of the new model is the previous one's: its first `samples`
/// samples, `threads` thread rows and `stacks` stack rows.
#[derive(Debug, Clone, Copy, Default)]
pub struct Kept {
    pub samples: usize,
    pub threads: usize,
    pub stacks: usize,
}

impl Engine {
    /// What the next live model's index can be extended from.
    pub fn live_seed(&self) -> LiveSeed {
        LiveSeed {
            trace: self.trace.clone(),
            of_stack: self.tree.of_stack.clone(),
            by_thread: self.by_thread.clone(),
            by_node: self.by_node.clone(),
        }
    }

    /// `Engine::new(trace)`, its views extended from `seed` for the `kept`
    /// part (views that do not fit are built as `new` builds them).
    pub fn extending(seed: &LiveSeed, trace: Arc<Trace>, kept: Kept) -> Engine {
        let old = &seed.trace.samples;
        let from = kept.samples.min(old.len());
        Engine::with_views(
            trace,
            EngineOptions::default(),
            |t| {
                let s = &t.samples;
                let threads = t.threads.len();
                let mut after = vec![0; seed.by_thread.start.len()];
                for i in from..old.len() {
                    if let Some(c) = after.get_mut((old.thread(i) as usize).min(threads)) {
                        *c += 1;
                    }
                }
                let remap = |k: usize| (k < kept.threads.min(threads)).then_some(k);
                let key = |i| s.thread(i) as usize;
                View::extend(
                    &seed.by_thread,
                    &after,
                    remap,
                    s,
                    kept.samples,
                    threads,
                    key,
                )
                .unwrap_or_else(|| View::build(s, threads, key))
            },
            |t, tree| {
                let s = &t.samples;
                let old_node = |stack: u32| {
                    let last = seed.of_stack.len().saturating_sub(1);
                    let at = (stack as usize).min(last);
                    seed.of_stack.get(at).copied().unwrap_or(0) as usize
                };
                let key = |i| tree.node_of_stack(s.stack[i]) as usize;
                let extended = (|| {
                    let old_nodes = seed.by_node.start.len().checked_sub(1)?;
                    let mut after = vec![0; old_nodes];
                    for i in from..old.len() {
                        *after
                            .get_mut(old_node(old.stack[i]).min(old_nodes.saturating_sub(1)))? += 1;
                    }
                    // Old node -> new node, through the stacks both share;
                    // the root stands for samples without a stack.
                    let mut remap = vec![usize::MAX; old_nodes];
                    *remap.first_mut()? = 0;
                    for st in 0..kept.stacks.min(t.stacks.len()) as u32 {
                        let (o, n) = (old_node(st), tree.node_of_stack(st) as usize);
                        let slot = remap.get_mut(o)?;
                        if *slot != usize::MAX && *slot != n {
                            return None;
                        }
                        *slot = n;
                    }
                    let remap = |k: usize| remap.get(k).copied().filter(|&x| x != usize::MAX);
                    View::extend(
                        &seed.by_node,
                        &after,
                        remap,
                        s,
                        kept.samples,
                        tree.len(),
                        key,
                    )
                })();
                extended.unwrap_or_else(|| View::build(s, tree.len(), key))
            },
        )
    }
}

impl Engine {
    /// Whether both engines' sample views are the same, run for run (the
    /// check of `extending` against `new`; not for use outside tests).
    #[doc(hidden)]
    pub fn same_sample_views(&self, other: &Engine) -> bool {
        self.by_thread == other.by_thread && self.by_node == other.by_node
    }
}
