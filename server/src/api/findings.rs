//! `GET /api/traces/{id}/findings`: the list `etlscope findings --format
//! json` prints (`crate::findings_json`), run on the trace's engine.

use super::error::{ApiError, ApiResult};
use super::state::AppState;
use super::traces::{loaded, read_auth};
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::Json;
use serde_json::{json, Value};

pub async fn get(
    State(app): State<AppState>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> ApiResult<Json<Value>> {
    read_auth(&app, &headers)?;
    let t = loaded(&app, &id).await?;
    let list = tokio::task::spawn_blocking(move || query::findings::run(&t.engine))
        .await
        .map_err(|e| ApiError::internal(e.to_string()))?;
    Ok(Json(
        json!({ "findings": crate::findings_json::findings_json(&list) }),
    ))
}
