//! `table`: WPA's grouped table, the request the UI makes, answered by the
//! same planner as `POST /api/traces/{id}/table` (`api::query::run_table`).

use super::args::{filters_json, range_json, sort_json, FilterArg, RangeArg, SortArg};
use super::call::{api_request, finish, on_trace, rows_limit, ToolResult};
use super::links::Link;
use super::Etlscope;
use crate::api::query::{run_table, TableSpec};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::schemars::{self, JsonSchema};
use rmcp::service::RequestContext;
use rmcp::{tool, tool_router, RoleServer};
use serde::Deserialize;
use serde_json::{json, Value};

#[derive(Debug, Deserialize, JsonSchema)]
pub struct TableArgs {
    /// The trace's id, from list_traces.
    pub trace: String,
    /// cpu-sampled (default), cpu-precise, processes, threads, images, file-io, disk-io, generic,
    /// hard-faults, network, page-faults, registry, virtual-alloc, heap, regions, marks, dpc-isr,
    /// processor-frequency, cpu-idle-states, window-in-focus or ui-delays. trace_summary says
    /// which have rows; the resource etlscope://traces/{id}/columns lists their columns.
    #[serde(default)]
    pub table: Option<String>,
    /// Key columns left of the gold bar, outermost first, e.g. ["Process", "Stack"],
    /// ["Type", "File Path"], ["File Version", "Image Path"].
    pub keys: Vec<String>,
    /// Value columns with an aggregation, `COLUMN[:AGG]` (sum, min, max, avg, count, unique,
    /// single), e.g. ["Duration:max", "Size"]; each row's `values` then holds them.
    #[serde(default)]
    pub values: Vec<String>,
    #[serde(default)]
    pub filters: Vec<FilterArg>,
    /// Only what happened in this time range.
    #[serde(default)]
    pub range: Option<RangeArg>,
    /// The expanded row whose children to list: one label (or stable id) per key column,
    /// outermost first, e.g. ["explorer.exe (6148)"], ["Create"], [""] (an empty label).
    /// Empty: the top level.
    #[serde(default)]
    pub path: Vec<String>,
    #[serde(default)]
    pub sort: Option<SortArg>,
    /// Rows to answer, 1 to 500 (default 25); `more` says how many were left out.
    #[serde(default)]
    pub limit: Option<u64>,
}

#[tool_router(router = tables_router, vis = "pub(super)")]
impl Etlscope {
    #[tool(
        description = "WPA's grouped table: rows grouped by the key columns (outermost first), one level at a time under `path`, heaviest first, with count, weight (ms), % weight, first/last time and any value columns asked for; `total` and `parent` are the whole range's and the expanded row's totals, `more` the rows left out. The same request and answer as the UI's table, and a `link` that opens it.",
        annotations(read_only_hint = true)
    )]
    async fn table(
        &self,
        Parameters(a): Parameters<TableArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> ToolResult {
        let base = self.ui_base(&ctx);
        finish(async {
            let limit = rows_limit(a.limit)?;
            let table = a.table.clone().unwrap_or_else(|| "cpu-sampled".into());
            let spec: TableSpec = api_request(json!({
                "table": table,
                "columns": a.keys,
                "values": a.values,
                "filters": filters_json(&a.filters),
                "range": range_json(&a.range),
                "path": a.path,
                "sort": sort_json(&a.sort),
                "limit": limit,
            }))?;
            let v = on_trace(self, &a.trace, move |t| run_table(t, &spec)).await?;
            let link = Link::table(&table, &a.keys)
                .values(&a.values)
                .sort(&table, &a.sort)
                .filters(&a.filters)
                .range(&a.range)
                .open(&a.path)
                .to(&base, &a.trace);
            Ok(compact_table(&table, &a.keys, &a.path, &v, link))
        })
        .await
    }
}

/// The API's table answer without its internal keys: what an agent reads.
pub fn compact_table(
    table: &str,
    keys: &[String],
    path: &[String],
    v: &Value,
    link: String,
) -> Value {
    let rows: Vec<Value> = v["rows"]
        .as_array()
        .map_or(&[][..], |r| &r[..])
        .iter()
        .map(compact_row)
        .collect();
    let mut out = json!({
        "table": table,
        "keys": keys,
        "path": path,
        "level": v["column"],
        "total": v["total"],
        "rows": rows,
        "more": v["omitted"],
        "link": link,
    });
    if !path.is_empty() {
        out["parent"] = v["parent"].clone();
    }
    if let Some(cols) = v.get("value_columns") {
        out["value_columns"] = cols.clone();
    }
    out
}

/// One row: its label, stable id (if any), figures and values.
pub fn compact_row(r: &Value) -> Value {
    let mut row = json!({"label": r["label"], "count": r["count"]});
    for k in [
        "id",
        "weight_ms",
        "percent",
        "first_s",
        "last_s",
        "values",
        "expandable",
    ] {
        if let Some(x) = r.get(k).filter(|x| !x.is_null()) {
            row[k] = x.clone();
        }
    }
    row
}
