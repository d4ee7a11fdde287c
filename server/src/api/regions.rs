//! Regions files (WPA Regions of Interest): list, upload, download and
//! delete; a query names the file its view uses with the header
//! `X-Etlscope-Regions: NAME` (absent or empty: the trace's own, from
//! `--regions FILE`, if any).

use super::error::{ApiError, ApiResult};
use super::state::AppState;
use super::traces::read_auth;
use crate::region_store::PutError;
use crate::store::LoadedTrace;
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::IntoResponse;
use axum::Json;
use regions::RegionSet;
use serde_json::{json, Value};
use std::sync::Arc;

pub const HEADER: &str = "x-etlscope-regions";

fn set_json(name: &str, s: &RegionSet) -> Value {
    json!({
        "name": name,
        "regions": s.regions.len(),
        "timed": s.regions.iter().filter(|r| r.is_timed()).count(),
        "labels": s.regions.iter().take(50).map(|r| r.path.join("/")).collect::<Vec<_>>(),
        "notices": s.notices,
    })
}

pub async fn list(State(app): State<AppState>, headers: HeaderMap) -> ApiResult<Json<Value>> {
    read_auth(&app, &headers)?;
    let sets: Vec<Value> = app
        .store
        .regions
        .list()
        .iter()
        .map(|(n, s)| set_json(n, s))
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
        .regions
        .xml(&name)
        .ok_or_else(|| ApiError::not_found(format!("no regions file {name:?}")))?;
    Ok(([(header::CONTENT_TYPE, "application/xml")], xml))
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
    let key = name.clone();
    let set = tokio::task::spawn_blocking(move || store.regions.put(&key, &body))
        .await
        .map_err(|e| ApiError::internal(e.to_string()))?
        .map_err(|e| match e {
            PutError::Io(e) => ApiError::internal(e.to_string()),
            // The file itself is at fault: its error names the line.
            PutError::Parse(m) => {
                ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "bad_regions_file", m)
            }
            e => ApiError::bad_request(e.to_string()),
        })?;
    Ok((StatusCode::CREATED, Json(set_json(&name, &set))))
}

pub async fn delete(
    State(app): State<AppState>,
    headers: HeaderMap,
    Path(name): Path<String>,
) -> ApiResult<StatusCode> {
    if !app.authorized(&headers) {
        return Err(ApiError::unauthorized());
    }
    match app.store.regions.delete(&name) {
        Ok(true) => Ok(StatusCode::NO_CONTENT),
        Ok(false) => Err(ApiError::not_found(format!("no regions file {name:?}"))),
        Err(e) => Err(ApiError::internal(e.to_string())),
    }
}

/// The regions file the request's header names: `None` for the trace's
/// own; an unknown name is the request's error.
pub fn chosen(app: &AppState, headers: &HeaderMap) -> ApiResult<Option<Chosen>> {
    let Some(v) = headers.get(HEADER) else {
        return Ok(None);
    };
    let name = v
        .to_str()
        .map_err(|_| ApiError::bad_request("bad X-Etlscope-Regions header"))?
        .trim();
    if name.is_empty() {
        return Ok(None);
    }
    let set = app
        .store
        .regions
        .get(name)
        .ok_or_else(|| ApiError::bad_request(format!("no regions file {name:?}")))?;
    Ok(Some((name.to_string(), set)))
}

/// A regions file's name and definitions.
pub type Chosen = (String, Arc<RegionSet>);

/// `t` with the regions of `chosen` (a scan of its events on first use:
/// call off the async runtime).
pub fn apply(app: &AppState, t: Arc<LoadedTrace>, chosen: Option<Chosen>) -> Arc<LoadedTrace> {
    match chosen {
        None => t,
        Some((name, set)) => app.store.regions.applied(&t, &name, set),
    }
}

/// The trace a query runs on: with the regions file its header names, if any.
pub fn for_query(
    app: &AppState,
    headers: &HeaderMap,
    t: Arc<LoadedTrace>,
) -> ApiResult<Arc<LoadedTrace>> {
    let chosen = chosen(app, headers)?;
    Ok(apply(app, t, chosen))
}
