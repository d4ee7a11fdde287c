//! An MCP server over the trace library (issue 39): `etlscope mcp` on stdio
//! and `/mcp` of `etlscope serve` (streamable HTTP), on the official Rust SDK.
//!
//! Each tool family is one file; every tool calls the function its HTTP
//! endpoint calls (`api::query::run_table`, `api::callers::tree`, ...) with the
//! request the UI would send, so answers and error messages are the API's.
//! Tools answer compact JSON (the top rows, totals and how many more) with a
//! link to the same view in the UI.
//!
//! `sql` answers what no preset asks, through the SQL endpoint's function.

mod args;
mod call;
mod findings;
pub mod http;
mod links;
mod prompts;
mod resources;
mod sql;
mod stacks;
pub mod stdio;
mod symbols;
mod tables;
mod traces;

use crate::api::state::AppState;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{
    GetPromptRequestParams, GetPromptResponse, Implementation, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{tool_handler, ErrorData, RoleServer, ServerHandler};

/// How the client reaches this server, which decides what `open_trace`
/// accepts, who may change anything, and where links point.
#[derive(Clone, Debug)]
pub enum Transport {
    /// `etlscope mcp`: the local user; links on `ui_url` (an `etlscope
    /// serve` of the same data directory).
    Stdio { ui_url: String },
    /// `/mcp` of `etlscope serve`: the API's token rules; links on this server.
    Http,
}

#[derive(Clone)]
pub struct Etlscope {
    app: AppState,
    transport: Transport,
    tool_router: ToolRouter<Self>,
}

impl Etlscope {
    pub fn new(app: AppState, transport: Transport) -> Self {
        Etlscope {
            app,
            transport,
            tool_router: Self::traces_router()
                + Self::tables_router()
                + Self::stacks_router()
                + Self::findings_router()
                + Self::symbols_router()
                + Self::sql_router(),
        }
    }
}

const INSTRUCTIONS: &str = "etlscope reads Windows ETW traces (.etl) as Windows Performance Analyzer does. \
Start with list_traces, then trace_summary (which tables have rows, duration, CPUs, health). \
The resource etlscope://traces/{id}/columns lists every table's columns. \
table is WPA's grouped table (keys, values with aggregations, filters, range, path to drill); \
hot_stacks, callers, callees and flame answer CPU Usage (Sampled) questions; findings lists what deserves a look; \
sql runs a read-only SQL query over the same tables for anything else. \
Rows are named by their labels (`explorer.exe (6148)`, `module!function`) or stable ids (`pid:`, `mod:`, `fn:`), \
which path, filters and targets accept. Every answer carries a `link` to the same view in the UI.";

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Etlscope {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .enable_prompts()
                .build(),
        )
        .with_server_info(Implementation::new("etlscope", env!("CARGO_PKG_VERSION")))
        .with_instructions(INSTRUCTIONS)
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        resources::list(self, &ctx).await
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(resources::templates())
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        resources::read(self, &request.uri, &ctx).await
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        Ok(prompts::list())
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        prompts::get(&request)
    }
}
