//! Trace summaries in the PostgreSQL catalog (tables `library_*`,
//! migration 6). A library query runs on a connection of its own, in a
//! `READ ONLY` transaction as the role `etlscope_library` (which may read
//! the library tables and nothing else) with `statement_timeout`, and is
//! rolled back whatever it did.

use super::super::library::{LibraryStore, Summary};
use super::{PgCatalog, CALL_TIMEOUT};
use crate::library::schema::{self, Type};
use ::sql::{Answer, ErrorKind, Limits, SqlError};
use futures_util::{pin_mut, TryStreamExt};
use rusqlite::types::Value;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use tokio_postgres::types::{FromSql, ToSql, Type as PgType};
use tokio_postgres::NoTls;

/// Rows per INSERT statement.
const ROWS_PER_INSERT: usize = 100;

type Param = Box<dyn ToSql + Sync + Send>;

fn param(v: &Value, ty: Type) -> Param {
    match (v, ty) {
        (Value::Integer(i), Type::Integer) => Box::new(*i),
        (Value::Integer(i), Type::Real) => Box::new(*i as f64),
        (Value::Real(r), Type::Real) => Box::new(*r),
        (Value::Real(r), Type::Integer) => Box::new(*r as i64),
        (Value::Text(t), Type::Text) => Box::new(t.clone()),
        (Value::Integer(i), Type::Text) => Box::new(i.to_string()),
        (_, Type::Integer) => Box::new(None::<i64>),
        (_, Type::Real) => Box::new(None::<f64>),
        (_, Type::Text) => Box::new(None::<String>),
    }
}

impl LibraryStore for PgCatalog {
    fn put_summary(&self, s: &Summary) -> anyhow::Result<()> {
        // Statements with their parameters, made here, run in one transaction.
        let mut steps: Vec<(String, Vec<Param>)> = Vec::new();
        for t in schema::TABLES {
            steps.push((
                format!("DELETE FROM {} WHERE trace = $1", t.name),
                vec![Box::new(s.trace.clone())],
            ));
        }
        for (t, rows) in &s.tables {
            let n = t.columns.len();
            for chunk in rows.chunks(ROWS_PER_INSERT) {
                let mut params: Vec<Param> = Vec::with_capacity(chunk.len() * n);
                let mut tuples = Vec::with_capacity(chunk.len());
                for r in chunk {
                    let base = params.len();
                    let marks: Vec<String> = (1..=n).map(|i| format!("${}", base + i)).collect();
                    tuples.push(format!("({})", marks.join(", ")));
                    for (i, c) in t.columns.iter().enumerate() {
                        params.push(param(r.get(i).unwrap_or(&Value::Null), c.ty));
                    }
                }
                steps.push((
                    format!("INSERT INTO {} VALUES {}", t.name, tuples.join(", ")),
                    params,
                ));
            }
        }
        self.call(|c| async move {
            c.batch_execute("BEGIN").await?;
            let run = async {
                for (sql, params) in &steps {
                    let refs: Vec<&(dyn ToSql + Sync)> = params
                        .iter()
                        .map(|b| b.as_ref() as &(dyn ToSql + Sync))
                        .collect();
                    c.execute(sql.as_str(), &refs).await?;
                }
                Ok::<(), tokio_postgres::Error>(())
            };
            match run.await {
                Ok(()) => c.batch_execute("COMMIT").await,
                Err(e) => {
                    let _ = c.batch_execute("ROLLBACK").await;
                    Err(e)
                }
            }
        })
    }

    fn summaries(&self) -> anyhow::Result<Vec<(String, i64)>> {
        let rows = self.rows(
            "SELECT trace, summary_version FROM library_traces",
            Vec::new(),
        )?;
        Ok(rows
            .iter()
            .map(|r| (r.get(0), r.get::<_, Option<i64>>(1).unwrap_or(0)))
            .collect())
    }

    fn library_query(
        &self,
        sql: &str,
        limits: &Limits,
        cancel: &Arc<AtomicBool>,
    ) -> Result<Answer, SqlError> {
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        let fut = run(
            self.url.clone(),
            sql.to_string(),
            *limits,
            Arc::clone(cancel),
        );
        self.rt.spawn(async move {
            let _ = tx.send(fut.await);
        });
        match rx.recv_timeout(limits.timeout + CALL_TIMEOUT) {
            Ok(r) => r,
            Err(_) => Err(SqlError::new(
                ErrorKind::TimedOut,
                format!(
                    "the query ran out of time: no answer within the time limit of {} s",
                    limits.timeout.as_secs_f64()
                ),
            )),
        }
    }
}

async fn run(
    url: String,
    sql: String,
    limits: Limits,
    cancel: Arc<AtomicBool>,
) -> Result<Answer, SqlError> {
    let internal = |e: tokio_postgres::Error| SqlError::new(ErrorKind::Internal, e.to_string());
    let (client, conn) = tokio_postgres::connect(&url, NoTls).await.map_err(|e| {
        SqlError::new(
            ErrorKind::Internal,
            format!("the catalog is unavailable: {e}"),
        )
    })?;
    let conn = tokio::spawn(conn);
    let ms = limits.timeout.as_millis().clamp(1, i32::MAX as u128);
    client
        .batch_execute(&format!(
            "BEGIN READ ONLY; SET LOCAL statement_timeout = {ms}; SET LOCAL idle_in_transaction_session_timeout = {ms}"
        ))
        .await
        .map_err(internal)?;
    if let Err(e) = client
        .batch_execute("SET LOCAL ROLE etlscope_library")
        .await
    {
        conn.abort();
        return Err(SqlError::new(
            ErrorKind::Internal,
            format!(
                "library queries run as the role etlscope_library, which the catalog's user could not create or use ({e}); \
                 create it as docs/guide/sql.md says"
            ),
        ));
    }
    let answer = read(&client, &sql, &limits, &cancel).await;
    let _ = client.batch_execute("ROLLBACK").await;
    drop(client);
    conn.abort();
    answer
}

async fn read(
    client: &tokio_postgres::Client,
    sql: &str,
    limits: &Limits,
    cancel: &AtomicBool,
) -> Result<Answer, SqlError> {
    let explain = |e: tokio_postgres::Error| error(e, sql, limits);
    let stmt = client.prepare(sql).await.map_err(explain)?;
    let columns: Vec<String> = stmt
        .columns()
        .iter()
        .map(|c| c.name().to_string())
        .collect();
    let stream = client
        .query_raw(&stmt, std::iter::empty::<i64>())
        .await
        .map_err(explain)?;
    pin_mut!(stream);
    let mut rows = Vec::new();
    let mut bytes: u64 = 0;
    let mut truncated = false;
    while let Some(row) = stream.try_next().await.map_err(explain)? {
        if cancel.load(Ordering::Relaxed) {
            return Err(SqlError::new(
                ErrorKind::Cancelled,
                "the query was cancelled",
            ));
        }
        if rows.len() >= limits.max_rows {
            truncated = true;
            break;
        }
        let mut cells = Vec::with_capacity(columns.len());
        for i in 0..columns.len() {
            let Cell(v) = row.try_get::<_, Cell>(i).map_err(|e| {
                SqlError::new(ErrorKind::Invalid, format!("column {}: {e}", columns[i]))
            })?;
            bytes += 16
                + match &v {
                    Value::Text(s) => s.len() as u64,
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

/// PostgreSQL's error as ours: the time limit, a refusal (a write, a table
/// the role may not read), or the message with its position as a byte offset.
fn error(e: tokio_postgres::Error, sql: &str, limits: &Limits) -> SqlError {
    let Some(db) = e.as_db_error() else {
        return SqlError::new(ErrorKind::Internal, e.to_string());
    };
    let code = db.code().code();
    let kind = match code {
        "57014" => {
            return SqlError::new(
                ErrorKind::TimedOut,
                format!(
                    "the query ran out of time: stopped at the time limit of {} s",
                    limits.timeout.as_secs_f64()
                ),
            )
        }
        "53200" | "54000" | "54001" => ErrorKind::OutOfMemory,
        // read-only transaction, insufficient privilege
        "25006" | "42501" => ErrorKind::Refused,
        _ => ErrorKind::Invalid,
    };
    let offset = match db.position() {
        Some(tokio_postgres::error::ErrorPosition::Original(p)) => {
            // A 1-based character position.
            let chars = (*p as usize).saturating_sub(1);
            Some(sql.char_indices().nth(chars).map_or(sql.len(), |(b, _)| b))
        }
        _ => None,
    };
    SqlError {
        kind,
        message: db.message().to_string(),
        offset,
    }
}

/// Any column value as SQLite's kinds: numbers as INTEGER or REAL (NUMERIC,
/// as `sum()` of bigint gives, decoded here), text as TEXT.
struct Cell(Value);

impl<'a> FromSql<'a> for Cell {
    fn from_sql(
        ty: &PgType,
        raw: &'a [u8],
    ) -> Result<Self, Box<dyn std::error::Error + Sync + Send>> {
        let v = match *ty {
            PgType::BOOL => Value::Integer(i64::from(bool::from_sql(ty, raw)?)),
            PgType::INT2 => Value::Integer(i16::from_sql(ty, raw)?.into()),
            PgType::INT4 => Value::Integer(i32::from_sql(ty, raw)?.into()),
            PgType::INT8 => Value::Integer(i64::from_sql(ty, raw)?),
            PgType::OID => Value::Integer(u32::from_sql(ty, raw)?.into()),
            PgType::FLOAT4 => Value::Real(f32::from_sql(ty, raw)?.into()),
            PgType::FLOAT8 => Value::Real(f64::from_sql(ty, raw)?),
            PgType::NUMERIC => numeric(raw)?,
            PgType::TEXT | PgType::VARCHAR | PgType::BPCHAR | PgType::NAME | PgType::UNKNOWN => {
                Value::Text(String::from_sql(ty, raw)?)
            }
            _ => {
                return Err(format!(
                    "a value of type {} (cast it to text or to a number)",
                    ty.name()
                )
                .into())
            }
        };
        Ok(Cell(v))
    }

    fn from_sql_null(_: &PgType) -> Result<Self, Box<dyn std::error::Error + Sync + Send>> {
        Ok(Cell(Value::Null))
    }

    fn accepts(_: &PgType) -> bool {
        true
    }
}

/// PostgreSQL's binary NUMERIC: digit count, weight, sign, scale, then
/// base-10000 digits. An integer that fits is an INTEGER, else a REAL.
fn numeric(raw: &[u8]) -> Result<Value, Box<dyn std::error::Error + Sync + Send>> {
    let word = |i: usize| -> Result<u16, String> {
        raw.get(i * 2..i * 2 + 2)
            .map(|b| u16::from_be_bytes([b[0], b[1]]))
            .ok_or_else(|| "a NUMERIC value cut short".to_string())
    };
    let ndigits = word(0)? as usize;
    let weight = word(1)? as i16;
    let sign = word(2)?;
    let scale = word(3)?;
    if sign == 0xC000 {
        return Ok(Value::Real(f64::NAN));
    }
    let mut value = 0f64;
    let mut int: Option<i128> = Some(0);
    for i in 0..ndigits {
        let d = word(4 + i)?;
        let power = i32::from(weight) - i as i32;
        value += f64::from(d) * 10000f64.powi(power);
        int = match (int, power >= 0) {
            (Some(acc), true) => 10000i128
                .checked_pow(power as u32)
                .and_then(|p| p.checked_mul(i128::from(d)))
                .and_then(|dp| acc.checked_add(dp)),
            (acc, false) if d == 0 => acc,
            _ => None,
        };
    }
    let negative = sign == 0x4000;
    match int.and_then(|i| i64::try_from(if negative { -i } else { i }).ok()) {
        Some(i) if scale == 0 => Ok(Value::Integer(i)),
        _ => Ok(Value::Real(if negative { -value } else { value })),
    }
}
