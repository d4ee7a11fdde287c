//! `POST /api/traces/{id}/graph`: the graph above a table. The body names
//! the table as `/table` does (columns, filters, range, path, sort); the
//! answer is the rows of that level as series over time bins (CPU Usage
//! (Sampled) and the event tables) or, for Processes, Threads and Images,
//! one lifetime span per row in the table's order. The computation is
//! `query`'s (`table_graph`, `RowTable::graph`, `RowTable::spans`).

use super::error::ApiResult;
use super::query::{
    bad, check_limit, check_sizes, row_request, sampled_request, FilterSpec, KeyOrLabel, Range,
    SortSpec, TableSpec,
};
use super::state::AppState;
use crate::store::LoadedTrace;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::Json;
use query::{Column, ColumnType, Graph, GraphBins, Measure, RowTableKind, TimeRange};
use serde::Deserialize;
use serde_json::{json, Value};

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GraphSpec {
    #[serde(default = "super::query::default_table")]
    pub table: String,
    pub columns: Vec<String>,
    /// The table's range: the rows it keeps and the binned time.
    #[serde(default)]
    pub range: Option<Range>,
    #[serde(default)]
    pub filters: Vec<FilterSpec>,
    /// The expanded row whose children are the series (empty: the top level).
    #[serde(default)]
    pub path: Vec<KeyOrLabel>,
    /// Lifetime tables: the table's order of the spans.
    #[serde(default)]
    pub sort: SortSpec,
    /// As `/table`'s, so that `sort` may name a value column.
    #[serde(default)]
    pub values: Vec<String>,
    /// Lifetime tables: at most this many spans.
    #[serde(default = "super::query::default_limit")]
    pub limit: usize,
    #[serde(default = "default_bins")]
    pub bins: usize,
    /// Series kept (the heaviest); the rest are summed as `other`.
    #[serde(default = "default_top")]
    pub top: usize,
    /// Event tables: `count`, `weight` (default) or a numeric column's name.
    #[serde(default)]
    pub measure: Option<String>,
}

fn default_bins() -> usize {
    300
}

fn default_top() -> usize {
    10
}

const MAX_TOP: usize = 100;

pub async fn graph(
    State(app): State<AppState>,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: axum::body::Bytes,
) -> ApiResult<Json<Value>> {
    super::query::answer(app, headers, id, body, |t, spec: GraphSpec| {
        run_graph(t, spec)
    })
    .await
}

/// `/table`'s `graph`: the graph of the same level, binned in the table's
/// own pass over the rows when that is cheap (event tables, a level of few
/// keys); the answer's `graph` is then what `/graph` answers for the
/// table's body with these fields (`range` defaults to the table's).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableGraphSpec {
    #[serde(default)]
    pub range: Option<Range>,
    #[serde(default = "default_bins")]
    pub bins: usize,
    #[serde(default = "default_top")]
    pub top: usize,
    #[serde(default)]
    pub measure: Option<String>,
}

/// The bins of a graph over `range` (the whole trace when none or empty),
/// and the range as the answer gives it.
fn graph_bins(
    t: &LoadedTrace,
    range: &Option<Range>,
    bins: usize,
    top: usize,
) -> ApiResult<(GraphBins, Value)> {
    if bins == 0 || bins > query::MAX_GRAPH_BINS {
        return Err(bad(format!(
            "bins must be between 1 and {}",
            query::MAX_GRAPH_BINS
        )));
    }
    let whole = TimeRange {
        start_ns: 0,
        end_ns: t.trace().info.duration_ns.max(1),
    };
    let binned = super::query::range(range)?
        .filter(|r| r.end_ns > r.start_ns)
        .unwrap_or(whole);
    let json =
        json!({"start_s": binned.start_ns as f64 / 1e9, "end_s": binned.end_ns as f64 / 1e9});
    let bins = GraphBins {
        range: binned,
        bins,
        top: top.min(MAX_TOP),
    };
    Ok((bins, json))
}

/// What an event table's graph plots: `count`, `weight` (the default, count
/// without a weight) or a numeric column; its name and type.
fn event_measure(
    rt: &query::RowTable,
    measure: Option<&str>,
) -> ApiResult<(Measure, &'static str, ColumnType)> {
    Ok(match measure {
        None | Some("weight") if rt.weight_name.is_some() => {
            (Measure::Weight, "weight", ColumnType::Duration)
        }
        None | Some("weight") | Some("count") => (Measure::Count, "count", ColumnType::Count),
        Some(c) => {
            let i = rt
                .defs
                .iter()
                .position(|d| d.is_called(c) && d.ty.is_numeric())
                .ok_or_else(|| bad(format!("{c:?} is not a numeric column of this table")))?;
            let d = rt.defs[i];
            (Measure::Column(i), d.name, d.ty)
        }
    })
}

/// A `/table` answer's graph: the options checked, then after the query
/// the graph as `/graph` gives it.
pub struct InScanGraph {
    pub bins: GraphBins,
    pub measure: Measure,
    name: &'static str,
    ty: ColumnType,
    range: Value,
}

impl InScanGraph {
    /// `None` for tables whose graph is not binned from rows (lifetimes).
    pub fn new(
        t: &LoadedTrace,
        rt: &query::RowTable,
        table_range: &Option<Range>,
        spec: &TableGraphSpec,
    ) -> ApiResult<Option<InScanGraph>> {
        if !rt.timed {
            return Ok(None);
        }
        let range = spec.range.as_ref().or(table_range.as_ref()).cloned();
        let (bins, range) = graph_bins(t, &range, spec.bins, spec.top)?;
        let (measure, name, ty) = event_measure(rt, spec.measure.as_deref())?;
        Ok(Some(InScanGraph {
            bins,
            measure,
            name,
            ty,
            range,
        }))
    }

    pub fn json(self, g: &Graph, path: &[u32]) -> Value {
        series_json(g, None, self.name, self.ty, path, self.range)
    }
}

fn run_graph(t: &LoadedTrace, spec: GraphSpec) -> ApiResult<Value> {
    check_limit(spec.limit)?;
    check_sizes(spec.path.len(), &spec.filters)?;
    let (bins, range) = graph_bins(t, &spec.range, spec.bins, spec.top)?;
    let measure = spec.measure.clone();
    let table = TableSpec {
        table: spec.table,
        columns: spec.columns,
        range: spec.range,
        filters: spec.filters,
        path: spec.path,
        sort: spec.sort,
        limit: spec.limit,
        values: spec.values,
        graph: None,
    };
    match RowTableKind::from_name(&table.table) {
        Some(
            kind @ (RowTableKind::Processes
            | RowTableKind::Threads
            | RowTableKind::Images
            | RowTableKind::Regions),
        ) => {
            let (rt, req, _) = row_request(t, kind, &table)?;
            let (spans, omitted) = rt.spans(&req).map_err(bad)?;
            let s = |v: Option<i64>| v.map(|x| x as f64 / 1e9);
            Ok(json!({
                "kind": "spans",
                "column": rt.next_column(&req.columns, &req.path),
                "path": req.path,
                "range": range,
                "spans": spans.iter().map(|x| json!({
                    "key": x.key, "label": x.label, "start_s": s(x.start_ns), "end_s": s(x.end_ns),
                })).collect::<Vec<_>>(),
                "omitted": omitted,
            }))
        }
        // Outstanding commit and heap bytes over time.
        Some(kind @ (RowTableKind::VirtualAlloc | RowTableKind::Heap)) => {
            let (rt, req, _) = row_request(t, kind, &table)?;
            let (m, name, ty) = event_measure(rt, measure.as_deref())?;
            let g = rt.outstanding(&req, &bins, m).map_err(bad)?;
            Ok(series_json(&g, None, name, ty, &req.path, range))
        }
        // Each CPU's frequency over time (a level held between changes).
        Some(kind @ RowTableKind::ProcessorFrequency) => {
            let (rt, req, _) = row_request(t, kind, &table)?;
            let m = measure.as_deref().unwrap_or("Frequency (MHz)");
            let (m, name, ty) = event_measure(rt, Some(m))?;
            let g = rt.time_average(&req, &bins, Some(m)).map_err(bad)?;
            Ok(series_json(&g, None, name, ty, &req.path, range))
        }
        // Idle time per bin (residency), stacked by the level's keys.
        // Focus time per bin too: who had the focus when.
        Some(kind @ (RowTableKind::CpuIdleStates | RowTableKind::WindowInFocus)) => {
            let (rt, req, _) = row_request(t, kind, &table)?;
            if measure.as_deref().is_some_and(|m| m != "weight") {
                return Err(bad("this table's graph plots time (weight)"));
            }
            let g = rt.time_average(&req, &bins, None).map_err(bad)?;
            Ok(series_json(
                &g,
                None,
                "weight",
                ColumnType::Duration,
                &req.path,
                range,
            ))
        }
        // GPU busy time per bin as a share of the bin: one engine runs one
        // packet at a time, so an engine's series is at most 100.
        Some(kind @ RowTableKind::GpuUtilization) => {
            let (rt, req, _) = row_request(t, kind, &table)?;
            if measure.as_deref().is_some_and(|m| m != UTILIZATION) {
                return Err(bad(format!("GPU Utilization graphs plot {UTILIZATION}")));
            }
            let g = rt.time_average(&req, &bins, None).map_err(bad)?;
            let widths = query::Edges::new(bins.range, bins.bins)
                .map_err(bad)?
                .widths();
            Ok(percent_of_bin(
                series_json(&g, None, UTILIZATION, ColumnType::Count, &req.path, range),
                &widths,
            ))
        }
        Some(kind) => {
            let (rt, req, _) = row_request(t, kind, &table)?;
            let (m, name, ty) = event_measure(rt, measure.as_deref())?;
            let g = rt.graph(&req, &bins, m).map_err(bad)?;
            Ok(series_json(&g, None, name, ty, &req.path, range))
        }
        None if table.table == "cpu-sampled" => {
            if measure.as_deref().is_some_and(|m| m != "weight") {
                return Err(bad("CPU Usage (Sampled) graphs plot weight"));
            }
            let req = sampled_request(t, &table)?;
            let g = t.engine.table_graph(&req, &bins).map_err(bad)?;
            Ok(series_json(
                &g,
                Some(t),
                "weight",
                ColumnType::Duration,
                &req.path,
                range,
            ))
        }
        None => Err(bad(format!("unknown table {:?}", table.table))),
    }
}

/// The measure of GPU Utilization's graph.
const UTILIZATION: &str = "Utilization (%)";

/// A graph of ns per bin as percent of the bin: each value x 100 / its
/// bin's exact width (`widths`); a series' total is the sum of its percents.
fn percent_of_bin(mut v: Value, widths: &[i64]) -> Value {
    let series = |s: &mut Value| {
        let mut total = 0.0;
        if let Some(vs) = s["values"].as_array_mut() {
            for (x, &w) in vs.iter_mut().zip(widths) {
                let p = x.as_f64().unwrap_or(0.0) * 100.0 / (w.max(1) as f64);
                total += p;
                *x = json!(p);
            }
        }
        s["total"] = json!(total);
    };
    if let Some(all) = v["series"].as_array_mut() {
        all.iter_mut().for_each(series);
    }
    if !v["other"].is_null() {
        series(&mut v["other"]);
    }
    v["unit"] = json!("%");
    v
}

/// Per-bin values in the unit the tables show: durations in ms, the rest as
/// they are. `sampled`: the trace of a CPU Usage (Sampled) graph (its rows have ids).
fn series_json(
    g: &Graph,
    sampled: Option<&LoadedTrace>,
    measure: &str,
    ty: ColumnType,
    path: &[u32],
    range: Value,
) -> Value {
    let (unit, div) = match ty {
        ColumnType::Duration => ("ms", 1e6),
        ColumnType::Time => ("s", 1e9),
        ColumnType::Size => ("bytes", 1.0),
        _ => ("", 1.0),
    };
    let column = g.column.and_then(Column::from_name);
    let one = |s: &query::GraphSeries| {
        let mut v = json!({
            "key": s.key,
            "label": s.label,
            "total": s.total as f64 / div,
            "values": s.values.iter().map(|&x| x as f64 / div).collect::<Vec<_>>(),
        });
        // CPU Usage (Sampled) rows carry their stable identity, as in `/table`.
        let id = sampled
            .zip(column)
            .and_then(|(t, c)| t.engine.stable_id(c, s.key));
        if let Some(id) = id {
            v["id"] = json!(id);
        }
        v
    };
    json!({
        "kind": "series",
        "column": g.column,
        "path": path,
        "range": range,
        "measure": measure,
        "unit": unit,
        "start_s": g.start_ns as f64 / 1e9,
        "bin_s": g.bin_ns / 1e9,
        "series": g.series.iter().map(one).collect::<Vec<_>>(),
        "other": g.other.as_ref().map(one),
    })
}
