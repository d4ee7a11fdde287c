//! CPU Usage (Sampled) by stack: `hot_stacks` (the heaviest path, as the
//! UI's drill to the heaviest child), `callers` / `callees` (the butterfly's
//! trees, `api::callers::tree`) and `flame` (`api::query::run_flame`).

use super::args::{filters_json, range_json, sort_json, FilterArg, RangeArg, SortArg};
use super::call::{api_request, bounded, finish, on_trace, rows_limit, ToolResult};
use super::links::Link;
use super::tables::compact_row;
use super::Etlscope;
use crate::api::callers::{tree, TreeSpec};
use crate::api::error::ApiResult;
use crate::api::query::{run_flame, run_table, FlameSpec, TableSpec};
use crate::store::LoadedTrace;
use query::Direction;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::schemars::{self, JsonSchema};
use rmcp::service::RequestContext;
use rmcp::{tool, tool_router, RoleServer};
use serde::Deserialize;
use serde_json::{json, Value};

#[derive(Debug, Deserialize, JsonSchema)]
pub struct HotArgs {
    /// The trace's id, from list_traces.
    pub trace: String,
    /// The process whose stacks to follow, as its row is labelled, e.g. "explorer.exe (6148)"
    /// (or its stable id "pid:6148@..."); absent: all processes' samples together.
    #[serde(default)]
    pub process: Option<String>,
    #[serde(default)]
    pub range: Option<RangeArg>,
    #[serde(default)]
    pub filters: Vec<FilterArg>,
    /// Deepest frame to follow, 1 to 256 (default 64).
    #[serde(default)]
    pub max_depth: Option<u64>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct TreeArgs {
    /// The trace's id, from list_traces.
    pub trace: String,
    /// function or module.
    pub kind: String,
    /// The function (`module!function`, or `fn:` id) or module (`name.dll`, or `mod:` id).
    pub target: String,
    /// List neighbours by function (default) or module.
    #[serde(default)]
    pub by: Option<String>,
    /// innermost (default) or outermost occurrence of the target on a stack.
    #[serde(default)]
    pub occurrence: Option<String>,
    /// The expanded tree row: labels from the target outwards; empty for its direct neighbours.
    #[serde(default)]
    pub path: Vec<String>,
    #[serde(default)]
    pub range: Option<RangeArg>,
    #[serde(default)]
    pub filters: Vec<FilterArg>,
    #[serde(default)]
    pub sort: Option<SortArg>,
    /// Rows to answer, 1 to 500 (default 25).
    #[serde(default)]
    pub limit: Option<u64>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct FlameArgs {
    /// The trace's id, from list_traces.
    pub trace: String,
    #[serde(default)]
    pub range: Option<RangeArg>,
    #[serde(default)]
    pub filters: Vec<FilterArg>,
    /// Levels from the root, 1 to 64 (default 8).
    #[serde(default)]
    pub levels: Option<u64>,
    /// Widest boxes per level, 1 to 50 (default 5).
    #[serde(default)]
    pub per_level: Option<u64>,
    /// One root per process (default false).
    #[serde(default)]
    pub per_process: bool,
}

#[tool_router(router = stacks_router, vis = "pub(super)")]
impl Etlscope {
    #[tool(
        description = "The heaviest call path of a process (or of all samples) in CPU Usage (Sampled): from the root, each level's heaviest frame with its samples, weight and share, and the runner-up beside it, down to a leaf - the UI's drill to the heaviest child. Answers the frames as labels and stable ids, and a link that opens the table expanded to the deepest one.",
        annotations(read_only_hint = true)
    )]
    async fn hot_stacks(
        &self,
        Parameters(a): Parameters<HotArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> ToolResult {
        let base = self.ui_base(&ctx);
        finish(async {
            let depth = bounded("max_depth", a.max_depth, 64, 256)?;
            let keys: Vec<String> = match a.process {
                Some(_) => vec!["Process".into(), "Stack".into()],
                None => vec!["Stack".into()],
            };
            let (process, range, filters) = (a.process.clone(), a.range.clone(), a.filters.clone());
            let k = keys.clone();
            let (root, frames) = on_trace(self, &a.trace, move |t| {
                hot_path(t, &k, process, &range, &filters, depth)
            })
            .await?;
            let mut names: Vec<String> = a.process.iter().cloned().collect();
            names.extend(frames.iter().map(|f| {
                f["id"]
                    .as_str()
                    .or(f["label"].as_str())
                    .unwrap_or("")
                    .to_string()
            }));
            let link = Link::table("cpu-sampled", &keys)
                .filters(&a.filters)
                .range(&a.range)
                .open(&names)
                .to(&base, &a.trace);
            Ok(json!({"process": a.process, "total": root, "path": frames, "link": link}))
        })
        .await
    }

    #[tool(
        description = "Who calls a function or module (WPA's View Callers): one level of the caller tree, heaviest first, with counts and weights; `parent` is the expanded row's total (with an empty path: the target's inclusive samples). Expand a row by passing the labels from the target outwards as `path`.",
        annotations(read_only_hint = true)
    )]
    async fn callers(
        &self,
        Parameters(a): Parameters<TreeArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> ToolResult {
        let base = self.ui_base(&ctx);
        finish(neighbours(self, a, Direction::Callers, base)).await
    }

    #[tool(
        description = "What a function or module calls (WPA's View Callees): one level of the callee tree, heaviest first, with counts and weights; `parent` is the expanded row's total (with an empty path: the target's inclusive samples). Expand a row by passing the labels from the target outwards as `path`.",
        annotations(read_only_hint = true)
    )]
    async fn callees(
        &self,
        Parameters(a): Parameters<TreeArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> ToolResult {
        let base = self.ui_base(&ctx);
        finish(neighbours(self, a, Direction::Callees, base)).await
    }

    #[tool(
        description = "The flame graph of CPU Usage (Sampled) in brief: for each level from the root, the widest frames with their weight (ms), self time and share of all samples.",
        annotations(read_only_hint = true)
    )]
    async fn flame(
        &self,
        Parameters(a): Parameters<FlameArgs>,
        ctx: RequestContext<RoleServer>,
    ) -> ToolResult {
        let base = self.ui_base(&ctx);
        finish(async {
            let levels = bounded("levels", a.levels, 8, 64)?;
            let per_level = bounded("per_level", a.per_level, 5, 50)?;
            let spec: FlameSpec = api_request(json!({
                "range": range_json(&a.range),
                "filters": filters_json(&a.filters),
                "order": "weight",
                "per_process": a.per_process,
            }))?;
            let g = on_trace(self, &a.trace, move |t| run_flame(t, spec)).await?;
            let mut link = Link::flame().filters(&a.filters).range(&a.range);
            if a.per_process {
                link.push("pp", "1");
            }
            Ok(json!({
                "total": g["total"],
                "levels": flame_levels(&g, levels, per_level),
                "link": link.to(&base, &a.trace),
            }))
        })
        .await
    }
}

/// The heaviest path under `process` (or the root): the root's totals and
/// each level's heaviest row, with the runner-up.
fn hot_path(
    t: &LoadedTrace,
    keys: &[String],
    process: Option<String>,
    range: &Option<RangeArg>,
    filters: &[FilterArg],
    depth: usize,
) -> ApiResult<(Value, Vec<Value>)> {
    // Keys of the rows drilled so far (the process by its label first).
    let mut path: Vec<Value> = process.into_iter().map(Value::String).collect();
    let mut frames = Vec::new();
    let mut root = Value::Null;
    for _ in 0..depth {
        let spec: TableSpec = api_request(json!({
            "table": "cpu-sampled",
            "columns": keys,
            "filters": filters_json(filters),
            "range": range_json(range),
            "path": path,
            "limit": 2,
        }))?;
        let v = run_table(t, &spec)?;
        if root.is_null() {
            root = if path.is_empty() {
                v["total"].clone()
            } else {
                v["parent"].clone()
            };
        }
        let rows = v["rows"].as_array().map_or(&[][..], |r| &r[..]);
        let Some(top) = rows.first() else { break };
        let mut frame = compact_row(top);
        if let Some(next) = rows.get(1) {
            frame["next"] = json!({"label": next["label"], "count": next["count"]});
        }
        frames.push(frame);
        if top["expandable"] != Value::Bool(true) {
            break;
        }
        path.push(top["key"].clone());
    }
    Ok((root, frames))
}

async fn neighbours(
    e: &Etlscope,
    a: TreeArgs,
    direction: Direction,
    base: String,
) -> ApiResult<Value> {
    let limit = rows_limit(a.limit)?;
    let spec: TreeSpec = api_request(json!({
        "kind": a.kind,
        "target": a.target,
        "by": a.by,
        "occurrence": a.occurrence,
        "path": a.path,
        "range": range_json(&a.range),
        "filters": filters_json(&a.filters),
        "sort": sort_json(&a.sort),
        "limit": limit,
    }))?;
    let v = on_trace(e, &a.trace, move |t| tree(t, spec, direction)).await?;
    let side = match direction {
        Direction::Callers => "c",
        Direction::Callees => "e",
    };
    let by = a.by.as_deref().unwrap_or("function");
    let link = Link::butterfly(&a.kind, &a.target, by)
        .filters(&a.filters)
        .range(&a.range)
        .open_tree(side, &a.path)
        .to(&base, &a.trace);
    let rows: Vec<Value> = v["rows"]
        .as_array()
        .map_or(&[][..], |r| &r[..])
        .iter()
        .map(compact_row)
        .collect();
    let mut out = json!({
        "target": v["target"],
        "total": v["total"],
        "parent": v["parent"],
        "rows": rows,
        "more": v["omitted"],
        "link": link,
    });
    if a.path.is_empty() {
        out["inclusive"] = v["parent"].clone();
    }
    Ok(out)
}

/// The widest `per_level` boxes of each of the first `levels` levels.
fn flame_levels(g: &Value, levels: usize, per_level: usize) -> Vec<Value> {
    let total_ms = g["total"]["weight_ms"].as_f64().unwrap_or(0.0);
    let arr = |k: &str| g[k].as_array().cloned().unwrap_or_default();
    let (depth, width, self_ms, label, module) = (
        arr("depth"),
        arr("width_ms"),
        arr("self_ms"),
        arr("label"),
        arr("module"),
    );
    let mut by_level: Vec<Vec<(f64, usize)>> = vec![Vec::new(); levels];
    for (i, d) in depth.iter().enumerate() {
        let d = d.as_u64().unwrap_or(u64::MAX) as usize;
        if let Some(level) = by_level.get_mut(d) {
            level.push((width.get(i).and_then(Value::as_f64).unwrap_or(0.0), i));
        }
    }
    by_level
        .into_iter()
        .take_while(|l| !l.is_empty())
        .map(|mut l| {
            l.sort_by(|a, b| b.0.total_cmp(&a.0));
            let more = l.len().saturating_sub(per_level);
            let boxes: Vec<Value> = l
                .iter()
                .take(per_level)
                .map(|&(w, i)| {
                    json!({
                        "label": label.get(i),
                        "module": module.get(i),
                        "weight_ms": w,
                        "self_ms": self_ms.get(i),
                        "percent": if total_ms > 0.0 { 100.0 * w / total_ms } else { 0.0 },
                    })
                })
                .collect();
            json!({"boxes": boxes, "more": more})
        })
        .collect()
}
