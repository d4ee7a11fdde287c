//! Grouped WPA tables over row tables: Processes, Threads, Images (rows
//! with a lifetime) and the event tables File I/O, Disk I/O, CPU Usage
//! (Precise) and Generic Events (rows with a time). Columns come from
//! `table::columns`; any of them can be a key (one dense key per row, built
//! on first use) or a value with an aggregation (`RowTableRequest::values`).
//! A stack column holds the row's call node and spans one level per frame,
//! root to leaf, ended by `[self]` like the sampled Stack column. Queries
//! are plain loops over the rows (thousands to a few million).

use crate::graph::table_graph::{Graph, GraphBins};
use crate::rows::dense;
use crate::rows::group::{Group, Head};
use crate::rows::keys::KeyColumn;
pub use crate::rows::keys::NO_STACK;
use crate::rows::level::FlatLevel;
use crate::scan::cancel::Cancel;
use crate::scan::filter::{TimeRange, STACK_SELF};
use crate::stack_tags::StackTagKeys;
use crate::table::aggregate::Acc;
use crate::table::cell_value::CellValue;
use crate::table::columns::{Cells, ColumnDef, ColumnType, Numbers, TableDef, MISSING};
use crate::table::flat_classes::number_cells;
use crate::table::row_range::in_range;
use crate::table::sampled::{percent, Row, SortBy, TableResponse, Totals, ValueColumn};
use crate::table::text_order::{text_cmp, version_cmp};
use crate::table::value_spec::{ValueOf, ValueSpec};
use crate::{Engine, QueryError};
use model::regions::RegionTable;
use model::Trace;
use rayon::prelude::*;
use rustc_hash::FxHashMap;
use std::cmp::Ordering;
use std::sync::{Arc, OnceLock};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RowTableKind {
    Processes,
    Threads,
    Images,
    FileIo,
    DiskIo,
    CpuPrecise,
    Generic,
    HardFaults,
    Network,
    PageFaults,
    Registry,
    VirtualAlloc,
    Heap,
    Regions,
    Marks,
    DpcIsr,
    ProcessorFrequency,
    CpuIdleStates,
    WindowInFocus,
    UiDelays,
    GpuUtilization,
    FrameTimes,
}

impl RowTableKind {
    pub const ALL: [RowTableKind; 22] = [
        RowTableKind::Processes,
        RowTableKind::Threads,
        RowTableKind::Images,
        RowTableKind::FileIo,
        RowTableKind::DiskIo,
        RowTableKind::CpuPrecise,
        RowTableKind::Generic,
        RowTableKind::HardFaults,
        RowTableKind::Network,
        RowTableKind::PageFaults,
        RowTableKind::Registry,
        RowTableKind::VirtualAlloc,
        RowTableKind::Heap,
        RowTableKind::Regions,
        RowTableKind::Marks,
        RowTableKind::DpcIsr,
        RowTableKind::ProcessorFrequency,
        RowTableKind::CpuIdleStates,
        RowTableKind::WindowInFocus,
        RowTableKind::UiDelays,
        RowTableKind::GpuUtilization,
        RowTableKind::FrameTimes,
    ];

    /// The table's name in the API and in links.
    pub fn name(self) -> &'static str {
        match self {
            RowTableKind::Processes => "processes",
            RowTableKind::Threads => "threads",
            RowTableKind::Images => "images",
            RowTableKind::FileIo => "file-io",
            RowTableKind::DiskIo => "disk-io",
            RowTableKind::CpuPrecise => "cpu-precise",
            RowTableKind::Generic => "generic",
            RowTableKind::HardFaults => "hard-faults",
            RowTableKind::Network => "network",
            RowTableKind::PageFaults => "page-faults",
            RowTableKind::Registry => "registry",
            RowTableKind::VirtualAlloc => "virtual-alloc",
            RowTableKind::Heap => "heap",
            RowTableKind::Regions => "regions",
            RowTableKind::Marks => "marks",
            RowTableKind::DpcIsr => "dpc-isr",
            RowTableKind::ProcessorFrequency => "processor-frequency",
            RowTableKind::CpuIdleStates => "cpu-idle-states",
            RowTableKind::WindowInFocus => "window-in-focus",
            RowTableKind::UiDelays => "ui-delays",
            RowTableKind::GpuUtilization => "gpu-utilization",
            RowTableKind::FrameTimes => "frame-times",
        }
    }

    pub fn from_name(name: &str) -> Option<RowTableKind> {
        RowTableKind::ALL.into_iter().find(|k| k.name() == name)
    }

    pub fn index(self) -> usize {
        RowTableKind::ALL
            .iter()
            .position(|&k| k == self)
            .unwrap_or(0)
    }
}

/// Keep (or drop) rows whose key in column `column` is one of `values`; on
/// a stack column, rows whose stack passes through one of the call nodes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowFilter {
    pub column: usize,
    pub values: Vec<u32>,
    pub exclude: bool,
}

/// What an event table's graph sums per bin.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Measure {
    Count,
    /// The table's weight column (count when it has none).
    Weight,
    /// A numeric column (index into `RowTable::defs`).
    Column(usize),
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RowTableRequest {
    /// Key columns (indices into `RowTable::columns`), outermost first.
    pub columns: Vec<usize>,
    pub filters: Vec<RowFilter>,
    /// Rows alive at some time in the range (events: whose time is in it).
    pub range: Option<TimeRange>,
    /// One key per level; a stack column takes one call node per level
    /// (`STACK_SELF` or `NO_STACK` ends it).
    pub path: Vec<u32>,
    pub sort: SortBy,
    /// Sort by this summed UI value (index into `RowTable::values`)
    /// instead of `sort.column`.
    pub sort_value: Option<usize>,
    /// Value columns right of the gold bar: each row carries their
    /// aggregates (`Row::values`), in this order.
    pub values: Vec<ValueSpec>,
    /// Sort by this value column (index into `values`); before `sort_value`.
    pub sort_aggregate: Option<usize>,
    pub limit: usize,
}

/// A row table: the trace it reads and the keys of the columns used so far.
#[derive(Debug)]
pub struct RowTable {
    pub kind: RowTableKind,
    trace: Arc<Trace>,
    /// Key columns: every column but the implicit Count, WPA's names.
    pub columns: Vec<&'static str>,
    /// Every column (the key columns, then Count), as `table::columns`
    /// defines them; `ValueOf::Column` indexes these.
    pub defs: Vec<ColumnDef>,
    /// The UI's name of the weight (`weight_ms`), if the table has one.
    pub weight_name: Option<&'static str>,
    /// The UI's summed values (`Row::sums`): name and display divisor.
    pub values: Vec<(&'static str, f64)>,
    sum_columns: Vec<usize>,
    pub(crate) weight_column: Option<usize>,
    keys: Vec<OnceLock<KeyColumn>>,
    /// The engine's Stack Tag of each stack (empty for tables without stacks).
    tags: Arc<StackTagKeys>,
    /// The view's regions file's instances (`None`: the trace's own).
    regions: Option<Arc<RegionTable>>,
    /// Whether rows have a time (the First/Last of a group mean something).
    pub timed: bool,
}

/// What one part of a row table's rows adds up to.
#[derive(Default)]
struct Scan {
    total: (u64, i64),
    parent: (u64, i64),
    groups: FxHashMap<u32, Group>,
    next_column: Option<usize>,
    levels: Vec<(u32, usize)>,
    scratch: Vec<u32>,
}

impl Scan {
    fn merge(mut self, mut o: Scan) -> Scan {
        if o.groups.len() > self.groups.len() {
            std::mem::swap(&mut self.groups, &mut o.groups);
        }
        for (k, g) in o.groups {
            match self.groups.entry(k) {
                std::collections::hash_map::Entry::Occupied(mut e) => e.get_mut().merge(g),
                std::collections::hash_map::Entry::Vacant(e) => {
                    e.insert(g);
                }
            }
        }
        let add = |a: (u64, i64), b: (u64, i64)| (a.0 + b.0, a.1.saturating_add(b.1));
        Scan {
            total: add(self.total, o.total),
            parent: add(self.parent, o.parent),
            groups: self.groups,
            // As a sequential scan: the last row's column (later parts come second).
            next_column: o.next_column.or(self.next_column),
            levels: Vec::new(),
            scratch: Vec::new(),
        }
    }
}

impl RowTable {
    /// Build `kind` over `engine`'s trace; stacks are folded by its call tree.
    pub fn build(engine: &Engine, kind: RowTableKind) -> RowTable {
        let trace = Arc::clone(&engine.trace);
        let regions = engine.regions_arc();
        let tags = Arc::new(StackTagKeys::for_table(engine, kind.name()));
        let (defs, weight_name, values, sum_columns, weight_column, timed, stacks) = {
            let def = definition(&trace, regions_of(&trace, &regions), &tags, kind, None);
            let defs: Vec<ColumnDef> = def.columns.iter().map(|c| c.def).collect();
            let col = |n: &str| def.column(n);
            let sum_columns: Vec<usize> = def.ui_sums.iter().filter_map(|s| col(s.1)).collect();
            let values = def.ui_sums.iter().map(|s| (s.0, s.2)).collect();
            // Stack columns need the engine's call tree: built now.
            let stacks: Vec<Option<KeyColumn>> = def
                .columns
                .iter()
                .map(|c| match &c.cells {
                    Cells::Stack(f) => Some(KeyColumn::stack(engine, (0..def.rows).map(f))),
                    _ => None,
                })
                .collect();
            (
                defs,
                def.ui_weight,
                values,
                sum_columns,
                def.weight.and_then(col),
                def.timed,
                stacks,
            )
        };
        let keys = stacks
            .into_iter()
            .map(|s| {
                let cell = OnceLock::new();
                if let Some(s) = s {
                    let _ = cell.set(s);
                }
                cell
            })
            .collect();
        RowTable {
            kind,
            columns: defs
                .iter()
                .filter(|d| d.name != "Count")
                .map(|d| d.name)
                .collect(),
            trace,
            defs,
            weight_name,
            values,
            sum_columns,
            weight_column,
            keys,
            tags,
            regions,
            timed,
        }
    }

    /// The table's column definitions (what value specs and the planner read).
    pub fn def(&self) -> TableDef<'_> {
        definition(
            &self.trace,
            regions_of(&self.trace, &self.regions),
            &self.tags,
            self.kind,
            None,
        )
    }

    /// `def` with its range-relative columns (WPA's allocation classes,
    /// Impacting Size) against `range`.
    pub fn def_in(&self, range: Option<TimeRange>) -> TableDef<'_> {
        definition(
            &self.trace,
            regions_of(&self.trace, &self.regions),
            &self.tags,
            self.kind,
            range,
        )
    }

    /// Key columns of the range-relative columns `req` groups, filters or
    /// reads values of, built for its range (the cached ones are over the
    /// whole trace); `None` for the others, read from the cache.
    fn ranged_keys(&self, def: &TableDef<'_>, req: &RowTableRequest) -> Vec<Option<KeyColumn>> {
        // Number value columns read the cells themselves, not keys.
        let used = |c: usize, number: bool| {
            req.columns.contains(&c)
                || req.filters.iter().any(|f| f.column == c)
                || (!number && req.values.iter().any(|v| v.of == ValueOf::Column(c)))
        };
        def.columns
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let number = matches!(c.cells, Cells::Number(_));
                (req.range.is_some() && c.ranged && used(i, number))
                    .then(|| KeyColumn::build(c, def.rows))
            })
            .collect()
    }

    pub fn len(&self) -> usize {
        self.def().rows
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The column `name` names: its WPA name or an older one.
    pub fn column(&self, name: &str) -> Option<usize> {
        let c = self.def().column(name)?;
        (c < self.columns.len()).then_some(c)
    }

    /// A `COL[:AGG]` value column of this table.
    pub fn value_spec(&self, spec: &str) -> Result<ValueSpec, QueryError> {
        ValueSpec::parse(&self.def(), spec)
    }

    /// Header and shown type of a value column.
    pub fn value_header(&self, v: &ValueSpec) -> (String, ColumnType) {
        let d = self.def();
        (v.header(&d), v.shown_type(&d))
    }

    /// The table's default value columns.
    pub fn default_values(&self) -> Vec<ValueSpec> {
        crate::table::value_spec::default_values(&self.def()).unwrap_or_default()
    }

    /// Whether column `column` is a stack column (drilled frame by frame).
    pub fn is_stack(&self, column: usize) -> bool {
        self.defs
            .get(column)
            .is_some_and(|d| d.ty == ColumnType::Stack)
    }

    /// The key column `c`, built on first use.
    pub(crate) fn key_column(&self, c: usize) -> Option<&KeyColumn> {
        let cell = self.keys.get(c)?;
        Some(cell.get_or_init(|| {
            let def = self.def();
            KeyColumn::build(&def.columns[c], def.rows)
        }))
    }

    /// Display text of `key` in `column`.
    pub fn label(&self, column: usize, key: u32) -> String {
        let ty = self.defs.get(column).map_or(ColumnType::Text, |d| d.ty);
        self.key_column(column)
            .map_or_else(String::new, |kc| kc.label(ty, key))
    }

    /// Every key of `column` shown as `label` (a function is one call node
    /// per distinct path to it, so a stack label can name many).
    pub fn keys_of_label(&self, column: usize, label: &str) -> Vec<u32> {
        let ty = self.defs.get(column).map_or(ColumnType::Text, |d| d.ty);
        self.key_column(column)
            .map_or_else(Vec::new, |kc| kc.keys_of_label(ty, label))
    }

    /// The row's key at every level of `columns`, with each level's column.
    pub(crate) fn levels(
        row: usize,
        columns: &[(usize, &KeyColumn)],
        out: &mut Vec<(u32, usize)>,
        scratch: &mut Vec<u32>,
    ) {
        out.clear();
        for &(c, kc) in columns {
            kc.levels_of(row, scratch, |k| out.push((k, c)));
        }
    }

    /// Rows under `req.path`, grouped by the next level's key.
    pub fn query(&self, req: &RowTableRequest) -> Result<TableResponse, QueryError> {
        Ok(self.query_graphed(req, None)?.0)
    }

    /// `query`, and the graph of the same level (`graph` with `bins` and
    /// `measure`) when the same pass over the rows can bin it cheaply (a
    /// flat level of few keys of an event table): then it equals
    /// `graph(req, bins, measure)` for the table's range within the bins'
    /// range; `None` otherwise (ask `graph`).
    pub fn query_graphed(
        &self,
        req: &RowTableRequest,
        graph: Option<(&GraphBins, Measure)>,
    ) -> Result<(TableResponse, Option<Graph>), QueryError> {
        let ncols = self.columns.len();
        let bad = |c: usize| c >= ncols;
        if req.columns.iter().any(|&c| bad(c)) || req.filters.iter().any(|f| bad(f.column)) {
            return Err(QueryError::BadRequest("no such column".into()));
        }
        if req.sort_value.is_some_and(|v| v >= self.values.len())
            || req.sort_aggregate.is_some_and(|v| v >= req.values.len())
        {
            return Err(QueryError::BadRequest("no such value column".into()));
        }
        let def = self.def_in(req.range);
        let cancel = Cancel::current();
        let local = self.ranged_keys(&def, req);
        let kc = |c: usize| match local.get(c) {
            Some(Some(k)) => Some(k),
            _ => self.key_column(c),
        };
        let label_of = |c: usize, key: u32| {
            let ty = self.defs.get(c).map_or(ColumnType::Text, |d| d.ty);
            kc(c).map_or_else(String::new, |k| k.label(ty, key))
        };
        let key_cols: Vec<(usize, &KeyColumn)> = req
            .columns
            .iter()
            .filter_map(|&c| Some((c, kc(c)?)))
            .collect();
        let filter_cols: Vec<(&RowFilter, &KeyColumn)> = req
            .filters
            .iter()
            .filter_map(|f| Some((f, kc(f.column)?)))
            .collect();
        let readers = self.value_readers(&def, &req.values, &kc)?;
        // The weight and summed columns, found once rather than per row;
        // a row without a number adds 0.
        let weight = self.weight_column.and_then(|c| number_cells(&def, c));
        let sum_cells: Vec<Option<&Numbers>> = (self.sum_columns.iter())
            .map(|&c| number_cells(&def, c))
            .collect();
        let cell = |n: Option<&Numbers>, row: usize| match n.map(|n| n.at(row)) {
            None | Some(MISSING) => 0,
            Some(v) => v,
        };
        let depth = req.path.len();
        // What one row adds to its group.
        let add = |g: &mut Head, sums: &mut [i64], accs: &mut [Acc], row: usize, w: i64| {
            let t = def.start.at(row);
            g.count += 1;
            g.weight = g.weight.saturating_add(w);
            for (s, &n) in sums.iter_mut().zip(&sum_cells) {
                *s = s.saturating_add(cell(n, row));
            }
            for (acc, r) in accs.iter_mut().zip(&readers) {
                if let Some(v) = r.read(row) {
                    acc.add(v);
                }
            }
            g.first = g.first.min(t);
            g.last = g.last.max(t);
        };
        let keep = |row: usize, scratch: &mut Vec<u32>| {
            req.range.is_none_or(|r| in_range(&def, row, &r))
                && filter_cols
                    .iter()
                    .all(|(f, kc)| kc.passes(row, &f.values, f.exclude, scratch))
        };
        let new_accs = || req.values.iter().map(|v| Acc::new(v.aggregation));
        let aggregations: Vec<_> = req.values.iter().map(|v| v.aggregation).collect();
        let value_keys: Vec<Option<usize>> = readers.iter().map(Reader::keys).collect();
        let mut graphed = None;
        let (total, parent, groups, next_column) = match FlatLevel::new(&key_cols, &req.path)
            .filter(|l| dense::fits(l.space, self.sum_columns.len(), &aggregations, &value_keys))
        {
            Some(level) => {
                let sg =
                    graph.and_then(|(g, m)| Some((g, self.scan_graph(req, level.space, g, m)?)));
                let d = dense::scan(
                    def.rows,
                    &level,
                    sg.as_ref().map(|(_, s)| {
                        let bin_of = |last: &mut (i64, i64, usize), row: usize, t: i64| {
                            s.bin(&def, last, row, t)
                        };
                        (s.bins(), bin_of)
                    }),
                    self.sum_columns.len(),
                    &aggregations,
                    &value_keys,
                    |row, scratch| keep(row, scratch).then(|| cell(weight, row)),
                    |row| def.start.at(row),
                    |j, rows, out| match sum_cells.get(j).copied().flatten() {
                        Some(n) => {
                            let from = out.len();
                            n.fill(rows, out);
                            for v in &mut out[from..] {
                                if *v == MISSING {
                                    *v = 0;
                                }
                            }
                        }
                        None => out.extend(rows.iter().map(|_| 0)),
                    },
                    |j, rows, out| match readers.get(j) {
                        Some(r) => r.fill(rows, out),
                        None => out.extend(rows.iter().map(|_| MISSING)),
                    },
                );
                let next = (!d.groups.is_empty()).then_some(level.column);
                graphed = sg.map(|(g, s)| self.graph_of_cells(req, g, &s, &d.cells));
                (d.total, d.parent, d.groups, next)
            }
            None => {
                // One pass over the rows, split across threads: each part
                // groups its rows, then the parts merge (a group's
                // aggregates merge exactly).
                let scan = |mut p: Scan, row: usize| {
                    if cancel.is_set() || !keep(row, &mut p.scratch) {
                        return p;
                    }
                    let w = cell(weight, row);
                    p.total = (p.total.0 + 1, p.total.1.saturating_add(w));
                    RowTable::levels(row, &key_cols, &mut p.levels, &mut p.scratch);
                    let under = p.levels.len() >= depth
                        && p.levels.iter().zip(&req.path).all(|(&(k, _), &pk)| k == pk);
                    if !under {
                        return p;
                    }
                    p.parent = (p.parent.0 + 1, p.parent.1.saturating_add(w));
                    let Some(&(key, c)) = p.levels.get(depth) else {
                        return p;
                    };
                    p.next_column = Some(c);
                    let deeper = p.levels.len() > depth + 1;
                    let g = p.groups.entry(key).or_insert_with(|| Group {
                        head: Head::default(),
                        sums: vec![0; self.sum_columns.len()],
                        accs: new_accs().collect(),
                        deeper: false,
                    });
                    add(&mut g.head, &mut g.sums, &mut g.accs, row, w);
                    g.deeper |= deeper;
                    p
                };
                let s = (0..def.rows)
                    .into_par_iter()
                    .with_min_len(1 << 15)
                    .fold(Scan::default, scan)
                    .reduce(Scan::default, Scan::merge);
                let groups: Vec<(u32, Group)> = s.groups.into_iter().collect();
                (s.total, s.parent, groups, s.next_column)
            }
        };
        cancel.check()?;
        let by_weight = self.weight_column.is_some() && total.1 != 0;
        // Labels are made for the rows kept, unless the rows sort by them.
        let by_label = req.sort_aggregate.is_none()
            && req.sort_value.is_none()
            && req.sort.column == ValueColumn::Label;
        let mut rows: Vec<Row> = groups
            .into_iter()
            .map(|(key, g)| {
                let pct = if by_weight {
                    percent(g.head.weight, total.1)
                } else {
                    // No weight (or none recorded, e.g. I/O without
                    // completions): % of the count, as WPA's % Count.
                    percent(g.head.count as i64, total.0 as i64)
                };
                let values = g
                    .accs
                    .iter()
                    .zip(&req.values)
                    .zip(&readers)
                    .map(|((acc, spec), r)| match r {
                        Reader::Percent => CellValue::Plain(pct),
                        _ => {
                            let ty = r.ty();
                            CellValue::of_aggregate(acc.finish(spec.aggregation), ty, |k| {
                                r.label(k)
                            })
                        }
                    })
                    .collect();
                let g_head = g.head;
                Row {
                    key,
                    label: match next_column {
                        Some(c) if by_label => label_of(c, key),
                        _ => String::new(),
                    },
                    count: g_head.count,
                    weight_ns: g_head.weight,
                    percent_weight: pct,
                    first_ns: if self.timed { g_head.first } else { 0 },
                    last_ns: if self.timed { g_head.last } else { 0 },
                    expandable: g.deeper,
                    sums: g.sums,
                    values,
                }
            })
            .collect();
        let label_type = next_column
            .and_then(|c| self.defs.get(c))
            .map_or(ColumnType::Text, |d| d.ty);
        let value_types: Vec<ColumnType> = req.values.iter().map(|v| v.shown_type(&def)).collect();
        let next_kc = next_column.and_then(kc);
        let by = req.sort;
        let cmp = |a: &Row, b: &Row| {
            let o = match (req.sort_aggregate, req.sort_value, by.column) {
                (Some(i), _, _) => match (a.values.get(i), b.values.get(i), value_types.get(i)) {
                    (Some(x), Some(y), Some(&ty)) => x.compare(y, ty),
                    _ => Ordering::Equal,
                },
                (None, Some(v), _) => a.sums.get(v).cmp(&b.sums.get(v)),
                (None, None, ValueColumn::Label) => label_cmp(next_kc, label_type, a, b),
                (None, None, ValueColumn::Weight | ValueColumn::PercentWeight) => {
                    a.weight_ns.cmp(&b.weight_ns).then(a.count.cmp(&b.count))
                }
                (None, None, ValueColumn::FirstTime) => a.first_ns.cmp(&b.first_ns),
                (None, None, ValueColumn::LastTime) => a.last_ns.cmp(&b.last_ns),
                (None, None, ValueColumn::Count) => a.count.cmp(&b.count),
            };
            let o = if by.descending { o.reverse() } else { o };
            o.then(a.key.cmp(&b.key))
        };
        // Keys are distinct, so `cmp` is a total order: the first `limit`
        // rows are selected, then sorted, the same rows a full sort keeps.
        let omitted = if req.limit > 0 && rows.len() > req.limit {
            let o = rows.len() - req.limit;
            rows.select_nth_unstable_by(req.limit - 1, cmp);
            rows.truncate(req.limit);
            o
        } else {
            0
        };
        rows.sort_by(cmp);
        if !by_label {
            if let Some(c) = next_column {
                for r in &mut rows {
                    r.label = label_of(c, r.key);
                }
            }
        }
        let table = TableResponse {
            column: None,
            total: Totals {
                count: total.0,
                weight_ns: total.1,
            },
            parent: Totals {
                count: parent.0,
                weight_ns: parent.1,
            },
            rows,
            omitted,
        };
        Ok((table, graphed))
    }

    /// How to read each value column per row.
    fn value_readers<'d>(
        &'d self,
        def: &'d TableDef<'d>,
        values: &[ValueSpec],
        key_column: &dyn Fn(usize) -> Option<&'d KeyColumn>,
    ) -> Result<Vec<Reader<'d>>, QueryError> {
        values
            .iter()
            .map(|v| match v.of {
                ValueOf::PercentWeight => Ok(Reader::Percent),
                ValueOf::Column(c) => {
                    let column = def
                        .columns
                        .get(c)
                        .ok_or_else(|| QueryError::BadRequest("no such value column".into()))?;
                    if !column.def.accepts(v.aggregation) {
                        return Err(QueryError::BadRequest(column.def.refusal(v.aggregation)));
                    }
                    Ok(match &column.cells {
                        Cells::Number(f) => Reader::Number(f, column.def.ty),
                        _ => match key_column(c).and_then(KeyColumn::text_keys) {
                            Some((keys, labels)) => Reader::Text(keys, labels),
                            None => {
                                return Err(QueryError::BadRequest("no such value column".into()))
                            }
                        },
                    })
                }
            })
            .collect()
    }

    /// Name of the column the rows under `path` are grouped by (`None`
    /// below the last level).
    pub fn next_column(&self, columns: &[usize], path: &[u32]) -> Option<&'static str> {
        let mut level = 0;
        for &c in columns {
            if self.is_stack(c) {
                // Stack levels continue until [self] / n/a.
                loop {
                    match path.get(level) {
                        None => return self.columns.get(c).copied(),
                        Some(&k) => {
                            level += 1;
                            if k == STACK_SELF || k == NO_STACK {
                                break;
                            }
                        }
                    }
                }
            } else {
                if level == path.len() {
                    return self.columns.get(c).copied();
                }
                level += 1;
            }
        }
        None
    }
}

/// A view's regions, else the trace's own.
fn regions_of<'a>(t: &'a Trace, view: &'a Option<Arc<RegionTable>>) -> &'a RegionTable {
    view.as_deref().unwrap_or(&t.regions)
}

/// The table definition of a row table kind.
fn definition<'a>(
    t: &'a Trace,
    regions: &'a RegionTable,
    tags: &'a StackTagKeys,
    kind: RowTableKind,
    range: Option<TimeRange>,
) -> TableDef<'a> {
    // Every row table kind is a table of `table::columns`.
    TableDef::of_tagged_with(t, regions, kind.name(), tags, range)
        .unwrap_or_else(|| TableDef::empty(kind.name()))
}

/// One value column's reader.
enum Reader<'d> {
    Percent,
    Number(&'d crate::table::columns::Numbers<'d>, ColumnType),
    Text(&'d [u32], &'d [String]),
}

impl Reader<'_> {
    fn read(&self, row: usize) -> Option<i64> {
        match self {
            Reader::Percent => None,
            Reader::Number(f, _) => match f.at(row) {
                MISSING => None,
                v => Some(v),
            },
            Reader::Text(keys, _) => keys.get(row).map(|&k| i64::from(k)),
        }
    }

    /// `read` of each of `rows` (`MISSING` for none), appended to `out`.
    fn fill(&self, rows: &[usize], out: &mut Vec<i64>) {
        match self {
            Reader::Percent => out.extend(rows.iter().map(|_| MISSING)),
            // A number column's `MISSING` is its "none" as it is.
            Reader::Number(f, _) => f.fill(rows, out),
            Reader::Text(keys, _) => {
                out.extend((rows.iter()).map(|&r| keys.get(r).map_or(MISSING, |&k| i64::from(k))))
            }
        }
    }

    /// How many keys a text value column has (its values are below it).
    fn keys(&self) -> Option<usize> {
        match self {
            Reader::Text(_, labels) => Some(labels.len()),
            _ => None,
        }
    }

    fn ty(&self) -> ColumnType {
        match self {
            Reader::Number(_, ty) => *ty,
            _ => ColumnType::Text,
        }
    }

    fn label(&self, k: i64) -> String {
        match self {
            Reader::Text(_, labels) => labels.get(k as usize).cloned().unwrap_or_default(),
            _ => String::new(),
        }
    }
}

/// Rows sorted by their key: numbers by value, versions in version order,
/// text case-insensitively.
fn label_cmp(kc: Option<&KeyColumn>, ty: ColumnType, a: &Row, b: &Row) -> Ordering {
    match kc {
        Some(kc) if kc.is_number() => a.key.cmp(&b.key),
        _ if ty == ColumnType::Version => version_cmp(&a.label, &b.label),
        _ => text_cmp(&a.label, &b.label),
    }
}
