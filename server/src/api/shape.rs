//! What every response gets, whichever handler (or none) produced it: the
//! documented JSON error shape for every error (axum's own rejections,
//! 404/405 from routing, 413 from body limits), security headers, and
//! `Cache-Control` on API responses. Over-long URIs (414) and header sets
//! (431) are refused here, before routing, with the same shape.

use super::error::ApiError;
use axum::extract::Request;
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

/// Longest URI (path and query) accepted; longer gets 414.
pub const MAX_URI_BYTES: usize = 8 * 1024;
/// Longest URI of a view page (`/t/...`, `/compare/...`): its query is the whole
/// view state, tens of kilobytes for a deeply expanded tree, and long links
/// must keep opening (a short link `/v/ID` redirects to one). As long as
/// hyper reads (65,534 bytes); over it hyper answers 414 itself (see
/// `cli::parse_errors`).
pub const MAX_VIEW_URI_BYTES: usize = super::link_limits::MAX_TARGET_BYTES;
/// Most header bytes (names and values) and headers accepted; more gets 431.
pub const MAX_HEADER_BYTES: usize = 32 * 1024;
pub const MAX_HEADERS: usize = 100;

/// How much of a non-JSON error body is kept as the message.
const EXCERPT_CHARS: usize = 200;

pub async fn layer(req: Request, next: Next) -> Response {
    let api = req.uri().path().starts_with("/api/");
    let mut resp = match too_big(&req) {
        Some(r) => r,
        None => normalize(next.run(req).await).await,
    };
    let h = resp.headers_mut();
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    if api && !h.contains_key(header::CACHE_CONTROL) {
        h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    resp
}

fn too_big(req: &Request) -> Option<Response> {
    let uri = req.uri().path_and_query().map_or(0, |p| p.as_str().len());
    let path = req.uri().path();
    let view = path.starts_with("/t/") || path.starts_with("/compare/");
    let limit = if view {
        MAX_VIEW_URI_BYTES
    } else {
        MAX_URI_BYTES
    };
    if uri > limit {
        return Some(
            ApiError::new(
                StatusCode::URI_TOO_LONG,
                "uri_too_long",
                format!("the URI has {uri} bytes; at most {limit}"),
            )
            .into_response(),
        );
    }
    let h = req.headers();
    let bytes: usize = h.iter().map(|(k, v)| k.as_str().len() + v.len()).sum();
    if h.len() > MAX_HEADERS || bytes > MAX_HEADER_BYTES {
        return Some(
            ApiError::new(
                StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
                "headers_too_large",
                format!(
                    "{} headers of {bytes} bytes; at most {MAX_HEADERS} headers and {MAX_HEADER_BYTES} bytes",
                    h.len()
                ),
            )
            .into_response(),
        );
    }
    None
}

fn is_json(resp: &Response) -> bool {
    resp.headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"))
}

/// The UI's own page (a deleted trace's viewer answers 410 with it, so the
/// page can say so): not an API error to reshape.
fn is_html(resp: &Response) -> bool {
    resp.headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/html"))
}

/// An error response that is not already our JSON becomes it, with a short
/// excerpt of the original text as the message.
async fn normalize(resp: Response) -> Response {
    let status = resp.status();
    if !(status.is_client_error() || status.is_server_error()) || is_json(&resp) || is_html(&resp) {
        return resp;
    }
    let (parts, body) = resp.into_parts();
    let text = axum::body::to_bytes(body, 64 * 1024)
        .await
        .unwrap_or_default();
    let text = String::from_utf8_lossy(&text);
    let text = text.trim();
    let message = if text.is_empty() {
        status.canonical_reason().unwrap_or("error").to_string()
    } else {
        text.chars().take(EXCERPT_CHARS).collect()
    };
    let mut out = ApiError::new(status, code_for(status), message).into_response();
    // Keep headers such as `Allow` (405) from the original.
    for (k, v) in parts.headers.iter() {
        if k != header::CONTENT_TYPE && k != header::CONTENT_LENGTH {
            out.headers_mut().insert(k.clone(), v.clone());
        }
    }
    out
}

fn code_for(status: StatusCode) -> &'static str {
    match status {
        StatusCode::BAD_REQUEST => "bad_request",
        StatusCode::NOT_FOUND => "not_found",
        StatusCode::METHOD_NOT_ALLOWED => "method_not_allowed",
        StatusCode::PAYLOAD_TOO_LARGE => "too_large",
        StatusCode::UNSUPPORTED_MEDIA_TYPE => "unsupported_media_type",
        StatusCode::UNPROCESSABLE_ENTITY => "unprocessable",
        StatusCode::REQUEST_TIMEOUT => "timeout",
        StatusCode::URI_TOO_LONG => "uri_too_long",
        StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE => "headers_too_large",
        s if s.is_server_error() => "internal",
        _ => "error",
    }
}
