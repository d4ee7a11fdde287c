//! Graphs above row tables: event tables bin their rows by event time
//! (count, weight or a numeric column per bin, one series per row of the
//! level); lifetime tables (Processes, Threads, Images) give one span per
//! row of the level, in the table's order.

use crate::graph::bins::{clip, Edges};
use crate::graph::table_graph::{top_series, Graph, GraphBins};
use crate::rows::keys::KeyColumn;
use crate::rows::level::FlatLevel;
use crate::rows::table::{Measure, RowFilter, RowTable, RowTableRequest};
use crate::scan::cancel::Cancel;
use crate::table::columns::{Cells, TableDef, MISSING};
use crate::table::row_range::{in_range, in_range_at};
use crate::QueryError;
use model::processes::OPEN;
use rayon::prelude::*;
use rustc_hash::FxHashMap;

/// Rows per parallel job.
const CHUNK: usize = 1 << 16;

/// One row's lifetime; `None` where it is open (before the trace's start,
/// still alive at its end).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Span {
    pub key: u32,
    pub label: String,
    pub start_ns: Option<i64>,
    pub end_ns: Option<i64>,
}

impl RowTable {
    /// Folds `add(acc, row, key)` over every row the filters and range keep
    /// that is under `req.path`, with its key at the level below the path:
    /// in parallel over chunks of rows, merged with `merge`.
    pub(crate) fn fold_at_level<A: Send>(
        &self,
        req: &RowTableRequest,
        range: Option<crate::TimeRange>,
        make: impl Fn() -> A + Sync + Send,
        add: impl Fn(&mut A, usize, u32) + Sync + Send,
        merge: impl Fn(A, A) -> A + Sync + Send,
    ) -> Result<A, QueryError> {
        let ncols = self.columns.len();
        if req.columns.iter().any(|&c| c >= ncols) || req.filters.iter().any(|f| f.column >= ncols)
        {
            return Err(QueryError::BadRequest("no such column".into()));
        }
        let def = self.def();
        let depth = req.path.len();
        let key_cols = self.level_columns(req);
        let filter_cols: Vec<(&RowFilter, &KeyColumn)> = req
            .filters
            .iter()
            .filter_map(|f| Some((f, self.key_column(f.column)?)))
            .collect();
        let chunks = def.rows.div_ceil(CHUNK);
        let per_job = chunks
            .div_ceil(rayon::current_num_threads().max(1) * 2)
            .max(1);
        // Text and number levels: the key is a slice read, no level list.
        let flat = FlatLevel::new(&key_cols, &req.path);
        let cancel = Cancel::current();
        let acc = (0..chunks)
            .into_par_iter()
            .with_min_len(per_job)
            .fold(&make, |mut acc, chunk| {
                if cancel.is_set() {
                    return acc;
                }
                let (mut levels, mut scratch) = (Vec::new(), Vec::new());
                let rows = chunk * CHUNK..((chunk + 1) * CHUNK).min(def.rows);
                for row in rows {
                    let keep = range.is_none_or(|r| in_range(&def, row, &r))
                        && filter_cols
                            .iter()
                            .all(|(fl, kc)| kc.passes(row, &fl.values, fl.exclude, &mut scratch));
                    if !keep {
                        continue;
                    }
                    if let Some(level) = &flat {
                        if level.under(row) {
                            add(&mut acc, row, level.key(row));
                        }
                        continue;
                    }
                    RowTable::levels(row, &key_cols, &mut levels, &mut scratch);
                    let under = levels.len() > depth
                        && levels.iter().zip(&req.path).all(|(&(k, _), &p)| k == p);
                    if let (true, Some(&(key, _))) = (under, levels.get(depth)) {
                        add(&mut acc, row, key);
                    }
                }
                acc
            })
            .reduce(&make, &merge);
        cancel.check()?;
        Ok(acc)
    }

    /// The key columns that reach the level below `req.path` (a stack
    /// column spans any number of levels: then every column).
    fn level_columns(&self, req: &RowTableRequest) -> Vec<(usize, &KeyColumn)> {
        let depth = req.path.len();
        let mut key_cols: Vec<(usize, &KeyColumn)> = Vec::new();
        let (mut levels_known, mut stack) = (0, false);
        for &c in &req.columns {
            let Some(kc) = self.key_column(c) else {
                continue;
            };
            key_cols.push((c, kc));
            stack |= self.is_stack(c);
            levels_known += 1;
            if !stack && levels_known > depth {
                break;
            }
        }
        key_cols
    }

    /// Per key of a flat level with more keys than one pass bins, the
    /// total of `value` over its rows; `None` when the level is not flat or
    /// its rows have few enough distinct keys to bin in one pass.
    fn many_totals(
        &self,
        req: &RowTableRequest,
        range: Option<crate::TimeRange>,
        value: &(impl Fn(usize) -> i64 + Sync),
    ) -> Result<Option<Vec<(u32, i64)>>, QueryError> {
        let cols = self.level_columns(req);
        let space = match FlatLevel::new(&cols, &req.path) {
            Some(l) if l.space > MAX_BINNED_KEYS => l.space,
            _ => return Ok(None),
        };
        let (totals, seen) = self.fold_at_level(
            req,
            range,
            || (vec![0i64; space], vec![false; space]),
            |(t, seen), row, key| {
                let k = key as usize;
                if let (Some(x), Some(s)) = (t.get_mut(k), seen.get_mut(k)) {
                    *x = x.saturating_add(value(row));
                    *s = true;
                }
            },
            |(mut a, mut sa), (b, sb)| {
                for (x, y) in a.iter_mut().zip(b) {
                    *x = x.saturating_add(y);
                }
                for (x, y) in sa.iter_mut().zip(sb) {
                    *x |= y;
                }
                (a, sa)
            },
        )?;
        if seen.iter().filter(|&&s| s).count() <= MAX_BINNED_KEYS {
            return Ok(None);
        }
        Ok(Some(
            (totals.into_iter().enumerate())
                .filter(|(k, _)| seen.get(*k) == Some(&true))
                .map(|(k, t)| (k as u32, t))
                .collect(),
        ))
    }

    /// An event table's rows under `req.path` as series over `g`'s bins,
    /// each row counted in the bin of its time.
    pub fn graph(
        &self,
        req: &RowTableRequest,
        g: &GraphBins,
        measure: Measure,
    ) -> Result<Graph, QueryError> {
        if !self.timed {
            return Err(QueryError::BadRequest(format!(
                "{} rows have lifetimes: ask for their spans",
                self.kind.name()
            )));
        }
        let edges = Edges::new(g.range, g.bins)?;
        let bins = edges.bins();
        let def = self.def();
        let column = self.measure_column(measure)?;
        let value = |row: usize| measure_value(&def, column, row);
        let range = Some(clip(req.range, g.range));
        // Rows mostly come in time order: the last row's bin is checked
        // before searching.
        let bin = |last: &mut (i64, i64, usize), row: usize| {
            let t = def.start.at(row);
            if t >= last.0 && t < last.1 {
                return last.2;
            }
            let b = edges.bin_of(t);
            *last = (edges.edge(b), edges.edge(b + 1), b);
            b
        };
        // A flat level with many keys: its totals in one pass of flat
        // arrays, then bins for the top keys.
        if let Some(totals) = self.many_totals(req, range, &value)? {
            let (series, other) = self.top_binned(req, range, g, &edges, totals, &value, &bin)?;
            return Ok(self.graph_of(req, g, bins, series, other));
        }
        // One pass with bins per key while the keys are few (memory: keys x bins).
        let one = self.fold_at_level(
            req,
            range,
            Bins::new,
            |acc: &mut Bins, row, key| {
                let b = bin(&mut acc.last, row);
                let v = value(row);
                match acc.bins_of(key, bins) {
                    Some(w) => {
                        if let Some(x) = w.get_mut(b) {
                            *x = x.saturating_add(v);
                        }
                    }
                    None => {
                        let x = acc.unbinned.entry(key).or_default();
                        *x = x.saturating_add(v);
                    }
                }
            },
            Bins::merge,
        )?;
        let label_col = self.next_column(&req.columns, &req.path);
        let col = label_col.and_then(|n| self.columns.iter().position(|&c| c == n));
        let label = |k: u32| col.map_or_else(String::new, |c| self.label(c, k));
        let (series, other) = if !one.overflow {
            let per_key = one
                .dense
                .into_iter()
                .enumerate()
                .filter(|(_, v)| !v.is_empty())
                .map(|(k, v)| (k as u32, v))
                .chain(one.sparse);
            top_series(per_key, g.top, bins, label)
        } else {
            // Many keys: the pass gave their totals (binned or not); bins
            // for the top ones and one "other" slot in a second pass.
            let sum = |v: &[i64]| v.iter().fold(0i64, |a, &x| a.saturating_add(x));
            let mut totals = one.unbinned;
            let binned = (one.dense.iter().enumerate())
                .filter(|(_, v)| !v.is_empty())
                .map(|(k, v)| (k as u32, sum(v)))
                .chain(one.sparse.iter().map(|(&k, v)| (k, sum(v))));
            for (k, t) in binned {
                let x = totals.entry(k).or_default();
                *x = x.saturating_add(t);
            }
            let totals: Vec<(u32, i64)> = totals.into_iter().collect();
            self.top_binned(req, range, g, &edges, totals, &value, &bin)?
        };
        Ok(self.graph_of(req, g, bins, series, other))
    }

    /// The column a measure sums (`None`: each row counts one).
    pub(crate) fn measure_column(&self, measure: Measure) -> Result<Option<usize>, QueryError> {
        Ok(match measure {
            Measure::Count => None,
            Measure::Weight => self.weight_column,
            Measure::Column(c) => match self.def().columns.get(c).map(|c| &c.cells) {
                Some(Cells::Number(_)) => Some(c),
                _ => return Err(QueryError::BadRequest("not a numeric column".into())),
            },
        })
    }

    /// How a table's own scan of a flat level of `space` keys also bins
    /// its graph, when that is cheap: an event table, keys that `graph`
    /// bins in one pass, and a valid graph (else `None`: ask `graph`).
    pub(crate) fn scan_graph(
        &self,
        req: &RowTableRequest,
        space: usize,
        g: &GraphBins,
        measure: Measure,
    ) -> Option<ScanGraph> {
        let edges = Edges::new(g.range, g.bins).ok()?;
        let cheap = space <= MAX_BINNED_KEYS && space.saturating_mul(edges.bins()) <= SCAN_CELLS;
        if !self.timed || !cheap {
            return None;
        }
        Some(ScanGraph {
            edges,
            // As `graph`: the table's rows that are in the graph's range.
            range: clip(req.range, g.range),
            column: self.measure_column(measure).ok()?,
        })
    }

    /// The graph of the cells a table's scan binned (`sg.bins()` per key),
    /// as `graph` gives it.
    pub(crate) fn graph_of_cells(
        &self,
        req: &RowTableRequest,
        g: &GraphBins,
        sg: &ScanGraph,
        cells: &[i64],
    ) -> Graph {
        let bins = sg.edges.bins();
        let label_col = self.next_column(&req.columns, &req.path);
        let col = label_col.and_then(|n| self.columns.iter().position(|&c| c == n));
        let label = |k: u32| col.map_or_else(String::new, |c| self.label(c, k));
        let per_key = (cells.chunks_exact(bins.max(1)).enumerate())
            .filter(|(_, v)| v.iter().any(|&x| x != 0))
            .map(|(k, v)| (k as u32, v.to_vec()));
        let (series, other) = top_series(per_key, g.top, bins, label);
        self.graph_of(req, g, bins, series, other)
    }

    /// The graph of `series` and `other` at the level below `req.path`.
    pub(crate) fn graph_of(
        &self,
        req: &RowTableRequest,
        g: &GraphBins,
        bins: usize,
        series: Vec<crate::GraphSeries>,
        other: Option<crate::GraphSeries>,
    ) -> Graph {
        Graph {
            column: self.next_column(&req.columns, &req.path),
            start_ns: g.range.start_ns,
            bin_ns: (g.range.end_ns - g.range.start_ns) as f64 / bins as f64,
            series,
            other,
        }
    }

    /// Series of the `g.top` keys of largest nonzero total (`totals`, in
    /// any order) and one "other" for the rest, binned in a second pass.
    #[allow(clippy::too_many_arguments)]
    fn top_binned(
        &self,
        req: &RowTableRequest,
        range: Option<crate::TimeRange>,
        g: &GraphBins,
        edges: &Edges,
        totals: Vec<(u32, i64)>,
        value: &(impl Fn(usize) -> i64 + Sync),
        bin: &(impl Fn(&mut (i64, i64, usize), usize) -> usize + Sync),
    ) -> Result<(Vec<crate::GraphSeries>, Option<crate::GraphSeries>), QueryError> {
        let bins = edges.bins();
        let label_col = self.next_column(&req.columns, &req.path);
        let col = label_col.and_then(|n| self.columns.iter().position(|&c| c == n));
        let label = |k: u32| col.map_or_else(String::new, |c| self.label(c, k));
        let mut order: Vec<(u32, i64)> = totals.into_iter().filter(|x| x.1 != 0).collect();
        order.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let rest = order.len().saturating_sub(g.top);
        order.truncate(g.top);
        if order.is_empty() && rest == 0 {
            // Nothing to draw: no second pass.
            return Ok((Vec::new(), None));
        }
        let slot: FxHashMap<u32, usize> = order.iter().enumerate().map(|(i, x)| (x.0, i)).collect();
        let n = order.len() + 1;
        let (cells, _) = self.fold_at_level(
            req,
            range,
            || (vec![0i64; n * bins], (i64::MAX, i64::MIN, 0)),
            |(cells, last), row, key| {
                let s = slot.get(&key).copied().unwrap_or(n - 1);
                let b = bin(last, row);
                if let Some(x) = cells.get_mut(s * bins + b) {
                    *x = x.saturating_add(value(row));
                }
            },
            |(mut a, l), (b, _)| {
                for (x, y) in a.iter_mut().zip(b) {
                    *x = x.saturating_add(y);
                }
                (a, l)
            },
        )?;
        let values = |s: usize| cells.get(s * bins..(s + 1) * bins).unwrap_or(&[]).to_vec();
        let series = order
            .iter()
            .enumerate()
            .map(|(i, &(key, total))| crate::GraphSeries {
                key,
                label: label(key),
                total,
                values: values(i),
            })
            .collect();
        let other = (rest > 0).then(|| {
            let v = values(n - 1);
            crate::GraphSeries {
                key: model::NONE,
                label: format!("Other ({rest} rows)"),
                total: v.iter().fold(0i64, |a, &x| a.saturating_add(x)),
                values: v,
            }
        });
        Ok((series, other))
    }

    /// One span per row of the table level under `req.path`, in the order
    /// (and up to the limit) the table query gives them: from the first
    /// start to the last end of the rows grouped into it.
    pub fn spans(&self, req: &RowTableRequest) -> Result<(Vec<Span>, usize), QueryError> {
        let level = self.query(req)?;
        let index: FxHashMap<u32, usize> = level
            .rows
            .iter()
            .enumerate()
            .map(|(i, r)| (r.key, i))
            .collect();
        // (earliest start, latest end); an open start is OPEN (the least
        // value), an open end is counted as i64::MAX (the greatest).
        let def = self.def();
        let spans = self.fold_at_level(
            req,
            req.range,
            || vec![(i64::MAX, i64::MIN); level.rows.len()],
            |span, row, key| {
                let Some(s) = index.get(&key).and_then(|&i| span.get_mut(i)) else {
                    return;
                };
                let (start, end) = (def.start.at(row), def.end.at(row));
                s.0 = s.0.min(start);
                s.1 = s.1.max(if end == OPEN { i64::MAX } else { end });
            },
            |mut a, b| {
                for (x, y) in a.iter_mut().zip(b) {
                    *x = (x.0.min(y.0), x.1.max(y.1));
                }
                a
            },
        )?;
        let open = |v: i64| (v != OPEN && v != i64::MAX).then_some(v);
        let spans = level
            .rows
            .iter()
            .zip(spans)
            .map(|(r, (s, e))| Span {
                key: r.key,
                label: r.label.clone(),
                start_ns: open(s),
                end_ns: open(e),
            })
            .collect();
        Ok((spans, level.omitted))
    }
}

/// A graph binned in a table's own scan (`RowTable::scan_graph`).
pub(crate) struct ScanGraph {
    edges: Edges,
    /// The rows binned: the table's that are in the graph's range.
    range: crate::TimeRange,
    /// The measure's column (`None`: each row counts one).
    column: Option<usize>,
}

impl ScanGraph {
    pub(crate) fn bins(&self) -> usize {
        self.edges.bins()
    }

    /// The bin and value of a row the table keeps, at time `t` (its
    /// start: `def.start(row)`; `None` outside the graph's range); `last`
    /// is the previous row's bin with its edges.
    #[inline]
    pub(crate) fn bin(
        &self,
        def: &TableDef<'_>,
        last: &mut (i64, i64, usize),
        row: usize,
        t: i64,
    ) -> Option<(usize, i64)> {
        if !in_range_at(def, row, t, &self.range) {
            return None;
        }
        let b = if t >= last.0 && t < last.1 {
            last.2
        } else {
            let b = self.edges.bin_of(t);
            *last = (self.edges.edge(b), self.edges.edge(b + 1), b);
            b
        };
        Some((b, measure_value(def, self.column, row)))
    }
}

/// A row's value for a graph summing `column` (one per row without).
#[inline]
pub(crate) fn measure_value(def: &TableDef<'_>, column: Option<usize>, row: usize) -> i64 {
    match column.and_then(|c| def.columns.get(c)).map(|c| &c.cells) {
        Some(Cells::Number(f)) => match f.at(row) {
            MISSING => 0,
            v => v,
        },
        _ => 1,
    }
}

/// Cells (keys x bins) a table's scan bins at most per part.
pub(crate) const SCAN_CELLS: usize = 1 << 21;

/// Keys below this are counted in a vector indexed by key.
const DENSE_KEYS: u32 = 1 << 16;

/// More keys than this are not binned in one pass (keys x bins cells).
pub(crate) const MAX_BINNED_KEYS: usize = 4096;

/// Per key its bins (dense for small keys, else hashed), the last row's
/// bin with its edges, and whether there were too many keys to bin (then
/// the others' totals).
struct Bins {
    dense: Vec<Vec<i64>>,
    sparse: FxHashMap<u32, Vec<i64>>,
    last: (i64, i64, usize),
    keys: usize,
    overflow: bool,
    /// Past the limit: the totals of the keys without bins.
    unbinned: FxHashMap<u32, i64>,
}

impl Bins {
    fn new() -> Bins {
        Bins {
            dense: Vec::new(),
            sparse: FxHashMap::default(),
            last: (i64::MAX, i64::MIN, 0),
            keys: 0,
            overflow: false,
            unbinned: FxHashMap::default(),
        }
    }

    /// The bins of `key`; `None` (and `overflow`) past `MAX_BINNED_KEYS`.
    fn bins_of(&mut self, key: u32, bins: usize) -> Option<&mut Vec<i64>> {
        let fresh = self.keys < MAX_BINNED_KEYS;
        if key < DENSE_KEYS {
            let k = key as usize;
            if self.dense.len() <= k {
                self.dense.resize_with(k + 1, Vec::new);
            }
            let v = self.dense.get_mut(k)?;
            if v.is_empty() {
                if !fresh {
                    self.overflow = true;
                    return None;
                }
                self.keys += 1;
                *v = vec![0; bins];
            }
            Some(v)
        } else {
            if !self.sparse.contains_key(&key) {
                if !fresh {
                    self.overflow = true;
                    return None;
                }
                self.keys += 1;
            }
            Some(self.sparse.entry(key).or_insert_with(|| vec![0; bins]))
        }
    }

    fn merge(mut a: Bins, b: Bins) -> Bins {
        let add = |w: &mut Vec<i64>, v: Vec<i64>| {
            if w.is_empty() {
                *w = v;
            } else {
                for (x, y) in w.iter_mut().zip(v) {
                    *x = x.saturating_add(y);
                }
            }
        };
        if a.dense.len() < b.dense.len() {
            a.dense.resize_with(b.dense.len(), Vec::new);
        }
        for (w, v) in a.dense.iter_mut().zip(b.dense) {
            if !v.is_empty() {
                add(w, v);
            }
        }
        for (k, v) in b.sparse {
            add(a.sparse.entry(k).or_default(), v);
        }
        for (k, v) in b.unbinned {
            let x = a.unbinned.entry(k).or_default();
            *x = x.saturating_add(v);
        }
        a.keys = a.dense.iter().filter(|v| !v.is_empty()).count() + a.sparse.len();
        a.overflow |= b.overflow || a.keys > MAX_BINNED_KEYS;
        a
    }
}
