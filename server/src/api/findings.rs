//! `GET /api/traces/{id}/findings`: the list `etlscope findings --format
//! json` prints (`crate::findings_json`), run on the trace's engine.
//!
//! Every page asks for it when it opens a trace, and on large traces it
//! takes seconds (10 M File I/O rows: about 9 s, grouping paths as text),
//! so it is made once per loaded trace, on a thread of its own at a low
//! CPU priority: the user's table and graph queries, which start while it
//! runs, get the cores first.

use super::error::{ApiError, ApiResult};
use super::state::AppState;
use super::traces::{loaded, read_auth};
use crate::store::LoadedTrace;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::Json;
use serde_json::json;
use std::sync::Arc;

pub async fn get(
    State(app): State<AppState>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> ApiResult<Json<serde_json::Value>> {
    read_auth(&app, &headers)?;
    let t = loaded(&app, &id).await?;
    findings_value(t).await.map(Json)
}

/// The trace's findings, made once per loaded trace (see the module comment).
pub async fn findings_value(t: Arc<LoadedTrace>) -> ApiResult<serde_json::Value> {
    if let Some(v) = t.findings.get() {
        return Ok(v.clone());
    }
    let (tx, rx) = tokio::sync::oneshot::channel();
    // Finished and kept even when the client goes away: the next page has it.
    // A second page asking meanwhile waits for this one's answer (`get_or_init`
    // runs its closure once) instead of making it again.
    std::thread::Builder::new()
        .name("findings".into())
        .spawn(move || {
            lower_priority();
            let v = t.findings.get_or_init(|| {
                let list = query::findings::run(&t.engine);
                json!({ "findings": crate::findings_json::findings_json(&list) })
            });
            let _ = tx.send(v.clone());
        })
        .map_err(|e| ApiError::internal(e.to_string()))?;
    rx.await
        .map_err(|_| ApiError::internal("the findings thread ended without an answer"))
}

/// This thread's nice value to 10: interactive queries (nice 0) get
/// about 90% of a core it shares with them. On Linux a nice value is per
/// thread (`setpriority` of thread id 0 is the caller); elsewhere it is
/// left as it is (there it would be the whole process's).
fn lower_priority() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: setpriority only reads its arguments.
    unsafe {
        libc::setpriority(libc::PRIO_PROCESS, 0, 10);
    }
}
