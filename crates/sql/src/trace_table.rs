//! The WPA tables (`cpu_sampled`, `processes`, `file_io`...) as SQLite
//! virtual tables: each row read in place from the model through the
//! table's column declarations (`query::TableDef`), nothing copied.
//! Text cells are made when SQLite asks for them, a keyed column's text
//! once per key.

use crate::grouped_scan::{self, RowOrder};
use crate::pushdown::{self, integer, Op, Pushed, Takes};
use crate::schema::{self, SqlColumn};
use model::{Trace, NONE};
use query::table::columns::{Cells, Numbers, MISSING};
use query::TableDef;
use rusqlite::ffi;
use rusqlite::types::{Null, Value};
use rusqlite::vtab::{Context, Filters, IndexInfo, VTab, VTabConfig, VTabConnection, VTabCursor};
use std::borrow::Cow;
use std::cell::{OnceCell, RefCell};
use std::collections::HashMap;
use std::ffi::{c_int, CStr, CString};
use std::sync::Arc;

/// What the module of one table is given: the trace and the table's API name.
pub struct Aux {
    pub trace: Arc<Trace>,
    pub api_name: &'static str,
}

#[repr(C)]
pub struct TraceTable {
    /// SQLite's part; must come first.
    base: ffi::sqlite3_vtab,
    trace: Arc<Trace>,
    api_name: &'static str,
    columns: Vec<SqlColumn>,
    rows: usize,
    /// Per SQL column: whether its numbers are a sorted model column
    /// (found on first use).
    sorted: Vec<OnceCell<bool>>,
}

/// Text cells of keyed columns remembered per key, up to this many keys.
const KEY_TEXTS: usize = 1 << 16;

fn module_error(s: impl Into<String>) -> rusqlite::Error {
    rusqlite::Error::ModuleError(s.into())
}

unsafe impl<'vtab> VTab<'vtab> for TraceTable {
    type Aux = Aux;
    type Cursor = TraceCursor<'vtab>;

    fn connect(
        db: &mut VTabConnection,
        aux: Option<&Aux>,
        _module: &[u8],
        _database: &[u8],
        _table: &[u8],
        _args: &[&[u8]],
    ) -> rusqlite::Result<(Cow<'static, CStr>, TraceTable)> {
        let aux = aux.ok_or_else(|| module_error("table without a trace"))?;
        let def = TableDef::of(&aux.trace, aux.api_name)
            .ok_or_else(|| module_error(format!("no table {}", aux.api_name)))?;
        let columns = schema::sql_columns(&def);
        let decl: Vec<(String, &'static str)> = columns
            .iter()
            .map(|c| (c.name.clone(), schema::sql_type(c.ty)))
            .collect();
        let create = CString::new(schema::create_statement(&decl))
            .map_err(|_| module_error("a column name holds a NUL"))?;
        db.config(VTabConfig::Innocuous)?;
        let vtab = TraceTable {
            base: ffi::sqlite3_vtab::default(),
            rows: def.rows,
            sorted: columns.iter().map(|_| OnceCell::new()).collect(),
            columns,
            trace: aux.trace.clone(),
            api_name: aux.api_name,
        };
        Ok((Cow::Owned(create), vtab))
    }

    fn best_index(&self, info: &mut IndexInfo) -> rusqlite::Result<bool> {
        let t = &*self.trace;
        let Some(def) = TableDef::of(t, self.api_name) else {
            return Ok(true);
        };
        // Text equality only under the default (binary) collation: the
        // scan compares bytes.
        let binary: Vec<bool> = (0..info.constraints().count())
            .map(|i| {
                info.collation(i)
                    .is_ok_and(|c| c.eq_ignore_ascii_case("BINARY"))
            })
            .collect();
        let takes: Vec<Takes> = self
            .columns
            .iter()
            .map(|c| match def.columns.get(c.def).map(|d| &d.cells) {
                Some(Cells::Number(_) | Cells::Stack(_)) => Takes::Compare,
                Some(Cells::Keyed { .. } | Cells::Text(_)) => Takes::Equality,
                None => Takes::Nothing,
            })
            .collect();
        let constrained_text: Vec<usize> = info
            .constraints()
            .enumerate()
            .filter(|(i, c)| {
                !binary.get(*i).copied().unwrap_or(false)
                    && takes.get(c.column().max(0) as usize) == Some(&Takes::Equality)
            })
            .map(|(_, c)| c.column().max(0) as usize)
            .collect();
        pushdown::plan(info, self.rows, |col| {
            if constrained_text.contains(&col) {
                Takes::Nothing
            } else {
                takes.get(col).copied().unwrap_or(Takes::Nothing)
            }
        });
        // One ORDER BY term on a keyed column (GROUP BY, DISTINCT or ORDER
        // BY it): the scan gives the rows in its order (idx_num: the SQL
        // column + 1, negative when descending), SQLite sorts nothing.
        let by_key = info
            .order_bys()
            .next()
            .filter(|_| info.num_of_order_by() == 1 && self.rows <= u32::MAX as usize)
            .and_then(|o| {
                let col = usize::try_from(o.column()).ok()?;
                let keyed = self
                    .columns
                    .get(col)
                    .and_then(|c| def.columns.get(c.def))
                    .is_some_and(|d| matches!(d.cells, Cells::Keyed { .. }));
                keyed.then_some((col as i32 + 1, o.is_order_by_desc()))
            });
        if let Some((n, desc)) = by_key {
            info.set_idx_num(if desc { -n } else { n });
            info.set_order_by_consumed(true);
        }
        Ok(true)
    }

    fn open(&'vtab mut self) -> rusqlite::Result<TraceCursor<'vtab>> {
        let this: &'vtab TraceTable = self;
        let def = TableDef::of(&this.trace, this.api_name)
            .ok_or_else(|| module_error(format!("no table {}", this.api_name)))?;
        Ok(TraceCursor {
            base: ffi::sqlite3_vtab_cursor::default(),
            texts: RefCell::new(this.columns.iter().map(|_| HashMap::new()).collect()),
            table: this,
            def,
            filters: Vec::new(),
            row: 0,
            end: 0,
            order: None,
            pos: 0,
        })
    }
}

/// A constraint tested row by row.
enum RowFilter {
    Number {
        def: usize,
        op: Op,
        value: i64,
    },
    Stack {
        def: usize,
        op: Op,
        value: i64,
    },
    /// Equality on a keyed column: each key's answer found once.
    KeyEq {
        def: usize,
        value: String,
        keys: HashMap<u32, bool>,
    },
    TextEq {
        def: usize,
        value: String,
    },
    /// A constraint no row meets (`= NULL`).
    Nothing,
}

#[repr(C)]
pub struct TraceCursor<'vtab> {
    /// SQLite's part; must come first.
    base: ffi::sqlite3_vtab_cursor,
    table: &'vtab TraceTable,
    def: TableDef<'vtab>,
    filters: Vec<RowFilter>,
    /// Per SQL column, the text of each key seen (keyed columns).
    texts: RefCell<Vec<HashMap<u32, String>>>,
    row: usize,
    end: usize,
    /// The kept rows in a keyed column's order (`grouped_scan`), walked by
    /// `pos`; None: rows `row..end` in table order.
    order: Option<RowOrder>,
    pos: usize,
}

impl TraceCursor<'_> {
    /// Whether the table's column `col` holds a sorted model column.
    fn sorted_slice(&self, col: usize) -> Option<&[i64]> {
        let sc = self.table.columns.get(col)?;
        let Some(Cells::Number(Numbers::I64(v))) = self.def.columns.get(sc.def).map(|c| &c.cells)
        else {
            return None;
        };
        let sorted = self.table.sorted.get(col)?;
        sorted
            .get_or_init(|| v.windows(2).all(|w| w[0] <= w[1]))
            .then_some(*v)
    }

    fn keeps(&mut self, row: usize) -> bool {
        keeps(&self.def, &mut self.filters, row)
    }

    fn skip_to_kept(&mut self) {
        while self.row < self.end && !self.keeps(self.row) {
            self.row += 1;
        }
    }
}

/// Whether `row` meets every filter.
fn keeps(def: &TableDef<'_>, filters: &mut [RowFilter], row: usize) -> bool {
    filters.iter_mut().all(|f| match f {
        RowFilter::Number { def: d, op, value } => match def.columns.get(*d).map(|c| &c.cells) {
            Some(Cells::Number(n)) => {
                let x = n.at(row);
                x != MISSING && op.holds(x.cmp(value))
            }
            _ => true,
        },
        RowFilter::Stack { def: d, op, value } => match def.columns.get(*d).map(|c| &c.cells) {
            Some(Cells::Stack(s)) => {
                let x = s(row);
                x != NONE && op.holds(i64::from(x).cmp(value))
            }
            _ => true,
        },
        RowFilter::KeyEq {
            def: d,
            value,
            keys,
        } => match def.columns.get(*d).map(|c| &c.cells) {
            Some(Cells::Keyed { key, text }) => {
                let k = key(row);
                *keys.entry(k).or_insert_with(|| text(k) == *value)
            }
            _ => true,
        },
        RowFilter::TextEq { def: d, value } => match def.columns.get(*d).map(|c| &c.cells) {
            Some(Cells::Text(f)) => f(row) == *value,
            _ => true,
        },
        RowFilter::Nothing => false,
    })
}

unsafe impl VTabCursor for TraceCursor<'_> {
    fn filter(
        &mut self,
        idx_num: c_int,
        idx_str: Option<&str>,
        args: &Filters<'_>,
    ) -> rusqlite::Result<()> {
        let (mut lo, mut hi) = (0, self.table.rows);
        self.filters.clear();
        for (i, Pushed { column, op }) in pushdown::decode(idx_str).into_iter().enumerate() {
            let value: Value = args.get(i)?;
            if value == Value::Null {
                self.filters.push(RowFilter::Nothing);
                continue;
            }
            let Some(sc) = self.table.columns.get(column) else {
                continue;
            };
            let d = sc.def;
            match (self.def.columns.get(d).map(|c| &c.cells), &value) {
                (Some(Cells::Number(_)), v) => {
                    let Some(x) = integer(v) else { continue };
                    if let Some(sorted) = self.sorted_slice(column) {
                        (lo, hi) = pushdown::sorted_range(sorted, op, x, lo, hi);
                    } else {
                        self.filters.push(RowFilter::Number {
                            def: d,
                            op,
                            value: x,
                        });
                    }
                }
                (Some(Cells::Stack(_)), v) => {
                    if let Some(x) = integer(v) {
                        self.filters.push(RowFilter::Stack {
                            def: d,
                            op,
                            value: x,
                        });
                    }
                }
                (Some(Cells::Keyed { .. }), Value::Text(s)) if op == Op::Eq => {
                    self.filters.push(RowFilter::KeyEq {
                        def: d,
                        value: s.clone(),
                        keys: HashMap::new(),
                    })
                }
                (Some(Cells::Text(_)), Value::Text(s)) if op == Op::Eq => {
                    self.filters.push(RowFilter::TextEq {
                        def: d,
                        value: s.clone(),
                    })
                }
                _ => {}
            }
        }
        self.order = None;
        self.pos = 0;
        let by_key = (idx_num.unsigned_abs() as usize).checked_sub(1);
        let cells = by_key
            .and_then(|c| self.table.columns.get(c))
            .and_then(|c| self.def.columns.get(c.def))
            .map(|c| &c.cells);
        if let Some(Cells::Keyed { key, text }) = cells {
            let filters = &mut self.filters;
            let def = &self.def;
            let order = grouped_scan::order(
                lo,
                hi.max(lo),
                &|r| key(r),
                &|k| text(k),
                idx_num < 0,
                &mut |r| keeps(def, filters, r),
            )
            .ok_or_else(|| {
                rusqlite::Error::SqliteFailure(
                    ffi::Error::new(ffi::SQLITE_NOMEM),
                    Some("no memory for the rows in order".into()),
                )
            })?;
            self.row = order.as_slice().first().map_or(0, |&r| r as usize);
            self.end = order.as_slice().len();
            self.order = Some(order);
            return Ok(());
        }
        self.row = lo;
        self.end = hi.max(lo);
        self.skip_to_kept();
        Ok(())
    }

    fn next(&mut self) -> rusqlite::Result<()> {
        if let Some(order) = &self.order {
            self.pos += 1;
            self.row = order.as_slice().get(self.pos).map_or(0, |&r| r as usize);
            return Ok(());
        }
        self.row += 1;
        self.skip_to_kept();
        Ok(())
    }

    fn eof(&self) -> bool {
        match &self.order {
            Some(_) => self.pos >= self.end,
            None => self.row >= self.end,
        }
    }

    fn column(&self, ctx: &mut Context, i: c_int) -> rusqlite::Result<()> {
        let row = self.row;
        let Some(sc) = self.table.columns.get(i.max(0) as usize) else {
            return ctx.set_result(Null);
        };
        match self.def.columns.get(sc.def).map(|c| &c.cells) {
            Some(Cells::Number(n)) => match n.at(row) {
                MISSING => ctx.set_result(Null),
                x => ctx.set_result(x),
            },
            Some(Cells::Stack(s)) => match s(row) {
                NONE => ctx.set_result(Null),
                x => ctx.set_result(i64::from(x)),
            },
            Some(Cells::Text(f)) => ctx.set_result(f(row)),
            Some(Cells::Keyed { key, text }) => {
                let k = key(row);
                let mut texts = self.texts.borrow_mut();
                match texts.get_mut(i as usize) {
                    Some(m) if m.len() < KEY_TEXTS || m.contains_key(&k) => {
                        ctx.set_result(m.entry(k).or_insert_with(|| text(k)).as_str())
                    }
                    _ => ctx.set_result(text(k)),
                }
            }
            None => ctx.set_result(Null),
        }
    }

    fn rowid(&self) -> rusqlite::Result<i64> {
        Ok(self.row as i64)
    }
}
