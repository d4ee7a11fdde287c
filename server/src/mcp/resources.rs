//! Resources an agent plans its queries with: each trace's summary and its
//! column catalog (every table's key and value columns with their types,
//! units and default aggregations, from the one column declaration in
//! crates/query, as `/api/traces/{id}/columns` lists them).

use super::call::{call_limit, on_trace};
use super::Etlscope;
use crate::api::error::ApiError;
use crate::api::query::columns_json;
use rmcp::model::{
    ListResourceTemplatesResult, ListResourcesResult, ReadResourceResponse, ReadResourceResult,
    Resource, ResourceContents, ResourceTemplate,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use serde_json::Value;

const PREFIX: &str = "etlscope://traces/";
/// Most traces listed (two resources each).
const MAX_LISTED: usize = 100;

pub async fn list(
    e: &Etlscope,
    _ctx: &RequestContext<RoleServer>,
) -> Result<ListResourcesResult, ErrorData> {
    let traces = e
        .app
        .store
        .catalog
        .list()
        .map_err(|err| as_error(err.into()))?;
    let mut out = Vec::new();
    for t in traces.iter().take(MAX_LISTED) {
        out.push(
            Resource::new(
                format!("{PREFIX}{}/summary", t.id),
                format!("{} summary", t.name),
            )
            .with_description(
                "Duration, CPUs, OS, processes, which tables have rows, health, symbols",
            )
            .with_mime_type("application/json"),
        );
        out.push(
            Resource::new(
                format!("{PREFIX}{}/columns", t.id),
                format!("{} columns", t.name),
            )
            .with_description(
                "Every table's key and value columns: names, types, units, aggregations",
            )
            .with_mime_type("application/json"),
        );
    }
    Ok(ListResourcesResult::with_all_items(out))
}

pub fn templates() -> ListResourceTemplatesResult {
    ListResourceTemplatesResult::with_all_items(vec![
        ResourceTemplate::new(format!("{PREFIX}{{id}}/summary"), "trace summary")
            .with_description("A trace's summary, as the trace_summary tool answers it")
            .with_mime_type("application/json"),
        ResourceTemplate::new(format!("{PREFIX}{{id}}/columns"), "column catalog")
            .with_description("A trace's tables and their columns, to plan `table` calls")
            .with_mime_type("application/json"),
    ])
}

pub async fn read(
    e: &Etlscope,
    uri: &str,
    ctx: &RequestContext<RoleServer>,
) -> Result<ReadResourceResponse, ErrorData> {
    let not_found = || {
        ErrorData::resource_not_found(
            format!("no resource {uri:?}: resources are {PREFIX}ID/summary and {PREFIX}ID/columns"),
            None,
        )
    };
    let (id, what) = uri
        .strip_prefix(PREFIX)
        .and_then(|rest| rest.split_once('/'))
        .ok_or_else(not_found)?;
    let base = e.ui_base(ctx);
    let work = async {
        match what {
            "summary" => super::traces::summary(e, id, &base).await,
            "columns" => on_trace(e, id, |t| Ok(columns_json(t))).await,
            _ => Err(ApiError::not_found("no such resource")),
        }
    };
    let v: Value = match tokio::time::timeout(call_limit(), work).await {
        Ok(Ok(v)) => v,
        Ok(Err(err)) if err.code == "not_found" && what != "summary" && what != "columns" => {
            return Err(not_found())
        }
        Ok(Err(err)) => return Err(as_error(err)),
        Err(_) => {
            return Err(ErrorData::internal_error(
                "the read took longer than the limit of one call",
                None,
            ))
        }
    };
    let text = serde_json::to_string(&v)
        .map_err(|err| ErrorData::internal_error(err.to_string(), None))?;
    Ok(ReadResourceResult::new(vec![
        ResourceContents::text(text, uri).with_mime_type("application/json")
    ])
    .into())
}

/// An API error as the protocol's: the trace missing as "not found", the rest with the API's message.
fn as_error(err: ApiError) -> ErrorData {
    let data = Some(serde_json::json!({"code": err.code}));
    match err.code {
        "not_found" | "gone" => ErrorData::resource_not_found(err.message, data),
        "bad_request" => ErrorData::invalid_params(err.message, data),
        _ => ErrorData::internal_error(err.message, data),
    }
}
