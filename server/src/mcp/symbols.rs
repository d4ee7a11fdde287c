//! `symbols`: the trace's symbol status (`api::trace_symbols::state_json`),
//! and a lookup along a symbol path (`set_path`, `start_load`), which needs
//! what the API's writes need.

use super::call::{finish, ToolResult};
use super::Etlscope;
use crate::api::trace_symbols::{set_path, start_load, state_json};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::schemars::{self, JsonSchema};
use rmcp::service::RequestContext;
use rmcp::{tool, tool_router, RoleServer};
use serde::Deserialize;
use serde_json::{json, Value};

/// Modules listed, those with the most frames first.
const MODULES: usize = 25;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct SymbolsArgs {
    /// The trace's id, from list_traces.
    pub trace: String,
    /// Look symbols up again along this path (_NT_SYMBOL_PATH syntax, e.g.
    /// "srv*C:\\symbols*https://msdl.microsoft.com/download/symbols"), kept as the trace's own.
    /// Over HTTP this needs the server's token, as the API's symbol path does.
    #[serde(default)]
    pub symbol_path: Option<String>,
    /// Look symbols up again along the current path.
    #[serde(default)]
    pub load: bool,
}

#[tool_router(router = symbols_router, vis = "pub(super)")]
impl Etlscope {
    #[tool(
        description = "The trace's symbols: status of the lookup (pending, running with progress, done), how many modules ended in each status, the modules with the most frames (status, PDB, frames named of frames), and the symbol path. With symbol_path or load, starts a new lookup first (function names appear in later answers once it is done).",
        annotations(read_only_hint = false, destructive_hint = false)
    )]
    async fn symbols(
        &self,
        Parameters(a): Parameters<SymbolsArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> ToolResult {
        finish(async {
            if a.symbol_path.is_some() || a.load {
                self.may_write(&ctx)?;
                if let Some(p) = &a.symbol_path {
                    set_path(&self.app, &a.trace, Some(p)).await?;
                }
                start_load(&self.app, &a.trace).await?;
            }
            let v = state_json(&self.app, &a.trace).await?;
            Ok(compact(&v))
        })
        .await
    }
}

fn compact(v: &Value) -> Value {
    let mut modules: Vec<&Value> = v["modules"]
        .as_array()
        .map_or(Vec::new(), |m| m.iter().collect());
    modules.sort_by_key(|m| std::cmp::Reverse(m["frames"].as_u64().unwrap_or(0)));
    let mut by_status = serde_json::Map::new();
    for m in &modules {
        let s = m["status"].as_str().unwrap_or("unknown").to_string();
        let n = by_status.get(&s).and_then(Value::as_u64).unwrap_or(0);
        by_status.insert(s, json!(n + 1));
    }
    let top: Vec<Value> = modules
        .iter()
        .take(MODULES)
        .map(|m| {
            json!({"module": m["module"], "status": m["status"], "pdb": m["pdb"], "detail": m["detail"],
                   "frames": m["frames"], "resolved_frames": m["resolved_frames"]})
        })
        .collect();
    json!({
        "status": v["status"],
        "progress": v.get("progress"),
        "by_status": by_status,
        "modules": top,
        "more": modules.len().saturating_sub(MODULES),
        "symbol_path": v["symbol_path"],
        "default_symbol_path": v["default_symbol_path"],
        "warnings": v.get("warnings").and_then(Value::as_array).map(|w| w.iter().take(10).collect::<Vec<_>>()),
    })
}
