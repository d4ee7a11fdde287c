//! Filters (time range, include/exclude by column value, selection of tree
//! paths) and the predicates they compile to: one boolean per thread, CPU
//! and call node, evaluated once per query instead of once per sample.

use crate::index::call_tree::ROOT;
use crate::index::columns::{Column, Source, CPUS};
use crate::{Engine, QueryError};
use model::NONE;

/// Half-open time range `[start_ns, end_ns)`, ns since trace start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeRange {
    pub start_ns: i64,
    pub end_ns: i64,
}

/// Keep (or, with `exclude`, drop) the samples whose `column` key is one
/// of `values`. For `Stack` a value is a call node and matches its whole
/// subtree; for `StackInverted` a value is a func key and matches every
/// stack containing that function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnFilter {
    pub column: Column,
    pub values: Vec<u32>,
    pub exclude: bool,
}

/// A set of tree paths (as `TableRequest::path`) in the tree of `columns`:
/// keeps the samples under any of them. At most 64 paths.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Selection {
    pub columns: Vec<Column>,
    pub paths: Vec<Vec<u32>>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Filters {
    pub range: Option<TimeRange>,
    pub columns: Vec<ColumnFilter>,
    pub selection: Option<Selection>,
    /// Keep only samples whose stack has at least this many frames (after
    /// folding to functions). 2 leaves out the samples without a stack
    /// walk, whose stack is the instruction pointer alone.
    pub min_stack_depth: u16,
}

pub const MAX_SELECTION_PATHS: usize = 64;

/// Path step of a stack column meaning "the samples whose stack ends here",
/// after which the next key column groups them.
pub const STACK_SELF: u32 = u32::MAX - 1;

/// A sorted set of keys.
#[derive(Debug, Clone)]
pub(crate) struct KeySet(Vec<u32>);

impl KeySet {
    pub(crate) fn new(mut v: Vec<u32>) -> KeySet {
        v.sort_unstable();
        v.dedup();
        KeySet(v)
    }
    #[inline]
    fn has(&self, k: u32) -> bool {
        self.0.binary_search(&k).is_ok()
    }
}

#[derive(Debug, Clone)]
pub(crate) enum Test {
    Thread(usize, KeySet),
    Node(usize, KeySet),
    Cpu(KeySet),
    /// The Region column's key of the sample's time.
    Region(KeySet),
    /// Node inside the subtree of any of these nodes.
    Subtree(Vec<u32>),
    /// Exactly this node.
    Exact(u32),
    /// A path containing any of these func keys.
    Contains(KeySet),
    /// Leaf-first funcs match this prefix; with `exact`, nothing follows.
    InvertedPrefix(Vec<u32>, bool),
    /// At least this many frames deep.
    MinDepth(u16),
}

#[derive(Debug, Clone)]
pub(crate) struct Pred {
    pub test: Test,
    pub negate: bool,
}

/// Which threads, CPUs and call nodes satisfy every predicate.
pub(crate) struct Verdicts {
    pub thread: Vec<bool>,
    pub cpu: Vec<bool>,
    pub node: Vec<bool>,
    /// Per Region column key (`Engine::region_keys`).
    pub region: Vec<bool>,
}

impl Engine {
    pub(crate) fn verdicts(&self, preds: &[Pred]) -> Verdicts {
        let mut v = Verdicts {
            thread: vec![true; self.trace.threads.len()],
            cpu: vec![true; CPUS],
            node: vec![true; self.tree.len()],
            region: vec![true; self.region_keys()],
        };
        for p in preds {
            self.apply(p, &mut v);
        }
        v
    }

    fn apply(&self, p: &Pred, v: &mut Verdicts) {
        let tree = &self.tree;
        let keep = |ok: &mut bool, hit: bool| *ok &= hit != p.negate;
        match &p.test {
            Test::Thread(i, set) => {
                for (ok, &k) in v.thread.iter_mut().zip(&self.keys.thread[*i]) {
                    keep(ok, set.has(k));
                }
            }
            Test::Node(i, set) => {
                for (ok, &k) in v.node.iter_mut().zip(&self.keys.node[*i]) {
                    keep(ok, set.has(k));
                }
            }
            Test::Cpu(set) => {
                for (c, ok) in v.cpu.iter_mut().enumerate() {
                    keep(ok, set.has(c as u32));
                }
            }
            Test::Region(set) => {
                for (r, ok) in v.region.iter_mut().enumerate() {
                    keep(ok, set.has(r as u32));
                }
            }
            Test::Subtree(nodes) => {
                let mut hit = vec![false; tree.len()];
                for &n in nodes {
                    let end = tree.end.get(n as usize).copied().unwrap_or(0) as usize;
                    for h in hit.get_mut(n as usize..end).into_iter().flatten() {
                        *h = true;
                    }
                }
                for (ok, h) in v.node.iter_mut().zip(hit) {
                    keep(ok, h);
                }
            }
            Test::Exact(n) => {
                for (i, ok) in v.node.iter_mut().enumerate() {
                    keep(ok, i == *n as usize);
                }
            }
            Test::Contains(set) => {
                // Preorder: a parent's verdict is known before its children's.
                let mut hit = vec![false; tree.len()];
                for n in 1..tree.len() {
                    let p = tree.parent[n] as usize;
                    hit[n] = hit.get(p).copied().unwrap_or(false) || set.has(tree.func[n]);
                }
                for (ok, h) in v.node.iter_mut().zip(hit) {
                    keep(ok, h);
                }
            }
            Test::InvertedPrefix(funcs, exact) => {
                for (n, ok) in v.node.iter_mut().enumerate() {
                    keep(ok, self.inverted_match(n as u32, funcs, *exact));
                }
            }
            Test::MinDepth(d) => {
                for (ok, &depth) in v.node.iter_mut().zip(&tree.depth) {
                    keep(ok, depth >= *d);
                }
            }
        }
    }

    /// Whether node `n`'s funcs, leaf first, start with `funcs` (and, with
    /// `exact`, end there).
    pub(crate) fn inverted_match(&self, mut n: u32, funcs: &[u32], exact: bool) -> bool {
        for &f in funcs {
            if n == ROOT || n == NONE || self.tree.func.get(n as usize) != Some(&f) {
                return false;
            }
            n = self.tree.parent[n as usize];
        }
        !exact || n == ROOT
    }

    /// Predicates of the column filters.
    pub(crate) fn filter_preds(&self, filters: &Filters) -> Vec<Pred> {
        let depth = (filters.min_stack_depth > 0).then_some(Pred {
            test: Test::MinDepth(filters.min_stack_depth),
            negate: false,
        });
        filters
            .columns
            .iter()
            .map(|f| {
                let set = KeySet::new(f.values.clone());
                let test = match f.column.source() {
                    Source::Thread(i) => Test::Thread(i, set),
                    Source::Node(i) => Test::Node(i, set),
                    Source::Cpu => Test::Cpu(set),
                    Source::Region => Test::Region(set),
                    Source::Stack => Test::Subtree(f.values.clone()),
                    Source::StackInverted => Test::Contains(set),
                };
                Pred {
                    test,
                    negate: f.exclude,
                }
            })
            .chain(depth)
            .collect()
    }

    /// Predicates selecting the samples under `path` in the tree of
    /// `columns`, and what the level below the path groups by.
    pub(crate) fn path_preds(
        &self,
        columns: &[Column],
        path: &[u32],
    ) -> Result<(Vec<Pred>, Next), QueryError> {
        let mut preds = Vec::new();
        let pred = |test| Pred {
            test,
            negate: false,
        };
        let mut steps = path.iter().copied();
        for (ci, &col) in columns.iter().enumerate() {
            let more = ci + 1 < columns.len();
            match col.source() {
                Source::Stack => {
                    let mut cur = ROOT;
                    loop {
                        let Some(step) = steps.next() else {
                            if cur != ROOT {
                                preds.push(pred(Test::Subtree(vec![cur])));
                            }
                            return Ok((preds, Next::Stack { node: cur, more }));
                        };
                        if step == STACK_SELF {
                            preds.push(pred(Test::Exact(cur)));
                            break;
                        }
                        if self.tree.parent.get(step as usize) != Some(&cur) {
                            return Err(QueryError::BadPath(format!(
                                "{step} is not a child of call node {cur}"
                            )));
                        }
                        cur = step;
                    }
                }
                Source::StackInverted => {
                    let mut funcs = Vec::new();
                    loop {
                        let Some(step) = steps.next() else {
                            preds.push(pred(Test::InvertedPrefix(funcs.clone(), false)));
                            return Ok((preds, Next::Inverted { funcs, more }));
                        };
                        if step == STACK_SELF {
                            preds.push(pred(Test::InvertedPrefix(funcs, true)));
                            break;
                        }
                        funcs.push(step);
                    }
                }
                src => {
                    let Some(step) = steps.next() else {
                        return Ok((preds, Next::Flat { column: col, more }));
                    };
                    let set = KeySet::new(vec![step]);
                    preds.push(pred(match src {
                        Source::Thread(i) => Test::Thread(i, set),
                        Source::Node(i) => Test::Node(i, set),
                        Source::Region => Test::Region(set),
                        _ => Test::Cpu(set),
                    }));
                }
            }
        }
        match steps.next() {
            None => Ok((preds, Next::Leaf)),
            Some(_) => Err(QueryError::BadPath(
                "path is longer than the key columns".into(),
            )),
        }
    }
}

/// What the level below a path groups by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Next {
    /// Below the last key column: no children.
    Leaf,
    /// A single-level column; `more` when key columns follow it.
    Flat { column: Column, more: bool },
    /// The children of call node `node`.
    Stack { node: u32, more: bool },
    /// The callers of the leaf-first path `funcs`.
    Inverted { funcs: Vec<u32>, more: bool },
}
