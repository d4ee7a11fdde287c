//! Shared state of the HTTP app.

use crate::store::Store;
use std::sync::Arc;

#[derive(Clone)]
pub struct AppState {
    pub store: Arc<Store>,
    pub config: Arc<ApiConfig>,
    /// Short links' rate limit and store cap.
    pub links: Arc<super::link_limits::LinkGuard>,
    /// Notes' limits and write rate.
    pub notes: Arc<super::note_rules::NoteGuard>,
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
    /// How long a request body may go without a byte before the request fails.
    pub body_idle_timeout: std::time::Duration,
    /// The Host names this server answers to (DNS-rebinding defence).
    pub allowed_hosts: super::guard::AllowedHosts,
    /// The most a SQL query may return, run for and take (`--sql-*`).
    pub sql: ::sql::Limits,
    /// Uploads must be copies `etlscope redact` wrote (`--require-redacted`).
    pub require_redacted: bool,
}

impl AppState {
    /// Whether the request's headers carry the configured token (if any).
    pub fn authorized(&self, headers: &axum::http::HeaderMap) -> bool {
        let Some(token) = &self.config.token else {
            return true;
        };
        // An empty token is no token: it never matches (and is refused at start).
        if token.is_empty() {
            return false;
        }
        let bearer = headers
            .get(axum::http::header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(bearer_token);
        let header = headers
            .get("x-etlscope-token")
            .and_then(|v| v.to_str().ok())
            .map(str::trim);
        [bearer, header]
            .into_iter()
            .flatten()
            .any(|t| !t.is_empty() && constant_time_eq(t.as_bytes(), token.as_bytes()))
    }
}

/// The credentials of `Authorization: Bearer TOKEN`; the scheme name is
/// case-insensitive (RFC 9110, 11.1).
fn bearer_token(v: &str) -> Option<&str> {
    let (scheme, rest) = v.trim().split_once(char::is_whitespace)?;
    scheme.eq_ignore_ascii_case("bearer").then_some(rest.trim())
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::bearer_token;

    #[test]
    fn bearer_scheme_is_case_insensitive() {
        assert_eq!(bearer_token("Bearer abc"), Some("abc"));
        assert_eq!(bearer_token("bearer  abc "), Some("abc"));
        assert_eq!(bearer_token("BEARER abc"), Some("abc"));
        assert_eq!(bearer_token("Basic abc"), None);
        assert_eq!(bearer_token("Bearer"), None);
    }
}
