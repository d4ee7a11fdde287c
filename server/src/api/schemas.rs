//! Schema packs of the library: list, upload (an instrumentation manifest
//! or a pack; stored as a pack) and delete. Stored packs name and decode
//! the providers of every trace loaded after them; a loaded trace with a
//! provider of a new pack is loaded again on its next use.

use super::error::{ApiError, ApiResult};
use super::state::AppState;
use super::traces::read_auth;
use crate::schema_store::summary;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::Json;
use serde_json::{json, Value};

pub async fn list(State(app): State<AppState>, headers: HeaderMap) -> ApiResult<Json<Value>> {
    read_auth(&app, &headers)?;
    let packs: Vec<Value> = app
        .store
        .schemas
        .list()
        .iter()
        .map(|(n, p)| summary(n, p))
        .collect();
    Ok(Json(json!({ "packs": packs })))
}

pub async fn put(
    State(app): State<AppState>,
    headers: HeaderMap,
    Path(name): Path<String>,
    body: axum::body::Bytes,
) -> ApiResult<(StatusCode, Json<Value>)> {
    if !app.authorized(&headers) {
        return Err(ApiError::unauthorized());
    }
    let store = app.store.clone();
    let (pack, reloaded) = tokio::task::spawn_blocking(move || {
        let p = store.schemas.put(&name, &body)?;
        let guids: Vec<etl::Guid> = p.providers.iter().map(|p| p.guid).collect();
        let reloaded = store.unload_with_providers(&guids);
        Ok::<_, String>(((name, p), reloaded))
    })
    .await
    .map_err(|e| ApiError::internal(e.to_string()))?
    .map_err(ApiError::bad_request)?;
    let mut v = summary(&pack.0, &pack.1);
    v["reloaded_traces"] = json!(reloaded);
    Ok((StatusCode::CREATED, Json(v)))
}

pub async fn delete(
    State(app): State<AppState>,
    headers: HeaderMap,
    Path(name): Path<String>,
) -> ApiResult<StatusCode> {
    if !app.authorized(&headers) {
        return Err(ApiError::unauthorized());
    }
    match app.store.schemas.delete(&name) {
        Ok(true) => Ok(StatusCode::NO_CONTENT),
        Ok(false) => Err(ApiError::not_found(format!("no schema pack {name:?}"))),
        Err(e) => Err(ApiError::internal(e.to_string())),
    }
}
