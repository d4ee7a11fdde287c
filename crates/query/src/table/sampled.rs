//! CPU Usage (Sampled) as a WPA table: the children of one tree path,
//! grouped by the next key column, sorted, limited.

use crate::index::columns::{Column, Source, CPUS};
use crate::scan::filter::{Filters, Next, STACK_SELF};
use crate::scan::pass::{Cell, Mode};
use crate::scan::plan::SlotOf;
use crate::table::columns::{ColumnType, TableDef};
use crate::table::sampled_values::{readers, Reader, ValueAcc};
use crate::table::value_spec::ValueSpec;
use crate::{Engine, QueryError};
use model::NONE;
use rustc_hash::FxHashMap;

/// Value columns (right of the gold bar) a table can sort by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ValueColumn {
    Count,
    #[default]
    Weight,
    PercentWeight,
    FirstTime,
    LastTime,
    /// The key's display text.
    Label,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SortBy {
    pub column: ValueColumn,
    pub descending: bool,
}

impl Default for SortBy {
    fn default() -> Self {
        SortBy {
            column: ValueColumn::Weight,
            descending: true,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TableRequest {
    /// Key columns left of the gold bar, outermost first.
    pub columns: Vec<Column>,
    pub filters: Filters,
    /// Keys from the root to the expanded row; empty for the top level. A
    /// stack column takes one call node per level (`STACK_SELF` ends it).
    pub path: Vec<u32>,
    pub sort: SortBy,
    /// At most this many rows; 0 means no limit.
    pub limit: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Totals {
    pub count: u64,
    pub weight_ns: i64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The key to append to the path to expand this row.
    pub key: u32,
    pub label: String,
    pub count: u64,
    pub weight_ns: i64,
    /// CPU Usage (Sampled): weight as a percentage of the CPU time the
    /// range offers (range x CPUs), as WPA's % Weight. Row tables: of the
    /// weight (or count) of every row the filters keep.
    pub percent_weight: f64,
    pub first_ns: i64,
    pub last_ns: i64,
    /// Whether expanding the row can show children.
    pub expandable: bool,
    /// Row tables: sums of their UI value columns (`RowTable::values`), in order.
    pub sums: Vec<i64>,
    /// Aggregates of the requested value columns, in their order.
    pub values: Vec<crate::table::cell_value::CellValue>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct TableResponse {
    /// Column of the returned rows (`None` below the last key column).
    pub column: Option<Column>,
    /// Every sample the filters keep in the range (the 100 % of % Weight).
    pub total: Totals,
    /// The samples under the path: the rows' parent.
    pub parent: Totals,
    pub rows: Vec<Row>,
    /// Rows left out by `limit`.
    pub omitted: usize,
}

/// Slot layout of the level below a path.
pub(crate) struct Level {
    pub(crate) slot_of: SlotOf,
    /// Key of each slot.
    pub(crate) keys: Vec<u32>,
    /// Per slot: whether the row may have children.
    deeper: Vec<bool>,
}

impl Engine {
    /// The rows under `req.path`: one parallel scan of the range.
    pub fn table(&self, req: &TableRequest) -> Result<TableResponse, QueryError> {
        self.table_values(req, &[], None)
    }

    /// `table` with value columns (`values`, resolved against
    /// `TableDef::of(trace, "cpu-sampled")`) in each row's `values`, sorted
    /// by the aggregate of `values[sort_value]` when given (else by
    /// `req.sort`). A group row's values are the merge of its samples'.
    pub fn table_values(
        &self,
        req: &TableRequest,
        values: &[ValueSpec],
        sort_value: Option<usize>,
    ) -> Result<TableResponse, QueryError> {
        let (preds, next) = self.path_preds(&req.columns, &req.path)?;
        let level = self.level(&next);
        let plan = self.plan(&req.filters, &preds, level.slot_of, level.keys.len())?;
        let known = self.cached_total(&req.filters);
        let def = TableDef::of_with(&self.trace, self.regions(), "cpu-sampled");
        let readers = match &def {
            Some(d) if !values.is_empty() => readers(&self.trace, d, values, plan.stack.len())?,
            _ => Vec::new(),
        };
        let (cells, acc_total, vacc) = if readers.is_empty() {
            let acc = self.scan(&plan, known);
            (acc.cells, acc.total, None)
        } else {
            let mut v = self.scan_values(&plan, known, &readers);
            (std::mem::take(&mut v.cells), v.total, Some(v))
        };
        if known.is_none() {
            self.remember_total(&req.filters, acc_total);
        }
        let mut parent = Cell::default();
        for c in &cells {
            parent.merge(c);
        }
        let (column, groups) = match &next {
            Next::Leaf => (None, Vec::new()),
            Next::Flat { column, more } => {
                let rows = keyed(&cells, &level.keys, |_| *more);
                (Some(*column), rows)
            }
            Next::Inverted { more, .. } => {
                let rows = keyed(&cells, &level.keys, |s| {
                    level.keys[s] == STACK_SELF && *more || level.deeper[s]
                });
                (Some(Column::StackInverted), rows)
            }
            Next::Stack { more, .. } => (
                Some(Column::Stack),
                self.stack_rows(&level.keys, *more, &cells),
            ),
        };
        let total = Totals {
            count: acc_total.count,
            weight_ns: acc_total.weight_ns,
        };
        let column_or_stack = column.unwrap_or(Column::Stack);
        let capacity = self.cpu_capacity_ns(req.filters.range);
        let mut rows: Vec<Row> = groups
            .into_iter()
            .map(|g| {
                let c = g.cell;
                let percent_weight = share(c.weight_ns, capacity);
                let values = match &vacc {
                    Some(v) => v
                        .of_slots(&readers, g.slots())
                        .iter()
                        .zip(&readers)
                        .map(|(a, r)| r.cell(a, percent_weight))
                        .collect(),
                    None => Vec::new(),
                };
                Row {
                    key: g.key,
                    label: String::new(),
                    count: c.count,
                    weight_ns: c.weight_ns,
                    percent_weight,
                    first_ns: c.first_ns,
                    last_ns: c.last_ns,
                    expandable: g.expandable,
                    sums: Vec::new(),
                    values,
                }
            })
            .collect();
        if req.sort.column == ValueColumn::Label {
            for r in &mut rows {
                r.label = self.label(column_or_stack, r.key);
            }
        }
        let by_value = sort_value.and_then(|i| {
            let d = def.as_ref()?;
            Some((i, values.get(i)?.shown_type(d)))
        });
        match by_value {
            Some((i, ty)) => sort_by_value(&mut rows, i, ty, req.sort.descending, req.limit),
            None => sort_rows(&mut rows, req.sort, req.limit),
        }
        let omitted = if req.limit > 0 && rows.len() > req.limit {
            let o = rows.len() - req.limit;
            rows.truncate(req.limit);
            o
        } else {
            0
        };
        if req.sort.column != ValueColumn::Label {
            for r in &mut rows {
                r.label = self.label(column_or_stack, r.key);
            }
        }
        Ok(TableResponse {
            column,
            total,
            parent: Totals {
                count: parent.count,
                weight_ns: parent.weight_ns,
            },
            rows,
            omitted,
        })
    }

    /// `scan` with value columns. The precomputed per-thread (per-stack)
    /// totals serve when every value follows from a group of one thread's
    /// (stack's) samples: a thread's process, its first sample, ...; else
    /// every sample is read.
    fn scan_values(
        &self,
        plan: &crate::scan::plan::Plan,
        known: Option<Cell>,
        readers: &[Reader],
    ) -> ValueAcc {
        let constant = self.trace.samples.constant_interval();
        let mode = Mode {
            skip_path_fail: known.is_some(),
            by_stack_ok: readers.iter().all(|r| r.groups(false, constant.is_some())),
            by_thread_ok: readers.iter().all(|r| r.groups(true, constant.is_some())),
        };
        let mut acc = self.scan_with(
            plan,
            mode,
            || ValueAcc::new(plan.slots, readers),
            |a: &mut ValueAcc, h| a.add(readers, h, constant),
            ValueAcc::merge,
        );
        if let Some(t) = known {
            acc.total = t;
        }
        acc
    }

    /// The CPU time of `range` (the whole trace without one) on all the
    /// trace's CPUs: the 100 % of CPU Usage (Sampled)'s % Weight, so that
    /// filtering to one process keeps its true share of the machine.
    pub fn cpu_capacity_ns(&self, range: Option<crate::scan::filter::TimeRange>) -> f64 {
        crate::table::flat::cpu_capacity_ns(&self.trace, range)
    }

    pub(crate) fn level(&self, next: &Next) -> Level {
        let tree = &self.tree;
        match next {
            Next::Leaf => Level {
                slot_of: SlotOf::One,
                keys: vec![NONE],
                deeper: vec![false],
            },
            Next::Flat { column, .. } => match column.source() {
                Source::Thread(i) => dense_level(&self.keys.thread[i], SlotOf::Thread),
                Source::Node(i) => dense_level(&self.keys.node[i], SlotOf::Node),
                Source::Region => {
                    let keys: Vec<u32> = (0..self.region_keys() as u32).collect();
                    Level {
                        slot_of: SlotOf::Region(keys.clone()),
                        deeper: vec![false; keys.len()],
                        keys,
                    }
                }
                _ => {
                    let keys: Vec<u32> = (0..CPUS as u32).collect();
                    Level {
                        slot_of: SlotOf::Cpu(keys.clone()),
                        deeper: vec![false; keys.len()],
                        keys,
                    }
                }
            },
            Next::Stack { node, .. } => {
                // Slot 0: samples ending at `node`; per child j, slot 1 + 2j
                // for samples ending at the child and 2 + 2j for deeper ones
                // (which makes the child expandable).
                let mut slot = vec![NONE; tree.len()];
                let mut keys = vec![STACK_SELF];
                if let Some(s) = slot.get_mut(*node as usize) {
                    *s = 0;
                }
                for (j, c) in tree.children(*node).enumerate() {
                    let (own, deeper) = (1 + 2 * j as u32, 2 + 2 * j as u32);
                    let end = tree.end.get(c as usize).copied().unwrap_or(c) as usize;
                    for (n, s) in slot.iter_mut().enumerate().take(end).skip(c as usize) {
                        *s = if n == c as usize { own } else { deeper };
                    }
                    keys.extend([c, c]);
                }
                Level {
                    slot_of: SlotOf::Node(slot),
                    deeper: Vec::new(),
                    keys,
                }
            }
            Next::Inverted { funcs, .. } => {
                let m = funcs.len();
                let mut dense = Dense::default();
                let mut deeper = Vec::new();
                let slot = (0..tree.len())
                    .map(|n| {
                        let d = tree.depth[n] as usize;
                        if d < m {
                            return NONE;
                        }
                        let mut a = n as u32;
                        for _ in 0..m {
                            a = tree.parent[a as usize];
                        }
                        let key = if d == m {
                            STACK_SELF
                        } else {
                            tree.func[a as usize]
                        };
                        let s = dense.slot(key);
                        if deeper.len() <= s as usize {
                            deeper.resize(s as usize + 1, false);
                        }
                        deeper[s as usize] |= d > m + 1;
                        s
                    })
                    .collect();
                Level {
                    slot_of: SlotOf::Node(slot),
                    keys: dense.keys,
                    deeper,
                }
            }
        }
    }

    /// Children of a call node from the slots `level` laid out: one row
    /// per child with samples, and a `[self]` row for the samples ending at
    /// the node when it has other rows or key columns follow the stack.
    fn stack_rows(&self, keys: &[u32], more: bool, cells: &[Cell]) -> Vec<Group> {
        let own = cells.first().copied().unwrap_or_default();
        let mut rows: Vec<Group> = cells
            .get(1..)
            .unwrap_or(&[])
            .chunks_exact(2)
            .zip(keys.get(1..).unwrap_or(&[]).chunks_exact(2))
            .enumerate()
            .filter_map(|(j, (c, k))| {
                let (at, deeper) = (c[0], c[1]);
                let mut inc = at;
                inc.merge(&deeper);
                (inc.count > 0).then_some(Group {
                    key: k[0],
                    cell: inc,
                    expandable: deeper.count > 0 || (more && at.count > 0),
                    slots: [1 + 2 * j as u32, 2 + 2 * j as u32],
                })
            })
            .collect();
        if own.count > 0 && (more || !rows.is_empty()) {
            rows.push(Group {
                key: STACK_SELF,
                cell: own,
                expandable: more,
                slots: [0, NONE],
            });
        }
        rows
    }
}

/// One slot per distinct key of a per-thread or per-node key array.
fn dense_level(keys: &[u32], make: fn(Vec<u32>) -> SlotOf) -> Level {
    let max = keys.iter().copied().max().unwrap_or(0) as usize;
    let (slot, keys) = if max <= keys.len().max(1 << 16) * 4 {
        // Small key space: a direct map beats hashing.
        let mut map = vec![NONE; max + 1];
        let mut out = Vec::new();
        let slot = keys
            .iter()
            .map(|&k| {
                let m = &mut map[k as usize];
                if *m == NONE {
                    *m = out.len() as u32;
                    out.push(k);
                }
                *m
            })
            .collect();
        (slot, out)
    } else {
        let mut dense = Dense::default();
        let slot = keys.iter().map(|&k| dense.slot(k)).collect();
        (slot, dense.keys)
    };
    Level {
        slot_of: make(slot),
        deeper: vec![false; keys.len()],
        keys,
    }
}

/// Dense slots for arbitrary keys.
#[derive(Default)]
struct Dense {
    map: FxHashMap<u32, u32>,
    keys: Vec<u32>,
}

impl Dense {
    fn slot(&mut self, key: u32) -> u32 {
        let next = self.keys.len() as u32;
        let s = *self.map.entry(key).or_insert(next);
        if s == next {
            self.keys.push(key);
        }
        s
    }
}

/// A row of a level before its label: its key, totals and the slots
/// (one, or a call node's own and deeper ones) it gathers.
struct Group {
    key: u32,
    cell: Cell,
    expandable: bool,
    slots: [u32; 2],
}

impl Group {
    fn slots(&self) -> &[u32] {
        if self.slots[1] == NONE {
            &self.slots[..1]
        } else {
            &self.slots
        }
    }
}

fn keyed(cells: &[Cell], keys: &[u32], expandable: impl Fn(usize) -> bool) -> Vec<Group> {
    cells
        .iter()
        .enumerate()
        .filter(|(_, c)| c.count > 0)
        .map(|(s, c)| Group {
            key: keys.get(s).copied().unwrap_or(NONE),
            cell: *c,
            expandable: expandable(s),
            slots: [s as u32, NONE],
        })
        .collect()
}

/// Sorts by the aggregate of value column `i` (then by key), or with a
/// limit only the first `limit` rows.
fn sort_by_value(rows: &mut [Row], i: usize, ty: ColumnType, descending: bool, limit: usize) {
    let cmp = |a: &Row, b: &Row| {
        let o = match (a.values.get(i), b.values.get(i)) {
            (Some(x), Some(y)) => x.compare(y, ty),
            _ => std::cmp::Ordering::Equal,
        };
        let o = if descending { o.reverse() } else { o };
        o.then(a.key.cmp(&b.key))
    };
    if limit > 0 && rows.len() > limit {
        rows.select_nth_unstable_by(limit, cmp);
        rows[..limit].sort_by(cmp);
    } else {
        rows.sort_by(cmp);
    }
}

/// `w` as a percentage of `base` (0 when `base` is not positive).
pub(crate) fn share(w: i64, base: f64) -> f64 {
    if base > 0.0 {
        w as f64 * 100.0 / base
    } else {
        0.0
    }
}

pub(crate) fn percent(w: i64, total: i64) -> f64 {
    if total == 0 {
        0.0
    } else {
        w as f64 * 100.0 / total as f64
    }
}

/// Sorts the rows, or with a limit only the first `limit` of them.
fn sort_rows(rows: &mut [Row], by: SortBy, limit: usize) {
    let cmp = |a: &Row, b: &Row| {
        let o = match by.column {
            ValueColumn::Count => a.count.cmp(&b.count),
            ValueColumn::Weight | ValueColumn::PercentWeight => a.weight_ns.cmp(&b.weight_ns),
            ValueColumn::FirstTime => a.first_ns.cmp(&b.first_ns),
            ValueColumn::LastTime => a.last_ns.cmp(&b.last_ns),
            ValueColumn::Label => a.label.cmp(&b.label),
        };
        let o = if by.descending { o.reverse() } else { o };
        o.then(a.key.cmp(&b.key))
    };
    if limit > 0 && rows.len() > limit {
        rows.select_nth_unstable_by(limit, cmp);
        rows[..limit].sort_by(cmp);
    } else {
        rows.sort_by(cmp);
    }
}
