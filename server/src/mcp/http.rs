//! `/mcp` on `etlscope serve`: the MCP streamable HTTP transport, behind the
//! same guard (Host, Origin, the header a state change needs) as the API,
//! and the same token rules: with `--private-reads` every call needs the
//! token; changes (a symbol lookup) need it whenever the server has one.

use super::{Etlscope, Transport};
use crate::api::error::ApiError;
use crate::api::state::AppState;
use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Router;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

/// Largest JSON-RPC message accepted: tool arguments are small.
const MAX_BODY_BYTES: usize = 1 << 20;

/// The `/mcp` route, to merge into the app's router.
pub fn router(app: AppState) -> Router<AppState> {
    let config = StreamableHttpServerConfig::default()
        // Stateless: each POST is answered on its own, no session to keep or leak.
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_sse_keep_alive(None)
        // The app's guard checks Host and Origin (with --allowed-host and
        // --public-url) before this service runs.
        .disable_allowed_hosts()
        .with_max_request_body_bytes(MAX_BODY_BYTES);
    let for_service = app.clone();
    let service: StreamableHttpService<Etlscope, LocalSessionManager> = StreamableHttpService::new(
        move || Ok(Etlscope::new(for_service.clone(), Transport::Http)),
        Default::default(),
        config,
    );
    Router::new()
        .nest_service("/mcp", service)
        .layer(axum::middleware::from_fn_with_state(app, read_rule))
}

/// `--private-reads`: no call without the token, as the API's reads.
async fn read_rule(State(app): State<AppState>, req: Request, next: Next) -> Response {
    if app.config.token_for_reads && !app.authorized(req.headers()) {
        return ApiError::unauthorized().into_response();
    }
    next.run(req).await
}
