//! Butterfly (WPA's View Callers/Callees, and "By Module"): for a function
//! or module X, the callers and callees of X over every sample whose stack
//! contains X, each counted once per sample however often X recurses.

use crate::index::call_tree::ROOT;
use crate::scan::filter::Filters;
use crate::scan::pass::Cell;
use crate::table::sampled::Totals;
use crate::{Engine, QueryError};
use model::NONE;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ButterflyTarget {
    /// A func key.
    Function(u32),
    /// A module key (module row), as the Module column shows it.
    Module(u32),
}

/// Whether callers and callees are listed per function or per module.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NeighborBy {
    #[default]
    Function,
    Module,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ButterflyRequest {
    pub target: ButterflyTarget,
    pub by: NeighborBy,
    pub filters: Filters,
}

/// Key of the "caller" of X when X is the outermost frame.
pub const ROOT_CALLER: u32 = u32::MAX;

#[derive(Debug, Clone, PartialEq)]
pub struct Neighbor {
    /// Func key or module key (per `by`), `ROOT_CALLER` for "[root]".
    pub key: u32,
    pub label: String,
    pub count: u64,
    pub weight_ns: i64,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Butterfly {
    /// Every sample the filters keep.
    pub total: Totals,
    /// Samples whose stack contains X.
    pub inclusive: Totals,
    /// Samples whose leaf frame is X.
    pub self_: Totals,
    /// Heaviest first.
    pub callers: Vec<Neighbor>,
    pub callees: Vec<Neighbor>,
}

impl Engine {
    /// One scan for per-node self totals, then one preorder walk of the
    /// call tree: a caller (or callee) of X is credited with the inclusive
    /// total of its topmost occurrence on each path only, which counts every
    /// sample once per neighbor however often X recurses below it.
    pub fn butterfly(&self, req: &ButterflyRequest) -> Result<Butterfly, QueryError> {
        let own = self.node_self(&req.filters)?;
        let tree = &self.tree;
        let inc = self.subtree_totals(&own);
        let module_target = matches!(req.target, ButterflyTarget::Module(_));
        let is_x = |n: u32| {
            let f = tree.func.get(n as usize).copied().unwrap_or(NONE);
            n != ROOT
                && f != NONE
                && match req.target {
                    ButterflyTarget::Function(x) => f == x,
                    ButterflyTarget::Module(m) => self.module_key(f) == m,
                }
        };
        let space = match req.by {
            NeighborBy::Function => self.funcs.len(),
            NeighborBy::Module => self.keys.no_stack_module as usize + 1,
        } + 1;
        let slot = |n: u32| -> usize {
            if n == ROOT {
                return space - 1;
            }
            let f = tree.func[n as usize];
            let k = match req.by {
                NeighborBy::Function => f,
                NeighborBy::Module => self.module_key(f),
            };
            (k as usize).min(space - 2)
        };
        let mut present_up = vec![0u32; space];
        let mut present_down = vec![0u32; space];
        let mut up = vec![Cell::default(); space];
        let mut down = vec![Cell::default(); space];
        let (mut inclusive, mut self_x) = (Cell::default(), Cell::default());
        let mut x_depth = 0u32;
        // Path from the root: (node, is X, caller slot, callee slot).
        let mut path: Vec<(u32, bool, usize, usize)> = Vec::new();
        const NO: usize = usize::MAX;
        let mut n = 1u32;
        while (n as usize) < tree.len() {
            let i = n as usize;
            if inc[i].count == 0 {
                n = tree.end[i];
                continue;
            }
            let p = tree.parent[i];
            while let Some(&(top, x, c_up, c_down)) = path.last() {
                if top == p {
                    break;
                }
                path.pop();
                x_depth -= x as u32;
                if c_up != NO {
                    present_up[c_up] -= 1;
                }
                if c_down != NO {
                    present_down[c_down] -= 1;
                }
            }
            let x = is_x(n);
            let px = is_x(p);
            let (mut c_up, mut c_down) = (NO, NO);
            if x {
                if x_depth == 0 {
                    inclusive.merge(&inc[i]);
                }
                x_depth += 1;
                self_x.merge(&own[i]);
                // A module's run of frames is one occurrence.
                if !(module_target && px) {
                    c_up = slot(p);
                }
            }
            if px && !(module_target && x) {
                c_down = slot(n);
            }
            for (c, present, cells) in [
                (c_up, &mut present_up, &mut up),
                (c_down, &mut present_down, &mut down),
            ] {
                if c != NO {
                    if present[c] == 0 {
                        cells[c].merge(&inc[i]);
                    }
                    present[c] += 1;
                }
            }
            path.push((n, x, c_up, c_down));
            n += 1;
        }
        let totals = |c: Cell| Totals {
            count: c.count,
            weight_ns: c.weight_ns,
        };
        let root_slot = space - 1;
        Ok(Butterfly {
            total: totals(inc.first().copied().unwrap_or_default()),
            inclusive: totals(inclusive),
            self_: totals(self_x),
            callers: self.neighbors(&up, root_slot, req.by),
            callees: self.neighbors(&down, root_slot, req.by),
        })
    }

    /// For every Module key at once, the samples (kept by `filters`) whose
    /// stack contains the module: what `butterfly` reports as `inclusive`
    /// for a module target, in one scan and one walk of the call tree
    /// instead of one butterfly per module. Indexed by module key.
    pub fn inclusive_by_module(&self, filters: &Filters) -> Result<Vec<u64>, QueryError> {
        Ok(counts(self.inclusive_cells_by_module(filters)?))
    }

    /// `inclusive_by_module` with the samples' weight: (count, weight) per
    /// Module key (the library's summaries).
    pub fn inclusive_cells_by_module(&self, filters: &Filters) -> Result<Vec<Cell>, QueryError> {
        let space = self.keys.no_stack_module as usize + 1;
        self.inclusive_cells_by_slot(filters, space, |f| {
            (self.module_key(f) as usize).min(space - 1)
        })
    }

    /// Per func key (the Function column's key), the samples kept by
    /// `filters` whose stack has a frame of that function, each once, with
    /// their weight: the butterfly's `inclusive` of every function at once.
    pub fn inclusive_cells_by_function(&self, filters: &Filters) -> Result<Vec<Cell>, QueryError> {
        self.inclusive_cells_by_slot(filters, self.funcs.len(), |f| f as usize)
    }

    /// Per slot (`slot_of` a func key, below `space`), the samples kept by
    /// `filters` whose stack has a frame of that slot, each counted once
    /// however often the slot recurs on its stack.
    pub(crate) fn inclusive_by_slot(
        &self,
        filters: &Filters,
        space: usize,
        slot_of: impl Fn(u32) -> usize,
    ) -> Result<Vec<u64>, QueryError> {
        Ok(counts(
            self.inclusive_cells_by_slot(filters, space, slot_of)?,
        ))
    }

    /// `inclusive_by_slot` with the samples' weight.
    fn inclusive_cells_by_slot(
        &self,
        filters: &Filters,
        space: usize,
        slot_of: impl Fn(u32) -> usize,
    ) -> Result<Vec<Cell>, QueryError> {
        let inc = self.subtree_totals(&self.node_self(filters)?);
        let tree = &self.tree;
        let mut present = vec![0u32; space];
        let mut total = vec![Cell::default(); space];
        const NO: usize = usize::MAX;
        // Path from the root: (node, slot of its frame).
        let mut path: Vec<(u32, usize)> = Vec::new();
        let mut n = 1u32;
        while (n as usize) < tree.len() {
            let i = n as usize;
            if inc[i].count == 0 {
                n = tree.end[i];
                continue;
            }
            let p = tree.parent[i];
            while let Some(&(top, slot)) = path.last() {
                if top == p {
                    break;
                }
                path.pop();
                if slot != NO {
                    present[slot] -= 1;
                }
            }
            let f = tree.func.get(i).copied().unwrap_or(NONE);
            let slot = if f == NONE { NO } else { slot_of(f) };
            let slot = if slot < space { slot } else { NO };
            if slot != NO {
                // The slot's topmost frame on this path counts the node's samples once.
                if present[slot] == 0 {
                    total[slot].merge(&inc[i]);
                }
                present[slot] += 1;
            }
            path.push((n, slot));
            n += 1;
        }
        Ok(total)
    }

    /// Each call node's samples and those of its subtree, from per-node
    /// self totals (children follow their parent in preorder).
    fn subtree_totals(&self, own: &[Cell]) -> Vec<Cell> {
        let mut inc = own.to_vec();
        for n in (1..inc.len()).rev() {
            let c = inc[n];
            if let Some(p) = inc.get_mut(self.tree.parent[n] as usize) {
                p.merge(&c);
            }
        }
        inc
    }

    /// Module key of a func key, as the Module column numbers modules.
    pub(crate) fn module_key(&self, f: u32) -> u32 {
        match self.funcs.module_of(f) {
            NONE => self.keys.unknown_module,
            m => m,
        }
    }

    fn neighbors(&self, cells: &[Cell], root_slot: usize, by: NeighborBy) -> Vec<Neighbor> {
        let mut v: Vec<Neighbor> = cells
            .iter()
            .enumerate()
            .filter(|(_, c)| c.count > 0)
            .map(|(k, c)| {
                let key = if k == root_slot {
                    ROOT_CALLER
                } else {
                    k as u32
                };
                Neighbor {
                    key,
                    label: match (key, by) {
                        (ROOT_CALLER, _) => "[root]".into(),
                        (k, NeighborBy::Function) => self.func_label(k),
                        (k, NeighborBy::Module) => self.label(crate::Column::Module, k),
                    },
                    count: c.count,
                    weight_ns: c.weight_ns,
                }
            })
            .collect();
        v.sort_by(|a, b| b.weight_ns.cmp(&a.weight_ns).then(a.key.cmp(&b.key)));
        v
    }
}

fn counts(cells: Vec<Cell>) -> Vec<u64> {
    cells.into_iter().map(|c| c.count).collect()
}
