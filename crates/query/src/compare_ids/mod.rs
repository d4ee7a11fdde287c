//! The comparison of CPU Usage (Sampled) on two traces matched by ids
//! (issue 17: under 1 s on 10M samples): each trace's samples are counted
//! per class (thread, stack, or both) from the engine's indexes, each
//! class's key cells are read once and turned into shared identity ids,
//! the two traces' distinct keys are matched by those ids, and texts are
//! made only for the rows returned. Its rows equal those of grouping each
//! trace by key text (`flat_table::group`) and matching the texts
//! (`compare::compare`); `compare` answers `None` for requests it does
//! not cover (other tables, filters, values other than Count, Weight and
//! % Weight, columns not read through the thread or the stack), which
//! that path answers.

mod class_totals;
mod keys;
mod paths;
mod texts;

use crate::aggregate::{Acc, Aggregation};
use crate::cell_value::CellValue;
use crate::compare::{keep_largest_changes, CompareRow, CompareTable};
use crate::filter::TimeRange;
use crate::flat_classes::{dependency, Dep};
use crate::flat_table::percent_base;
use crate::table_columns::{ColumnType, PercentOf, TableDef};
use crate::value_spec::{ValueOf, ValueSpec};
use crate::Engine;
use class_totals::{stack_class, thread_class, Tally};
use keys::{KeyColumn, Parts, SideParts};
use paths::Paths;
use rustc_hash::FxHashMap;
use std::cmp::Reverse;

/// One trace of the comparison and its range.
#[derive(Clone, Copy)]
pub struct Side<'a> {
    pub engine: &'a Engine,
    pub range: Option<TimeRange>,
}

/// What a value column adds up per group.
#[derive(Clone, Copy)]
enum Value {
    Count,
    Weight,
    Percent,
}

/// The comparison, rows sorted as `compare::compare` sorts them, their
/// keys still ids.
pub struct IdComparison {
    pub key_names: Vec<&'static str>,
    pub value_names: Vec<String>,
    pub value_types: Vec<ColumnType>,
    rows: Vec<IdRow>,
    columns: Vec<KeyColumn>,
    /// Per key column: in the thread part (else the stack part), at.
    place: Vec<(bool, usize)>,
    thread_parts: Parts,
    stack_parts: Parts,
    paths: Paths,
}

struct IdRow {
    thread_part: u32,
    stack_part: u32,
    values: Vec<(f64, f64)>,
}

impl IdRow {
    fn delta(&self) -> f64 {
        self.values.first().map_or(0.0, |(b, n)| n - b)
    }
}

impl IdComparison {
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    fn column_id(&self, r: &IdRow, k: usize) -> u32 {
        let Some(&(thread, at)) = self.place.get(k) else {
            return 0;
        };
        let (parts, p) = if thread {
            (&self.thread_parts, r.thread_part)
        } else {
            (&self.stack_parts, r.stack_part)
        };
        parts
            .tuples
            .get(p as usize)
            .and_then(|t| t.get(at))
            .copied()
            .unwrap_or(0)
    }

    fn texts(&self, r: &IdRow) -> Vec<String> {
        (0..self.columns.len())
            .map(|k| {
                let id = self.column_id(r, k);
                match self.columns.get(k) {
                    Some(c) if c.stack => self.paths.text(id),
                    Some(c) => c.texts.get(id).to_string(),
                    None => String::new(),
                }
            })
            .collect()
    }

    /// The table of at most `limit` rows (those with the largest change,
    /// in order, as `POST /api/compare` cuts it), texts made for those
    /// only; and how many rows were left out.
    pub fn into_table(mut self, limit: usize) -> (CompareTable, usize) {
        let mut rows = std::mem::take(&mut self.rows);
        let omitted = keep_largest_changes(&mut rows, limit, IdRow::delta);
        let table = CompareTable {
            rows: rows
                .iter()
                .map(|r| CompareRow {
                    keys: self.texts(r),
                    values: r.values.clone(),
                })
                .collect(),
            key_names: self.key_names,
            value_names: self.value_names,
            value_types: self.value_types,
        };
        (table, omitted)
    }
}

/// The request read against `def`: key columns with their part, values.
struct Plan {
    keys: Vec<(usize, Dep)>,
    values: Vec<(ValueSpec, Value)>,
}

fn plan(def: &TableDef<'_>, keys: &[String], values: Option<&[String]>) -> Option<Plan> {
    if def.name != "cpu-sampled" || keys.is_empty() {
        return None;
    }
    let keys = keys
        .iter()
        .map(|k| {
            let c = def.column(k)?;
            match dependency(def, &[c])? {
                d @ (Dep::Thread | Dep::Stack) => Some((c, d)),
                _ => None,
            }
        })
        .collect::<Option<Vec<_>>>()?;
    let specs: Vec<ValueSpec> = match values {
        Some(v) => v
            .iter()
            .map(|s| ValueSpec::parse(def, s).ok())
            .collect::<Option<_>>()?,
        None => crate::value_spec::default_values(def).ok()?,
    };
    // The implicit Count column (1 per row) is the last one.
    let count = def
        .columns
        .len()
        .checked_sub(1)
        .filter(|&c| def.columns[c].def.name == "Count");
    let weight = def.weight.and_then(|w| def.column(w));
    let values = specs
        .into_iter()
        .map(|v| {
            let sum = v.aggregation == Aggregation::Sum;
            let kind = match v.of {
                ValueOf::PercentWeight => Value::Percent,
                ValueOf::Column(c) if sum && Some(c) == count => Value::Count,
                ValueOf::Column(c) if sum && Some(c) == weight => Value::Weight,
                ValueOf::Column(_) => return None,
            };
            Some((v, kind))
        })
        .collect::<Option<_>>()?;
    Some(Plan { keys, values })
}

/// The shared ids both traces' keys are read into.
struct Shared {
    columns: Vec<KeyColumn>,
    paths: Paths,
    thread_parts: Parts,
    stack_parts: Parts,
}

/// A row's identity: its thread part's and its stack part's shared ids.
type Identity = (u32, u32);

/// One trace's groups (distinct key texts): (thread part, stack part)
/// identity ids, count and weight.
struct Groups {
    groups: Vec<(u32, u32, Tally)>,
    total: Tally,
}

fn groups(shared: &mut Shared, side: Side<'_>, plan: &Plan) -> Option<Groups> {
    let t = side.engine.trace();
    let def = TableDef::of(t, "cpu-sampled")?;
    let cols = |dep: Dep| -> Vec<(usize, usize)> {
        plan.keys
            .iter()
            .enumerate()
            .filter(|(_, (_, d))| *d == dep)
            .map(|(pos, (c, _))| (*c, pos))
            .collect()
    };
    let (tcols, scols) = (cols(Dep::Thread), cols(Dep::Stack));
    let paths = if shared.columns.iter().any(|c| c.stack) {
        Some(shared.paths.of_trace(t)?)
    } else {
        None
    };
    let read = |shared: &mut Shared,
                cols: &[(usize, usize)],
                tallies: &[Tally],
                thread: bool|
     -> Option<SideParts> {
        let wanted: Vec<bool> = tallies.iter().map(|x| x.count > 0).collect();
        let reps = if thread {
            class_totals::representatives(t, &wanted, thread_class)
        } else {
            class_totals::representatives(t, &wanted, stack_class)
        };
        let parts = if thread {
            &mut shared.thread_parts
        } else {
            &mut shared.stack_parts
        };
        let (columns, stacks) = (&mut shared.columns, t.stacks.len());
        keys::parts(&def, cols, columns, paths.as_deref(), stacks, &reps, parts)
    };
    // Sums per local part of one side's classes.
    let by_part = |tallies: &[Tally], p: &SideParts| {
        let mut sum = vec![Tally::default(); p.shared.len()];
        for (x, &part) in tallies.iter().zip(&p.of_class) {
            if let Some(s) = sum.get_mut(part as usize) {
                s.add(x.count, x.weight);
            }
        }
        sum
    };
    let e = side.engine;
    let mut out: Vec<(u32, u32, Tally)> = Vec::new();
    match (tcols.is_empty(), scols.is_empty()) {
        (false, true) => {
            let tallies = class_totals::by_thread(e, side.range);
            let tp = read(shared, &tcols, &tallies, true)?;
            let none = shared.stack_parts.id(Vec::new());
            for (part, x) in by_part(&tallies, &tp).into_iter().enumerate() {
                out.push((*tp.shared.get(part)?, none, x));
            }
        }
        (true, false) => {
            let tallies = class_totals::by_stack(e, side.range);
            let sp = read(shared, &scols, &tallies, false)?;
            let none = shared.thread_parts.id(Vec::new());
            for (part, x) in by_part(&tallies, &sp).into_iter().enumerate() {
                out.push((none, *sp.shared.get(part)?, x));
            }
        }
        (false, false) => {
            let threads = class_totals::by_thread(e, side.range);
            let tp = read(shared, &tcols, &threads, true)?;
            let stacks = class_totals::by_stack(e, side.range);
            let sp = read(shared, &scols, &stacks, false)?;
            let pairs = class_totals::by_pair(
                e,
                side.range,
                (&tp.of_class, tp.shared.len()),
                (&sp.of_class, sp.shared.len()),
            );
            for (a, b, x) in pairs {
                out.push((*tp.shared.get(a as usize)?, *sp.shared.get(b as usize)?, x));
            }
        }
        (true, true) => return None,
    }
    out.retain(|g| g.2.count > 0);
    let mut total = Tally::default();
    for g in &out {
        total.add(g.2.count, g.2.weight);
    }
    Some(Groups { groups: out, total })
}

/// Each value of one trace's identities: its groups' values added in the
/// order `flat_table` lists them (heaviest first), as `compare` adds them.
fn identity_values(
    side: Side<'_>,
    plan: &Plan,
    mut g: Groups,
) -> Option<Vec<(Identity, Vec<f64>)>> {
    let t = side.engine.trace();
    let def = TableDef::of(t, "cpu-sampled")?;
    let base = percent_base(t, &def, side.range, g.total.weight, g.total.count);
    let by_weight = def.percent_of == PercentOf::CpuCapacity || g.total.weight != 0;
    let kinds: Vec<(Value, ColumnType, ColumnType)> = plan
        .values
        .iter()
        .map(|(spec, kind)| {
            let ty = match spec.of {
                ValueOf::Column(c) => def.columns.get(c).map_or(ColumnType::Count, |c| c.def.ty),
                ValueOf::PercentWeight => ColumnType::Count,
            };
            (*kind, ty, spec.shown_type(&def))
        })
        .filter(|(_, _, shown)| shown.is_numeric() && *shown != ColumnType::Address)
        .collect();
    let value = |x: Tally, kind: Value, ty: ColumnType, shown: ColumnType| -> f64 {
        let cell = match kind {
            Value::Count => sum_cell(x.count, x.count as i64, ty),
            Value::Weight => sum_cell(x.count, x.weight, ty),
            Value::Percent => crate::flat_table::percent_cell(x.count, x.weight, by_weight, base),
        };
        cell.number(shown).unwrap_or(0.0)
    };
    g.groups
        .sort_unstable_by_key(|&(a, b, x)| (a, b, Reverse(x.weight), Reverse(x.count)));
    let mut out: Vec<(Identity, Vec<f64>)> = Vec::new();
    for (a, b, x) in g.groups {
        if out.last().is_none_or(|(k, _)| *k != (a, b)) {
            out.push(((a, b), vec![0.0; kinds.len()]));
        }
        let (_, vals) = out.last_mut()?;
        for (v, &(kind, ty, shown)) in vals.iter_mut().zip(&kinds) {
            *v += value(x, kind, ty, shown);
        }
    }
    Some(out)
}

fn sum_cell(n: u64, sum: i64, ty: ColumnType) -> CellValue {
    CellValue::of_aggregate(Acc::of_sum(n, sum).finish(Aggregation::Sum), ty, |_| {
        String::new()
    })
}

/// `new` against `base`, grouped by the columns `keys` with `values`
/// (`None`: the table's defaults), the baseline scaled by `scale`; `None`
/// when the request is not one this comparison covers.
pub fn compare(
    base: Side<'_>,
    new: Side<'_>,
    table: &str,
    keys: &[String],
    values: Option<&[String]>,
    scale: f64,
) -> Option<IdComparison> {
    if table != "cpu-sampled" {
        return None;
    }
    let t = new.engine.trace();
    let def = TableDef::of(t, "cpu-sampled")?;
    let plan = plan(&def, keys, values)?;
    // The other trace reads the same columns at the same places.
    let other = TableDef::of(base.engine.trace(), "cpu-sampled")?;
    if plan_columns(&other, keys)? != plan.keys.iter().map(|k| k.0).collect::<Vec<_>>() {
        return None;
    }
    let mut shared = Shared {
        columns: plan
            .keys
            .iter()
            .map(|&(c, _)| {
                let d = def.columns[c].def;
                KeyColumn::new(d.name, d.ty, d.ty == ColumnType::Stack)
            })
            .collect(),
        paths: Paths::default(),
        thread_parts: Parts::default(),
        stack_parts: Parts::default(),
    };
    let gb = groups(&mut shared, base, &plan)?;
    let gn = groups(&mut shared, new, &plan)?;
    let vb = identity_values(base, &plan, gb)?;
    let vn = identity_values(new, &plan, gn)?;
    let width = plan
        .values
        .iter()
        .filter(|(spec, _)| {
            let shown = spec.shown_type(&def);
            shown.is_numeric() && shown != ColumnType::Address
        })
        .count();
    let mut index: FxHashMap<Identity, usize> = FxHashMap::default();
    let mut rows: Vec<IdRow> = Vec::with_capacity(vb.len().max(vn.len()));
    index.reserve(vb.len().max(vn.len()));
    for (new_side, list) in [(false, vb), (true, vn)] {
        for (key, vals) in list {
            let i = *index.entry(key).or_insert_with(|| {
                rows.push(IdRow {
                    thread_part: key.0,
                    stack_part: key.1,
                    values: vec![(0.0, 0.0); width],
                });
                rows.len() - 1
            });
            let Some(row) = rows.get_mut(i) else { continue };
            for (slot, v) in row.values.iter_mut().zip(vals) {
                if new_side {
                    slot.1 = v;
                } else {
                    slot.0 = v * scale;
                }
            }
        }
    }
    let place: Vec<(bool, usize)> = {
        let (mut nt, mut ns) = (0, 0);
        plan.keys
            .iter()
            .map(|&(_, d)| {
                if d == Dep::Thread {
                    nt += 1;
                    (true, nt - 1)
                } else {
                    ns += 1;
                    (false, ns - 1)
                }
            })
            .collect()
    };
    let mut cmp = IdComparison {
        key_names: plan
            .keys
            .iter()
            .map(|&(c, _)| def.columns[c].def.name)
            .collect(),
        value_names: plan
            .values
            .iter()
            .filter(|(spec, _)| {
                let shown = spec.shown_type(&def);
                shown.is_numeric() && shown != ColumnType::Address
            })
            .map(|(spec, _)| spec.header(&def))
            .collect(),
        value_types: plan
            .values
            .iter()
            .map(|(spec, _)| spec.shown_type(&def))
            .filter(|shown| shown.is_numeric() && *shown != ColumnType::Address)
            .collect(),
        rows: Vec::new(),
        columns: shared.columns,
        place,
        thread_parts: shared.thread_parts,
        stack_parts: shared.stack_parts,
        paths: shared.paths,
    };
    sort(&mut cmp, &mut rows);
    cmp.rows = rows;
    Some(cmp)
}

fn plan_columns(def: &TableDef<'_>, keys: &[String]) -> Option<Vec<usize>> {
    keys.iter().map(|k| def.column(k)).collect()
}

/// Largest loss first, then by the key texts (their ranks), as
/// `compare::compare` orders its rows.
fn sort(c: &mut IdComparison, rows: &mut Vec<IdRow>) {
    let ncol = c.columns.len();
    // Per column, the rank of each identity id (ids are dense).
    let mut ranks: Vec<Vec<u32>> = Vec::with_capacity(ncol);
    for k in 0..ncol {
        let mut ids: Vec<u32> = rows.iter().map(|r| c.column_id(r, k)).collect();
        ids.sort_unstable();
        ids.dedup();
        let by_id = match c.columns.get(k) {
            Some(col) if col.stack => c.paths.ranks(&ids),
            Some(col) => col.texts.ranks(&ids),
            None => FxHashMap::default(),
        };
        let mut dense = vec![0u32; ids.last().map_or(0, |&m| m as usize + 1)];
        for (id, rank) in by_id {
            if let Some(d) = dense.get_mut(id as usize) {
                *d = rank;
            }
        }
        ranks.push(dense);
    }
    let cc: &IdComparison = c;
    let keyed: Vec<u32> = rows
        .iter()
        .flat_map(|r| {
            let ranks = &ranks;
            (0..ncol).map(move |k| {
                ranks
                    .get(k)
                    .and_then(|d| d.get(cc.column_id(r, k) as usize))
                    .copied()
                    .unwrap_or(0)
            })
        })
        .collect();
    let mut order: Vec<usize> = (0..rows.len()).collect();
    let key = |i: usize| keyed.get(i * ncol..(i + 1) * ncol).unwrap_or_default();
    order.sort_unstable_by(|&a, &b| {
        let (ra, rb) = (&rows[a], &rows[b]);
        ra.delta()
            .total_cmp(&rb.delta())
            .then_with(|| key(a).cmp(key(b)))
    });
    let mut taken: Vec<Option<IdRow>> = std::mem::take(rows).into_iter().map(Some).collect();
    *rows = order
        .into_iter()
        .filter_map(|i| taken.get_mut(i).and_then(Option::take))
        .collect();
}
