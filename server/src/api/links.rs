//! Short links: `POST /api/links` keeps a view's in-app path and query under
//! a content-addressed id, `GET /api/links/{id}` reads it back and `GET /v/{id}`
//! redirects to it. A link of a deeply expanded tree can run to tens of
//! kilobytes, more than chat tools and proxies carry; `/v/ID` is short.

use super::error::{ApiError, ApiResult};
use super::link_limits::Usage;
use super::state::AppState;
use super::traces::read_auth;
use axum::extract::{ConnectInfo, Path, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use serde::Deserialize;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::net::{IpAddr, SocketAddr};

/// Hex digits of the id: 64 bits of the target's hash; a clash (another
/// target under the same id) takes the next longer prefix.
const ID_LENGTHS: [usize; 3] = [16, 24, 32];

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewLink {
    /// The in-app path and query of the view, e.g. `/t/ID?v=2&t=cpu-sampled`.
    pub target: String,
}

const NOT_A_VIEW: &str =
    "target must be a view of this app: /t/TRACE?... or /compare/BASE/NEW?... (ids of 32 hex digits)";

/// Whether `target` names a view of this app, so `/v/ID` never leads to an
/// API path or away: its path, percent-escapes decoded first, is exactly
/// `/t/ID` or `/compare/ID/ID`; the query (the view state) is free text
/// without spaces, control characters, backslashes or a fragment.
pub fn valid_target(target: &str, max_bytes: usize) -> Result<(), String> {
    if target.len() > max_bytes {
        return Err(format!(
            "target is {} bytes, more than {max_bytes} (--max-link-bytes)",
            target.len()
        ));
    }
    let bad_char = |c: char| c.is_control() || c.is_whitespace() || c == '\\';
    if target.chars().any(|c| bad_char(c) || c == '#') {
        return Err("target has a control character, space, backslash or '#'".into());
    }
    let path = target.split('?').next().unwrap_or("");
    let path = percent_decode(path).ok_or("target's path has a bad percent-escape")?;
    if path.chars().any(bad_char) {
        return Err("target's path has an escaped control character, space or backslash".into());
    }
    let segments: Vec<&str> = path.split('/').collect();
    if segments.iter().any(|s| *s == "." || *s == "..") {
        return Err(format!("target's path has a dot segment; {NOT_A_VIEW}"));
    }
    let id = |s: &str| crate::upload::valid_id(s);
    match segments[..] {
        ["", "t", t] if id(t) => Ok(()),
        ["", "compare", a, b] if id(a) && id(b) => Ok(()),
        _ => Err(NOT_A_VIEW.into()),
    }
}

/// `%XX` escapes decoded; None for a malformed escape or bytes that are not UTF-8.
fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// `POST /api/links`: the token on a token server (401), a view target
/// (400), within the client's rate (429) and the store's room (507).
pub async fn create(
    State(app): State<AppState>,
    peer: Option<Extension<ConnectInfo<SocketAddr>>>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Result<Json<Value>, Refused> {
    let peer = peer.map_or(IpAddr::from([0, 0, 0, 0]), |Extension(ConnectInfo(a))| {
        a.ip()
    });
    let forwarded = headers.get("x-forwarded-for").and_then(|v| v.to_str().ok());
    let client = app.links.client_of(peer, forwarded);
    make(&app, client, &headers, &body).map(Json)
}

/// A write refused (a link, a note): the error, and for 429 the seconds
/// until one may be made.
pub struct Refused(pub(super) Box<ApiError>, pub(super) Option<u64>);

impl From<ApiError> for Refused {
    fn from(e: ApiError) -> Self {
        Refused(Box::new(e), None)
    }
}

impl From<anyhow::Error> for Refused {
    fn from(e: anyhow::Error) -> Self {
        Refused(Box::new(e.into()), None)
    }
}

impl IntoResponse for Refused {
    fn into_response(self) -> Response {
        let mut r = self.0.into_response();
        if let Some(secs) = self.1 {
            r.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        r
    }
}

fn make(
    app: &AppState,
    client: IpAddr,
    headers: &HeaderMap,
    body: &[u8],
) -> Result<Value, Refused> {
    // A link is a write: on a token server, strangers may not store anything.
    if !app.authorized(headers) {
        return Err(ApiError::unauthorized().into());
    }
    // Parsed here (as the queries are), so a client that sends no Content-Type is served too.
    let req: NewLink = serde_json::from_slice(body)
        .map_err(|e| ApiError::bad_request(format!("bad link: {e}")))?;
    let guard = &app.links;
    valid_target(&req.target, guard.limits.max_target_bytes).map_err(ApiError::bad_request)?;
    if let Err(wait) = guard.take(client, std::time::Instant::now()) {
        let secs = wait.as_secs_f64().ceil().max(1.0) as u64;
        let e = ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            "rate_limited",
            format!(
                "at most {} short links a minute from one client (--links-per-minute); try again in {secs} s",
                guard.limits.per_minute
            ),
        );
        return Err(Refused(Box::new(e), Some(secs)));
    }
    let catalog = &app.store.catalog;
    if app.store.is_shared() {
        guard.forget_usage();
    }
    // Held from the look-up to the insert: the last room goes to one link.
    let mut usage = guard.usage(|| {
        let (links, bytes) = catalog.link_usage()?;
        Ok(Usage { links, bytes })
    })?;
    let digest = hex(&Sha256::digest(req.target.as_bytes()));
    let ok = |id: &str| json!({ "id": id, "path": format!("/v/{id}") });
    for len in ID_LENGTHS {
        let id = &digest[..len];
        match catalog.link(id)? {
            // Identical targets share one id, and take no room.
            Some(kept) if kept == req.target => return Ok(ok(id)),
            Some(_) => continue,
            None => {}
        }
        if let Some(why) = usage.refuse(req.target.len()) {
            return Err(ApiError::new(StatusCode::INSUFFICIENT_STORAGE, "links_full", why).into());
        }
        let now = crate::store::now_rfc3339();
        if catalog.insert_link(id, &req.target, &now)?.is_none() {
            usage.add(req.target.len());
            return Ok(ok(id));
        }
    }
    Err(ApiError::internal("every id of this link is taken").into())
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
    let target = app
        .store
        .catalog
        .link(id)?
        .ok_or_else(|| ApiError::not_found(format!("no short link {id}")))?;
    // A link to a deleted trace is gone with it (410), on every replica.
    let trace = target
        .strip_prefix("/t/")
        .and_then(|rest| rest.get(..32))
        .filter(|t| crate::upload::valid_id(t));
    if let Some(t) = trace {
        if app.store.catalog.deleted(t)? {
            return Err(ApiError::new(
                axum::http::StatusCode::GONE,
                "gone",
                format!("short link {id} is to trace {t}, which was deleted"),
            ));
        }
    }
    Ok(target)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::valid_target;

    const MAX: usize = super::super::link_limits::MAX_TARGET_BYTES;
    const T: &str = "0123456789abcdef0123456789abcdef";

    #[test]
    fn only_views_of_this_app_are_targets() {
        for ok in [
            format!("/t/{T}?v=2&t=cpu-sampled&o=a/b"),
            format!("/t/{T}"),
            "/t/%30123456789abcdef0123456789abcdef?v=2".to_string(),
            format!("/compare/{T}/{T}?t=images"),
        ] {
            assert!(valid_target(&ok, MAX).is_ok(), "{ok:?} refused");
        }
        for bad in [
            "https://evil.example/".to_string(),
            "//evil.example/t/x".into(),
            "/t//evil".into(),
            "/api/traces".into(),
            "/t/../api".into(),
            "/t/%2e%2e/%2e%2e/api/traces".into(),
            "/t/%2E%2e%2fapi".into(),
            format!("/t/{T}%2f..%2fapi"),
            format!("/t/{T}/x"),
            format!("/t/{T}%5c"),
            format!("/t/{T}%00"),
            format!("/t/{T}%zz"),
            format!("/t/{T}%"),
            format!("/t/{T}%ff"),
            format!("/t/{T}?v=2#x"),
            format!("/compare/{T}/.."),
            format!("/compare/{T}"),
            "/t/x?a=b c".into(),
            "/t/x\\y".into(),
            "/t/x\n".into(),
            "/".into(),
            "".into(),
        ] {
            assert!(valid_target(&bad, MAX).is_err(), "{bad:?} accepted");
        }
        let long = format!("/t/{T}?{}", "a".repeat(MAX));
        assert!(valid_target(&long, MAX).is_err());
        assert!(valid_target(&long, long.len()).is_ok());
    }
}
