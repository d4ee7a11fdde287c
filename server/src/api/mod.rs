//! The HTTP API and the embedded UI.

pub mod callers;
pub mod compare;
mod drain;
pub mod error;
mod export;
pub mod findings;
mod graph;
pub mod guard;
pub mod link_limits;
pub mod links;
pub mod note_rules;
mod notes;
mod percent_basis;
pub mod query;
mod receive;
mod redact;
pub mod regions;
pub mod schemas;
pub mod shape;
pub mod sql;
pub mod stack_tags;
pub mod state;
pub mod symbols;
pub mod trace_symbols;
pub mod traces;
pub mod ui;
mod value_columns;
mod wpa_profile;

use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post, put};
use axum::Router;
use error::ApiError;
use state::AppState;

/// The OpenAPI description, kept in sync with the routes below by a test.
pub const OPENAPI: &str = include_str!("../../../docs/openapi.json");

async fn openapi() -> impl axum::response::IntoResponse {
    (
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        OPENAPI,
    )
}

pub fn router(state: AppState) -> Router {
    let api = Router::new()
        .route(
            "/traces",
            get(traces::list)
                .post(traces::upload)
                .layer(DefaultBodyLimit::disable()),
        )
        .route(
            "/symbols",
            post(symbols::upload).layer(DefaultBodyLimit::disable()),
        )
        .route("/traces/{id}", get(traces::get).delete(traces::delete))
        .route("/traces/{id}/summary", get(traces::summary))
        .route("/traces/{id}/progress", get(traces::progress))
        .route(
            "/traces/{id}/symbols",
            get(trace_symbols::get).put(trace_symbols::put_path),
        )
        .route("/traces/{id}/symbols/load", post(trace_symbols::load))
        .route("/traces/{id}/symbols/cancel", post(trace_symbols::cancel))
        .route("/traces/{id}/system-config", get(traces::system_config))
        .route("/traces/{id}/findings", get(findings::get))
        .route("/traces/{id}/columns", get(query::columns))
        .route("/traces/{id}/table", post(query::table))
        .route("/traces/{id}/flame", post(query::flame))
        .route("/traces/{id}/butterfly", post(query::butterfly))
        .route("/traces/{id}/callers", post(callers::callers))
        .route("/traces/{id}/callees", post(callers::callees))
        .route("/traces/{id}/search", post(callers::search))
        .route("/traces/{id}/timeline", post(query::timeline))
        .route("/traces/{id}/export", post(export::export))
        .route("/traces/{id}/graph", post(graph::graph))
        .route(
            "/traces/{id}/notes",
            get(notes::list)
                .post(notes::create)
                .layer(DefaultBodyLimit::disable()),
        )
        .route(
            "/notes/{id}",
            get(notes::get)
                .put(notes::update)
                .delete(notes::delete)
                .layer(DefaultBodyLimit::disable()),
        )
        .route("/note-counts", get(notes::counts))
        .route("/traces/{id}/sql", post(sql::sql))
        .route(
            "/traces/{id}/redact",
            post(redact::create).layer(DefaultBodyLimit::disable()),
        )
        .route(
            "/traces/{id}/redact/preview",
            post(redact::preview).layer(DefaultBodyLimit::disable()),
        )
        .route("/sql", post(sql::library_sql))
        .route("/links", post(links::create))
        .route("/links/{id}", get(links::get))
        .route("/stacktags", get(stack_tags::list))
        .route(
            "/stacktags/{name}",
            get(stack_tags::get)
                .put(stack_tags::put)
                .delete(stack_tags::delete)
                .layer(DefaultBodyLimit::max(::query::stack_tags::parse::MAX_BYTES)),
        )
        .route("/regions", get(regions::list))
        .route(
            "/regions/{name}",
            get(regions::get)
                .put(regions::put)
                .delete(regions::delete)
                .layer(DefaultBodyLimit::max(::regions::MAX_BYTES)),
        )
        .route("/schemas", get(schemas::list))
        .route(
            "/schemas/{name}",
            put(schemas::put)
                .delete(schemas::delete)
                .layer(DefaultBodyLimit::max(crate::schema_store::MAX_BYTES)),
        )
        .route(
            "/wpa-profile",
            post(wpa_profile::map).layer(DefaultBodyLimit::max(crate::wpa_profile::MAX_BYTES)),
        )
        .route("/compare", post(compare::compare))
        .route("/sql/schema", get(sql::schema))
        .route("/openapi.json", get(openapi))
        .fallback(|| async { ApiError::not_found("no such API endpoint") });
    Router::new()
        .nest("/api", api)
        .route("/", get(ui::index))
        .route("/t/{id}", get(ui::trace_page))
        .route("/v/{id}", get(links::redirect))
        .route("/compare/{base}/{new}", get(ui::index))
        .route("/across", get(ui::index))
        .merge(crate::mcp::http::router(state.clone()))
        .fallback(ui::asset)
        // A client that stops sending its body is cut off, whatever the route.
        .layer(tower_http::timeout::RequestBodyTimeoutLayer::new(
            state.config.body_idle_timeout,
        ))
        .layer(tower_http::trace::TraceLayer::new_for_http())
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            guard::layer,
        ))
        .layer(axum::middleware::from_fn(shape::layer))
        .with_state(state)
}

/// hyper's own header-count limit, above ours so that ours (a JSON 431) answers first.
pub const MAX_HEADERS_PARSED: usize = shape::MAX_HEADERS * 2;
