//! Expandable caller and callee trees of a butterfly target X (WPA's View
//! Callers / View Callees). Each sample whose stack contains X follows one
//! path, from one occurrence of X (for a module: one run of X frames):
//! callees downwards from there, callers upwards. So every level sums to
//! its parent and no sample counts twice, however often X recurses.
//!
//! Which occurrence: the innermost by default, as xperf's butterfly
//! ("callers/Innermost") and PerfView's caller/callee trees (which subtract
//! the nested instances of the focus) do; the outermost on request.

use crate::index::call_tree::ROOT;
use crate::scan::filter::{Filters, STACK_SELF};
use crate::scan::pass::Cell;
use crate::table::sampled::{percent, Row, SortBy, TableResponse, Totals, ValueColumn};
use crate::tree::butterfly::{ButterflyTarget, NeighborBy};
use crate::{Column, Engine, QueryError};
use model::NONE;
use rustc_hash::FxHashMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// What X calls: the frames below X, outermost first.
    Callees,
    /// Who calls X: the frames above X, X's caller first.
    Callers,
}

/// Which occurrence of X a sample's caller and callee paths start from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Occurrence {
    /// The occurrence nearest the leaf (xperf's and PerfView's choice).
    #[default]
    Innermost,
    /// The occurrence nearest the root.
    Outermost,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ButterflyTreeRequest {
    pub target: ButterflyTarget,
    pub direction: Direction,
    pub filters: Filters,
    /// Tree levels are functions, or modules (a run of frames of one
    /// module is one level).
    pub by: NeighborBy,
    pub occurrence: Occurrence,
    /// Func (or module) keys from X outwards to the expanded row; empty
    /// for X's own children. `STACK_SELF` rows ("[self]": the stack ends there) have
    /// no children.
    pub path: Vec<u32>,
    pub sort: SortBy,
    /// 0: no limit.
    pub limit: usize,
}

impl Engine {
    /// Children of `req.path` in X's caller or callee tree. Rows carry
    /// counts and weights (no first/last time).
    pub fn butterfly_tree(&self, req: &ButterflyTreeRequest) -> Result<TableResponse, QueryError> {
        let own = self.node_self(&req.filters)?;
        let tree = &self.tree;
        let is_x = |n: usize| {
            let f = tree.func.get(n).copied().unwrap_or(NONE);
            n != ROOT as usize
                && f != NONE
                && match req.target {
                    ButterflyTarget::Function(x) => f == x,
                    ButterflyTarget::Module(m) => self.module_key(f) == m,
                }
        };
        let module = matches!(req.target, ButterflyTarget::Module(_));
        // Per node: the first and last node of the chosen X run on its
        // path (preorder: parents first).
        let innermost = req.occurrence == Occurrence::Innermost;
        let mut first = vec![NONE; tree.len()];
        let mut last = vec![NONE; tree.len()];
        for n in 1..tree.len() {
            let p = tree.parent[n] as usize;
            let x = is_x(n);
            // A module's run goes on while its frames follow one another.
            let extends = module && x && first[p] != NONE && last[p] == p as u32;
            if extends {
                first[n] = first[p];
                last[n] = n as u32;
            } else if x && (innermost || first[p] == NONE) {
                first[n] = n as u32;
                last[n] = n as u32;
            } else {
                first[n] = first[p];
                last[n] = last[p];
            }
        }
        let by_module = req.by == NeighborBy::Module;
        let level_key = |f: u32| if by_module { self.module_key(f) } else { f };
        let mut total = Cell::default();
        let mut parent = Cell::default();
        let mut groups: FxHashMap<u32, (Cell, bool)> = FxHashMap::default();
        let (mut seq, mut below) = (Vec::new(), Vec::new());
        for (n, c) in own.iter().enumerate() {
            if c.count == 0 {
                continue;
            }
            total.merge(c);
            if first[n] == NONE {
                continue;
            }
            // Level keys from X outwards (a module's run of frames is one level).
            seq.clear();
            let mut push = |f: u32| {
                let k = level_key(f);
                if !(by_module && seq.last() == Some(&k)) {
                    seq.push(k);
                }
            };
            match req.direction {
                Direction::Callees => {
                    let mut m = n as u32;
                    below.clear();
                    while m != last[n] && m != NONE {
                        below.push(tree.func[m as usize]);
                        m = tree.parent[m as usize];
                    }
                    below.iter().rev().for_each(|&f| push(f));
                }
                Direction::Callers => {
                    let mut m = tree.parent[first[n] as usize];
                    while m != ROOT && m != NONE {
                        push(tree.func[m as usize]);
                        m = tree.parent[m as usize];
                    }
                }
            }
            if seq.len() < req.path.len() || seq[..req.path.len()] != req.path[..] {
                continue;
            }
            parent.merge(c);
            let k = req.path.len();
            let key = seq.get(k).copied().unwrap_or(STACK_SELF);
            let e = groups.entry(key).or_default();
            e.0.merge(c);
            e.1 |= seq.len() > k + 1;
        }
        let mut rows: Vec<Row> = groups
            .into_iter()
            .map(|(key, (c, deeper))| Row {
                key,
                label: String::new(),
                count: c.count,
                weight_ns: c.weight_ns,
                percent_weight: percent(c.weight_ns, total.weight_ns),
                first_ns: 0,
                last_ns: 0,
                expandable: deeper,
                sums: Vec::new(),
                values: Vec::new(),
            })
            .collect();
        // [self] of the callers tree means the outermost frame was reached.
        let label = |k: u32| match (k, req.direction) {
            (STACK_SELF, Direction::Callers) => "[root]".to_string(),
            (k, _) if by_module && k != STACK_SELF => self.label(Column::Module, k),
            (k, _) => self.label(Column::StackInverted, k),
        };
        for r in &mut rows {
            r.label = label(r.key);
        }
        let by = req.sort;
        rows.sort_by(|a, b| {
            let o = match by.column {
                ValueColumn::Count => a.count.cmp(&b.count),
                ValueColumn::Label => a.label.cmp(&b.label),
                _ => a.weight_ns.cmp(&b.weight_ns),
            };
            let o = if by.descending { o.reverse() } else { o };
            o.then(a.key.cmp(&b.key))
        });
        let omitted = if req.limit > 0 && rows.len() > req.limit {
            let o = rows.len() - req.limit;
            rows.truncate(req.limit);
            o
        } else {
            0
        };
        Ok(TableResponse {
            column: None,
            total: Totals {
                count: total.count,
                weight_ns: total.weight_ns,
            },
            parent: Totals {
                count: parent.count,
                weight_ns: parent.weight_ns,
            },
            rows,
            omitted,
        })
    }
}
