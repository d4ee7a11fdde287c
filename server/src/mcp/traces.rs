//! The library: `list_traces`, `open_trace`, `trace_summary`.

use super::call::{finish, ToolResult};
use super::{Etlscope, Transport};
use crate::api::error::{ApiError, ApiResult};
use crate::api::traces::{check_id, entry_json, loaded, summary_value};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::schemars::{self, JsonSchema};
use rmcp::service::RequestContext;
use rmcp::{tool, tool_router, RoleServer};
use serde::Deserialize;
use serde_json::{json, Value};

/// Most traces `list_traces` names.
const MAX_LISTED: usize = 200;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct TraceArg {
    /// The trace's id (32 hex digits), from list_traces.
    pub trace: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct OpenArgs {
    /// Over stdio: the path of an .etl, .etl.zip or .diagsession file on this machine, added to the
    /// library by reference (not copied). Not accepted over HTTP.
    #[serde(default)]
    pub path: Option<String>,
    /// A trace of the library by its id (32 hex digits).
    #[serde(default)]
    pub id: Option<String>,
}

#[tool_router(router = traces_router, vis = "pub(super)")]
impl Etlscope {
    #[tool(
        description = "List the traces in the library: id, file name, status (ready, ingesting, failed, missing) and size, with a link to each trace's page. Pass an id to the other tools.",
        annotations(read_only_hint = true)
    )]
    async fn list_traces(&self, ctx: RequestContext<RoleServer>) -> ToolResult {
        let base = self.ui_base(&ctx);
        finish(async {
            let all = self.app.store.catalog.list()?;
            let traces: Vec<Value> = all
                .iter()
                .take(MAX_LISTED)
                .map(|e| {
                    let v = entry_json(&self.app, e);
                    json!({"id": e.id, "name": e.name, "status": v["status"], "error": v["error"],
                           "size": e.size, "uploaded_at": e.uploaded_at,
                           "link": format!("{base}/t/{}", e.id)})
                })
                .collect();
            Ok(json!({"traces": traces, "total": all.len(), "more": all.len().saturating_sub(MAX_LISTED)}))
        })
        .await
    }

    #[tool(
        description = "Open a trace and answer its summary once it is read (waits up to 20 s for a read under way). Over stdio give `path` (a file on this machine, added to the library by reference); over HTTP give `id` (a trace already in the library).",
        annotations(read_only_hint = false, destructive_hint = false)
    )]
    async fn open_trace(
        &self,
        Parameters(a): Parameters<OpenArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> ToolResult {
        let base = self.ui_base(&ctx);
        finish(async {
            let id = match (&a.path, &a.id, &self.transport) {
                (Some(_), Some(_), _) | (None, None, _) => {
                    return Err(ApiError::bad_request("give either path or id"))
                }
                (None, Some(id), _) => id.clone(),
                (Some(_), None, Transport::Http) => {
                    return Err(ApiError::bad_request(
                        "over HTTP a trace is opened by its library id: upload the file (POST /api/traces, or the UI) and pass its id",
                    ))
                }
                (Some(path), None, Transport::Stdio { .. }) => self.add_local(path).await?,
            };
            summary(self, &id, &base).await
        })
        .await
    }

    #[tool(
        description = "A trace's summary: duration, CPUs, OS version, pointer size, counts of processes, threads, images and samples, which tables have rows (tables_filled, with their row counts) and which are empty, health (lost events and buffers, unattributed samples, reader diagnostics) and symbol status.",
        annotations(read_only_hint = true)
    )]
    async fn trace_summary(
        &self,
        Parameters(a): Parameters<TraceArg>,
        ctx: RequestContext<RoleServer>,
    ) -> ToolResult {
        let base = self.ui_base(&ctx);
        finish(summary(self, &a.trace, &base)).await
    }
}

impl Etlscope {
    /// Add a local file (and its PerfView companions) to the library by
    /// reference, as `etlscope open` does; its id once hashed.
    async fn add_local(&self, path: &str) -> ApiResult<String> {
        let given = vec![std::path::PathBuf::from(path)];
        let files = crate::companions::trace_files(&given, true);
        let abs = crate::cli::register::check_local(&files)
            .map_err(|e| ApiError::bad_request(format!("{e:#}")))?;
        let rx = self
            .app
            .store
            .open_local(abs, crate::cli::register::register_checked);
        let got = tokio::task::spawn_blocking(move || rx.recv())
            .await
            .map_err(|e| ApiError::internal(e.to_string()))?;
        match got {
            Ok(Ok(id)) => Ok(id),
            Ok(Err(e)) => Err(ApiError::bad_request(format!("{e:#}"))),
            Err(_) => Err(ApiError::internal(
                "the trace's registration ended without an id",
            )),
        }
    }
}

/// The API's summary, in fewer words: the figures an agent plans with.
pub(super) async fn summary(e: &Etlscope, id: &str, base: &str) -> ApiResult<Value> {
    check_id(id)?;
    let s = summary_value(&e.app, &axum::http::HeaderMap::new(), id).await?;
    let t = loaded(&e.app, id).await?;
    let name = e
        .app
        .store
        .catalog
        .get(id)?
        .map(|entry| entry.name)
        .unwrap_or_default();
    let (mut filled, mut empty) = (serde_json::Map::new(), Vec::new());
    if let Some(rows) = s["table_rows"].as_object() {
        for (table, n) in rows {
            if n.as_u64().unwrap_or(0) > 0 {
                filled.insert(table.clone(), n.clone());
            } else {
                empty.push(table.clone());
            }
        }
    }
    let diagnostics = s["diagnostics"].as_array().map_or(&[][..], |d| &d[..]);
    Ok(json!({
        "id": id,
        "name": name,
        "start_time": s["start_time"],
        "duration_s": s["duration_s"],
        "cpus": s["cpus"],
        "os_version": s["os_version"],
        "pointer_size": s["pointer_size"],
        "events": s["events"],
        "processes": s["processes"],
        "threads": s["threads"],
        "images": s["images"],
        "samples": s["samples"],
        "tables_filled": filled,
        "tables_empty": empty,
        "health": {
            "lost_events": s["lost_events"],
            "lost_buffers": s["lost_buffers"],
            "skipped_buffers": s["skipped_buffers"],
            "buffers_with_lost_events": s["buffers_with_lost_events"],
            "unattributed_events": s["unattributed_events"],
            "unattributed_samples": s["unattributed_samples"],
            "uncertain_samples": s["uncertain_samples"],
            "samples_with_stack": s["samples_with_stack"],
            "diagnostics": diagnostics.iter().take(5).collect::<Vec<_>>(),
            "more_diagnostics": diagnostics.len().saturating_sub(5),
        },
        "symbols": s["symbols"],
        "schema_packs": s["schema_packs"],
        "files": t.members.len(),
        "link": format!("{base}/t/{id}"),
    }))
}
