//! One JSON error shape for every endpoint: `{"error": {"code", "message"}}`.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;

#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub code: &'static str,
    pub message: String,
    /// Extra fields merged into the error object (e.g. ingest progress).
    pub detail: Option<serde_json::Value>,
}

/// `Retry-After` of a 503 `unavailable` (a backend away while it restarts).
const RETRY_AFTER_SECS: u32 = 2;

impl ApiError {
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        ApiError {
            status,
            code,
            message: excerpt(message.into()),
            detail: None,
        }
    }
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "bad_request", message)
    }
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, "not_found", message)
    }
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", message)
    }
    /// 503 with `Retry-After`: the catalog or the object store is away
    /// (restarting); the same request succeeds once it is back.
    pub fn unavailable(message: impl Into<String>) -> Self {
        Self::new(StatusCode::SERVICE_UNAVAILABLE, "unavailable", message)
    }
    pub fn unauthorized() -> Self {
        Self::new(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            "this server requires a token: send it as 'Authorization: Bearer TOKEN'",
        )
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let retry = self.code == "unavailable";
        let mut err = json!({"code": self.code, "message": self.message});
        if let (Some(serde_json::Value::Object(extra)), Some(obj)) =
            (self.detail, err.as_object_mut())
        {
            obj.extend(extra);
        }
        let mut r = (self.status, Json(json!({ "error": err }))).into_response();
        if retry {
            r.headers_mut()
                .insert(axum::http::header::RETRY_AFTER, RETRY_AFTER_SECS.into());
        }
        r
    }
}

impl From<anyhow::Error> for ApiError {
    fn from(e: anyhow::Error) -> Self {
        if crate::catalog::is_unavailable(&e) {
            ApiError::unavailable(format!("{e:#}"))
        } else {
            ApiError::internal(format!("{e:#}"))
        }
    }
}

/// Longest error message, in characters: messages quote the input they
/// refuse, and a megabyte of column name must not come back as one.
pub const MAX_MESSAGE_CHARS: usize = 400;

fn excerpt(m: String) -> String {
    if m.chars().count() <= MAX_MESSAGE_CHARS {
        return m;
    }
    let mut cut: String = m.chars().take(MAX_MESSAGE_CHARS).collect();
    cut.push_str("… (cut)");
    cut
}

pub type ApiResult<T> = Result<T, ApiError>;
