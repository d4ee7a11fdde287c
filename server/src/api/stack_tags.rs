//! Stack tag sets: list, upload (`.stacktags` XML), download and delete;
//! a query names the set its Stack Tag column shows with the header
//! `X-Etlscope-Stack-Tags: NAME` (absent: the built-in `default`).

use super::error::{ApiError, ApiResult};
use super::state::AppState;
use super::traces::read_auth;
use crate::stack_tag_store::PutError;
use crate::store::LoadedTrace;
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::IntoResponse;
use axum::Json;
use query::stack_tags::{StackTags, DEFAULT_NAME};
use serde_json::{json, Value};
use std::sync::Arc;

pub const HEADER: &str = "x-etlscope-stack-tags";

fn set_json(s: &StackTags) -> Value {
    let set = s.matcher.set();
    json!({
        "name": s.name,
        "builtin": s.name == DEFAULT_NAME,
        "tags": set.tags,
        "entries": set.entries.len(),
        "ignored": set.ignored,
    })
}

pub async fn list(State(app): State<AppState>, headers: HeaderMap) -> ApiResult<Json<Value>> {
    read_auth(&app, &headers)?;
    let sets: Vec<Value> = app
        .store
        .stack_tags
        .list()
        .iter()
        .map(|s| set_json(s))
        .collect();
    Ok(Json(json!({ "sets": sets })))
}

pub async fn get(
    State(app): State<AppState>,
    headers: HeaderMap,
    Path(name): Path<String>,
) -> ApiResult<impl IntoResponse> {
    read_auth(&app, &headers)?;
    let xml = app
        .store
        .stack_tags
        .xml(&name)
        .ok_or_else(|| ApiError::not_found(format!("no stack tag set {name:?}")))?;
    Ok((
        [(header::CONTENT_TYPE, "application/xml; charset=utf-8")],
        xml,
    ))
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
    let xml = std::str::from_utf8(&body)
        .map_err(|_| ApiError::bad_request("a .stacktags file must be UTF-8 text"))?;
    // A byte-order mark is common in files saved by Windows tools.
    let xml = xml.strip_prefix('\u{feff}').unwrap_or(xml).to_string();
    let store = app.store.clone();
    let set = tokio::task::spawn_blocking(move || store.stack_tags.put(&name, &xml))
        .await
        .map_err(|e| ApiError::internal(e.to_string()))?
        .map_err(|e| match e {
            PutError::Io(e) => ApiError::internal(e.to_string()),
            e => ApiError::bad_request(e.to_string()),
        })?;
    Ok((StatusCode::CREATED, Json(set_json(&set))))
}

pub async fn delete(
    State(app): State<AppState>,
    headers: HeaderMap,
    Path(name): Path<String>,
) -> ApiResult<StatusCode> {
    if !app.authorized(&headers) {
        return Err(ApiError::unauthorized());
    }
    if name == DEFAULT_NAME {
        return Err(ApiError::bad_request("the built-in set cannot be deleted"));
    }
    match app.store.stack_tags.delete(&name) {
        Ok(true) => Ok(StatusCode::NO_CONTENT),
        Ok(false) => Err(ApiError::not_found(format!("no stack tag set {name:?}"))),
        Err(e) => Err(ApiError::internal(e.to_string())),
    }
}

/// The trace a query runs on: with the set its header names, if any.
pub fn for_query(
    app: &AppState,
    headers: &HeaderMap,
    t: Arc<LoadedTrace>,
) -> ApiResult<Arc<LoadedTrace>> {
    let Some(v) = headers.get(HEADER) else {
        return Ok(t);
    };
    let name = v
        .to_str()
        .map_err(|_| ApiError::bad_request("bad X-Etlscope-Stack-Tags header"))?
        .trim();
    if name.is_empty() {
        return Ok(t);
    }
    let set = app
        .store
        .stack_tags
        .get(name)
        .ok_or_else(|| ApiError::bad_request(format!("no stack tag set {name:?}")))?;
    Ok(app.store.stack_tags.tagged(&t, set))
}
