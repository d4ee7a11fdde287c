//! Shared state of the HTTP app.

use crate::store::Store;
use std::sync::Arc;

#[derive(Clone)]
pub struct AppState {
    pub store: Arc<Store>,
    pub config: Arc<ApiConfig>,
}

#[derive(Debug, Clone)]
pub struct ApiConfig {
    /// Largest accepted upload in bytes.
    pub max_upload_bytes: u64,
    /// Token required for uploads and deletes (and reads when `token_for_reads`).
    pub token: Option<String>,
    pub token_for_reads: bool,
    /// How long a query waits for a trace still ingesting before answering 409.
    pub query_wait: std::time::Duration,
}

impl AppState {
    /// Whether the request's headers carry the configured token (if any).
    pub fn authorized(&self, headers: &axum::http::HeaderMap) -> bool {
        let Some(token) = &self.config.token else {
            return true;
        };
        let bearer = headers
            .get(axum::http::header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "));
        let header = headers
            .get("x-etlscope-token")
            .and_then(|v| v.to_str().ok());
        bearer
            .or(header)
            .is_some_and(|t| constant_time_eq(t.as_bytes(), token.as_bytes()))
    }
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}
