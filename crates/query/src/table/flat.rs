//! A table grouped by whole key values (no tree), as `etlscope export`
//! prints it: one row per distinct combination of the key columns, with
//! the aggregate of each value column. Plain loops over the rows.

use crate::scan::filter::TimeRange;
use crate::table::aggregate::Acc;
use crate::table::cell_value::CellValue;
use crate::table::columns::{stack_text, Cells, ColumnType, PercentOf, TableDef, MISSING};
use crate::table::flat_classes;
use crate::table::row_range::in_range;
use crate::table::value_spec::{ValueOf, ValueSpec};
use crate::QueryError;
use model::Trace;
use rustc_hash::FxHashMap;
use std::cmp::Ordering;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortOn {
    /// Index into `FlatRequest::keys`.
    Key(usize),
    /// Index into `FlatRequest::values`.
    Value(usize),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlatSort {
    pub on: SortOn,
    pub descending: bool,
}

#[derive(Debug, Clone, Default)]
pub struct FlatRequest {
    /// Key columns (indices into `TableDef::columns`), outermost first.
    pub keys: Vec<usize>,
    pub values: Vec<ValueSpec>,
    /// Keep rows whose column shows exactly this text.
    pub filters: Vec<(usize, String)>,
    /// Leave out rows whose column shows exactly this text.
    pub excludes: Vec<(usize, String)>,
    pub range: Option<TimeRange>,
    /// `None`: heaviest first (weight, then count), then by keys.
    pub sort: Option<FlatSort>,
    /// At most this many rows; 0 means no limit.
    pub limit: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub struct FlatRow {
    pub keys: Vec<CellValue>,
    pub values: Vec<CellValue>,
}

#[derive(Debug, Clone)]
pub struct FlatTable {
    pub key_names: Vec<&'static str>,
    pub key_types: Vec<ColumnType>,
    pub value_names: Vec<String>,
    pub value_types: Vec<ColumnType>,
    pub rows: Vec<FlatRow>,
    /// Rows left out by `limit`.
    pub omitted: usize,
}

/// Dense ids for texts (also the text ids of CPU Usage (Sampled)'s value
/// columns, `table::sampled_values`).
#[derive(Default)]
pub(crate) struct Interner {
    index: FxHashMap<String, i64>,
    pub(crate) texts: Vec<String>,
}

impl Interner {
    pub(crate) fn id(&mut self, s: String) -> i64 {
        if let Some(&i) = self.index.get(&s) {
            return i;
        }
        let i = self.texts.len() as i64;
        self.texts.push(s.clone());
        self.index.insert(s, i);
        i
    }
}

/// A `% Weight` / `% Count` cell: the group's weight (or count) as a share
/// of `base`, 0 when there is nothing to share (comparison uses it too).
pub(crate) fn percent_cell(count: u64, weight: i64, by_weight: bool, base: f64) -> CellValue {
    let share = if by_weight {
        weight as f64
    } else {
        count as f64
    };
    CellValue::Plain(if base > 0.0 {
        share * 100.0 / base
    } else {
        0.0
    })
}

/// Reads one column as `i64`s: numbers as they are, texts as dense ids of
/// their text (so equal texts group together whatever their source key).
#[derive(Default)]
struct Reader {
    texts: Interner,
    by_key: FxHashMap<u32, i64>,
}

impl Reader {
    fn read(&mut self, t: &Trace, cells: &Cells<'_>, row: usize) -> i64 {
        match cells {
            Cells::Number(f) => f.at(row),
            Cells::Text(f) => self.texts.id(f(row)),
            Cells::Keyed { key, text } => {
                let k = key(row);
                match self.by_key.get(&k) {
                    Some(&id) => id,
                    None => {
                        let id = self.texts.id(text(k));
                        self.by_key.insert(k, id);
                        id
                    }
                }
            }
            Cells::Stack(f) => {
                let st = f(row);
                match self.by_key.get(&st) {
                    Some(&id) => id,
                    None => {
                        let id = self.texts.id(stack_text(t, st));
                        self.by_key.insert(st, id);
                        id
                    }
                }
            }
        }
    }

    fn cell(&self, ty: ColumnType, v: i64) -> CellValue {
        if ty.is_numeric() {
            if v == MISSING {
                CellValue::Empty
            } else {
                CellValue::Number(v)
            }
        } else {
            CellValue::Text(
                self.texts
                    .texts
                    .get(v as usize)
                    .cloned()
                    .unwrap_or_default(),
            )
        }
    }
}

struct Group {
    count: u64,
    weight: i64,
    accs: Vec<Acc>,
}

/// The grouping in progress: groups by key ids, and the totals.
struct Scan<'s, 'a> {
    t: &'s Trace,
    def: &'s TableDef<'a>,
    req: &'s FlatRequest,
    value_cols: &'s [Option<usize>],
    key_readers: &'s mut [Reader],
    value_readers: &'s mut [Reader],
    groups: FxHashMap<Vec<i64>, Group>,
    total_count: u64,
    total_weight: i64,
}

impl Scan<'_, '_> {
    fn key(&mut self, row: usize) -> Vec<i64> {
        let (t, def) = (self.t, self.def);
        self.key_readers
            .iter_mut()
            .zip(&self.req.keys)
            .map(|(r, &c)| r.read(t, &def.columns[c].cells, row))
            .collect()
    }

    fn passes(&self, row: usize) -> bool {
        passes(self.t, self.def, &self.req.filters, &self.req.excludes, row)
    }

    fn group(&mut self, key: Vec<i64>) -> &mut Group {
        let values = &self.req.values;
        self.groups.entry(key).or_insert_with(|| Group {
            count: 0,
            weight: 0,
            accs: values.iter().map(|v| Acc::new(v.aggregation)).collect(),
        })
    }

    /// Every row read on its own.
    fn by_rows(&mut self, weight: Option<usize>) {
        let (t, def) = (self.t, self.def);
        let mut key = Vec::with_capacity(self.req.keys.len());
        for row in 0..def.rows {
            if self.req.range.is_some_and(|r| !in_range(def, row, &r)) || !self.passes(row) {
                continue;
            }
            let w = weight.map_or(0, |w| match &def.columns[w].cells {
                Cells::Number(f) => f.at(row),
                _ => 0,
            });
            let w = if w == MISSING { 0 } else { w };
            self.total_count += 1;
            self.total_weight = self.total_weight.saturating_add(w);
            key.clear();
            for (r, &c) in self.key_readers.iter_mut().zip(&self.req.keys) {
                key.push(r.read(t, &def.columns[c].cells, row));
            }
            let values = &self.req.values;
            let g = match self.groups.get_mut(&key) {
                Some(g) => g,
                None => self.groups.entry(key.clone()).or_insert_with(|| Group {
                    count: 0,
                    weight: 0,
                    accs: values.iter().map(|v| Acc::new(v.aggregation)).collect(),
                }),
            };
            g.count += 1;
            g.weight = g.weight.saturating_add(w);
            let readers = self.value_readers.iter_mut();
            for ((acc, r), c) in g.accs.iter_mut().zip(readers).zip(self.value_cols) {
                if let Some(c) = *c {
                    let v = r.read(t, &def.columns[c].cells, row);
                    if v != MISSING || !def.columns[c].def.ty.is_numeric() {
                        acc.add(v);
                    }
                }
            }
        }
    }

    /// Samples pre-grouped by thread and/or stack (`table::flat_classes`), the key
    /// and filter cells read once per class; `false` (nothing done) when
    /// some column is not a function of those or a value is not a number.
    fn by_classes(&mut self, weight: Option<usize>) -> bool {
        let def = self.def;
        let mut cols = self.req.keys.clone();
        cols.extend(self.req.filters.iter().map(|f| f.0));
        cols.extend(self.req.excludes.iter().map(|f| f.0));
        let Some(dep) = flat_classes::dependency(def, &cols) else {
            return false;
        };
        // The implicit Count column (1 per row), if it is the last one.
        let count_col = def
            .columns
            .len()
            .checked_sub(1)
            .filter(|&c| def.columns[c].def.name == "Count")
            .unwrap_or(usize::MAX);
        let mut values = Vec::with_capacity(self.req.values.len());
        for (spec, c) in self.req.values.iter().zip(self.value_cols) {
            let cells = match c {
                Some(c) => match flat_classes::number_cells(def, *c) {
                    Some(f) => Some(f),
                    None => return false,
                },
                None => None,
            };
            let sum = spec.aggregation == crate::table::aggregate::Aggregation::Sum;
            let derived = match *c {
                None => Some(flat_classes::Derived::Nothing),
                Some(c) if sum && c == count_col => Some(flat_classes::Derived::Count),
                Some(c) if sum && Some(c) == weight => Some(flat_classes::Derived::Weight),
                Some(_) => None,
            };
            values.push(flat_classes::ValueIn {
                cells,
                numeric: c.is_some_and(|c| def.columns[c].def.ty.is_numeric()),
                aggregation: spec.aggregation,
                derived,
            });
        }
        let weight = weight.and_then(|w| flat_classes::number_cells(def, w));
        let classes = flat_classes::classes(self.t, def, dep, self.req.range, weight, &values);
        for class in classes {
            if !self.passes(class.first) {
                continue;
            }
            self.total_count += class.count;
            self.total_weight = self.total_weight.saturating_add(class.weight);
            let key = self.key(class.first);
            let g = self.group(key);
            g.count += class.count;
            g.weight = g.weight.saturating_add(class.weight);
            for (a, b) in g.accs.iter_mut().zip(&class.accs) {
                a.merge(b);
            }
        }
        true
    }
}

/// The CPU time `range` offers (the whole trace without one) on all the
/// trace's CPUs, in ns.
pub fn cpu_capacity_ns(t: &Trace, range: Option<TimeRange>) -> f64 {
    let span = range.map_or(t.info.duration_ns, |r| r.end_ns - r.start_ns);
    span.max(0) as f64 * f64::from(t.info.cpus.max(1))
}

/// The 100 % of `% Weight` for rows of total `weight` and `count`.
pub(crate) fn percent_base(
    t: &Trace,
    def: &TableDef<'_>,
    range: Option<TimeRange>,
    weight: i64,
    count: u64,
) -> f64 {
    match def.percent_of {
        PercentOf::CpuCapacity => cpu_capacity_ns(t, range),
        PercentOf::TotalWeight if weight != 0 => weight as f64,
        PercentOf::TotalWeight => count as f64,
    }
}

/// Rows of `def` grouped by `req.keys`, with `req.values` aggregated.
pub fn group(t: &Trace, def: &TableDef<'_>, req: &FlatRequest) -> Result<FlatTable, QueryError> {
    grouped(t, def, req, false)
}

/// `group` reading every row's cells, without pre-grouping samples by
/// thread and stack: the reference the faster path is tested against.
pub fn group_per_row(
    t: &Trace,
    def: &TableDef<'_>,
    req: &FlatRequest,
) -> Result<FlatTable, QueryError> {
    grouped(t, def, req, true)
}

fn grouped(
    t: &Trace,
    def: &TableDef<'_>,
    req: &FlatRequest,
    per_row: bool,
) -> Result<FlatTable, QueryError> {
    let ncol = def.columns.len();
    let bad = |c: usize| c >= ncol;
    if req.keys.iter().any(|&c| bad(c)) || req.filters.iter().chain(&req.excludes).any(|f| bad(f.0))
    {
        return Err(QueryError::BadRequest("no such column".into()));
    }
    let value_cols: Vec<Option<usize>> = req
        .values
        .iter()
        .map(|v| match v.of {
            ValueOf::Column(c) if c < ncol => Ok(Some(c)),
            ValueOf::Column(_) => Err(QueryError::BadRequest("no such value column".into())),
            ValueOf::PercentWeight => Ok(None),
        })
        .collect::<Result<_, _>>()?;
    let weight = def.weight.and_then(|w| def.column(w));
    let mut key_readers: Vec<Reader> = req.keys.iter().map(|_| Reader::default()).collect();
    let mut value_readers: Vec<Reader> = req.values.iter().map(|_| Reader::default()).collect();
    let mut scan = Scan {
        t,
        def,
        req,
        value_cols: &value_cols,
        key_readers: &mut key_readers,
        value_readers: &mut value_readers,
        groups: FxHashMap::default(),
        total_count: 0,
        total_weight: 0,
    };
    if per_row || !scan.by_classes(weight) {
        scan.by_rows(weight);
    }
    let Scan {
        groups,
        total_count,
        total_weight,
        ..
    } = scan;
    let base = percent_base(t, def, req.range, total_weight, total_count);
    let by_weight = def.percent_of == PercentOf::CpuCapacity || total_weight != 0;
    let key_types: Vec<ColumnType> = req.keys.iter().map(|&c| def.columns[c].def.ty).collect();
    let value_types: Vec<ColumnType> = req.values.iter().map(|v| v.shown_type(def)).collect();
    let mut rows: Vec<(FlatRow, u64, i64)> = groups
        .into_iter()
        .map(|(k, g)| {
            let keys = k
                .iter()
                .zip(&key_readers)
                .zip(&key_types)
                .map(|((&v, r), &ty)| r.cell(ty, v))
                .collect();
            let values = req
                .values
                .iter()
                .zip(&g.accs)
                .zip(&value_readers)
                .zip(&value_cols)
                .map(|(((spec, acc), r), c)| match c {
                    None => percent_cell(g.count, g.weight, by_weight, base),
                    Some(c) => {
                        let ty = def.columns[*c].def.ty;
                        CellValue::of_aggregate(acc.finish(spec.aggregation), ty, |id| {
                            r.texts.texts.get(id as usize).cloned().unwrap_or_default()
                        })
                    }
                })
                .collect();
            (FlatRow { keys, values }, g.count, g.weight)
        })
        .collect();
    let by_keys = |a: &FlatRow, b: &FlatRow| {
        a.keys
            .iter()
            .zip(&b.keys)
            .zip(&key_types)
            .map(|((x, y), &ty)| x.compare(y, ty))
            .find(|o| o.is_ne())
            .unwrap_or(Ordering::Equal)
    };
    rows.sort_by(|(a, ca, wa), (b, cb, wb)| {
        let first = match req.sort {
            None => (wb, cb).cmp(&(wa, ca)),
            Some(s) => {
                let o = match s.on {
                    SortOn::Key(i) => match (a.keys.get(i), b.keys.get(i), key_types.get(i)) {
                        (Some(x), Some(y), Some(&ty)) => x.compare(y, ty),
                        _ => Ordering::Equal,
                    },
                    SortOn::Value(i) => {
                        match (a.values.get(i), b.values.get(i), value_types.get(i)) {
                            (Some(x), Some(y), Some(&ty)) => x.compare(y, ty),
                            _ => Ordering::Equal,
                        }
                    }
                };
                if s.descending {
                    o.reverse()
                } else {
                    o
                }
            }
        };
        first.then_with(|| by_keys(a, b))
    });
    let mut rows: Vec<FlatRow> = rows.into_iter().map(|(r, _, _)| r).collect();
    let omitted = if req.limit > 0 && rows.len() > req.limit {
        let o = rows.len() - req.limit;
        rows.truncate(req.limit);
        o
    } else {
        0
    };
    Ok(FlatTable {
        key_names: req.keys.iter().map(|&c| def.columns[c].def.name).collect(),
        key_types,
        value_names: req.values.iter().map(|v| v.header(def)).collect(),
        value_types,
        rows,
        omitted,
    })
}

/// Whether `row` shows every `filters` text and no `excludes` text.
fn passes(
    t: &Trace,
    def: &TableDef<'_>,
    filters: &[(usize, String)],
    excludes: &[(usize, String)],
    row: usize,
) -> bool {
    filters.iter().all(|(c, v)| def.cell_text(t, *c, row) == *v)
        && !excludes
            .iter()
            .any(|(c, v)| def.cell_text(t, *c, row) == *v)
}

/// Every row of `def` that passes `filters` and `range`, each column a
/// cell (no grouping), in row order; at most `limit` rows when not 0.
pub fn list(
    t: &Trace,
    def: &TableDef<'_>,
    filters: &[(usize, String)],
    excludes: &[(usize, String)],
    range: Option<TimeRange>,
    limit: usize,
) -> FlatTable {
    let mut rows = Vec::new();
    let mut omitted = 0;
    // The implicit Count column is 1 on every row: left out.
    let columns: Vec<usize> = (0..def.columns.len())
        .filter(|&c| def.columns[c].def.name != "Count")
        .collect();
    for row in 0..def.rows {
        if range.is_some_and(|r| !in_range(def, row, &r)) || !passes(t, def, filters, excludes, row)
        {
            continue;
        }
        if limit > 0 && rows.len() >= limit {
            omitted += 1;
            continue;
        }
        let keys = columns
            .iter()
            .map(|&c| match &def.columns[c].cells {
                Cells::Number(f) => match f.at(row) {
                    MISSING => CellValue::Empty,
                    v => CellValue::Number(v),
                },
                _ => CellValue::Text(def.cell_text(t, c, row)),
            })
            .collect();
        rows.push(FlatRow {
            keys,
            values: Vec::new(),
        });
    }
    FlatTable {
        key_names: columns.iter().map(|&c| def.columns[c].def.name).collect(),
        key_types: columns.iter().map(|&c| def.columns[c].def.ty).collect(),
        value_names: Vec::new(),
        value_types: Vec::new(),
        rows,
        omitted,
    }
}
