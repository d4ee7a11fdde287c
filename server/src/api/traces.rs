//! The trace library: upload, list, inspect, delete, follow ingest progress.

use super::error::{ApiError, ApiResult};
use super::state::AppState;
use crate::catalog::TraceEntry;
use crate::store::{now_rfc3339, LoadedTrace, NotReady, SymbolState, MISSING};
use crate::upload;
use axum::body::Body;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::IntoResponse;
use axum::Json;
use model::progress::BuildProgress;
use serde::Deserialize;
use serde_json::{json, Value};
use std::convert::Infallible;
use std::sync::atomic::Ordering;
use std::sync::Arc;

#[derive(Debug, Deserialize, Default)]
pub struct UploadParams {
    pub name: Option<String>,
    pub uploader: Option<String>,
    pub notes: Option<String>,
}

/// Held from an upload's last look at the catalog until its row and file are in.
pub(super) static ADDING: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

pub async fn upload(
    State(app): State<AppState>,
    headers: HeaderMap,
    Query(p): Query<UploadParams>,
    body: Body,
) -> ApiResult<impl IntoResponse> {
    if let Err(e) = super::receive::require_auth(&app, &headers) {
        super::drain::drain(&headers, body).await;
        return Err(e);
    }
    let got = super::receive::receive(&app, body).await?;
    // Whole: nothing to store. Its file gone or changed (behind the
    // server's back, even while the trace is loaded): these bytes are it.
    let whole = |e: &TraceEntry| e.status != MISSING && app.store.file_problem(e).is_none();
    let existing = app.store.catalog.get(&got.id)?;
    if let Some(e) = existing.as_ref().filter(|e| whole(e)) {
        return Ok((StatusCode::OK, Json(entry_json(&app, e))));
    }
    // Check it is a readable trace before it enters the library.
    let path = got.temp.path.clone();
    // From its first bytes only: a small zip may hold a huge member.
    let kind = tokio::task::spawn_blocking(move || -> Result<&'static str, String> {
        let f = etl::EtlFile::probe(&path).map_err(|e| e.to_string())?;
        Ok(if f.member.is_some() { "etl.zip" } else { "etl" })
    })
    .await
    .map_err(|e| ApiError::internal(e.to_string()))?
    .map_err(|m| ApiError::new(StatusCode::BAD_REQUEST, "not_a_trace", m))?;
    if app.config.require_redacted {
        require_redacted(&got.temp.path).await?;
    }
    // One upload enters the library at a time, and looks again first: of
    // the same bytes sent at once, one is added (201), the others find it (200).
    let _adding = ADDING.lock().await;
    let existing = app.store.catalog.get(&got.id)?;
    if let Some(e) = existing.as_ref().filter(|e| whole(e)) {
        return Ok((StatusCode::OK, Json(entry_json(&app, e))));
    }
    let file_name = format!("{}.{kind}", got.id);
    let new = existing.is_none();
    let entry = match existing {
        // Its stored file had vanished or changed: the same bytes restore it.
        Some(e) => TraceEntry {
            file_name,
            status: "pending".into(),
            error: String::new(),
            members: Vec::new(),
            ..e
        },
        None => TraceEntry {
            id: got.id.clone(),
            name: clean_name(p.name.as_deref().unwrap_or("trace.etl")),
            size: got.size,
            file_name,
            uploaded_at: now_rfc3339(),
            uploader: clean_name(p.uploader.as_deref().unwrap_or("")),
            notes: p.notes.unwrap_or_default().chars().take(4096).collect(),
            status: "pending".into(),
            error: String::new(),
            members: Vec::new(),
            redacted_from: String::new(),
        },
    };
    let store = app.store.clone();
    let e = entry.clone();
    let added = tokio::task::spawn_blocking(move || store.add_upload(&e, got.temp, new))
        .await
        .map_err(|e| ApiError::internal(e.to_string()))??;
    if !added {
        // Another replica added the same bytes meanwhile: this is theirs.
        if let Some(e) = app.store.catalog.get(&got.id)? {
            return Ok((StatusCode::OK, Json(entry_json(&app, &e))));
        }
    }
    crate::ingest_jobs::read_upload(&app.store, entry.clone());
    Ok((StatusCode::CREATED, Json(entry_json(&app, &entry))))
}

/// `--require-redacted`: 422 for a file `etlscope redact` did not write
/// (its mark, `redact::marker`, is missing).
async fn require_redacted(path: &std::path::Path) -> ApiResult<()> {
    let path = path.to_path_buf();
    let marked = tokio::task::spawn_blocking(move || crate::cli::redact::is_redacted_copy(&path))
        .await
        .map_err(|e| ApiError::internal(e.to_string()))?
        .map_err(|e| ApiError::internal(format!("cannot read the upload: {e}")))?;
    if marked {
        return Ok(());
    }
    Err(ApiError::new(
        StatusCode::UNPROCESSABLE_ENTITY,
        "not_redacted",
        "this server accepts only redacted copies (--require-redacted): run `etlscope redact TRACE -o COPY.etl` and upload COPY.etl as written, or upload the trace to a server of your own and use its Share a redacted copy",
    ))
}

/// Names are labels only (files are stored by id), but keep them printable and short.
fn clean_name(s: &str) -> String {
    s.chars().filter(|c| !c.is_control()).take(256).collect()
}

pub async fn list(State(app): State<AppState>, headers: HeaderMap) -> ApiResult<Json<Value>> {
    read_auth(&app, &headers)?;
    let traces: Vec<Value> = app
        .store
        .catalog
        .list()?
        .iter()
        .map(|e| entry_json(&app, e))
        .collect();
    // Tells the UI whether to ask for the token before an upload (asking
    // after a 401 would cost the whole upload).
    let access = json!({
        "token_for_writes": app.config.token.is_some(),
        "token_for_reads": app.config.token_for_reads,
        "require_redacted": app.config.require_redacted,
    });
    Ok(Json(json!({ "traces": traces, "access": access })))
}

pub fn read_auth(app: &AppState, headers: &HeaderMap) -> ApiResult<()> {
    if app.config.token_for_reads && !app.authorized(headers) {
        return Err(ApiError::unauthorized());
    }
    Ok(())
}

pub fn check_id(id: &str) -> ApiResult<()> {
    if upload::valid_id(id) {
        Ok(())
    } else {
        Err(ApiError::bad_request(format!(
            "invalid trace id {:?}: ids are 32 lower-case hex digits",
            id.chars().take(80).collect::<String>()
        )))
    }
}

pub async fn get(
    State(app): State<AppState>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> ApiResult<Json<Value>> {
    read_auth(&app, &headers)?;
    check_id(&id)?;
    let e = app
        .store
        .catalog
        .get(&id)?
        .ok_or_else(|| no_trace(&app, &id))?;
    let mut v = entry_json(&app, &e);
    if let Ok(t) = app.store.get(&id) {
        v["summary"] = summary_json(&t);
    }
    v["loads"] = json!(app.store.loads(&id));
    Ok(Json(v))
}

pub async fn delete(
    State(app): State<AppState>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> ApiResult<StatusCode> {
    if !app.authorized(&headers) {
        return Err(ApiError::unauthorized());
    }
    check_id(&id)?;
    if !app.store.delete(&id)? {
        return Err(no_trace(&app, &id));
    }
    // Its notes go with it (a trace added again starts without them).
    if let Err(e) = app.store.catalog.delete_notes_of(&id) {
        tracing::warn!(trace = %id, error = %e, "notes of a deleted trace kept");
    }
    Ok(StatusCode::NO_CONTENT)
}

/// 410 for a deleted trace (its tombstone, on every replica), else 404.
pub fn no_trace(app: &AppState, id: &str) -> ApiError {
    match app.store.catalog.deleted(id) {
        Ok(true) => ApiError::new(StatusCode::GONE, "gone", format!("trace {id} was deleted")),
        Ok(false) => ApiError::not_found(format!("no trace {id}")),
        Err(e) => e.into(),
    }
}

/// The loaded trace, waiting a little for an ingest under way.
pub async fn loaded(app: &AppState, id: &str) -> ApiResult<Arc<LoadedTrace>> {
    check_id(id)?;
    match app.store.wait_ready(id, app.config.query_wait).await {
        Ok(t) => Ok(t),
        Err(NotReady::NotFound) => Err(no_trace(app, id)),
        Err(NotReady::Failed(m)) => Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "ingest_failed",
            format!("the trace could not be read: {m}"),
        )),
        Err(NotReady::Ingesting(p)) => {
            let mut e = ApiError::new(
                StatusCode::CONFLICT,
                "ingesting",
                "the trace is still being read; retry shortly",
            );
            e.detail = Some(json!({ "progress": progress_json(&p) }));
            Err(e)
        }
    }
}

pub async fn summary(
    State(app): State<AppState>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> ApiResult<Json<Value>> {
    read_auth(&app, &headers)?;
    summary_value(&app, &headers, &id).await.map(Json)
}

/// `/summary`'s answer: the trace's summary (its Regions of Interest from the
/// view's regions file, X-Etlscope-Regions) and the schema packs that named
/// its providers.
pub async fn summary_value(app: &AppState, headers: &HeaderMap, id: &str) -> ApiResult<Value> {
    let t = loaded(app, id).await?;
    let t = super::regions::for_query(app, headers, t)?;
    let mut v = summary_json(&t);
    // The library's schema packs with a provider of this trace (its link names them).
    let has = |g: &etl::Guid| t.trace().generic.providers.guid.contains(&Some(*g));
    let used: Vec<String> = app
        .store
        .schemas
        .list()
        .into_iter()
        .filter(|(_, p)| p.providers.iter().any(|p| has(&p.guid)))
        .map(|(n, _)| n)
        .collect();
    v["schema_packs"] = json!(used);
    Ok(v)
}

/// WPA's System Configuration: the SysConfig rundown's tables (`null` when
/// the trace has none).
pub async fn system_config(
    State(app): State<AppState>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> ApiResult<Json<Value>> {
    read_auth(&app, &headers)?;
    let t = loaded(&app, &id).await?;
    let tr = t.trace();
    Ok(Json(crate::sysconfig_json::full(
        &tr.system_config,
        &tr.strings,
    )))
}

pub fn progress_json(p: &BuildProgress) -> Value {
    json!({
        "phase": p.phase_name(),
        "buffers_done": p.buffers_done.load(Ordering::Relaxed),
        "buffers_total": p.buffers_total.load(Ordering::Relaxed),
        "bytes_done": p.bytes_done.load(Ordering::Relaxed),
        "bytes_total": p.bytes_total.load(Ordering::Relaxed),
        "events": p.events.load(Ordering::Relaxed),
        // The whole build, both phases: what the UI's bar and time left show.
        "fraction": p.fraction(),
        "percent": (p.fraction() * 1000.0).floor() / 10.0,
        "elapsed_seconds": p.elapsed_seconds(),
        "seconds_left": p.seconds_left(),
    })
}

/// Server-sent events with ingest progress until the trace is ready or failed.
pub async fn progress(
    State(app): State<AppState>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> ApiResult<impl IntoResponse> {
    read_auth(&app, &headers)?;
    check_id(&id)?;
    if app.store.catalog.get(&id)?.is_none() {
        return Err(no_trace(&app, &id));
    }
    // A live trace: one event per new model (the live path serves them back
    // to back), until the last one is a normal entry. A look every 10 ms
    // (a map lookup) tells the page of a model within 10 ms of it.
    let last: Option<Arc<LoadedTrace>> = None;
    let stream = futures_util::stream::unfold(Some((app.clone(), last)), move |st| {
        let id = id.clone();
        async move {
            let (app, mut last) = st?;
            // Read by another replica (the shared ingest queue): its
            // progress, until its job is done; then this one loads it.
            if let Some(p) = elsewhere(&app, &id) {
                tokio::time::sleep(std::time::Duration::from_millis(200)).await;
                let v = json!({"status": "ingesting", "progress": p});
                let ev: Result<Event, Infallible> = Ok(Event::default().data(v.to_string()));
                return Some((ev, Some((app, last))));
            }
            let mut got = app.store.get(&id);
            while let Ok(t) = &got {
                let seen = last.as_ref().is_some_and(|l| Arc::ptr_eq(l, t));
                if t.live.is_none() || !seen {
                    break;
                }
                tokio::time::sleep(std::time::Duration::from_millis(10)).await;
                got = app.store.get(&id);
            }
            let (payload, done) = match got {
                Ok(t) if t.live.is_some() => {
                    let v = json!({"status": "live", "summary": summary_json(&t)});
                    last = Some(t);
                    (v, false)
                }
                Ok(t) => (
                    json!({"status": "ready", "summary": summary_json(&t)}),
                    true,
                ),
                Err(NotReady::Ingesting(p)) => (
                    json!({"status": "ingesting", "progress": progress_json(&p)}),
                    false,
                ),
                Err(NotReady::Failed(m)) => (json!({"status": "failed", "error": m}), true),
                Err(NotReady::NotFound) => (json!({"status": "deleted"}), true),
            };
            if !done && last.is_none() {
                tokio::time::sleep(std::time::Duration::from_millis(200)).await;
            }
            let ev: Result<Event, Infallible> = Ok(Event::default().data(payload.to_string()));
            Some((ev, if done { None } else { Some((app, last)) }))
        }
    });
    Ok(Sse::new(stream).keep_alive(KeepAlive::default()))
}

/// The progress of trace `id`'s read when another replica holds its job
/// and this one has no read of its own under way: what that replica last
/// sent, or `{"queued": true}` before it sent any.
fn elsewhere(app: &AppState, id: &str) -> Option<Value> {
    let queue = app.store.catalog.queue()?;
    if !matches!(app.store.peek(id), Err(NotReady::NotFound)) {
        return None;
    }
    queue.holder(id).ok()??;
    Some(
        app.store
            .jobs
            .elsewhere(id)
            .and_then(|j| serde_json::from_str(&j).ok())
            .unwrap_or_else(|| json!({"queued": true})),
    )
}

pub fn entry_json(app: &AppState, e: &TraceEntry) -> Value {
    let mut v = serde_json::to_value(e).unwrap_or(Value::Null);
    // What is true now, not what the catalog last managed to record.
    let (status, error) = app.store.status_of(e);
    v["status"] = Value::String(status);
    v["error"] = Value::String(error);
    if let Err(NotReady::Ingesting(p)) = app.store.peek(&e.id) {
        v["progress"] = progress_json(&p);
    }
    v["url"] = Value::String(format!("/t/{}", e.id));
    if e.members.len() > 1 {
        // File names only: where the user keeps them is theirs.
        v["files"] = e
            .members
            .iter()
            .map(|m| {
                let name = std::path::Path::new(&m.path)
                    .file_name()
                    .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
                json!({"name": name, "size": m.size})
            })
            .collect();
    }
    v
}

pub fn summary_json(t: &LoadedTrace) -> Value {
    let tr = t.trace();
    let i = &tr.info;
    json!({
        "id": t.id,
        "start_time": i.start_time,
        "duration_s": i.duration_ns as f64 / 1e9,
        "events_start_s": i.events_start_ns as f64 / 1e9,
        // Wall clock of time zero (microseconds since 1970, UTC: exact in a
        // JSON number) and the trace's time zone, for times shown as dates:
        // UTC = local + bias.
        "start_unix_us": tr.clock.start_filetime.saturating_sub(116_444_736_000_000_000) / 10,
        "timezone_bias_minutes": i.timezone_bias_minutes,
        "cpus": i.cpus,
        "pointer_size": i.pointer_size,
        "os_version": i.os_version,
        "events": i.events,
        "buffers": i.buffers,
        "skipped_buffers": i.skipped_buffers,
        "lost_events": i.lost_events,
        "lost_buffers": i.lost_buffers,
        "buffers_with_lost_events": i.buffers_with_lost_events.len(),
        "unattributed_events": i.unattributed_events,
        "samples": tr.samples.len(),
        "samples_with_stack": i.samples_with_stack,
        "unattributed_samples": i.unattributed_samples,
        "uncertain_samples": i.uncertain_samples,
        "sample_interval_source": tr.samples.interval_source,
        "processes": tr.processes.len(),
        "threads": tr.threads.len(),
        "images": tr.images.len(),
        "modules": tr.modules.len(),
        "stacks": tr.stacks.len(),
        // Rows of each table over the whole trace: a table with none says what
        // the recording lacked, not "no data in this range".
        "table_rows": table_rows(tr, t.engine.regions()),
        "load_seconds": t.load_seconds,
        "memory_bytes": t.heap_bytes(),
        "symbols": symbol_summary(t),
        "diagnostics": i.diagnostics.iter().take(50).map(|d| json!({"offset": d.offset, "message": d.message})).collect::<Vec<_>>(),
        "members": t.members.iter().map(|m| json!({"name": m.name, "buffers": m.buffers, "bytes": m.bytes})).collect::<Vec<_>>(),
        "live": t.live.as_ref().map(|l| json!({"label": l.label, "events": l.events, "copied_at_ms": l.copied_at_ms, "copy_ms": l.copy_ms, "build_ms": l.build_ms})),
    })
}

/// Rows of each table over the whole trace: a table with none says what
/// the recording lacked, not "no data in this range".
fn table_rows(tr: &model::Trace, regions: &model::regions::RegionTable) -> Value {
    json!({
        "cpu-sampled": tr.samples.len(),
        "cpu-precise": tr.cswitches.len(),
        "processes": tr.processes.len(),
        "threads": tr.threads.len(),
        "images": tr.images.len(),
        "file-io": tr.file_io.len(),
        "disk-io": tr.disk_io.len(),
        "generic": tr.generic.len(),
        "hard-faults": tr.hard_faults.len(),
        "network": tr.network.len(),
        "page-faults": tr.page_faults.len(),
        "registry": tr.registry.len(),
        "virtual-alloc": tr.commits.len(),
        "heap": tr.heap.len(),
        "regions": regions.len(),
        "marks": tr.marks.len(),
        "dpc-isr": tr.dpc_isr.len(),
        "processor-frequency": tr.frequency.len(),
        "cpu-idle-states": tr.idle_states.len(),
        "window-in-focus": tr.focus.len(),
        "ui-delays": tr.ui_delays.len(),
        "gpu-utilization": tr.gpu.len(),
        "frame-times": tr.frame_times.len(),
    })
}

/// Symbol lookup in a few numbers: the state, progress while running, then
/// how many modules ended in each status and how many of their frames got names.
fn symbol_summary(t: &LoadedTrace) -> Value {
    let Ok(state) = t.symbols.lock() else {
        return json!({"status": "unknown"});
    };
    match &*state {
        SymbolState::Pending => json!({"status": "pending"}),
        SymbolState::Running(p) => json!({"status": "running",
            "modules_done": p.modules_done.load(Ordering::Relaxed),
            "modules_total": p.modules_total.load(Ordering::Relaxed)}),
        SymbolState::Done(done) => {
            let modules = &done.modules;
            let mut counts = serde_json::Map::new();
            let (mut frames, mut resolved) = (0u64, 0u64);
            for m in modules {
                let status = m["status"].as_str().unwrap_or("unknown").to_string();
                let n = counts.get(&status).and_then(Value::as_u64).unwrap_or(0);
                counts.insert(status, json!(n + 1));
                frames += m["frames"].as_u64().unwrap_or(0);
                resolved += m["resolved_frames"].as_u64().unwrap_or(0);
            }
            json!({"status": "done", "modules": modules.len(), "by_status": counts,
                   "frames": frames, "resolved_frames": resolved})
        }
    }
}
