//! A trace's symbols, as the Symbols panel drives them: `GET
//! /api/traces/{id}/symbols` (each module's PDB identity, status and where
//! it was looked for; progress while a lookup runs; the symbol path),
//! `PUT` the trace's own symbol path (kept in the catalog), `POST .../load`
//! to look up again along it, `POST .../cancel` to stop.

use super::error::{ApiError, ApiResult};
use super::state::AppState;
use super::traces::{loaded, read_auth};
use crate::store::SymbolState;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};
use std::sync::atomic::Ordering;

/// Longest symbol path accepted (WPA's dialog has no limit; 8 KiB is plenty).
const MAX_PATH_LEN: usize = 8192;

pub async fn get(
    State(app): State<AppState>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> ApiResult<Json<Value>> {
    read_auth(&app, &headers)?;
    Ok(Json(state_json(&app, &id).await?))
}

/// The symbol state of trace `id` (see the module comment).
pub async fn state_json(app: &AppState, id: &str) -> ApiResult<Value> {
    let t = loaded(app, id).await?;
    let mut v = {
        let state = t
            .symbols
            .lock()
            .map_err(|_| ApiError::internal("symbol state lock poisoned"))?;
        match &*state {
            SymbolState::Pending => json!({"status": "pending", "modules": []}),
            SymbolState::Running(p) => json!({"status": "running", "progress": {
                "modules_done": p.modules_done.load(Ordering::Relaxed),
                "modules_total": p.modules_total.load(Ordering::Relaxed),
            }, "modules": crate::symbolize::running_json(t.trace(), p)}),
            SymbolState::Done(d) => json!({"status": "done", "modules": d.modules,
                "warnings": d.warnings, "searched": d.searched, "cancelled": d.cancelled}),
        }
    };
    let own = app.store.catalog.symbol_path(id)?;
    v["symbol_path"] = json!(own);
    v["default_symbol_path"] = json!(app.store.symbol_path);
    Ok(v)
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PathBody {
    /// `_NT_SYMBOL_PATH` syntax; null (or empty) to use the server's again.
    pub symbol_path: Option<String>,
}

/// Set the trace's own symbol path; takes effect at the next lookup.
pub async fn put_path(
    State(app): State<AppState>,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: axum::body::Bytes,
) -> ApiResult<Json<Value>> {
    super::receive::require_auth(&app, &headers)?;
    // Read as JSON whatever its Content-Type, as the query endpoints do.
    let body: PathBody = serde_json::from_slice(&body)
        .map_err(|e| ApiError::bad_request(format!("bad body: {e}")))?;
    set_path(&app, &id, body.symbol_path.as_deref())
        .await
        .map(Json)
}

/// Keep `path` as the trace's own symbol path (None or blank: the
/// server's again); answers the symbol state.
pub async fn set_path(app: &AppState, id: &str, path: Option<&str>) -> ApiResult<Value> {
    super::traces::check_id(id)?;
    if app.store.catalog.get(id)?.is_none() {
        return Err(super::traces::no_trace(app, id));
    }
    let path = path.map(str::trim).filter(|p| !p.is_empty());
    if let Some(p) = path {
        if p.len() > MAX_PATH_LEN || p.chars().any(char::is_control) {
            return Err(ApiError::bad_request(format!(
                "symbol_path must be one line of at most {MAX_PATH_LEN} bytes"
            )));
        }
    }
    app.store.catalog.set_symbol_path(id, path)?;
    state_json(app, id).await
}

/// Start looking the trace's symbols up again (202), or 409 if a lookup runs.
pub async fn load(
    State(app): State<AppState>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> ApiResult<(StatusCode, Json<Value>)> {
    super::receive::require_auth(&app, &headers)?;
    Ok((StatusCode::ACCEPTED, Json(start_load(&app, &id).await?)))
}

/// Start looking the trace's symbols up again; answers the symbol state.
pub async fn start_load(app: &AppState, id: &str) -> ApiResult<Value> {
    let t = loaded(app, id).await?;
    if !app.store.load_symbols(t)? {
        return Err(ApiError::new(
            StatusCode::CONFLICT,
            "symbols_running",
            "a symbol lookup is already running for this trace; cancel it or wait",
        ));
    }
    state_json(app, id).await
}

/// Stop the running lookup: modules not yet started end `cancelled`; names
/// found so far are kept.
pub async fn cancel(
    State(app): State<AppState>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> ApiResult<Json<Value>> {
    super::receive::require_auth(&app, &headers)?;
    let t = loaded(&app, &id).await?;
    if let Ok(SymbolState::Running(p)) = t.symbols.lock().as_deref() {
        p.cancel();
    }
    Ok(Json(state_json(&app, &id).await?))
}
