//! Running one statement: the connection with every table and function of
//! the trace, the statement's limits, and its answer or a clear error
//! (SQLite's message, and the byte offset of the token it points at).

use crate::guard::{self, Refusals, Watch};
use crate::{functions, list_table, lists, schema, trace_table};
use model::Trace;
use rusqlite::types::Value;
use rusqlite::vtab::Module;
use rusqlite::Connection;
use std::fmt;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The limits of one query (`etlscope sql --max-rows --timeout`, the
/// server's `--sql-*` flags).
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Rows returned at most; more set `truncated`.
    pub max_rows: usize,
    pub timeout: Duration,
    /// Bytes SQLite and the answer may take.
    pub memory_bytes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_rows: 10_000,
            timeout: Duration::from_secs(30),
            memory_bytes: 512 << 20,
        }
    }
}

/// A query's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<Value>>,
    /// Rows were left out: `max_rows` or the memory limit was reached.
    pub truncated: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The SQL is wrong (syntax, unknown table or column, a function's error).
    Invalid,
    /// The SQL would do more than read (writes, ATTACH, PRAGMA, extensions).
    Refused,
    TimedOut,
    OutOfMemory,
    Cancelled,
    /// Something on our side.
    Internal,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SqlError {
    pub kind: ErrorKind,
    pub message: String,
    /// Byte offset in the SQL of the token the error points at.
    pub offset: Option<usize>,
}

impl fmt::Display for SqlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.offset {
            Some(o) => write!(f, "{} (at byte {o})", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for SqlError {}

impl SqlError {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> SqlError {
        SqlError {
            kind,
            message: message.into(),
            offset: None,
        }
    }
}

/// A connection over `trace`: every WPA table, the lists and the functions.
pub fn connect(trace: &Arc<Trace>) -> Result<(Connection, Refusals), SqlError> {
    let internal = |e: rusqlite::Error| SqlError::new(ErrorKind::Internal, e.to_string());
    let (conn, refusals) = guard::open().map_err(internal)?;
    for (sql_name, api_name) in schema::trace_tables() {
        const MODULE: Module<'static, trace_table::TraceTable> = Module::eponymous_only_module();
        let aux = trace_table::Aux {
            trace: trace.clone(),
            api_name,
        };
        conn.create_module(sql_name.as_str(), &MODULE, Some(aux))
            .map_err(internal)?;
    }
    for list in lists::LISTS {
        const MODULE: Module<'static, list_table::ListTable> = Module::eponymous_only_module();
        let aux = list_table::Aux {
            trace: trace.clone(),
            list,
        };
        conn.create_module(list.name, &MODULE, Some(aux))
            .map_err(internal)?;
    }
    functions::install(&conn, trace).map_err(internal)?;
    Ok((conn, refusals))
}

/// Runs `sql` (one statement) on `trace` within `limits`; `cancel` set by
/// another thread stops it.
pub fn query(
    trace: &Arc<Trace>,
    sql: &str,
    limits: &Limits,
    cancel: &Arc<AtomicBool>,
) -> Result<Answer, SqlError> {
    let (conn, refusals) = connect(trace)?;
    run(conn, &refusals, sql, limits, cancel)
}

/// Runs `sql` (one statement) on the database file `path` (opened
/// read-only), reading only the tables `readable` allows, within `limits`;
/// the library's queries (`etlscope sql --library`, `POST /api/sql`).
pub fn query_file(
    path: &Path,
    readable: fn(&str) -> bool,
    sql: &str,
    limits: &Limits,
    cancel: &Arc<AtomicBool>,
) -> Result<Answer, SqlError> {
    let (conn, refusals) = guard::open_file(path, readable).map_err(|e| {
        SqlError::new(
            ErrorKind::Internal,
            format!("cannot open {}: {e}", path.display()),
        )
    })?;
    run(conn, &refusals, sql, limits, cancel)
}

fn run(
    mut conn: Connection,
    refusals: &Refusals,
    sql: &str,
    limits: &Limits,
    cancel: &Arc<AtomicBool>,
) -> Result<Answer, SqlError> {
    let reason = Arc::new(AtomicU8::new(guard::RUNNING));
    let start = Instant::now();
    guard::watch(
        &mut conn,
        Watch {
            deadline: start + limits.timeout,
            cancel: cancel.clone(),
            memory_bytes: limits.memory_bytes,
            reason: reason.clone(),
        },
    )
    .map_err(|e| SqlError::new(ErrorKind::Internal, e.to_string()))?;
    let explain = |e: rusqlite::Error| error(e, refusals, &reason, limits);
    let mut stmt = conn.prepare(sql).map_err(explain)?;
    if !stmt.readonly() {
        return Err(SqlError::new(
            ErrorKind::Refused,
            "only statements that read (SELECT, WITH) are allowed",
        ));
    }
    let columns: Vec<String> = stmt.column_names().map(|s| s.to_string()).collect();
    let n = columns.len();
    let mut rows = Vec::new();
    let mut bytes: u64 = 0;
    let mut truncated = false;
    let mut cursor = stmt.query([]).map_err(explain)?;
    while let Some(row) = cursor.next().map_err(explain)? {
        if rows.len() >= limits.max_rows {
            truncated = true;
            break;
        }
        let mut cells = Vec::with_capacity(n);
        for i in 0..n {
            let v: Value = row.get(i).map_err(explain)?;
            bytes += 16
                + match &v {
                    Value::Text(s) => s.len() as u64,
                    Value::Blob(b) => b.len() as u64,
                    _ => 0,
                };
            cells.push(v);
        }
        rows.push(cells);
        if bytes > limits.memory_bytes {
            truncated = true;
            break;
        }
    }
    Ok(Answer {
        columns,
        rows,
        truncated,
    })
}

/// SQLite's error as ours: a stop of the progress handler said as the
/// limit it was, a refusal with what was refused, SQLite's message and
/// offset otherwise.
fn error(e: rusqlite::Error, refusals: &Refusals, reason: &AtomicU8, limits: &Limits) -> SqlError {
    match reason.load(Ordering::Relaxed) {
        guard::TIMED_OUT => {
            return SqlError::new(
                ErrorKind::TimedOut,
                format!(
                    "the query ran out of time: stopped at the time limit of {} s",
                    limits.timeout.as_secs_f64()
                ),
            )
        }
        guard::CANCELLED => return SqlError::new(ErrorKind::Cancelled, "the query was cancelled"),
        guard::OUT_OF_MEMORY => {
            return SqlError::new(
                ErrorKind::OutOfMemory,
                format!(
                    "the query needed more than its memory limit of {} MiB",
                    limits.memory_bytes >> 20
                ),
            )
        }
        _ => {}
    }
    if let Some(why) = refusals.lock().ok().and_then(|mut r| r.take()) {
        return SqlError::new(ErrorKind::Refused, why);
    }
    match e {
        rusqlite::Error::SqlInputError { msg, offset, .. } => SqlError {
            kind: ErrorKind::Invalid,
            message: msg,
            offset: usize::try_from(offset).ok(),
        },
        rusqlite::Error::MultipleStatement => SqlError::new(
            ErrorKind::Invalid,
            "one statement at a time: remove what follows the first `;`",
        ),
        rusqlite::Error::SqliteFailure(f, msg) => {
            let big = f.code == rusqlite::ErrorCode::TooBig;
            let m = msg.unwrap_or_else(|| f.to_string());
            if big {
                SqlError::new(
                    ErrorKind::OutOfMemory,
                    format!(
                        "{m} (strings and blobs are limited to {} bytes)",
                        guard::MAX_VALUE_BYTES
                    ),
                )
            } else {
                SqlError::new(ErrorKind::Invalid, m)
            }
        }
        other => SqlError::new(ErrorKind::Invalid, other.to_string()),
    }
}
