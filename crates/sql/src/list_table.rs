//! The lists of `lists.rs` (`stacks`, `frames`, `modules`, `trace_info`)
//! as SQLite virtual tables: cells read from the model per request, and
//! `id = ?` on a keyed list's first column read as one row.

use crate::lists::ListDef;
use crate::pushdown::{self, integer, Op, Takes};
use crate::schema;
use model::Trace;
use rusqlite::ffi;
use rusqlite::types::Value;
use rusqlite::vtab::{Context, Filters, IndexInfo, VTab, VTabConfig, VTabConnection, VTabCursor};
use std::borrow::Cow;
use std::ffi::{c_int, CStr, CString};
use std::sync::Arc;

pub struct Aux {
    pub trace: Arc<Trace>,
    pub list: &'static ListDef,
}

#[repr(C)]
pub struct ListTable {
    /// SQLite's part; must come first.
    base: ffi::sqlite3_vtab,
    trace: Arc<Trace>,
    list: &'static ListDef,
}

unsafe impl<'vtab> VTab<'vtab> for ListTable {
    type Aux = Aux;
    type Cursor = ListCursor<'vtab>;

    fn connect(
        db: &mut VTabConnection,
        aux: Option<&Aux>,
        _module: &[u8],
        _database: &[u8],
        _table: &[u8],
        _args: &[&[u8]],
    ) -> rusqlite::Result<(Cow<'static, CStr>, ListTable)> {
        let aux = aux.ok_or_else(|| rusqlite::Error::ModuleError("list without a trace".into()))?;
        let decl: Vec<(String, &'static str)> = aux
            .list
            .columns
            .iter()
            .map(|&(n, t)| (n.to_string(), t))
            .collect();
        let create = CString::new(schema::create_statement(&decl))
            .map_err(|_| rusqlite::Error::ModuleError("a column name holds a NUL".into()))?;
        db.config(VTabConfig::Innocuous)?;
        Ok((
            Cow::Owned(create),
            ListTable {
                base: ffi::sqlite3_vtab::default(),
                trace: aux.trace.clone(),
                list: aux.list,
            },
        ))
    }

    fn best_index(&self, info: &mut IndexInfo) -> rusqlite::Result<bool> {
        let keyed = self.list.keyed;
        let rows = (self.list.rows)(&self.trace);
        pushdown::plan(info, rows, |col| {
            if keyed && col == 0 {
                Takes::Compare
            } else {
                Takes::Nothing
            }
        });
        Ok(true)
    }

    fn open(&'vtab mut self) -> rusqlite::Result<ListCursor<'vtab>> {
        let this: &'vtab ListTable = self;
        Ok(ListCursor {
            base: ffi::sqlite3_vtab_cursor::default(),
            table: this,
            row: 0,
            end: 0,
        })
    }
}

#[repr(C)]
pub struct ListCursor<'vtab> {
    /// SQLite's part; must come first.
    base: ffi::sqlite3_vtab_cursor,
    table: &'vtab ListTable,
    row: usize,
    end: usize,
}

unsafe impl VTabCursor for ListCursor<'_> {
    fn filter(
        &mut self,
        _idx_num: c_int,
        idx_str: Option<&str>,
        args: &Filters<'_>,
    ) -> rusqlite::Result<()> {
        let t = &*self.table.trace;
        let (mut lo, mut hi) = (0usize, (self.table.list.rows)(t));
        for (i, p) in pushdown::decode(idx_str).into_iter().enumerate() {
            let v: Value = args.get(i)?;
            if p.column != 0 {
                continue;
            }
            let Some(x) = integer(&v) else {
                if v == Value::Null {
                    hi = lo;
                }
                continue;
            };
            // The row number column: a range of rows.
            let x = x.clamp(-1, hi as i64);
            let (a, b) = match p.op {
                Op::Eq => (x, x + 1),
                Op::Gt => (x + 1, i64::MAX),
                Op::Ge => (x, i64::MAX),
                Op::Lt => (0, x),
                Op::Le => (0, x + 1),
            };
            lo = lo.max(a.max(0) as usize);
            hi = hi.min(b.max(0).min(usize::MAX as i64) as usize);
        }
        self.row = lo;
        self.end = hi.max(lo);
        Ok(())
    }

    fn next(&mut self) -> rusqlite::Result<()> {
        self.row += 1;
        Ok(())
    }

    fn eof(&self) -> bool {
        self.row >= self.end
    }

    fn column(&self, ctx: &mut Context, i: c_int) -> rusqlite::Result<()> {
        let v = (self.table.list.cell)(&self.table.trace, self.row, i.max(0) as usize);
        ctx.set_result(&v)
    }

    fn rowid(&self) -> rusqlite::Result<i64> {
        Ok(self.row as i64)
    }
}
