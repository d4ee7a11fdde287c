//! `POST /callers` and `/callees`: one level of WPA's View Callers / View
//! Callees tree of a function or module (the children of an expanded
//! path), and `POST /search`: the autocomplete over the trace's functions
//! and modules that picks the target.

use super::error::ApiResult;
use super::query::{
    answer, bad, butterfly_target, check_limit, check_sizes, default_limit, sample_filters, sort,
    totals, FilterSpec, KeyOrLabel, Range, SortSpec,
};
use super::state::AppState;
use crate::store::LoadedTrace;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::Json;
use query::{
    ButterflyTarget, ButterflyTreeRequest, Column, Direction, NameKind, NeighborBy, Occurrence,
    STACK_SELF,
};
use serde::Deserialize;
use serde_json::{json, Value};

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TreeSpec {
    /// "function" or "module".
    pub kind: String,
    pub target: KeyOrLabel,
    /// Tree levels are "function"s (default) or "module"s.
    #[serde(default)]
    pub by: Option<String>,
    /// "innermost" (default) or "outermost" occurrence of the target.
    #[serde(default)]
    pub occurrence: Option<String>,
    /// The expanded row: keys, labels or stable identities from the
    /// target outwards; empty for the target's own children.
    #[serde(default)]
    pub path: Vec<KeyOrLabel>,
    #[serde(default)]
    pub range: Option<Range>,
    #[serde(default)]
    pub filters: Vec<FilterSpec>,
    #[serde(default)]
    pub sort: SortSpec,
    #[serde(default = "default_limit")]
    pub limit: usize,
}

pub async fn callers(
    State(app): State<AppState>,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: axum::body::Bytes,
) -> ApiResult<Json<Value>> {
    answer(app, headers, id, body, |t, s: TreeSpec| {
        tree(t, s, Direction::Callers)
    })
    .await
}

pub async fn callees(
    State(app): State<AppState>,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: axum::body::Bytes,
) -> ApiResult<Json<Value>> {
    answer(app, headers, id, body, |t, s: TreeSpec| {
        tree(t, s, Direction::Callees)
    })
    .await
}

fn kind_column(kind: &str) -> ApiResult<Column> {
    match kind {
        "function" => Ok(Column::Function),
        "module" => Ok(Column::Module),
        k => Err(bad(format!("unknown kind {k:?}: function or module"))),
    }
}

/// A key as given, or the key a label or stable identity names.
fn key_of(t: &LoadedTrace, col: Column, k: &KeyOrLabel) -> ApiResult<u32> {
    match k {
        KeyOrLabel::Key(k) => Ok(*k),
        KeyOrLabel::Label(l) => butterfly_target(t, col, l),
    }
}

pub fn tree(t: &LoadedTrace, spec: TreeSpec, direction: Direction) -> ApiResult<Value> {
    check_limit(spec.limit)?;
    check_sizes(spec.path.len(), &spec.filters)?;
    let col = kind_column(&spec.kind)?;
    let key = key_of(t, col, &spec.target)?;
    let (by, by_col) = match spec.by.as_deref() {
        None | Some("function") => (NeighborBy::Function, Column::Function),
        Some("module") => (NeighborBy::Module, Column::Module),
        Some(b) => return Err(bad(format!("unknown 'by' {b:?}: function or module"))),
    };
    let occurrence = match spec.occurrence.as_deref() {
        None | Some("innermost") => Occurrence::Innermost,
        Some("outermost") => Occurrence::Outermost,
        Some(o) => {
            return Err(bad(format!(
                "unknown occurrence {o:?}: innermost or outermost"
            )))
        }
    };
    let path = spec
        .path
        .iter()
        .map(|k| key_of(t, by_col, k))
        .collect::<ApiResult<Vec<u32>>>()?;
    let req = ButterflyTreeRequest {
        target: if col == Column::Module {
            ButterflyTarget::Module(key)
        } else {
            ButterflyTarget::Function(key)
        },
        direction,
        filters: sample_filters(t, &spec.range, &spec.filters)?,
        by,
        occurrence,
        path,
        sort: sort(&spec.sort)?,
        limit: spec.limit,
    };
    let r = t.engine.butterfly_tree(&req).map_err(bad)?;
    let rows: Vec<Value> = r
        .rows
        .iter()
        .map(|row| {
            let mut v = json!({
                "key": row.key,
                "label": row.label,
                "count": row.count,
                "weight_ms": row.weight_ns as f64 / 1e6,
                "percent": row.percent_weight,
                "expandable": row.expandable,
            });
            if row.key != STACK_SELF {
                if let Some(id) = t.engine.stable_id(by_col, row.key) {
                    v["id"] = json!(id);
                }
            }
            v
        })
        .collect();
    Ok(json!({
        "target": {"key": key, "label": t.engine.label(col, key), "id": t.engine.stable_id(col, key)},
        "total": totals(&r.total),
        "parent": totals(&r.parent),
        "omitted": r.omitted,
        "rows": rows,
    }))
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SearchSpec {
    /// Text the name contains (case-insensitive).
    pub q: String,
    #[serde(default = "default_matches")]
    pub limit: usize,
    #[serde(default)]
    pub range: Option<Range>,
    #[serde(default)]
    pub filters: Vec<FilterSpec>,
}

fn default_matches() -> usize {
    20
}

/// Most names one search answers.
const MAX_MATCHES: usize = 200;
/// Longest search text: names are shorter.
const MAX_QUERY: usize = 1000;

pub async fn search(
    State(app): State<AppState>,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: axum::body::Bytes,
) -> ApiResult<Json<Value>> {
    answer(app, headers, id, body, |t, s: SearchSpec| {
        if s.limit == 0 || s.limit > MAX_MATCHES {
            return Err(bad(format!("limit must be between 1 and {MAX_MATCHES}")));
        }
        if s.q.len() > MAX_QUERY {
            return Err(bad(format!("q is longer than {MAX_QUERY} bytes")));
        }
        check_sizes(0, &s.filters)?;
        let filters = sample_filters(t, &s.range, &s.filters)?;
        let found = t
            .engine
            .search_names(&s.q, s.limit, &filters)
            .map_err(bad)?;
        let matches: Vec<Value> = found
            .iter()
            .map(|m| {
                let (kind, col) = match m.kind {
                    NameKind::Function => ("function", Column::Function),
                    NameKind::Module => ("module", Column::Module),
                };
                json!({"kind": kind, "key": m.key, "label": m.label, "count": m.count,
                       "id": t.engine.stable_id(col, m.key)})
            })
            .collect();
        Ok(json!({ "matches": matches }))
    })
    .await
}
