//! `sql`: one read-only SQL query over a trace (`api::sql::sql_value`, the
//! `POST /api/traces/{id}/sql` endpoint's function), for the questions no
//! table preset asks. Tables and columns: docs/guide/sql.md, and the column
//! catalog resource (a table's SQL name is its name in snake case).

use super::call::{finish, rows_limit, ToolResult};
use super::Etlscope;
use crate::api::sql::{sql_value, SqlRequest};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::schemars::{self, JsonSchema};
use rmcp::service::RequestContext;
use rmcp::{tool, tool_router, RoleServer};
use serde::Deserialize;
use serde_json::json;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct SqlArgs {
    /// The trace's id, from list_traces.
    pub trace: String,
    /// One SELECT (or WITH) statement. Tables: cpu_sampled, processes, threads, images, file_io,
    /// disk_io, generic_events, ... (each table's name in snake case), stacks, frames, modules,
    /// trace_info; columns are WPA's names in snake case; times and durations in nanoseconds.
    /// stack_contains(stack, 'module!function') tests a sample's stack.
    pub sql: String,
    /// Rows to answer, 1 to 500 (default 25); more are cut and `truncated` says so.
    #[serde(default)]
    pub limit: Option<u64>,
}

#[tool_router(router = sql_router, vis = "pub(super)")]
impl Etlscope {
    #[tool(
        description = "Run one read-only SQL query (SQLite) over a trace's tables: what no table preset asks (counts across columns, joins with stacks, frames and modules). Answers columns, rows and whether rows were cut, plus a link to the trace. The server's SQL limits apply (time, memory, rows); writes, ATTACH and extensions are refused.",
        annotations(read_only_hint = true)
    )]
    async fn sql(
        &self,
        Parameters(a): Parameters<SqlArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> ToolResult {
        let base = self.ui_base(&ctx);
        finish(async {
            let limit = rows_limit(a.limit)?;
            let req = SqlRequest {
                sql: a.sql,
                max_rows: Some(limit),
                timeout_ms: None,
            };
            let mut v = sql_value(&self.app, &a.trace, req).await?;
            v["link"] = json!(format!("{base}/t/{}", a.trace));
            Ok(v)
        })
        .await
    }
}
