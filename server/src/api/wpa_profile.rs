//! `POST /api/wpa-profile`: a `.wpaProfile`'s XML in, its presets mapped
//! onto etlscope's tables out (`crate::wpa_profile`), so that the UI never
//! parses the file itself. Nothing is stored.

use super::error::{ApiError, ApiResult};
use super::state::AppState;
use super::traces::read_auth;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::Json;
use serde_json::Value;

pub async fn map(
    State(app): State<AppState>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> ApiResult<Json<Value>> {
    read_auth(&app, &headers)?;
    let xml = std::str::from_utf8(&body)
        .map_err(|_| ApiError::bad_request("a .wpaProfile must be UTF-8 text"))?
        .to_string();
    let answer = tokio::task::spawn_blocking(move || {
        crate::wpa_profile::read(&xml).map(|(p, m)| crate::wpa_profile::to_json(&p, &m))
    })
    .await
    .map_err(|e| ApiError::internal(e.to_string()))?
    .map_err(|e| ApiError::bad_request(format!("the profile: {e}")))?;
    Ok(Json(answer))
}
