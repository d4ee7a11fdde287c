//! The comparison of CPU Usage (Sampled) on two traces matched by ids
//! (issue 17: under 1 s on 10M samples): each trace's samples are counted
//! per class (thread, stack, or both) from the engine's indexes, each
//! class's key cells are read once and turned into shared identity ids,
//! the two traces' distinct keys are matched by those ids, and texts are
//! made only for the rows returned. Each class's first sample row, which
//! no request changes, is found once per trace and kept on the engine
//! (`cache.rs`). Its rows equal those of grouping each
//! trace by key text (`table::flat::group`) and matching the texts
//! (`compare::compare`); `compare` answers `None` for requests it does
//! not cover (other tables, filters, values other than Count, Weight and
//! % Weight, columns not read through the thread or the stack), which
//! that path answers.

mod cache;
mod class_totals;
mod fingerprint;
mod fp_paths;
mod function;
mod function_texts;
mod hash_keys;
mod keys;
mod labels;
mod pair_cache;
mod paths;
mod rows;
mod select;
mod texts;

use crate::compare::by_text::{CompareRow, CompareTable};
use crate::scan::filter::TimeRange;
use crate::table::aggregate::{Acc, Aggregation};
use crate::table::cell_value::CellValue;
use crate::table::columns::{Cells, ColumnType, PercentOf, TableDef};
use crate::table::flat::percent_base;
use crate::table::flat_classes::{dependency, Dep};
use crate::table::value_spec::{ValueOf, ValueSpec};
use crate::Engine;
pub use cache::CompareCache;
use class_totals::Tally;
use fp_paths::{FpIds, FpPaths};
use function::FunctionIds;
use function_texts::FunctionTexts;
use keys::{KeyColumn, Parts, SideParts};
use pair_cache::PairKey;
use paths::Paths;
use rows::{Group, Rows};
use rustc_hash::FxHashMap;

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

/// The comparison, its rows matched but not yet ordered, their keys
/// still ids.
pub struct IdComparison {
    pub key_names: Vec<&'static str>,
    pub value_names: Vec<String>,
    pub value_types: Vec<ColumnType>,
    rows: Rows,
    columns: Vec<KeyColumn>,
    /// Per key column: in the thread part (else the stack part), at.
    place: Vec<(bool, usize)>,
    thread_parts: Parts,
    stack_parts: Parts,
    paths: Paths,
    /// When stacks were matched by fingerprints: their paths (the Stack
    /// column's ids are fingerprint ids).
    fp_paths: Option<FpPaths>,
    /// When the Function was read from the per-trace labels: its key
    /// column and its texts (the column's ids are `FunctionIds`).
    functions: Option<(usize, FunctionTexts)>,
}

impl IdComparison {
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.len() == 0
    }

    fn column_id(&self, row: u32, k: usize) -> u32 {
        let (Some(&(thread, at)), Some(&(tp, sp))) =
            (self.place.get(k), self.rows.ids.get(row as usize))
        else {
            return 0;
        };
        let (parts, p) = if thread {
            (&self.thread_parts, tp)
        } else {
            (&self.stack_parts, sp)
        };
        parts.get(p, at).unwrap_or(0)
    }

    fn is_function(&self, k: usize) -> bool {
        self.functions.as_ref().is_some_and(|(c, _)| *c == k)
    }

    fn function_text(&self, id: u32) -> String {
        self.functions
            .as_ref()
            .map_or_else(String::new, |(_, f)| f.text(id))
    }

    fn texts(&self, row: u32) -> Vec<String> {
        (0..self.columns.len())
            .map(|k| {
                let id = self.column_id(row, k);
                match self.columns.get(k) {
                    Some(c) if c.stack => match &self.fp_paths {
                        Some(fp) => fp.text(id),
                        None => self.paths.text(id),
                    },
                    Some(_) if self.is_function(k) => self.function_text(id),
                    Some(c) => c.texts.get(id).to_string(),
                    None => String::new(),
                }
            })
            .collect()
    }

    /// Per given row, per key column, a rank whose order among these rows
    /// is the order of their key texts.
    fn ranks(&self, rows: &[u32]) -> Vec<u32> {
        let ncol = self.columns.len();
        let mut out = vec![0u32; rows.len() * ncol];
        for k in 0..ncol {
            let mut ids: Vec<u32> = rows.iter().map(|&r| self.column_id(r, k)).collect();
            ids.sort_unstable();
            ids.dedup();
            let by_id = match self.columns.get(k) {
                Some(col) if col.stack => match &self.fp_paths {
                    Some(fp) => fp.ranks(&ids),
                    None => self.paths.ranks(&ids),
                },
                Some(_) if self.is_function(k) => match &self.functions {
                    Some((_, f)) => f.ranks(&ids),
                    None => FxHashMap::default(),
                },
                Some(col) => col.texts.ranks(&ids),
                None => FxHashMap::default(),
            };
            for (p, &r) in rows.iter().enumerate() {
                let rank = by_id.get(&self.column_id(r, k)).copied().unwrap_or(0);
                if let Some(o) = out.get_mut(p * ncol + k) {
                    *o = rank;
                }
            }
        }
        out
    }

    /// The table of at most `limit` rows (those with the largest change,
    /// in the order `compare::compare` sorts rows, as `POST /api/compare`
    /// cuts them with `compare::keep_largest_changes`), texts made for
    /// those only; and how many rows were left out.
    pub fn into_table(self, limit: usize) -> (CompareTable, usize) {
        let n = self.rows.len();
        let delta: Vec<f64> = (0..n).map(|i| self.rows.delta(i)).collect();
        let kept =
            select::kept_in_order(&delta, limit, self.columns.len(), |rows| self.ranks(rows));
        let rows = kept
            .iter()
            .map(|&r| CompareRow {
                keys: self.texts(r),
                values: self.rows.values_of(r as usize).to_vec(),
            })
            .collect();
        let omitted = n - kept.len();
        let table = CompareTable {
            rows,
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
        None => crate::table::value_spec::default_values(def).ok()?,
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
    /// Stacks matched by fingerprints (`None`: by `paths`).
    fps: Option<FpIds>,
    /// When the Function is the stack part's only column: its ids.
    functions: Option<FunctionIds>,
    thread_parts: Parts,
    stack_parts: Parts,
}

/// One trace's groups (distinct key texts): (thread part, stack part)
/// identity ids, count and weight.
struct Groups {
    groups: Vec<Group>,
    total: Tally,
}

fn groups(shared: &mut Shared, side: Side<'_>, side_ix: u8, plan: &Plan) -> Option<Groups> {
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
    let e = side.engine;
    let cache = &e.compare_cache;
    let stack_tallies = (!scols.is_empty()).then(|| class_totals::by_stack(e, side.range));
    let paths = match (shared.columns.iter().any(|c| c.stack), &mut shared.fps) {
        (false, _) => None,
        (true, Some(fps)) => {
            let tallies = stack_tallies.as_deref().unwrap_or_default();
            Some(fps.of_side(side_ix, cache.fingerprints(t)?, tallies))
        }
        (true, None) => Some(shared.paths.of_trace(t)?),
    };
    let read = |shared: &mut Shared,
                cols: &[(usize, usize)],
                tallies: &[Tally],
                thread: bool|
     -> Option<SideParts> {
        if let (Some(ids), false) = (shared.functions.as_mut(), thread) {
            let labels = cache.function(t);
            return Some(labels.parts(side_ix, tallies, ids, &mut shared.stack_parts));
        }
        let first = if thread {
            cache.first_of_thread(t)
        } else {
            cache.first_of_stack(t)
        };
        // The first sample row of each class with samples in the range.
        let reps: Vec<u32> = first
            .iter()
            .zip(tallies)
            .map(|(&f, x)| if x.count > 0 { f } else { u32::MAX })
            .collect();
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
    let mut out: Vec<Group> = Vec::new();
    match (tcols.is_empty(), scols.is_empty()) {
        (false, true) => {
            let tallies = class_totals::by_thread(e, side.range);
            let tp = read(shared, &tcols, &tallies, true)?;
            let none = shared.stack_parts.id(&[]);
            for (part, x) in by_part(&tallies, &tp).into_iter().enumerate() {
                out.push((*tp.shared.get(part)?, none, x));
            }
        }
        (true, false) => {
            let tallies = stack_tallies.as_deref().unwrap_or_default();
            let sp = read(shared, &scols, tallies, false)?;
            let none = shared.thread_parts.id(&[]);
            for (part, x) in by_part(tallies, &sp).into_iter().enumerate() {
                out.push((none, *sp.shared.get(part)?, x));
            }
        }
        (false, false) => {
            let threads = class_totals::by_thread(e, side.range);
            let tp = read(shared, &tcols, &threads, true)?;
            let stacks = stack_tallies.as_deref().unwrap_or_default();
            let sp = read(shared, &scols, stacks, false)?;
            let pass = || {
                class_totals::by_pair(
                    e,
                    side.range,
                    (&tp.of_class, tp.shared.len()),
                    (&sp.of_class, sp.shared.len()),
                )
            };
            // Without a range the same parts count the same pairs.
            let pairs = match side.range {
                None => cache.pairs(PairKey::of(&tp.of_class, &sp.of_class), pass),
                Some(_) => std::sync::Arc::new(pass()),
            };
            for &(a, b, x) in pairs.iter() {
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

/// What one side's group values are computed from.
struct Valuer {
    /// Per value column: what it adds up, its column's type, shown type.
    kinds: Vec<(Value, ColumnType, ColumnType)>,
    by_weight: bool,
    base: f64,
}

impl Valuer {
    fn of(side: Side<'_>, plan: &Plan, total: Tally) -> Option<Valuer> {
        let t = side.engine.trace();
        let def = TableDef::of(t, "cpu-sampled")?;
        let base = percent_base(t, &def, side.range, total.weight, total.count);
        let by_weight = def.percent_of == PercentOf::CpuCapacity || total.weight != 0;
        let kinds = plan
            .values
            .iter()
            .map(|(spec, kind)| {
                let ty = match spec.of {
                    ValueOf::Column(c) => {
                        def.columns.get(c).map_or(ColumnType::Count, |c| c.def.ty)
                    }
                    ValueOf::PercentWeight => ColumnType::Count,
                };
                (*kind, ty, spec.shown_type(&def))
            })
            .filter(|(_, _, shown)| shown.is_numeric() && *shown != ColumnType::Address)
            .collect();
        Some(Valuer {
            kinds,
            by_weight,
            base,
        })
    }

    /// One group's values, as `table::flat` shows them and `compare` reads them.
    fn values(&self, x: Tally, out: &mut [f64]) {
        for (o, &(kind, ty, shown)) in out.iter_mut().zip(&self.kinds) {
            let cell = match kind {
                Value::Count => sum_cell(x.count, x.count as i64, ty),
                Value::Weight => sum_cell(x.count, x.weight, ty),
                Value::Percent => {
                    crate::table::flat::percent_cell(x.count, x.weight, self.by_weight, self.base)
                }
            };
            *o = cell.number(shown).unwrap_or(0.0);
        }
    }
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
        fps: None,
        functions: None,
        thread_parts: Parts::default(),
        stack_parts: Parts::default(),
    };
    // Fingerprints when both traces have them (else paths, for both).
    let by_fp = shared.columns.iter().any(|c| c.stack)
        && [base, new].iter().all(|s| {
            let e = s.engine;
            e.compare_cache.fingerprints(e.trace()).is_some()
        });
    if by_fp {
        shared.fps = Some(FpIds::default());
    }
    // The Function alone in the stack part: from the per-trace labels.
    let stack_keys: Vec<usize> = plan
        .keys
        .iter()
        .filter(|(_, d)| *d == Dep::Stack)
        .map(|&(c, _)| c)
        .collect();
    if let &[c] = stack_keys.as_slice() {
        let col = def.columns.get(c)?;
        if col.def.name == "Function" && matches!(col.cells, Cells::Keyed { .. }) {
            shared.functions = Some(FunctionIds::default());
        }
    }
    let gb = groups(&mut shared, base, 0, &plan)?;
    let gn = groups(&mut shared, new, 1, &plan)?;
    let valuers = [
        Valuer::of(base, &plan, gb.total)?,
        Valuer::of(new, &plan, gn.total)?,
    ];
    let width = valuers[1].kinds.len();
    let bounds = (shared.thread_parts.len(), shared.stack_parts.len());
    let rows = rows::merge(
        [&gb.groups, &gn.groups],
        bounds,
        width,
        scale,
        |side, x, out| {
            if let Some(v) = valuers.get(side) {
                v.values(x, out)
            }
        },
    );
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
    let cmp = IdComparison {
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
        rows,
        columns: shared.columns,
        place,
        thread_parts: shared.thread_parts,
        stack_parts: shared.stack_parts,
        paths: shared.paths,
        functions: shared.functions.map(|ids| {
            let caches = [base, new].map(|s| s.engine.compare_cache.clone());
            (
                function_column(&def, &plan),
                FunctionTexts::new(ids, caches),
            )
        }),
        fp_paths: shared
            .fps
            .map(|ids| FpPaths::new(ids, [base, new].map(|s| s.engine.trace.clone()))),
    };
    Some(cmp)
}

/// The key position of the plan's stack column (the Function).
fn function_column(def: &TableDef<'_>, plan: &Plan) -> usize {
    plan.keys
        .iter()
        .position(|&(c, d)| d == Dep::Stack && def.columns.get(c).is_some())
        .unwrap_or(0)
}

fn plan_columns(def: &TableDef<'_>, keys: &[String]) -> Option<Vec<usize>> {
    keys.iter().map(|k| def.column(k)).collect()
}
