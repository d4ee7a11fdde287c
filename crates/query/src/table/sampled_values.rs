//! Value columns of CPU Usage (Sampled) (right of the gold bar): any column
//! of `table::columns::cpu_sampled` with an aggregation. The scan knows each
//! sample's thread, CPU, stack row, time and weight; every column is a
//! function of one of them, read through a table built once per request
//! (per thread, per stack row), so the scan keeps one accumulator per group
//! and value column and no per-sample objects.

use crate::scan::pass::{Cell, Hit};
use crate::table::aggregate::Acc;
use crate::table::cell_value::CellValue;
use crate::table::columns::{ColumnType, TableDef, MISSING};
use crate::table::value_spec::{ValueOf, ValueSpec};
use crate::QueryError;
use model::strings::StrId;
use model::{Trace, NONE};
use rustc_hash::FxHashMap;

/// What a column's value is read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Source {
    Thread,
    Cpu,
    Stack,
    Time,
    Weight,
    One,
    /// `% Weight`: a share of the group's weight, not accumulated.
    Percent,
}

/// Dense ids of the texts of a text column, so Unique Count and the
/// single-value mode compare texts (as `etlscope export` does).
type Texts = crate::table::flat::Interner;

/// One value column, ready to read a sample.
pub(crate) struct Reader {
    pub(crate) spec: ValueSpec,
    ty: ColumnType,
    source: Source,
    /// Per thread row or per stack row (the last: no stack).
    table: Vec<i64>,
    texts: Vec<String>,
}

impl Reader {
    /// The sample's value, `MISSING` when it has none.
    #[inline]
    fn value(&self, h: &Hit) -> i64 {
        let at = |i: u32| self.table.get(i as usize).copied().unwrap_or(MISSING);
        match self.source {
            Source::Thread => at(h.thread),
            Source::Stack => at(h.stack),
            Source::Cpu => i64::from(h.cpu),
            Source::Time => h.cell.first_ns,
            Source::Weight => h.cell.weight_ns,
            Source::One => 1,
            Source::Percent => MISSING,
        }
    }

    /// Whether the value of a group of samples of one thread (`by_thread`)
    /// or one stack row (else) follows from the group's cell, so the scan
    /// may use the precomputed per-thread or per-stack totals. `constant`:
    /// every sample has the same weight.
    pub(crate) fn groups(&self, by_thread: bool, constant: bool) -> bool {
        use crate::table::aggregate::Aggregation as A;
        let agg = self.spec.aggregation;
        match self.source {
            Source::Thread => by_thread,
            Source::Stack => !by_thread,
            Source::Cpu => false,
            Source::One | Source::Percent => true,
            Source::Weight => constant || matches!(agg, A::Sum | A::Count),
            Source::Time => matches!(agg, A::Min | A::Max | A::Count),
        }
    }

    /// Adds a group of samples (a per-thread or per-stack total) that
    /// `groups` accepted.
    #[inline]
    fn add_group(&self, a: &mut Acc, h: &Hit, constant: Option<i64>) {
        let c = &h.cell;
        let n = c.count;
        let same = |a: &mut Acc, v: i64| {
            if v != MISSING || !self.ty.is_numeric() {
                a.add_group(n, i128::from(v) * i128::from(n), v, v, Some(v));
            }
        };
        match self.source {
            Source::Thread => same(a, self.value(h)),
            Source::Stack => same(a, self.value(h)),
            Source::One => same(a, 1),
            Source::Weight => match constant {
                Some(w) => same(a, w),
                None => a.add_group(n, i128::from(c.weight_ns), 0, 0, None),
            },
            Source::Time => a.add_group(n, 0, c.first_ns, c.last_ns, None),
            Source::Cpu | Source::Percent => {}
        }
    }

    fn counts(&self) -> bool {
        self.source != Source::Percent
    }

    /// The aggregate of `acc` as a cell (`percent`: the group's % Weight).
    pub(crate) fn cell(&self, acc: &Acc, percent: f64) -> CellValue {
        if self.source == Source::Percent {
            return CellValue::Plain(percent);
        }
        let v = acc.finish(self.spec.aggregation);
        CellValue::of_aggregate(v, self.ty, |id| {
            self.texts.get(id as usize).cloned().unwrap_or_default()
        })
    }
}

/// Readers of `specs` (resolved against the cpu-sampled `def`), the
/// per-thread tables sized for `threads` rows and the per-stack ones for
/// `stack_rows` (the last of which holds samples without a stack).
pub(crate) fn readers(
    t: &Trace,
    def: &TableDef<'_>,
    specs: &[ValueSpec],
    stack_rows: usize,
) -> Result<Vec<Reader>, QueryError> {
    specs
        .iter()
        .map(|&spec| {
            let c = match spec.of {
                ValueOf::PercentWeight => {
                    return Ok(Reader {
                        spec,
                        ty: ColumnType::Count,
                        source: Source::Percent,
                        table: Vec::new(),
                        texts: Vec::new(),
                    })
                }
                ValueOf::Column(c) => def.columns.get(c).map(|c| c.def),
            };
            let Some(d) = c else {
                return Err(QueryError::BadRequest("no such value column".into()));
            };
            let mut texts = Texts::default();
            let (source, table) = match d.name {
                "Time" => (Source::Time, Vec::new()),
                "Weight" => (Source::Weight, Vec::new()),
                "Count" => (Source::One, Vec::new()),
                "CPU" => (Source::Cpu, Vec::new()),
                "Process" | "Process Name" | "PID" | "Thread ID" | "Thread Name" => {
                    (Source::Thread, per_thread(t, d.name, &mut texts))
                }
                "Module" | "Function" | "Image Path" | "File Version" | "Company Name" => {
                    (Source::Stack, per_stack(t, d.name, stack_rows, &mut texts))
                }
                _ => {
                    return Err(QueryError::BadRequest(format!(
                        "{:?} cannot be a value column of cpu-sampled",
                        d.name
                    )))
                }
            };
            Ok(Reader {
                spec,
                ty: d.ty,
                source,
                table,
                texts: texts.texts,
            })
        })
        .collect()
}

/// A thread column's value per thread row, as `cpu_sampled` reads it.
fn per_thread(t: &Trace, name: &str, texts: &mut Texts) -> Vec<i64> {
    let th = &t.threads;
    let process = |i: usize| th.process.get(i).copied().unwrap_or(NONE);
    let string = |texts: &mut Texts, s: StrId| texts.id(t.strings.get(s).to_string());
    (0..th.len())
        .map(|i| match name {
            "Process" => texts.id(t.process_text(process(i))),
            "Process Name" => {
                let p = process(i) as usize;
                string(texts, t.processes.name.get(p).copied().unwrap_or_default())
            }
            "PID" => t
                .processes
                .pid
                .get(process(i) as usize)
                .map_or(MISSING, |&p| i64::from(p)),
            "Thread ID" => th.tid.get(i).map_or(MISSING, |&x| i64::from(x)),
            _ => string(texts, th.name.get(i).copied().unwrap_or_default()),
        })
        .collect()
}

/// A leaf-frame column's value per stack row (the rows past the stack
/// table: no stack), as `cpu_sampled` reads it.
fn per_stack(t: &Trace, name: &str, rows: usize, texts: &mut Texts) -> Vec<i64> {
    // Many stacks share a leaf frame: one text per frame.
    let mut by_frame: FxHashMap<u32, i64> = FxHashMap::default();
    (0..rows)
        .map(|st| {
            let frame = t.stacks.frame.get(st).copied().unwrap_or(NONE);
            if let Some(&v) = by_frame.get(&frame) {
                return v;
            }
            let module = match frame {
                NONE => NONE,
                f => t.frames.module.get(f as usize).copied().unwrap_or(NONE),
            };
            let attr = |v: &Vec<StrId>| v.get(module as usize).copied().unwrap_or_default();
            let m = &t.modules;
            let text = match name {
                "Function" if frame == NONE => String::new(),
                "Function" => t.frame_label(frame),
                "Module" => t.strings.get(attr(&m.name)).to_string(),
                "Image Path" => t.strings.get(attr(&m.path)).to_string(),
                "File Version" => t.strings.get(attr(&m.file_version)).to_string(),
                _ => t.strings.get(attr(&m.company_name)).to_string(),
            };
            let v = texts.id(text);
            by_frame.insert(frame, v);
            v
        })
        .collect()
}

/// Per-slot cells and value accumulators of a scan with value columns.
pub(crate) struct ValueAcc {
    pub(crate) cells: Vec<Cell>,
    pub(crate) total: Cell,
    /// Slot `s`, value `j` at `s * values + j`.
    pub(crate) accs: Vec<Acc>,
}

impl ValueAcc {
    pub(crate) fn new(slots: usize, readers: &[Reader]) -> ValueAcc {
        let mut accs = Vec::with_capacity(slots * readers.len());
        for _ in 0..slots {
            accs.extend(readers.iter().map(|r| Acc::new(r.spec.aggregation)));
        }
        ValueAcc {
            cells: vec![Cell::default(); slots],
            total: Cell::default(),
            accs,
        }
    }

    /// Adds a hit: one sample, or (`grouped`) a per-thread or per-stack
    /// total whose values `Reader::groups` said follow from its cell.
    #[inline]
    pub(crate) fn add(&mut self, readers: &[Reader], h: Hit, constant: Option<i64>) {
        let grouped = h.thread == NONE || h.stack == NONE;
        if grouped {
            self.total.merge(&h.cell);
            if !h.path_ok {
                return;
            }
            let s = h.slot as usize;
            if let Some(c) = self.cells.get_mut(s) {
                c.merge(&h.cell);
            }
            let n = readers.len();
            if let Some(accs) = self.accs.get_mut(s * n..(s + 1) * n) {
                for (a, r) in accs.iter_mut().zip(readers) {
                    r.add_group(a, &h, constant);
                }
            }
            return;
        }
        self.add_one(readers, h);
    }

    #[inline]
    fn add_one(&mut self, readers: &[Reader], h: Hit) {
        self.total.merge(&h.cell);
        if !h.path_ok {
            return;
        }
        let s = h.slot as usize;
        if let Some(c) = self.cells.get_mut(s) {
            c.merge(&h.cell);
        }
        let n = readers.len();
        let Some(accs) = self.accs.get_mut(s * n..(s + 1) * n) else {
            return;
        };
        for (a, r) in accs.iter_mut().zip(readers) {
            let v = r.value(&h);
            // As export: numbers without a value are left out.
            if r.counts() && (v != MISSING || !r.ty.is_numeric()) {
                a.add(v);
            }
        }
    }

    pub(crate) fn merge(mut self, o: ValueAcc) -> ValueAcc {
        for (a, b) in self.cells.iter_mut().zip(&o.cells) {
            a.merge(b);
        }
        for (a, b) in self.accs.iter_mut().zip(&o.accs) {
            a.merge(b);
        }
        self.total.merge(&o.total);
        self
    }

    /// The accumulators of the values of `slots`, merged.
    pub(crate) fn of_slots(&self, readers: &[Reader], slots: &[u32]) -> Vec<Acc> {
        let n = readers.len();
        let mut out: Vec<Acc> = readers
            .iter()
            .map(|r| Acc::new(r.spec.aggregation))
            .collect();
        for &s in slots {
            let s = s as usize;
            if let Some(accs) = self.accs.get(s * n..(s + 1) * n) {
                for (o, a) in out.iter_mut().zip(accs) {
                    o.merge(a);
                }
            }
        }
        out
    }
}
