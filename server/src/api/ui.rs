//! The single-page UI, embedded in the binary from `frontend/`.

use axum::http::{header, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use rust_embed::RustEmbed;

#[derive(RustEmbed)]
#[folder = "../frontend/"]
#[exclude = "node_modules/*"]
#[exclude = "tests/*"]
#[exclude = "*.json"]
struct Assets;

/// Trace text is rendered as text, never HTML; this policy is the second
/// line: no inline or foreign script, no foreign connections, no framing.
const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

fn serve_asset(path: &str) -> Option<Response> {
    let file = Assets::get(path)?;
    let mime = match path.rsplit('.').next() {
        Some("html") => "text/html; charset=utf-8",
        Some("js") | Some("mjs") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("ico") => "image/x-icon",
        _ => "application/octet-stream",
    };
    Some(
        (
            [
                (header::CONTENT_TYPE, mime),
                (header::CACHE_CONTROL, "no-cache"),
                (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
                // The same policy as index.html's <meta>, sent as a header too so
                // it also covers frame-ancestors (which <meta> cannot set).
                (header::CONTENT_SECURITY_POLICY, CSP),
            ],
            file.data.into_owned(),
        )
            .into_response(),
    )
}

/// `/`, `/t/{id}?...` and `/compare/{base}/{new}?...`: the SPA shell; the view state lives in the query string.
pub async fn index() -> Response {
    serve_asset("index.html")
        .unwrap_or_else(|| (StatusCode::NOT_FOUND, "UI not built").into_response())
}

/// The viewer of one trace: the UI, answered 410 once the trace was deleted
/// (the page then says so, from the API's 410, with a way back to the library).
pub async fn trace_page(
    axum::extract::State(app): axum::extract::State<super::state::AppState>,
    axum::extract::Path(id): axum::extract::Path<String>,
) -> Response {
    let mut page = index().await;
    if crate::upload::valid_id(&id) && matches!(app.store.catalog.deleted(&id), Ok(true)) {
        *page.status_mut() = StatusCode::GONE;
    }
    page
}

/// Static files of the UI.
pub async fn asset(uri: Uri) -> Response {
    let path = uri.path().trim_start_matches('/');
    if path.contains("..") {
        return (StatusCode::BAD_REQUEST, "bad path").into_response();
    }
    serve_asset(path).unwrap_or_else(|| (StatusCode::NOT_FOUND, "not found").into_response())
}
