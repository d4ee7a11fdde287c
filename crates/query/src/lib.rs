//! Query engine over the trace model: WPA-style tables whose rows form a
//! tree by an ordered list of key columns, call trees, butterfly
//! (callers/callees), flame graphs and timelines.
//!
//! An [`Engine`] is built once per trace (O(#frames + #stacks + #threads));
//! each query is then one parallel scan over the samples of its time range
//! with three array lookups per sample (see `scan`).

pub mod compare;
pub mod findings;
pub mod graph;
pub mod index;
pub mod rows;
pub mod scan;
pub mod stack_tags;
pub mod synthetic;
pub mod table;
pub mod tree;

pub use graph::bins::Edges;
pub use graph::table_graph::{Graph, GraphBins, GraphSeries, MAX_GRAPH_BINS};
pub use graph::timeline::{Series, SeriesBy, Timeline, TimelineRequest};
pub use index::call_tree::{CallTree, ROOT};
pub use index::columns::Column;
pub use index::funcs::FuncKeys;
pub use index::stable_ids::{Resolved, StableId};
pub use rows::graph::Span;
pub use rows::table::Measure;
pub use rows::table::{RowFilter, RowTable, RowTableKind, RowTableRequest, NO_STACK};
pub use scan::filter::{ColumnFilter, Filters, Selection, TimeRange, STACK_SELF};
pub use scan::pass::Cell;
pub use table::aggregate::{AggValue, Aggregation};
pub use table::cell_value::CellValue;
pub use table::columns::{ColumnDef, ColumnType, TableDef};
pub use table::sampled::{Row, SortBy, TableRequest, TableResponse, Totals, ValueColumn};
pub use table::value_spec::{ValueOf, ValueSpec};
pub use tree::butterfly::{Butterfly, ButterflyRequest, ButterflyTarget, Neighbor, NeighborBy};
pub use tree::butterfly_tree::{ButterflyTreeRequest, Direction, Occurrence};
pub use tree::flame::{FlameGraph, FlameOrder, FlameRequest};
pub use tree::name_search::{NameKind, NameMatch};

use index::columns::ColumnKeys;
use model::{Trace, NONE};
use std::fmt;
use std::sync::{Arc, Mutex};

/// A query the engine cannot answer as asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QueryError {
    /// A tree path that does not exist in the tree of the given columns.
    BadPath(String),
    /// A column or value the table does not have.
    BadRequest(String),
}

impl fmt::Display for QueryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QueryError::BadPath(s) => write!(f, "bad tree path: {s}"),
            QueryError::BadRequest(s) => write!(f, "bad request: {s}"),
        }
    }
}

impl std::error::Error for QueryError {}

/// The precomputed index of one trace. Immutable: share it between
/// requests; rebuild it (cheaply) when symbolization changes `frames.func`.
#[derive(Debug)]
pub struct Engine {
    pub(crate) trace: Arc<Trace>,
    pub(crate) funcs: FuncKeys,
    pub(crate) tree: CallTree,
    pub(crate) keys: ColumnKeys,
    /// Shared with the engines of other stack tag sets (`with_stack_tags`).
    pub(crate) by_thread: Arc<index::views::View>,
    pub(crate) by_node: Arc<index::views::View>,
    /// Per-stack and per-thread totals of buckets of samples.
    pub(crate) totals: Arc<index::totals::SampleTotals>,
    /// The set the Stack Tag column shows (the built-in one by default).
    pub(crate) stack_tags: Arc<stack_tags::StackTags>,
    /// A view's regions file's instances (`with_regions`); `None`: the
    /// trace's own (`--regions`).
    pub(crate) regions: Option<Arc<model::regions::RegionTable>>,
    /// The Region column's key of a time: the regions in use's segments.
    pub(crate) region_index: Arc<model::regions::RegionIndex>,
    /// Every sample names a thread row of the trace (queries leave out
    /// those that do not; shortcuts that never read threads need this).
    pub(crate) threads_valid: bool,
    /// Filters' totals (the 100 % of % Weight) of recent queries, so that
    /// expanding a row can skip the samples outside it.
    filter_totals: Mutex<Vec<(Filters, Cell)>>,
    /// What comparisons read of this trace, made on the first one.
    pub(crate) compare_cache: Arc<compare::ids::CompareCache>,
}

/// How many filters' totals the engine remembers.
const TOTALS_CACHE: usize = 32;

/// How to build an engine; `Default` suits every trace.
#[derive(Debug, Clone, Copy, Default)]
pub struct EngineOptions {
    /// Buckets of precomputed per-stack/per-thread totals; `None` picks as
    /// many as a memory budget allows (one below 2M samples).
    pub totals_buckets: Option<usize>,
}

impl Engine {
    pub fn new(trace: Arc<Trace>) -> Engine {
        Engine::with_options(trace, EngineOptions::default())
    }

    pub fn with_options(trace: Arc<Trace>, options: EngineOptions) -> Engine {
        Engine::with_views(
            trace,
            options,
            |t| {
                index::views::View::build(&t.samples, t.threads.len(), |i| {
                    t.samples.thread(i) as usize
                })
            },
            |t, tree| {
                let s = &t.samples;
                index::views::View::build(s, tree.len(), |i| {
                    tree.node_of_stack(s.stack[i]) as usize
                })
            },
        )
    }

    /// The engine with the two sample views made by `by_thread` and
    /// `by_node` (built, or extended from a live trace's previous engine).
    fn with_views(
        trace: Arc<Trace>,
        options: EngineOptions,
        by_thread: impl FnOnce(&Trace) -> index::views::View + Send,
        by_node: impl FnOnce(&Trace, &CallTree) -> index::views::View + Send,
    ) -> Engine {
        let s = &trace.samples;
        // The call tree's chain (functions, tree, keys, the by-node view) is
        // serial at first: the by-thread view and the totals, which need
        // none of it, are made beside it.
        let ((funcs, tree, stack_tags, keys, by_node), (by_thread, totals)) = rayon::join(
            || {
                let funcs = FuncKeys::build(&trace);
                let tree = CallTree::build(&trace.stacks, &funcs);
                let stack_tags = stack_tags::StackTags::builtin();
                // Both need only the tree: side by side once the by-thread
                // view and the totals are done (they take a third as long).
                let (keys, by_node) = rayon::join(
                    || ColumnKeys::build(&trace, &funcs, &tree, &stack_tags),
                    || by_node(&trace, &tree),
                );
                (funcs, tree, stack_tags, keys, by_node)
            },
            || {
                rayon::join(
                    || by_thread(&trace),
                    || {
                        index::totals::SampleTotals::build(
                            s,
                            trace.stacks.len(),
                            trace.threads.len(),
                            options.totals_buckets,
                        )
                    },
                )
            },
        );
        let threads = trace.threads.len() as u32;
        let threads_valid = (0..s.len()).all(|i| s.thread(i) < threads);
        Engine {
            funcs,
            keys,
            by_thread: Arc::new(by_thread),
            by_node: Arc::new(by_node),
            totals: Arc::new(totals),
            region_index: Arc::new(trace.regions.region_at()),
            stack_tags,
            regions: None,
            threads_valid,
            tree,
            trace,
            filter_totals: Mutex::new(Vec::new()),
            compare_cache: Arc::default(),
        }
    }

    /// The engine for `trace` once symbolization has filled `frames.func`;
    /// its samples, stacks and threads must be this engine's. Keeps what
    /// does not depend on functions (the by-thread view, the per-stack and
    /// per-thread totals) and rebuilds the rest: O(#frames + #stacks) plus
    /// one pass to re-sort the samples by call node. `self` stays usable:
    /// queries go on against it while the named engine is built.
    pub fn with_symbols(&self, trace: Arc<Trace>) -> Result<Engine, QueryError> {
        let old = &self.trace;
        let same = old.samples.len() == trace.samples.len()
            && old.stacks.len() == trace.stacks.len()
            && old.threads.len() == trace.threads.len();
        if !same {
            return Err(QueryError::BadRequest(
                "with_symbols needs the same samples, stacks and threads".into(),
            ));
        }
        let funcs = FuncKeys::build(&trace);
        let tree = CallTree::build(&trace.stacks, &funcs);
        let keys = ColumnKeys::build(&trace, &funcs, &tree, &self.stack_tags);
        let s = &trace.samples;
        let by_node =
            index::views::View::build(s, tree.len(), |i| tree.node_of_stack(s.stack[i]) as usize);
        Ok(Engine {
            funcs,
            keys,
            by_thread: self.by_thread.clone(),
            by_node: Arc::new(by_node),
            totals: self.totals.clone(),
            stack_tags: self.stack_tags.clone(),
            regions: self.regions.clone(),
            region_index: self.region_index.clone(),
            threads_valid: self.threads_valid,
            tree,
            trace,
            filter_totals: Mutex::new(Vec::new()),
            // Frame labels change with symbols.
            compare_cache: Arc::default(),
        })
    }

    /// This engine with the Stack Tag column showing `tags`: shares the
    /// sample views and totals, recomputes one key per call node.
    pub fn with_stack_tags(&self, tags: Arc<stack_tags::StackTags>) -> Engine {
        let mut keys = self.keys.clone();
        keys.set_stack_tags(&self.trace, &self.funcs, &self.tree, &tags);
        Engine {
            trace: self.trace.clone(),
            funcs: self.funcs.clone(),
            tree: self.tree.clone(),
            keys,
            by_thread: self.by_thread.clone(),
            by_node: self.by_node.clone(),
            totals: self.totals.clone(),
            stack_tags: tags,
            regions: self.regions.clone(),
            region_index: self.region_index.clone(),
            threads_valid: self.threads_valid,
            filter_totals: Mutex::new(Vec::new()),
            compare_cache: self.compare_cache.clone(),
        }
    }

    /// This engine with its Region column and Regions of Interest table
    /// from `regions` (a view's regions file): shares everything else.
    pub fn with_regions(&self, regions: Arc<model::regions::RegionTable>) -> Engine {
        Engine {
            trace: self.trace.clone(),
            funcs: self.funcs.clone(),
            tree: self.tree.clone(),
            keys: self.keys.clone(),
            by_thread: self.by_thread.clone(),
            by_node: self.by_node.clone(),
            totals: self.totals.clone(),
            stack_tags: self.stack_tags.clone(),
            region_index: Arc::new(regions.region_at()),
            regions: Some(regions),
            threads_valid: self.threads_valid,
            filter_totals: Mutex::new(Vec::new()),
            compare_cache: self.compare_cache.clone(),
        }
    }

    /// The regions this engine's tables use: a view's, else the trace's.
    pub fn regions(&self) -> &model::regions::RegionTable {
        self.regions.as_deref().unwrap_or(&self.trace.regions)
    }

    pub(crate) fn regions_arc(&self) -> Option<Arc<model::regions::RegionTable>> {
        self.regions.clone()
    }

    /// How many keys the Region column has: one per definition of the
    /// regions file in use, then one for "outside every instance".
    pub(crate) fn region_keys(&self) -> usize {
        self.regions()
            .set
            .as_ref()
            .map_or(0, |(_, s)| s.regions.len())
            + 1
    }

    /// The Region column's key of a sample at `time`.
    #[inline]
    pub(crate) fn region_key(&self, time: i64) -> usize {
        match self.region_index.at(time) {
            NONE => self.region_keys() - 1,
            r => r as usize,
        }
    }

    /// Whether a regions file is in use (the Region column has a meaning).
    pub fn has_regions(&self) -> bool {
        self.regions().set.is_some()
    }

    /// Makes the comparison's per-trace indexes now (`CompareCache::warm`).
    pub fn warm_compare(&self) {
        self.compare_cache.warm(&self.trace);
    }

    /// Bytes the comparison's per-trace cache holds so far.
    pub fn compare_cache_bytes(&self) -> usize {
        self.compare_cache.bytes()
    }

    /// Bytes held for this trace: the model, this engine's indexes and
    /// what comparisons have cached so far (the server's memory budget
    /// counts this; the indexes are about twice the model on a sampled
    /// trace, so the model alone undercounts).
    pub fn heap_bytes(&self) -> usize {
        self.trace.heap_bytes()
            + self.funcs.heap_bytes()
            + self.tree.heap_bytes()
            + self.keys.heap_bytes()
            + self.by_thread.heap_bytes()
            + self.by_node.heap_bytes()
            + self.totals.heap_bytes()
            + self.compare_cache.bytes()
    }

    /// The set the Stack Tag column shows.
    pub fn stack_tags(&self) -> &stack_tags::StackTags {
        &self.stack_tags
    }

    pub(crate) fn cached_total(&self, filters: &Filters) -> Option<Cell> {
        let cache = self.filter_totals.lock().ok()?;
        cache.iter().find(|(f, _)| f == filters).map(|(_, c)| *c)
    }

    pub(crate) fn remember_total(&self, filters: &Filters, total: Cell) {
        if let Ok(mut cache) = self.filter_totals.lock() {
            if cache.len() >= TOTALS_CACHE {
                cache.remove(0);
            }
            cache.push((filters.clone(), total));
        }
    }

    pub fn trace(&self) -> &Trace {
        &self.trace
    }

    /// The trace, shared (SQL's virtual tables hold it while a query runs).
    pub fn trace_arc(&self) -> Arc<Trace> {
        self.trace.clone()
    }

    pub fn funcs(&self) -> &FuncKeys {
        &self.funcs
    }

    pub fn call_tree(&self) -> &CallTree {
        &self.tree
    }

    /// Display text of `key` in `column`, as WPA shows it.
    pub fn label(&self, column: Column, key: u32) -> String {
        let t = &*self.trace;
        let s = |k: u32| t.strings.get(model::strings::StrId(k)).to_string();
        match column {
            Column::Process => t.process_label(key),
            Column::ProcessName
            | Column::ThreadName
            | Column::ImagePath
            | Column::FileVersion
            | Column::CompanyName => s(key),
            Column::ThreadId | Column::Cpu => key.to_string(),
            Column::Module => {
                if key == self.keys.unknown_module {
                    "?".into()
                } else if key == self.keys.no_stack_module {
                    "n/a".into()
                } else {
                    t.modules
                        .name
                        .get(key as usize)
                        .map_or_else(|| "?".into(), |&n| t.strings.get(n).to_string())
                }
            }
            Column::Function => self.func_label(key),
            Column::StackTag => self.stack_tags.label(key),
            // Outside every instance: empty, as export prints it.
            Column::Region => match key as usize {
                k if k + 1 >= self.region_keys() => String::new(),
                _ => self.regions().path(key),
            },
            Column::Stack => match key {
                STACK_SELF => "[self]".into(),
                ROOT => "[root]".into(),
                n => self.func_label(self.tree.func.get(n as usize).copied().unwrap_or(NONE)),
            },
            Column::StackInverted => match key {
                STACK_SELF => "[self]".into(),
                f => self.func_label(f),
            },
        }
    }

    /// A row table (Processes ... Generic Events) as a grouped table
    /// (build once, query many times).
    pub fn row_table(&self, kind: RowTableKind) -> RowTable {
        RowTable::build(self, kind)
    }

    /// Func key of the samples without a stack (the Function column's `n/a`).
    pub fn no_stack_func(&self) -> u32 {
        self.keys.no_stack_func
    }

    /// The Module column's key of a func key (`?` outside every module,
    /// `n/a` for the no-stack key).
    pub fn module_key_of_func(&self, func: u32) -> u32 {
        if func == self.keys.no_stack_func || func == NONE {
            return self.keys.no_stack_module;
        }
        match self.funcs.module_of(func) {
            NONE => self.keys.unknown_module,
            m => m,
        }
    }

    /// Every func key of Module column key `module`: a "stack contains
    /// this module" filter is a contains filter on them.
    pub fn funcs_of_module(&self, module: u32) -> Vec<u32> {
        if module == self.keys.no_stack_module {
            return vec![self.keys.no_stack_func];
        }
        let want = if module == self.keys.unknown_module {
            NONE
        } else {
            module
        };
        (0..self.funcs.len() as u32)
            .filter(|&f| self.funcs.module_of(f) == want)
            .collect()
    }

    /// `module!function` of a func key ("n/a" for samples without a stack).
    pub fn func_label(&self, key: u32) -> String {
        if key == NONE || key == self.keys.no_stack_func {
            "n/a".into()
        } else {
            self.funcs.label(&self.trace, key)
        }
    }
}
