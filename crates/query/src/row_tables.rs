//! Grouped WPA tables over row tables: Processes, Threads, Images (rows
//! with a lifetime) and the event tables File I/O, Disk I/O, CPU Usage
//! (Precise) and Generic Events (rows with a time and summed values). Each
//! key column holds one dense key per row, built once per table; a stack
//! column holds the row's call node and spans one level per frame, root to
//! leaf, ended by `[self]` like the sampled Stack column. Queries are
//! plain loops over the rows (thousands to a few million).

use crate::call_tree::{CallTree, ROOT};
use crate::filter::{TimeRange, STACK_SELF};
use crate::row_table_specs::{spec, KeySpec};
use crate::table_query::{percent, Row, SortBy, TableResponse, Totals, ValueColumn};
use crate::{Column, Engine, QueryError};
use model::NONE;
use rustc_hash::FxHashMap;

/// The key (labelled `n/a`) of rows without a stack, at a stack column's first level.
pub const NO_STACK: u32 = u32::MAX - 2;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum RowTableKind {
    Processes,
    Threads,
    Images,
    FileIo,
    DiskIo,
    CpuPrecise,
    Generic,
}

impl RowTableKind {
    pub const ALL: [RowTableKind; 7] = [
        RowTableKind::Processes,
        RowTableKind::Threads,
        RowTableKind::Images,
        RowTableKind::FileIo,
        RowTableKind::DiskIo,
        RowTableKind::CpuPrecise,
        RowTableKind::Generic,
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
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RowFilter {
    pub column: usize,
    pub values: Vec<u32>,
    pub exclude: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
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
    /// Sort by this value column (index into `values`) instead of `sort.column`.
    pub sort_value: Option<usize>,
    pub limit: usize,
}

/// Labels and parents of the call nodes the table's stacks pass through.
#[derive(Debug, Clone, Default)]
struct Nodes {
    parent: FxHashMap<u32, u32>,
    label: FxHashMap<u32, String>,
}

#[derive(Debug, Clone)]
enum KeyColumn {
    /// Dense keys per row and the label of each key.
    Text { keys: Vec<u32>, labels: Vec<String> },
    /// Call node per row (`ROOT` when the row has no stack).
    Stack { nodes: Vec<u32> },
}

/// A row table with its per-column keys and labels.
#[derive(Debug, Clone)]
pub struct RowTable {
    pub kind: RowTableKind,
    pub columns: Vec<&'static str>,
    /// Name of the weight column (`weight_ms`), if the table has one.
    pub weight_name: Option<&'static str>,
    /// Summed value columns (`Row::sums`): name and display divisor.
    pub values: Vec<(&'static str, f64)>,
    keys: Vec<KeyColumn>,
    nodes: Nodes,
    start: Vec<i64>,
    end: Vec<i64>,
    timed: bool,
    weight: Vec<i64>,
    value_data: Vec<Vec<i64>>,
}

/// Per group while scanning.
#[derive(Debug, Clone, Default)]
struct Acc {
    count: u64,
    weight: i64,
    sums: Vec<i64>,
    first: i64,
    last: i64,
    deeper: bool,
}

impl RowTable {
    /// Build `kind` over `engine`'s trace; stacks are folded by its call tree.
    pub fn build(engine: &Engine, kind: RowTableKind) -> RowTable {
        let t = engine.trace();
        let tree = engine.call_tree();
        let sp = spec(t, kind);
        let n = sp.start.len();
        let mut nodes = Nodes::default();
        let mut keys = Vec::with_capacity(sp.columns.len());
        let columns = sp.columns.iter().map(|c| c.name()).collect();
        for c in &sp.columns {
            keys.push(match c {
                KeySpec::Text(_, f) => {
                    let mut index: FxHashMap<String, u32> = FxHashMap::default();
                    let mut labels = Vec::new();
                    let mut k = Vec::with_capacity(n);
                    for row in 0..n {
                        let v = f(row);
                        let next = labels.len() as u32;
                        let key = match index.get(&v) {
                            Some(&key) => key,
                            None => {
                                index.insert(v.clone(), next);
                                labels.push(v);
                                next
                            }
                        };
                        k.push(key);
                    }
                    KeyColumn::Text { keys: k, labels }
                }
                KeySpec::Stack(_, stacks) => {
                    let per_row: Vec<u32> = (0..n)
                        .map(|row| match stacks.get(row).copied().unwrap_or(NONE) {
                            NONE => ROOT,
                            s => tree.node_of_stack(s),
                        })
                        .collect();
                    for &node in &per_row {
                        nodes.add_chain(engine, tree, node);
                    }
                    KeyColumn::Stack { nodes: per_row }
                }
            });
        }
        let (weight_name, weight) = match sp.weight {
            Some((name, w)) => (Some(name), w),
            None => (None, Vec::new()),
        };
        RowTable {
            kind,
            columns,
            weight_name,
            values: sp.values.iter().map(|(n, d, _)| (*n, *d)).collect(),
            value_data: sp.values.into_iter().map(|(_, _, v)| v).collect(),
            keys,
            nodes,
            start: sp.start,
            end: sp.end,
            timed: sp.timed,
            weight,
        }
    }

    pub fn len(&self) -> usize {
        self.start.len()
    }

    pub fn is_empty(&self) -> bool {
        self.start.is_empty()
    }

    /// Whether column `column` is a stack column (drilled frame by frame).
    pub fn is_stack(&self, column: usize) -> bool {
        matches!(self.keys.get(column), Some(KeyColumn::Stack { .. }))
    }

    /// Display text of `key` in `column`.
    pub fn label(&self, column: usize, key: u32) -> &str {
        match self.keys.get(column) {
            Some(KeyColumn::Text { labels, .. }) => labels.get(key as usize).map_or("", |s| s),
            Some(KeyColumn::Stack { .. }) => match key {
                STACK_SELF => "[self]",
                NO_STACK => "n/a",
                n => self.nodes.label.get(&n).map_or("?", |s| s),
            },
            None => "",
        }
    }

    /// Every key of `column` shown as `label` (a function is one call node
    /// per distinct path to it, so a stack label can name many).
    pub fn keys_of_label(&self, column: usize, label: &str) -> Vec<u32> {
        match self.keys.get(column) {
            Some(KeyColumn::Text { labels, .. }) => labels
                .iter()
                .position(|l| l == label)
                .map(|k| vec![k as u32])
                .unwrap_or_default(),
            Some(KeyColumn::Stack { .. }) => {
                let mut v: Vec<u32> = match label {
                    "n/a" => vec![NO_STACK],
                    _ => self
                        .nodes
                        .label
                        .iter()
                        .filter(|(_, l)| *l == label)
                        .map(|(&n, _)| n)
                        .collect(),
                };
                v.sort_unstable();
                v
            }
            None => Vec::new(),
        }
    }

    fn alive(&self, row: usize, r: &TimeRange) -> bool {
        use model::processes::OPEN;
        let (s, e) = (self.start[row], self.end[row]);
        if self.timed {
            return s >= r.start_ns && s < r.end_ns;
        }
        (s == OPEN || s < r.end_ns) && (e == OPEN || e >= r.start_ns)
    }

    /// The row's call nodes of stack column `c`, outermost first.
    fn chain(&self, node: u32, out: &mut Vec<u32>) {
        out.clear();
        let mut n = node;
        while n != ROOT && out.len() < u16::MAX as usize {
            out.push(n);
            n = self.nodes.parent.get(&n).copied().unwrap_or(ROOT);
        }
        out.reverse();
    }

    /// The row's key at every level of `columns`, with each level's column.
    fn levels(
        &self,
        row: usize,
        columns: &[usize],
        out: &mut Vec<(u32, usize)>,
        scratch: &mut Vec<u32>,
    ) {
        out.clear();
        for &c in columns {
            match self.keys.get(c) {
                Some(KeyColumn::Text { keys, .. }) => out.push((keys[row], c)),
                Some(KeyColumn::Stack { nodes }) => {
                    self.chain(nodes[row], scratch);
                    out.extend(scratch.iter().map(|&n| (n, c)));
                    out.push((
                        if scratch.is_empty() {
                            NO_STACK
                        } else {
                            STACK_SELF
                        },
                        c,
                    ));
                }
                None => {}
            }
        }
    }

    fn passes(&self, row: usize, f: &RowFilter, scratch: &mut Vec<u32>) -> bool {
        let hit = match self.keys.get(f.column) {
            Some(KeyColumn::Text { keys, .. }) => f.values.contains(&keys[row]),
            Some(KeyColumn::Stack { nodes }) => {
                self.chain(nodes[row], scratch);
                if scratch.is_empty() {
                    f.values.contains(&NO_STACK)
                } else {
                    scratch.iter().any(|n| f.values.contains(n))
                }
            }
            None => false,
        };
        hit != f.exclude
    }

    /// Rows under `req.path`, grouped by the next level's key.
    pub fn query(&self, req: &RowTableRequest) -> Result<TableResponse, QueryError> {
        let bad = |c: usize| c >= self.columns.len();
        if req.columns.iter().any(|&c| bad(c)) || req.filters.iter().any(|f| bad(f.column)) {
            return Err(QueryError::BadRequest("no such column".into()));
        }
        if req.sort_value.is_some_and(|v| v >= self.values.len()) {
            return Err(QueryError::BadRequest("no such value column".into()));
        }
        let nv = self.values.len();
        let depth = req.path.len();
        let (mut total, mut parent) = (Acc::default(), Acc::default());
        let mut groups: FxHashMap<u32, Acc> = FxHashMap::default();
        let mut next_column = None;
        let (mut levels, mut scratch) = (Vec::new(), Vec::new());
        for row in 0..self.len() {
            let keep = req.range.is_none_or(|r| self.alive(row, &r))
                && req
                    .filters
                    .iter()
                    .all(|f| self.passes(row, f, &mut scratch));
            if !keep {
                continue;
            }
            let w = self.weight.get(row).copied().unwrap_or(0);
            total.count += 1;
            total.weight = total.weight.saturating_add(w);
            self.levels(row, &req.columns, &mut levels, &mut scratch);
            let under =
                levels.len() >= depth && levels.iter().zip(&req.path).all(|(&(k, _), &p)| k == p);
            if !under {
                continue;
            }
            parent.count += 1;
            parent.weight = parent.weight.saturating_add(w);
            let Some(&(key, c)) = levels.get(depth) else {
                continue;
            };
            next_column = Some(c);
            let t = self.start[row];
            let g = groups.entry(key).or_insert_with(|| Acc {
                sums: vec![0; nv],
                first: i64::MAX,
                last: i64::MIN,
                ..Acc::default()
            });
            g.count += 1;
            g.weight = g.weight.saturating_add(w);
            for (s, v) in g.sums.iter_mut().zip(&self.value_data) {
                *s = s.saturating_add(v.get(row).copied().unwrap_or(0));
            }
            g.first = g.first.min(t);
            g.last = g.last.max(t);
            g.deeper |= levels.len() > depth + 1;
        }
        let mut rows: Vec<(Row, i64)> = groups
            .into_iter()
            .map(|(key, g)| {
                let by_value = req
                    .sort_value
                    .and_then(|v| g.sums.get(v).copied())
                    .unwrap_or(0);
                let row = Row {
                    key,
                    label: next_column.map_or_else(String::new, |c| self.label(c, key).to_string()),
                    count: g.count,
                    weight_ns: g.weight,
                    // No weight (or none recorded, e.g. I/O without
                    // completions): % of the count, as WPA's % Count.
                    percent_weight: if self.weight.is_empty() || total.weight == 0 {
                        percent(g.count as i64, total.count as i64)
                    } else {
                        percent(g.weight, total.weight)
                    },
                    first_ns: if self.timed { g.first } else { 0 },
                    last_ns: if self.timed { g.last } else { 0 },
                    expandable: g.deeper,
                    sums: g.sums,
                };
                (row, by_value)
            })
            .collect();
        let by = req.sort;
        rows.sort_by(|(a, va), (b, vb)| {
            let o = match (req.sort_value, by.column) {
                (Some(_), _) => va.cmp(vb),
                (None, ValueColumn::Label) => a.label.cmp(&b.label),
                (None, ValueColumn::Weight | ValueColumn::PercentWeight) => {
                    a.weight_ns.cmp(&b.weight_ns).then(a.count.cmp(&b.count))
                }
                (None, ValueColumn::FirstTime) => a.first_ns.cmp(&b.first_ns),
                (None, ValueColumn::LastTime) => a.last_ns.cmp(&b.last_ns),
                (None, ValueColumn::Count) => a.count.cmp(&b.count),
            };
            let o = if by.descending { o.reverse() } else { o };
            o.then(a.key.cmp(&b.key))
        });
        let mut rows: Vec<Row> = rows.into_iter().map(|(r, _)| r).collect();
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
                weight_ns: total.weight,
            },
            parent: Totals {
                count: parent.count,
                weight_ns: parent.weight,
            },
            rows,
            omitted,
        })
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

impl Nodes {
    fn add_chain(&mut self, engine: &Engine, tree: &CallTree, node: u32) {
        // Parents precede children in preorder, so the walk ends; the
        // bound only guards a malformed tree.
        let mut n = node;
        let mut steps = 0usize;
        while n != ROOT && n != NONE && !self.label.contains_key(&n) && steps <= tree.len() {
            steps += 1;
            let p = tree.parent.get(n as usize).copied().unwrap_or(ROOT);
            self.parent.insert(n, if p == NONE { ROOT } else { p });
            self.label.insert(n, engine.label(Column::Stack, n));
            n = p;
        }
    }
}
