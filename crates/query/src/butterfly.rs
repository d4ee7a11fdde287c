//! Butterfly (WPA's View Callers/Callees, and "By Module"): for a function
//! or module X, the callers and callees of X over every sample whose stack
//! contains X, each counted once per sample however often X recurses.

use crate::filter::Filters;
use crate::scan::Cell;
use crate::table_query::Totals;
use crate::{Engine, QueryError};
use model::NONE;
use rustc_hash::FxHashMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum ButterflyTarget {
    /// A func key.
    Function(u32),
    /// A module key (module row), as the Module column shows it.
    Module(u32),
}

/// Whether callers and callees are listed per function or per module.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum NeighborBy {
    #[default]
    Function,
    Module,
}

#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ButterflyRequest {
    pub target: ButterflyTarget,
    pub by: NeighborBy,
    pub filters: Filters,
}

/// Key of the "caller" of X when X is the outermost frame.
pub const ROOT_CALLER: u32 = u32::MAX;

#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Neighbor {
    /// Func key or module key (per `by`), `ROOT_CALLER` for "[root]".
    pub key: u32,
    pub label: String,
    pub count: u64,
    pub weight_ns: i64,
}

#[derive(Debug, Clone, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
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
    pub fn butterfly(&self, req: &ButterflyRequest) -> Result<Butterfly, QueryError> {
        let cells = self.node_self(&req.filters)?;
        let is_x = |f: u32| match req.target {
            ButterflyTarget::Function(x) => f == x,
            ButterflyTarget::Module(m) => self.module_key(f) == m,
        };
        let key = |f: u32| match req.by {
            NeighborBy::Function => f,
            NeighborBy::Module => self.module_key(f),
        };
        let mut out = Butterfly::default();
        let mut callers: FxHashMap<u32, Cell> = FxHashMap::default();
        let mut callees: FxHashMap<u32, Cell> = FxHashMap::default();
        let (mut inclusive, mut own, mut total) =
            (Cell::default(), Cell::default(), Cell::default());
        let mut path = Vec::new();
        let (mut up, mut down) = (Vec::new(), Vec::new());
        for (n, c) in cells.iter().enumerate() {
            if c.count == 0 {
                continue;
            }
            total.merge(c);
            self.tree.path_funcs(n as u32, &mut path);
            up.clear();
            down.clear();
            let mut hit = false;
            for (i, &f) in path.iter().enumerate() {
                if !is_x(f) {
                    continue;
                }
                hit = true;
                // A module's run of frames is one occurrence: its caller
                // precedes the run and its callee follows it.
                let in_run =
                    |j: usize| matches!(req.target, ButterflyTarget::Module(_)) && is_x(path[j]);
                if i == 0 || !in_run(i - 1) {
                    up.push(if i == 0 {
                        ROOT_CALLER
                    } else {
                        key(path[i - 1])
                    });
                }
                if let Some(&next) = path.get(i + 1) {
                    if !in_run(i + 1) {
                        down.push(key(next));
                    }
                }
            }
            if !hit {
                continue;
            }
            inclusive.merge(c);
            if path.last().is_some_and(|&f| is_x(f)) {
                own.merge(c);
            }
            // Once per sample, however often X recurses.
            for (list, map) in [(&mut up, &mut callers), (&mut down, &mut callees)] {
                list.sort_unstable();
                list.dedup();
                for &k in list.iter() {
                    map.entry(k).or_default().merge(c);
                }
            }
        }
        let totals = |c: Cell| Totals {
            count: c.count,
            weight_ns: c.weight_ns,
        };
        out.total = totals(total);
        out.inclusive = totals(inclusive);
        out.self_ = totals(own);
        out.callers = self.neighbors(callers, req.by);
        out.callees = self.neighbors(callees, req.by);
        Ok(out)
    }

    /// Module key of a func key, as the Module column numbers modules.
    pub(crate) fn module_key(&self, f: u32) -> u32 {
        match self.funcs.module_of(f) {
            NONE => self.keys.unknown_module,
            m => m,
        }
    }

    fn neighbors(&self, map: FxHashMap<u32, Cell>, by: NeighborBy) -> Vec<Neighbor> {
        let mut v: Vec<Neighbor> = map
            .into_iter()
            .map(|(key, c)| Neighbor {
                key,
                label: match (key, by) {
                    (ROOT_CALLER, _) => "[root]".into(),
                    (k, NeighborBy::Function) => self.func_label(k),
                    (k, NeighborBy::Module) => self.label(crate::Column::Module, k),
                },
                count: c.count,
                weight_ns: c.weight_ns,
            })
            .collect();
        v.sort_by(|a, b| b.weight_ns.cmp(&a.weight_ns).then(a.key.cmp(&b.key)));
        v
    }
}
