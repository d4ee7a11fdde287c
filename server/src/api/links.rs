//! Short links: `POST /api/links` keeps a view's in-app path and query under
//! a content-addressed id, `GET /api/links/{id}` reads it back and `GET /v/{id}`
//! redirects to it. A link of a deeply expanded tree can run to tens of
//! kilobytes, more than chat tools and proxies carry; `/v/ID` is short.

use super::error::{ApiError, ApiResult};
use super::state::AppState;
use super::traces::read_auth;
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

/// Longest target kept: far above any view's state, far below a memory risk.
pub const MAX_TARGET_BYTES: usize = 256 * 1024;

/// Hex digits of the id: 64 bits of the target's hash; a clash (another
/// target under the same id) takes the next longer prefix.
const ID_LENGTHS: [usize; 3] = [16, 24, 32];

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewLink {
    /// The in-app path and query of the view, e.g. `/t/ID?v=2&t=cpu-sampled`.
    pub target: String,
}

/// Whether `target` is a path of this app (so `/v/ID` never redirects away).
pub fn valid_target(target: &str) -> Result<(), String> {
    if target.len() > MAX_TARGET_BYTES {
        return Err(format!(
            "target is {} bytes, more than {MAX_TARGET_BYTES}",
            target.len()
        ));
    }
    let path = target.split(['?', '#']).next().unwrap_or("");
    let in_app = ["/t/", "/compare/"].iter().any(|p| path.starts_with(p));
    if !in_app || path.contains("//") || path.contains("..") {
        return Err("target must be a view of this app: /t/ID?... or /compare/...".into());
    }
    if target
        .chars()
        .any(|c| c.is_control() || c.is_whitespace() || c == '\\')
    {
        return Err("target has a control character, space or backslash".into());
    }
    Ok(())
}

pub async fn create(
    State(app): State<AppState>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> ApiResult<Json<Value>> {
    read_auth(&app, &headers)?;
    // Parsed here (as the queries are), so a client that sends no Content-Type is served too.
    let req: NewLink = serde_json::from_slice(&body)
        .map_err(|e| ApiError::bad_request(format!("bad link: {e}")))?;
    valid_target(&req.target).map_err(ApiError::bad_request)?;
    let digest = hex(&Sha256::digest(req.target.as_bytes()));
    let now = crate::store::now_rfc3339();
    for len in ID_LENGTHS {
        let id = &digest[..len];
        if app
            .store
            .catalog
            .insert_link(id, &req.target, &now)?
            .is_none()
        {
            return Ok(Json(json!({ "id": id, "path": format!("/v/{id}") })));
        }
    }
    Err(ApiError::internal("every id of this link is taken"))
}

pub async fn get(
    State(app): State<AppState>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> ApiResult<Json<Value>> {
    read_auth(&app, &headers)?;
    let target = lookup(&app, &id)?;
    Ok(Json(json!({ "id": id, "target": target })))
}

/// `GET /v/{id}`: 303 to the stored view, or a plain 404 page.
pub async fn redirect(State(app): State<AppState>, Path(id): Path<String>) -> Response {
    match lookup(&app, &id) {
        Ok(target) => (StatusCode::SEE_OTHER, [(header::LOCATION, target)]).into_response(),
        Err(e) => (
            e.status,
            [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
            format!("etlscope: {}\n", e.message),
        )
            .into_response(),
    }
}

fn lookup(app: &AppState, id: &str) -> ApiResult<String> {
    let well_formed = ID_LENGTHS.contains(&id.len()) && id.bytes().all(|b| b.is_ascii_hexdigit());
    if !well_formed {
        return Err(ApiError::not_found(format!("no short link {id:?}")));
    }
    app.store
        .catalog
        .link(id)?
        .ok_or_else(|| ApiError::not_found(format!("no short link {id}")))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::valid_target;

    #[test]
    fn only_views_of_this_app_are_targets() {
        assert!(valid_target("/t/0123abcd?v=2&t=cpu-sampled&o=a/b").is_ok());
        assert!(valid_target("/compare/a/b?t=images").is_ok());
        for bad in [
            "https://evil.example/",
            "//evil.example/t/x",
            "/t//evil",
            "/api/traces",
            "/t/../api",
            "/t/x?a=b c",
            "/t/x\\y",
            "/t/x\n",
            "",
        ] {
            assert!(valid_target(bad).is_err(), "{bad:?} accepted");
        }
        assert!(valid_target(&format!("/t/x?{}", "a".repeat(super::MAX_TARGET_BYTES))).is_err());
    }
}
