//! Notes on views (issue 40): `GET/POST /api/traces/{id}/notes`,
//! `GET/PUT/DELETE /api/notes/{id}`, `GET /api/note-counts`. Writes follow
//! the short links' rules (the token on a token server, a rate per client,
//! a cap) and the author rule of `note_rules.rs`.

use super::error::{ApiError, ApiResult};
use super::links::Refused;
use super::note_rules::{self, may_change, written_by_token, KEY_HEADER};
use super::state::AppState;
use super::traces::{check_id, no_trace, read_auth};
use crate::catalog::Note;
use axum::body::Body;
use axum::extract::{ConnectInfo, Path, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use serde::Deserialize;
use serde_json::{json, Value};
use std::net::{IpAddr, SocketAddr};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NewNote {
    text: String,
    /// The view's query string (the UI's URL state), without '?'.
    #[serde(default)]
    view: String,
    #[serde(default)]
    author: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NoteEdit {
    text: String,
    /// Unchanged when left out.
    view: Option<String>,
    author: Option<String>,
}

/// A note as sent: `editable` when the requester's token wrote it (the
/// browser that holds its key knows that by itself).
fn note_json(app: &AppState, headers: &HeaderMap, n: &Note) -> Value {
    let mut v = json!(n);
    v["editable"] = json!(written_by_token(app, headers, n));
    v
}

/// The client whose rate a write counts against: as for short links, the
/// peer, or behind a `--trusted-proxy` the address it appended to
/// `X-Forwarded-For` (else every client behind nginx would share one rate).
fn client_of(
    app: &AppState,
    peer: Option<Extension<ConnectInfo<SocketAddr>>>,
    headers: &HeaderMap,
) -> IpAddr {
    let peer = peer.map_or(IpAddr::from([0, 0, 0, 0]), |Extension(ConnectInfo(a))| {
        a.ip()
    });
    let forwarded = headers.get("x-forwarded-for").and_then(|v| v.to_str().ok());
    app.links.client_of(peer, forwarded)
}

/// 404/410 unless the trace is in the library.
fn existing_trace(app: &AppState, trace: &str) -> ApiResult<()> {
    check_id(trace)?;
    match app.store.catalog.get(trace)? {
        Some(_) => Ok(()),
        None => Err(no_trace(app, trace)),
    }
}

fn find(app: &AppState, id: &str) -> ApiResult<Note> {
    let missing = || {
        ApiError::not_found(format!(
            "no note {}",
            id.chars().take(40).collect::<String>()
        ))
    };
    if !crate::upload::valid_id(id) {
        return Err(missing());
    }
    let n = app.store.catalog.note(id)?.ok_or_else(missing)?;
    if app.store.catalog.get(&n.trace)?.is_none() {
        return Err(no_trace(app, &n.trace));
    }
    Ok(n)
}

/// The body as JSON of type T, read up to the notes' bound (413 beyond).
async fn read_json<T: serde::de::DeserializeOwned>(
    app: &AppState,
    headers: &HeaderMap,
    body: Body,
) -> ApiResult<T> {
    let cap = app.notes.limits.max_body_bytes();
    let max = app.notes.limits.max_text_bytes;
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    let too_large = |size: Option<u64>| {
        let size = size.map_or(String::new(), |n| format!("{n} bytes, "));
        ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "note_too_large",
            format!(
                "the note is more than {max} bytes (--max-note-kb {}): the request is {size}more than the {cap} bytes read for a note",
                max >> 10
            ),
        )
    };
    if let Some(n) = declared.filter(|n| *n > cap as u64) {
        return Err(too_large(Some(n)));
    }
    let bytes = axum::body::to_bytes(body, cap)
        .await
        .map_err(|_| too_large(None))?;
    serde_json::from_slice(&bytes).map_err(|e| ApiError::bad_request(format!("bad note: {e}")))
}

/// A write from `client`, within its rate (429 with Retry-After beyond).
fn take_turn(app: &AppState, client: IpAddr) -> Result<(), Refused> {
    app.notes.take(client).map_err(|wait| {
        let secs = wait.as_secs_f64().ceil().max(1.0) as u64;
        let e = ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            "rate_limited",
            format!(
                "at most {} note writes a minute from one client (--notes-per-minute); try again in {secs} s",
                app.notes.limits.per_minute
            ),
        );
        Refused(Box::new(e), Some(secs))
    })
}

/// `GET /api/traces/{id}/notes`: the trace's notes, oldest first.
pub async fn list(
    State(app): State<AppState>,
    headers: HeaderMap,
    Path(trace): Path<String>,
) -> ApiResult<Json<Value>> {
    read_auth(&app, &headers)?;
    existing_trace(&app, &trace)?;
    let notes: Vec<Value> = app
        .store
        .catalog
        .notes(&trace)?
        .iter()
        .map(|n| note_json(&app, &headers, n))
        .collect();
    let l = &app.notes.limits;
    Ok(Json(json!({
        "notes": notes,
        "limits": { "max_text_bytes": l.max_text_bytes, "per_trace": l.per_trace },
    })))
}

/// `POST /api/traces/{id}/notes`: 201 with the note and its edit `key`.
pub async fn create(
    State(app): State<AppState>,
    peer: Option<Extension<ConnectInfo<SocketAddr>>>,
    headers: HeaderMap,
    Path(trace): Path<String>,
    body: Body,
) -> Result<Response, Refused> {
    if !app.authorized(&headers) {
        return Err(ApiError::unauthorized().into());
    }
    existing_trace(&app, &trace)?;
    let req: NewNote = read_json(&app, &headers, body).await?;
    let author = valid_note(&app, &trace, &req.text, &req.view, &req.author)?;
    take_turn(&app, client_of(&app, peer, &headers))?;
    let (id, key) = note_rules::new_id_and_key()?;
    let now = crate::store::now_rfc3339();
    let n = Note {
        id,
        trace: trace.clone(),
        text: req.text,
        view: req.view.trim_start_matches('?').to_string(),
        author,
        author_token: note_rules::writer_identity(&app),
        key_hash: note_rules::key_hash(&key),
        created_at: now.clone(),
        updated_at: now,
    };
    let per_trace = app.notes.limits.per_trace;
    if !app.store.catalog.insert_note(&n, per_trace)? {
        return Err(ApiError::new(
            StatusCode::INSUFFICIENT_STORAGE,
            "notes_full",
            format!("trace {trace} has {per_trace} notes, the most kept (--notes-per-trace)"),
        )
        .into());
    }
    let mut v = note_json(&app, &headers, &n);
    v["editable"] = json!(true);
    v["key"] = json!(key);
    Ok((StatusCode::CREATED, Json(v)).into_response())
}

/// The checks every written note passes; returns the author's name.
fn valid_note(
    app: &AppState,
    trace: &str,
    text: &str,
    view: &str,
    author: &str,
) -> ApiResult<String> {
    note_rules::check_text(text, app.notes.limits.max_text_bytes)?;
    note_rules::check_view(trace, view)?;
    note_rules::check_author(author)
}

/// `GET /api/notes/{id}`: one note (a link that opens a note).
pub async fn get(
    State(app): State<AppState>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> ApiResult<Json<Value>> {
    read_auth(&app, &headers)?;
    let n = find(&app, &id)?;
    Ok(Json(note_json(&app, &headers, &n)))
}

/// 401 without the token on a token server; 403 to anyone but its author.
fn changeable(app: &AppState, headers: &HeaderMap, id: &str) -> ApiResult<Note> {
    if !app.authorized(headers) {
        return Err(ApiError::unauthorized());
    }
    let n = find(app, id)?;
    if !may_change(app, headers, &n) {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "not_author",
            format!(
                "only its author changes a note: the browser that wrote it (header {KEY_HEADER}) or, on a token server, holders of the token it was written with"
            ),
        ));
    }
    Ok(n)
}

/// `PUT /api/notes/{id}`: new text (and view, author); its author only.
pub async fn update(
    State(app): State<AppState>,
    peer: Option<Extension<ConnectInfo<SocketAddr>>>,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: Body,
) -> Result<Json<Value>, Refused> {
    let mut n = changeable(&app, &headers, &id)?;
    let req: NoteEdit = read_json(&app, &headers, body).await?;
    let view = req.view.unwrap_or_else(|| n.view.clone());
    let author = req.author.unwrap_or_else(|| n.author.clone());
    let author = valid_note(&app, &n.trace, &req.text, &view, &author)?;
    take_turn(&app, client_of(&app, peer, &headers))?;
    n.text = req.text;
    n.view = view.trim_start_matches('?').to_string();
    n.author = author;
    n.updated_at = crate::store::now_rfc3339();
    if !app.store.catalog.update_note(&n)? {
        return Err(ApiError::not_found(format!("no note {id}")).into());
    }
    let mut v = note_json(&app, &headers, &n);
    v["editable"] = json!(true);
    Ok(Json(v))
}

/// `DELETE /api/notes/{id}`: 204; its author only.
pub async fn delete(
    State(app): State<AppState>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> ApiResult<StatusCode> {
    changeable(&app, &headers, &id)?;
    if !app.store.catalog.delete_note(&id)? {
        return Err(ApiError::not_found(format!("no note {id}")));
    }
    Ok(StatusCode::NO_CONTENT)
}

/// `GET /api/note-counts`: notes per trace, for the library.
pub async fn counts(State(app): State<AppState>, headers: HeaderMap) -> ApiResult<Json<Value>> {
    read_auth(&app, &headers)?;
    let counts: serde_json::Map<String, Value> = app
        .store
        .catalog
        .note_counts()?
        .into_iter()
        .map(|(t, n)| (t, json!(n)))
        .collect();
    Ok(Json(json!({ "counts": counts })))
}
