//! `findings` (what deserves a look, `api::findings::findings_value`) and
//! `compare` (two traces, `api::compare::compare_value`).

use super::args::{range_json, RangeArg};
use super::call::{api_request, bounded, finish, rows_limit, ToolResult};
use super::links::{self, CompareView};
use super::Etlscope;
use crate::api::compare::{compare_value, CompareSpec};
use crate::api::findings::findings_value;
use crate::api::traces::loaded;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::schemars::{self, JsonSchema};
use rmcp::service::RequestContext;
use rmcp::{tool, tool_router, RoleServer};
use serde::Deserialize;
use serde_json::{json, Value};

#[derive(Debug, Deserialize, JsonSchema)]
pub struct FindingsArgs {
    /// The trace's id, from list_traces.
    pub trace: String,
    /// Findings to answer, 1 to 100 (default 20), most important first.
    #[serde(default)]
    pub limit: Option<u64>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct CompareArgs {
    /// The baseline trace's id.
    pub base: String,
    /// The comparison trace's id.
    pub new: String,
    /// The table to group on both, as `table`'s (default cpu-sampled).
    #[serde(default)]
    pub table: Option<String>,
    /// Key columns; rows of the two traces are matched by these keys' identities.
    #[serde(default)]
    pub keys: Vec<String>,
    /// Value columns `COLUMN[:AGG]`; absent: the table's defaults.
    #[serde(default)]
    pub values: Option<Vec<String>>,
    #[serde(default)]
    pub base_range: Option<RangeArg>,
    #[serde(default)]
    pub new_range: Option<RangeArg>,
    /// none (default), time (scale the baseline by the ratio of the ranges) or samples.
    #[serde(default)]
    pub normalize: Option<String>,
    /// Rows to answer, 1 to 500 (default 25), largest change first.
    #[serde(default)]
    pub limit: Option<u64>,
}

#[tool_router(router = findings_router, vis = "pub(super)")]
impl Etlscope {
    #[tool(
        description = "What in the trace deserves a look, most important first: each finding's rule, category, title (naming the process, module, file or function), figure and unit, and a link to the view that shows the figure. Made once per trace; the first call on a large trace can take seconds.",
        annotations(read_only_hint = true)
    )]
    async fn findings(
        &self,
        Parameters(a): Parameters<FindingsArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> ToolResult {
        let base = self.ui_base(&ctx);
        finish(async {
            let limit = bounded("limit", a.limit, 20, 100)?;
            let t = loaded(&self.app, &a.trace).await?;
            let v = findings_value(t).await?;
            let all = v["findings"].as_array().map_or(&[][..], |f| &f[..]);
            let list: Vec<Value> = all
                .iter()
                .take(limit)
                .map(|f| {
                    let link = f["view"]["link"].as_str().unwrap_or("");
                    json!({
                        "rule": f["rule"], "category": f["category"], "title": f["title"],
                        "figure": f["figure"], "unit": f["unit"],
                        "link": if link.is_empty() { Value::Null }
                                else { json!(format!("{base}/t/{}?{link}", a.trace)) },
                    })
                })
                .collect();
            Ok(json!({"findings": list, "total": all.len(), "more": all.len().saturating_sub(limit)}))
        })
        .await
    }

    #[tool(
        description = "Compare two traces: the same grouped table on both, rows matched by identity, with baseline, comparison, delta and delta % of each value column, largest change first - what changed between a slow and a fast run. Answers a link to the comparison page.",
        annotations(read_only_hint = true)
    )]
    async fn compare(
        &self,
        Parameters(a): Parameters<CompareArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> ToolResult {
        let base_url = self.ui_base(&ctx);
        finish(async {
            let limit = rows_limit(a.limit)?;
            let table = a.table.clone().unwrap_or_else(|| "cpu-sampled".into());
            let normalize = a.normalize.clone().unwrap_or_else(|| "none".into());
            let spec: CompareSpec = api_request(json!({
                "base": a.base, "new": a.new, "table": table, "columns": a.keys,
                "values": a.values, "base_range": range_json(&a.base_range),
                "new_range": range_json(&a.new_range), "normalize": normalize, "limit": limit,
            }))?;
            let v = compare_value(&self.app, spec).await?;
            let link = links::compare(
                &base_url,
                (&a.base, &a.new),
                &CompareView {
                    table: &table,
                    keys: &a.keys,
                    values: a.values.as_deref(),
                    base_range: a.base_range.as_ref(),
                    new_range: a.new_range.as_ref(),
                    normalize: &normalize,
                },
            );
            Ok(json!({
                "table": v["table"],
                "keys": v["keys"],
                "values": v["values"],
                "columns_per_value": ["baseline", "comparison", "delta", "delta %"],
                "normalize": v["normalize"],
                "factor": v["factor"],
                "rows": v["rows"],
                "total_rows": v["total_rows"],
                "more": v["omitted"],
                "link": link,
            }))
        })
        .await
    }
}
