//! Share a redacted copy (issue 40): `POST /api/traces/{id}/redact/preview`
//! says what `etlscope redact` would replace in a library trace (the CLI's
//! `--report json`), `POST /api/traces/{id}/redact` makes the copy and adds
//! it to the library as a new trace that names its original
//! (`redacted_from`), through the upload path: hashed for its id, size
//! limited, into the object store on a team server.
//!
//! Bounded like uploads: the token as for an upload, a copy no larger than
//! `--max-upload-mb`, one redaction at a time per server (the others wait
//! their turn, each on a connection of its client's, which the connection
//! limits cap), and the memory of the copy reserved under the memory budget
//! before it is made.

use super::error::{ApiError, ApiResult};
use super::state::AppState;
use super::traces::{check_id, entry_json, no_trace, ADDING};
use crate::catalog::TraceEntry;
use crate::cli::redact::{copy_bytes, report_value};
use ::redact::{Category, Options, Redacted};
use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse;
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};

/// Longest request body: the options only.
pub const MAX_BODY_BYTES: usize = 64 << 10;
/// Most `paths` prefixes, and the longest one, in characters.
const MAX_PATHS: usize = 64;
const MAX_PATH_CHARS: usize = 1024;

/// One redaction at a time: each holds a copy of the trace in memory.
static TURN: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(1);

/// The options, as the CLI's `--keep` and `--path`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Request {
    #[serde(default)]
    keep: Vec<String>,
    #[serde(default)]
    paths: Vec<String>,
    /// Who made the copy (the library's uploader column).
    #[serde(default)]
    uploader: Option<String>,
}

pub async fn preview(
    State(app): State<AppState>,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: Body,
) -> ApiResult<Json<Value>> {
    let (entry, _, options) = admit(&app, &headers, &id, body).await?;
    let (redacted, options) = redact(&app, entry, options).await?;
    let mut v = report_value(&redacted, &options);
    v["trace"] = json!(id);
    Ok(Json(v))
}

pub async fn create(
    State(app): State<AppState>,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: Body,
) -> ApiResult<impl IntoResponse> {
    let (original, req, options) = admit(&app, &headers, &id, body).await?;
    let uploader = req.uploader;
    let (redacted, options) = redact(&app, original.clone(), options).await?;
    let report = report_value(&redacted, &options);
    let name = copy_name(&redacted, &original.name);
    let kind = if redacted.members.len() == 1 {
        "etl"
    } else {
        "etl.zip"
    };
    let bytes = tokio::task::spawn_blocking(move || copy_bytes(redacted))
        .await
        .map_err(|e| ApiError::internal(e.to_string()))?
        .map_err(|e| ApiError::internal(format!("{e:#}")))?;
    let chunk = axum::body::Bytes::from(bytes);
    let stream = futures_util::stream::iter([Ok::<_, crate::upload::UploadError>(chunk)]);
    let got =
        crate::upload::receive(stream, &app.store.tmp_dir(), app.config.max_upload_bytes).await?;
    let entry = TraceEntry {
        id: got.id.clone(),
        name,
        size: got.size,
        file_name: format!("{}.{kind}", got.id),
        uploaded_at: crate::store::now_rfc3339(),
        uploader: clean(uploader.as_deref().unwrap_or(""), 256),
        notes: String::new(),
        status: "pending".into(),
        error: String::new(),
        members: Vec::new(),
        redacted_from: original.id.clone(),
    };
    let _adding = ADDING.lock().await;
    // Each copy has replacements of its own (a secret drawn per run), so
    // its bytes are new; should they not be, the copy is already there.
    if let Some(e) = app.store.catalog.get(&got.id)? {
        let mut v = entry_json(&app, &e);
        v["report"] = report;
        return Ok((StatusCode::OK, Json(v)));
    }
    let store = app.store.clone();
    let e = entry.clone();
    let added = tokio::task::spawn_blocking(move || store.add_upload(&e, got.temp, true))
        .await
        .map_err(|e| ApiError::internal(e.to_string()))??;
    if !added {
        return Err(ApiError::internal(
            "the copy was added by another server meanwhile",
        ));
    }
    crate::ingest_jobs::read_upload(&app.store, entry.clone());
    let mut v = entry_json(&app, &entry);
    v["report"] = report;
    Ok((StatusCode::CREATED, Json(v)))
}

/// The token, the trace and the options, checked before any work.
async fn admit(
    app: &AppState,
    headers: &HeaderMap,
    id: &str,
    body: Body,
) -> ApiResult<(TraceEntry, Request, Options)> {
    if !app.authorized(headers) {
        super::drain::drain(headers, body).await;
        return Err(ApiError::unauthorized());
    }
    check_id(id)?;
    let bytes = axum::body::to_bytes(body, MAX_BODY_BYTES)
        .await
        .map_err(|_| {
            ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                "too_large",
                format!("the options exceed {MAX_BODY_BYTES} bytes"),
            )
        })?;
    let req: Request = if bytes.iter().all(u8::is_ascii_whitespace) {
        Request::default()
    } else {
        serde_json::from_slice(&bytes)
            .map_err(|e| ApiError::bad_request(format!("the options are not valid: {e}")))?
    };
    let options = options_of(&req)?;
    let entry = app
        .store
        .catalog
        .get(id)?
        .ok_or_else(|| no_trace(app, id))?;
    Ok((entry, req, options))
}

fn options_of(req: &Request) -> ApiResult<Options> {
    let mut options = Options::all();
    for k in &req.keep {
        let c = Category::parse(k).ok_or_else(|| {
            let names: Vec<_> = Category::ALL.iter().map(|c| c.name()).collect();
            ApiError::bad_request(format!(
                "keep {:?}: not a category ({})",
                clean(k, 40),
                names.join(", ")
            ))
        })?;
        options.keep.push(c);
    }
    if req.paths.len() > MAX_PATHS {
        return Err(ApiError::bad_request(format!(
            "{} paths: at most {MAX_PATHS}",
            req.paths.len()
        )));
    }
    for p in &req.paths {
        if p.trim().is_empty() || p.chars().count() > MAX_PATH_CHARS {
            return Err(ApiError::bad_request(format!(
                "path {:?}: give a folder of 1 to {MAX_PATH_CHARS} characters",
                clean(p, 40)
            )));
        }
    }
    options.path_prefixes = req.paths.clone();
    Ok(options)
}

/// Redact the trace's files, in its turn, with the copy's memory reserved.
async fn redact(
    app: &AppState,
    entry: TraceEntry,
    options: Options,
) -> ApiResult<(Redacted, Options)> {
    let _turn = TURN
        .acquire()
        .await
        .map_err(|_| ApiError::internal("the redaction queue is closed"))?;
    let store = app.store.clone();
    let limit = app.config.max_upload_bytes;
    tokio::task::spawn_blocking(move || -> ApiResult<(Redacted, Options)> {
        let paths = store.local_files(&entry).map_err(|e| {
            if crate::catalog::is_unavailable(&e) {
                ApiError::unavailable(format!("{e:#}"))
            } else {
                ApiError::new(
                    StatusCode::CONFLICT,
                    "trace_files",
                    format!("the trace's files cannot be read: {e:#}"),
                )
            }
        })?;
        let refs: Vec<&std::path::Path> = paths.iter().map(|p| p.as_path()).collect();
        let file = etl::EtlFile::open_many_spilling(&refs, &store.tmp_dir()).map_err(|e| {
            ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "not_a_trace",
                format!("the trace cannot be read: {e}"),
            )
        })?;
        // The copy is written decompressed: as large as the trace read.
        let size = file.expanded_len();
        if size > limit {
            return Err(ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                "too_large",
                format!(
                    "the copy would be {size} bytes, over this server's upload limit of {limit} bytes"
                ),
            ));
        }
        // The copy, and as much again for what the passes hold.
        let need = size.saturating_mul(2);
        let budget = store.memory_budget();
        if need > budget {
            return Err(ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                "too_large",
                format!(
                    "a copy of this trace needs {} MiB, more than the server's memory budget of {} MiB",
                    need >> 20,
                    budget >> 20
                ),
            ));
        }
        let _memory = store
            .admit_query(need, &|| false)
            .map_err(ApiError::internal)?;
        let redacted = ::redact::redact(&file, &options).map_err(|e| {
            ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "cannot_redact",
                format!("cannot redact the trace, so no copy was made: {e}"),
            )
        })?;
        Ok((redacted, options))
    })
    .await
    .map_err(|e| ApiError::internal(e.to_string()))?
}

/// The copy's library name: the original's with its originals replaced too.
fn copy_name(r: &Redacted, original: &str) -> String {
    clean(
        &format!("{} (redacted)", r.matcher.redact_str(original)),
        256,
    )
}

fn clean(s: &str, max: usize) -> String {
    s.chars().filter(|c| !c.is_control()).take(max).collect()
}
