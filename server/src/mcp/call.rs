//! What every tool does around its own work: a time limit, the API's errors
//! as tool errors (the same `{"error": {"code", "message"}}` the API
//! answers), the trace it names, and who may change anything.

use super::{Etlscope, Transport};
use crate::api::error::{ApiError, ApiResult};
use crate::api::query::compute_on;
use crate::api::traces::loaded;
use crate::store::LoadedTrace;
use axum::http::StatusCode;
use rmcp::model::CallToolResult;
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use serde_json::{json, Value};
use std::future::Future;
use std::time::Duration;

/// Longest a tool call may take (waiting for an ingest included); past it the
/// scan is cancelled and the call answers a tool error. 60 s, or
/// `ETLSCOPE_MCP_CALL_LIMIT_MS` (1 ms to 1 h) for a server that needs another.
pub fn call_limit() -> Duration {
    static LIMIT: std::sync::OnceLock<Duration> = std::sync::OnceLock::new();
    *LIMIT.get_or_init(|| {
        let ms = std::env::var("ETLSCOPE_MCP_CALL_LIMIT_MS")
            .ok()
            .and_then(|v| v.trim().parse::<u64>().ok())
            .unwrap_or(60_000)
            .clamp(1, 3_600_000);
        Duration::from_millis(ms)
    })
}
/// Most rows a tool answers: an agent reads the top of a table and drills,
/// never a whole 10M-row table.
pub const MAX_ROWS: u64 = 500;
pub const DEFAULT_ROWS: u64 = 25;

pub type ToolResult = Result<CallToolResult, ErrorData>;

/// An API error as a tool error, with the body the API would answer.
pub fn tool_error(e: ApiError) -> CallToolResult {
    let mut err = json!({"code": e.code, "message": e.message});
    if let (Some(Value::Object(extra)), Some(obj)) = (e.detail, err.as_object_mut()) {
        obj.extend(extra);
    }
    CallToolResult::structured_error(json!({ "error": err }))
}

/// Run one tool's work under [`call_limit`]; its answer (JSON) or its error.
pub async fn finish<F>(work: F) -> ToolResult
where
    F: Future<Output = ApiResult<Value>>,
{
    let limit = call_limit();
    Ok(match tokio::time::timeout(limit, work).await {
        Ok(Ok(v)) => CallToolResult::structured(v),
        Ok(Err(e)) => tool_error(e),
        // The work's future is dropped here, which cancels its scan.
        Err(_) => tool_error(ApiError::new(
            StatusCode::GATEWAY_TIMEOUT,
            "timeout",
            format!(
                "the call took longer than {} s, the limit of one tool call; narrow its range, filters or path",
                limit.as_secs_f64()
            ),
        )),
    })
}

/// `compute` on trace `id` (waiting a little for an ingest under way), off
/// the async runtime, as the API's query endpoints run.
pub async fn on_trace<T, F>(e: &Etlscope, id: &str, compute: F) -> ApiResult<T>
where
    T: Send + 'static,
    F: FnOnce(&LoadedTrace) -> ApiResult<T> + Send + 'static,
{
    let t = loaded(&e.app, id).await?;
    compute_on(t, compute).await
}

/// A `limit` argument checked against [`MAX_ROWS`].
pub fn rows_limit(limit: Option<u64>) -> ApiResult<usize> {
    let n = limit.unwrap_or(DEFAULT_ROWS);
    if (1..=MAX_ROWS).contains(&n) {
        Ok(n as usize)
    } else {
        Err(ApiError::bad_request(format!(
            "limit {n} is out of range: tools answer 1 to {MAX_ROWS} rows (default {DEFAULT_ROWS}); drill with path or narrow with filters for the rest"
        )))
    }
}

/// A count argument (levels, boxes per level) checked against its range.
pub fn bounded(name: &str, v: Option<u64>, default: u64, max: u64) -> ApiResult<usize> {
    let n = v.unwrap_or(default);
    if (1..=max).contains(&n) {
        Ok(n as usize)
    } else {
        Err(ApiError::bad_request(format!(
            "{name} {n} is out of range: 1 to {max} (default {default})"
        )))
    }
}

/// An API request body built from a tool's arguments, read by the API's own
/// types: the same checks and messages (`bad query: ...`) as over HTTP.
pub fn api_request<S: serde::de::DeserializeOwned>(body: Value) -> ApiResult<S> {
    serde_json::from_value(body).map_err(|e| ApiError::bad_request(format!("bad query: {e}")))
}

/// The HTTP request behind a call over `/mcp` (none over stdio).
fn http_parts(ctx: &RequestContext<RoleServer>) -> Option<&axum::http::request::Parts> {
    ctx.extensions.get::<axum::http::request::Parts>()
}

impl Etlscope {
    /// Changes (a symbol path, a new lookup) need what the API's writes
    /// need: over HTTP the token when the server has one; over stdio the
    /// local user may.
    pub fn may_write(&self, ctx: &RequestContext<RoleServer>) -> ApiResult<()> {
        match self.transport {
            Transport::Stdio { .. } => Ok(()),
            Transport::Http => {
                let ok = http_parts(ctx).is_some_and(|p| self.app.authorized(&p.headers));
                if ok {
                    Ok(())
                } else {
                    Err(ApiError::unauthorized())
                }
            }
        }
    }

    /// Where links point: the UI URL given to `etlscope mcp`, or the server
    /// the client reached (`--public-url`'s origin behind a proxy).
    pub fn ui_base(&self, ctx: &RequestContext<RoleServer>) -> String {
        match &self.transport {
            Transport::Stdio { ui_url } => ui_url.trim_end_matches('/').to_string(),
            Transport::Http => {
                if let Some(o) = &self.app.config.allowed_hosts.public_origin {
                    return o.clone();
                }
                // The guard has checked the Host names this server.
                let host = http_parts(ctx)
                    .and_then(|p| p.headers.get(axum::http::header::HOST))
                    .and_then(|h| h.to_str().ok())
                    .unwrap_or("127.0.0.1:8717");
                format!("http://{host}")
            }
        }
    }
}
