//! `POST /api/traces/{id}/sql` `{"sql": "SELECT ...", "max_rows": N, "timeout_ms": N}`:
//! one read-only SQL query over a loaded trace (crates/sql), within the
//! server's limits (`serve --sql-max-rows --sql-timeout-secs --sql-memory-mb`;
//! a request may ask for less, not more). Its memory is reserved under the
//! server's budget before it runs, and it stops when the client goes away.
//! A wrong statement is a 400 with SQLite's message and the byte offset.
//! `POST /api/sql` takes the same body and answers the same way over the
//! library's trace summaries in the catalog (docs/guide/sql.md, "Library").

use super::error::{ApiError, ApiResult};
use super::query::CancelOnDrop;
use super::state::AppState;
use super::traces::{loaded, read_auth};
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SqlRequest {
    pub sql: String,
    /// At most the server's `--sql-max-rows`.
    #[serde(default)]
    pub max_rows: Option<usize>,
    /// At most the server's `--sql-timeout-secs`.
    #[serde(default)]
    pub timeout_ms: Option<u64>,
}

/// The server's limits, narrowed by what the request asks.
fn limits(server: &::sql::Limits, req: &SqlRequest) -> ::sql::Limits {
    let mut l = *server;
    if let Some(n) = req.max_rows {
        l.max_rows = l.max_rows.min(n);
    }
    if let Some(ms) = req.timeout_ms {
        l.timeout = l.timeout.min(Duration::from_millis(ms));
    }
    l
}

pub fn sql_error(e: ::sql::SqlError) -> ApiError {
    use ::sql::ErrorKind as K;
    let (status, code) = match e.kind {
        K::Invalid => (StatusCode::BAD_REQUEST, "bad_sql"),
        K::Refused => (StatusCode::BAD_REQUEST, "sql_refused"),
        K::TimedOut => (StatusCode::UNPROCESSABLE_ENTITY, "sql_timeout"),
        K::OutOfMemory => (StatusCode::UNPROCESSABLE_ENTITY, "sql_memory"),
        K::Cancelled => (StatusCode::SERVICE_UNAVAILABLE, "cancelled"),
        K::Internal => (StatusCode::INTERNAL_SERVER_ERROR, "internal"),
    };
    let mut err = ApiError::new(status, code, e.message.clone());
    err.detail = Some(json!({ "position": e.offset }));
    err
}

pub async fn sql(
    State(app): State<AppState>,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: axum::body::Bytes,
) -> ApiResult<Json<Value>> {
    read_auth(&app, &headers)?;
    let req: SqlRequest = serde_json::from_slice(&body)
        .map_err(|e| ApiError::bad_request(format!("bad sql request: {e}")))?;
    sql_value(&app, &id, req).await.map(Json)
}

/// `GET /api/sql/schema`: the SQL tables with their columns, and the
/// functions, from crates/sql's declarations (the Query tab's completion).
pub async fn schema(State(app): State<AppState>, headers: HeaderMap) -> ApiResult<Json<Value>> {
    read_auth(&app, &headers)?;
    Ok(Json(::sql::schema::json()))
}

pub async fn library_sql(
    State(app): State<AppState>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> ApiResult<Json<Value>> {
    read_auth(&app, &headers)?;
    let req: SqlRequest = serde_json::from_slice(&body)
        .map_err(|e| ApiError::bad_request(format!("bad sql request: {e}")))?;
    library_value(&app, req).await.map(Json)
}

/// One SQL request on trace `id` within the server's limits: the endpoint's
/// answer, and the MCP `sql` tool's.
pub async fn sql_value(app: &AppState, id: &str, req: SqlRequest) -> ApiResult<Value> {
    check_length(&req)?;
    let t = loaded(app, id).await?;
    let trace = t.engine.trace_arc();
    bounded(app, req, move |sql, limits, flag| {
        ::sql::query(&trace, sql, limits, flag)
    })
    .await
}

/// One SQL request over the library's summaries within the server's limits.
pub async fn library_value(app: &AppState, req: SqlRequest) -> ApiResult<Value> {
    check_length(&req)?;
    let store = app.store.clone();
    bounded(app, req, move |sql, limits, flag| {
        store.catalog.library_query(sql, limits, flag)
    })
    .await
}

fn check_length(req: &SqlRequest) -> ApiResult<()> {
    if req.sql.len() > ::sql::MAX_SQL_BYTES as usize {
        return Err(ApiError::bad_request(format!(
            "the statement is {} bytes, more than the {} accepted",
            req.sql.len(),
            ::sql::MAX_SQL_BYTES
        )));
    }
    Ok(())
}

/// Runs `run` on a blocking thread within the server's limits narrowed by the
/// request: its memory reserved under the budget first, stopped when the client
/// goes away (this future is dropped), answered as JSON with its time.
async fn bounded(
    app: &AppState,
    req: SqlRequest,
    run: impl FnOnce(&str, &::sql::Limits, &Arc<AtomicBool>) -> Result<::sql::Answer, ::sql::SqlError>
        + Send
        + 'static,
) -> ApiResult<Value> {
    let limits = limits(&app.config.sql, &req);
    // Dropped with this future when the client goes away: the query stops.
    let cancel = CancelOnDrop(Arc::new(AtomicBool::new(false)));
    let flag = Arc::clone(&cancel.0);
    let store = app.store.clone();
    let answer = tokio::task::spawn_blocking(move || {
        let start = Instant::now();
        let gave_up = || flag.load(Ordering::Relaxed);
        let _ticket = store
            .admit_query(limits.memory_bytes, &gave_up)
            .map_err(|m| ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "busy", m))?;
        let a = run(&req.sql, &limits, &flag).map_err(sql_error)?;
        let mut out = ::sql::output::json(&a);
        if let Some(o) = out.as_object_mut() {
            o.insert("seconds".into(), json!(start.elapsed().as_secs_f64()));
        }
        Ok::<_, ApiError>(out)
    })
    .await
    .map_err(|e| ApiError::internal(e.to_string()))??;
    drop(cancel);
    Ok(answer)
}
