//! Query endpoints: WPA tables (tree rows under a path), flame graphs,
//! butterflies and timelines, as JSON. Columns are named as WPA names them;
//! times are seconds from trace start. Path elements and filter values may
//! be keys (numbers) or labels (strings, e.g. `explorer.exe (4321)` or
//! `windows.storage.dll!CFSFolder::_GetOverlayInfo`) or stable identities
//! (`pid:6148@0`, `mod:NAME@TIMESTAMP:SIZE`, `fn:MODULE+RVA`; see
//! query::index::stable_ids), which CPU Usage (Sampled) rows carry as `id`, so links
//! survive re-ingest and symbols that load later.

use super::error::{ApiError, ApiResult};
use super::state::AppState;
use super::traces::{loaded, read_auth};
use super::value_columns;
use crate::store::LoadedTrace;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::Json;
use query::table::plan::{self, TableAsk};
use query::{
    ButterflyRequest, ButterflyTarget, Column, ColumnFilter, Filters, FlameOrder, FlameRequest,
    NeighborBy, RowFilter, RowTableKind, RowTableRequest, SeriesBy, SortBy, TableRequest,
    TableResponse, TimeRange, TimelineRequest, ValueColumn,
};
use serde::Deserialize;
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A key (number) or a label (string).
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum KeyOrLabel {
    Key(u32),
    Label(String),
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Range {
    pub start_s: f64,
    pub end_s: f64,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FilterSpec {
    pub column: String,
    pub values: Vec<KeyOrLabel>,
    #[serde(default)]
    pub exclude: bool,
    /// cpu-sampled: keep (or drop) the samples whose stack contains the
    /// function (`Function`, or a `Stack` row's key/label) or any frame of
    /// the module (`Module`), wherever it is on the stack.
    #[serde(default)]
    pub contains: bool,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SortSpec {
    /// count, weight, percent, first, last or label.
    #[serde(default)]
    pub by: Option<String>,
    #[serde(default = "yes")]
    pub descending: bool,
}

pub(super) fn yes() -> bool {
    true
}

impl Default for SortSpec {
    /// Heaviest first, as WPA opens a table.
    fn default() -> Self {
        SortSpec {
            by: None,
            descending: true,
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TableSpec {
    /// cpu-sampled (default), processes, threads, images, file-io, disk-io,
    /// cpu-precise, generic, hard-faults, network, page-faults,
    /// registry, virtual-alloc, heap, regions, marks, dpc-isr, processor-frequency,
    /// cpu-idle-states, window-in-focus, ui-delays, gpu-utilization or
    /// frame-times.
    #[serde(default = "default_table")]
    pub table: String,
    pub columns: Vec<String>,
    #[serde(default)]
    pub range: Option<Range>,
    #[serde(default)]
    pub filters: Vec<FilterSpec>,
    #[serde(default)]
    pub path: Vec<KeyOrLabel>,
    #[serde(default)]
    pub sort: SortSpec,
    #[serde(default = "default_limit")]
    pub limit: usize,
    /// Value columns right of the gold bar, `COL[:AGG]` (as `etlscope
    /// export --values`); each row's `values` then holds their aggregates.
    #[serde(default)]
    pub values: Vec<String>,
    /// Event tables: the graph of this level as well (`graph` in the
    /// answer, as `/graph` gives it) when the same pass over the rows bins
    /// it (a level of few keys); without `graph` in the answer, ask `/graph`.
    #[serde(default)]
    pub graph: Option<super::graph::TableGraphSpec>,
}

pub(super) fn default_table() -> String {
    "cpu-sampled".into()
}

/// Longer paths or filter lists than any trace needs are refused before
/// any work: each label in them costs a lookup.
const MAX_PATH: usize = 1024;
const MAX_FILTER_VALUES: usize = 10_000;

/// 400 for a request whose path or filters exceed the limits.
pub(super) fn check_sizes(path: usize, filters: &[FilterSpec]) -> ApiResult<()> {
    if path > MAX_PATH {
        return Err(bad(format!("path has {path} elements; at most {MAX_PATH}")));
    }
    let values: usize = filters.iter().map(|f| f.values.len()).sum();
    if values > MAX_FILTER_VALUES {
        return Err(bad(format!(
            "filters have {values} values; at most {MAX_FILTER_VALUES}"
        )));
    }
    Ok(())
}

pub(super) fn default_limit() -> usize {
    500
}

/// Most rows one table answer holds. `limit: 0` used to mean "every row",
/// which a million-row table turns into a response of hundreds of MB.
pub const MAX_LIMIT: usize = 100_000;

pub(super) fn check_limit(limit: usize) -> ApiResult<()> {
    if (1..=MAX_LIMIT).contains(&limit) {
        Ok(())
    } else {
        Err(bad(format!(
            "limit {limit} is out of range: give 1 to {MAX_LIMIT} rows (default {})",
            default_limit()
        )))
    }
}

pub(super) fn bad(e: impl std::fmt::Display) -> ApiError {
    ApiError::bad_request(e.to_string())
}

fn column(name: &str) -> ApiResult<Column> {
    Column::from_name(name).ok_or_else(|| {
        let names: Vec<&str> = Column::ALL.iter().map(|c| c.name()).collect();
        bad(format!(
            "unknown column {name:?}; columns are: {}",
            names.join(", ")
        ))
    })
}

/// A CPU Usage (Sampled) column of `t`: Region only with a regions file.
fn sampled_column(t: &LoadedTrace, name: &str) -> ApiResult<Column> {
    let c = column(name)?;
    if c == Column::Region && !t.engine.has_regions() {
        return Err(bad(
            "the Region column needs a regions file: name one of the library's (X-Etlscope-Regions) or serve with --regions",
        ));
    }
    Ok(c)
}

pub(super) fn range(r: &Option<Range>) -> ApiResult<Option<TimeRange>> {
    r.as_ref()
        .map(|r| plan::time_range(r.start_s, r.end_s).map_err(bad))
        .transpose()
}

pub(super) fn sort(s: &SortSpec) -> ApiResult<SortBy> {
    let column = match s.by.as_deref().unwrap_or("weight") {
        "count" => ValueColumn::Count,
        "weight" => ValueColumn::Weight,
        "percent" => ValueColumn::PercentWeight,
        "first" => ValueColumn::FirstTime,
        "last" => ValueColumn::LastTime,
        "label" => ValueColumn::Label,
        other => return Err(bad(format!("unknown sort column {other:?}"))),
    };
    Ok(SortBy {
        column,
        descending: s.descending,
    })
}

pub(super) fn totals(t: &query::Totals) -> Value {
    json!({"count": t.count, "weight_ms": t.weight_ns as f64 / 1e6})
}

fn response_json(r: &TableResponse, column: Option<&str>) -> Value {
    json!({
        "column": column,
        "total": totals(&r.total),
        "parent": totals(&r.parent),
        "omitted": r.omitted,
        "rows": r.rows.iter().map(|row| json!({
            "key": row.key,
            "label": row.label,
            "count": row.count,
            "weight_ms": row.weight_ns as f64 / 1e6,
            "percent": row.percent_weight,
            "first_s": row.first_ns as f64 / 1e9,
            "last_s": row.last_ns as f64 / 1e9,
            "expandable": row.expandable,
        })).collect::<Vec<_>>(),
    })
}

/// Give each row of a CPU Usage (Sampled) level its stable identity (`id`),
/// when its column names processes, modules or functions.
fn add_stable_ids(v: &mut Value, engine: &query::Engine, r: &TableResponse) {
    let (Some(col), Some(rows)) = (r.column, v["rows"].as_array_mut()) else {
        return;
    };
    for (jr, row) in rows.iter_mut().zip(&r.rows) {
        if let Some(id) = engine.stable_id(col, row.key) {
            jr["id"] = json!(id);
        }
    }
}

/// A path element, filter value or target that is a stable identity:
/// `Some(Ok)` names what it resolves to, `Some(Err)` an identity this trace
/// lacks, `None` a plain label.
fn stable(t: &LoadedTrace, s: &str) -> Option<Result<query::Resolved, ()>> {
    t.engine.resolve_stable_id(s)
}

/// The row of `level` that `l` names: by stable identity, else by label.
fn find_row(t: &LoadedTrace, level: &TableResponse, l: &str) -> Option<u32> {
    match (stable(t, l), level.column) {
        (Some(Ok(r)), Some(col)) => level
            .rows
            .iter()
            .find(|row| t.engine.key_is(col, row.key, &r))
            .map(|row| row.key),
        (Some(_), _) => None,
        (None, _) => find_label(level, l),
    }
}

/// Resolve a label among the rows a query returns.
fn find_label(r: &TableResponse, label: &str) -> Option<u32> {
    r.rows
        .iter()
        .find(|row| row.label == label)
        .map(|row| row.key)
}

/// Sets its flag when dropped: with the request's future, when the client
/// went away before the answer (`query::scan::cancel`).
pub(super) struct CancelOnDrop(pub(super) Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// Parse a query body, wait for the trace, and answer off the async runtime:
/// what every query endpoint does around its own computation.
pub(super) async fn answer<S, F>(
    app: AppState,
    headers: HeaderMap,
    id: String,
    body: axum::body::Bytes,
    compute: F,
) -> ApiResult<Json<Value>>
where
    S: serde::de::DeserializeOwned + Send + 'static,
    F: FnOnce(&LoadedTrace, S) -> ApiResult<Value> + Send + 'static,
{
    read_auth(&app, &headers)?;
    let spec: S = serde_json::from_slice(&body).map_err(|e| bad(format!("bad query: {e}")))?;
    let t = loaded(&app, &id).await?;
    let t = super::stack_tags::for_query(&app, &headers, t)?;
    let regions = super::regions::chosen(&app, &headers)?;
    // The view's regions file, matched against the trace on first use, off
    // the async runtime like the query itself.
    let prepare = move |t| super::regions::apply(&app, t, regions);
    compute_prepared(t, prepare, move |t| compute(t, spec))
        .await
        .map(Json)
}

/// Run `compute` on a loaded trace off the async runtime, as every query
/// endpoint (and MCP tool) does; dropping the future (the client went away,
/// a time limit passed) stops the scan.
pub async fn compute_on<T, F>(t: Arc<LoadedTrace>, compute: F) -> ApiResult<T>
where
    T: Send + 'static,
    F: FnOnce(&LoadedTrace) -> ApiResult<T> + Send + 'static,
{
    compute_prepared(t, |t| t, compute).await
}

/// [`compute_on`] after `prepare` (which may be slow) swaps the trace for
/// the one the query runs on.
pub async fn compute_prepared<T, P, F>(t: Arc<LoadedTrace>, prepare: P, compute: F) -> ApiResult<T>
where
    T: Send + 'static,
    P: FnOnce(Arc<LoadedTrace>) -> Arc<LoadedTrace> + Send + 'static,
    F: FnOnce(&LoadedTrace) -> ApiResult<T> + Send + 'static,
{
    let cancel = CancelOnDrop(Arc::new(AtomicBool::new(false)));
    let flag = Arc::clone(&cancel.0);
    tokio::task::spawn_blocking(move || {
        let t = prepare(t);
        ::query::scan::cancel::with_flag(flag, || compute(&t))
    })
    .await
    .map_err(|e| ApiError::internal(e.to_string()))?
}

pub async fn table(
    State(app): State<AppState>,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: axum::body::Bytes,
) -> ApiResult<Json<Value>> {
    answer(app, headers, id, body, |t, spec: TableSpec| {
        run_table(t, &spec)
    })
    .await
}

fn unknown_table(name: &str) -> ApiError {
    let mut names = vec!["cpu-sampled"];
    names.extend(RowTableKind::ALL.iter().map(|k| k.name()));
    bad(format!(
        "unknown table {name:?}; tables are {}",
        names.join(", ")
    ))
}

pub fn run_table(t: &LoadedTrace, spec: &TableSpec) -> ApiResult<Value> {
    check_limit(spec.limit)?;
    check_sizes(spec.path.len(), &spec.filters)?;
    if let Some(kind) = RowTableKind::from_name(&spec.table) {
        return run_row_table(t, kind, spec);
    }
    if spec.table != "cpu-sampled" {
        return Err(unknown_table(&spec.table));
    }
    let engine = &t.engine;
    let (values, sort_value) = value_columns::sampled_values(&t.engine, &spec.values, &spec.sort)?;
    let req = match sort_value {
        // Sorted by a value column: the engine's own sort key is unused.
        Some(_) => {
            let mut s = spec.clone();
            s.sort.by = None;
            sampled_request(t, &s)?
        }
        None => sampled_request(t, spec)?,
    };
    let r = engine
        .table_values(&req, &values, sort_value)
        .map_err(bad)?;
    let col = r.column.map(|c| c.name());
    let mut v = response_json(&r, col);
    add_stable_ids(&mut v, engine, &r);
    if !values.is_empty() {
        value_columns::add_sampled_values(&mut v, &t.engine, &values, &r);
    }
    v["percent_of"] = super::percent_basis::sampled(
        engine.cpu_capacity_ns(req.filters.range),
        t.trace().info.cpus,
    );
    v["path"] = json!(req.path);
    Ok(v)
}

/// A CPU Usage (Sampled) request: columns, filters and the path resolved to keys.
pub(super) fn sampled_request(t: &LoadedTrace, spec: &TableSpec) -> ApiResult<TableRequest> {
    let engine = &t.engine;
    let columns: Vec<Column> = spec
        .columns
        .iter()
        .map(|c| sampled_column(t, c))
        .collect::<ApiResult<_>>()?;
    let filters = sample_filters(t, &spec.range, &spec.filters)?;
    let mut path = Vec::new();
    for p in &spec.path {
        let key = match p {
            KeyOrLabel::Key(k) => *k,
            KeyOrLabel::Label(l) => {
                let level = engine
                    .table(&TableRequest {
                        columns: columns.clone(),
                        filters: filters.clone(),
                        path: path.clone(),
                        sort: SortBy::default(),
                        limit: 0,
                    })
                    .map_err(bad)?;
                find_row(t, &level, l).ok_or_else(|| {
                    let mut e = ApiError::new(
                        axum::http::StatusCode::BAD_REQUEST,
                        "bad_path",
                        format!("no row {l:?} at depth {} of the tree", path.len()),
                    );
                    e.detail = Some(json!({"resolved_depth": path.len()}));
                    e
                })?
            }
        };
        path.push(key);
    }
    let req = TableRequest {
        columns,
        filters,
        path,
        sort: sort(&spec.sort)?,
        limit: spec.limit,
    };
    Ok(req)
}

fn bad_path(depth: usize, label: &str) -> ApiError {
    let mut e = ApiError::new(
        axum::http::StatusCode::BAD_REQUEST,
        "bad_path",
        format!("no row {label:?} at depth {depth} of the tree"),
    );
    e.detail = Some(json!({"resolved_depth": depth}));
    e
}

/// A row table request: columns, filters, value columns, sort and the path resolved to keys.
pub(super) fn row_request<'t>(
    t: &'t LoadedTrace,
    kind: RowTableKind,
    spec: &TableSpec,
) -> ApiResult<(&'t query::RowTable, RowTableRequest, Vec<query::ValueSpec>)> {
    check_sizes(spec.path.len(), &spec.filters)?;
    let table = t.row_table(kind);
    let col = |name: &str| -> ApiResult<usize> {
        table.column(name).ok_or_else(|| {
            bad(format!(
                "unknown column {name:?}; columns are: {}",
                table.columns.join(", ")
            ))
        })
    };
    // Key columns only (Count is a column of the table, no key of its tree).
    for c in &spec.columns {
        col(c)?;
    }
    // Key columns, value columns, range and a value column to sort by:
    // the planner `etlscope export` uses; filters and the path are this
    // endpoint's (keys or labels, tree levels).
    let def = table.def();
    let ask = TableAsk {
        keys: &spec.columns,
        values: Some(&spec.values),
        range: spec.range.as_ref().map(|r| (r.start_s, r.end_s)),
        sort: spec.sort.by.as_deref(),
        limit: spec.limit,
        ..TableAsk::default()
    };
    let plan = plan::plan(&def, &ask).map_err(bad)?;
    let columns = plan.keys.clone();
    let mut filters = Vec::new();
    for f in &spec.filters {
        let c = col(&f.column)?;
        if f.contains && !table.is_stack(c) {
            return Err(bad(format!(
                "'contains' needs a stack column; {:?} is not one",
                f.column
            )));
        }
        let mut values = Vec::new();
        for v in &f.values {
            match v {
                KeyOrLabel::Key(k) => values.push(*k),
                KeyOrLabel::Label(l) => {
                    let keys = table.keys_of_label(c, l);
                    if keys.is_empty() {
                        return Err(bad(format!("no {} called {l:?}", table.columns[c])));
                    }
                    values.extend(keys);
                }
            }
        }
        filters.push(RowFilter {
            column: c,
            values,
            exclude: f.exclude,
        });
    }
    let range = plan.range;
    let mut path = Vec::new();
    for p in &spec.path {
        let key = match p {
            KeyOrLabel::Key(k) => *k,
            KeyOrLabel::Label(l) => {
                let level = table
                    .query(&RowTableRequest {
                        columns: columns.clone(),
                        filters: filters.clone(),
                        range,
                        path: path.clone(),
                        limit: 0,
                        ..RowTableRequest::default()
                    })
                    .map_err(bad)?;
                find_label(&level, l).ok_or_else(|| bad_path(path.len(), l))?
            }
        };
        path.push(key);
    }
    let values = plan.values.clone();
    // A requested value column (by its spec or header) sorts by its
    // aggregate; a UI value column's name by its sum.
    let sort_aggregate = plan.sort_value();
    let sort_value = spec
        .sort
        .by
        .as_deref()
        .and_then(|b| table.values.iter().position(|(n, _)| *n == b));
    let sort_by = match sort_aggregate.or(sort_value) {
        Some(_) => SortBy {
            column: ValueColumn::Count,
            descending: spec.sort.descending,
        },
        None => sort(&spec.sort)?,
    };
    let req = RowTableRequest {
        columns: columns.clone(),
        filters,
        range,
        path,
        sort: sort_by,
        sort_value,
        values: values.clone(),
        sort_aggregate,
        limit: spec.limit,
    };
    Ok((table, req, values))
}

fn run_row_table(t: &LoadedTrace, kind: RowTableKind, spec: &TableSpec) -> ApiResult<Value> {
    let (table, req, values) = row_request(t, kind, spec)?;
    let columns = &req.columns;
    let in_scan = match &spec.graph {
        Some(g) => super::graph::InScanGraph::new(t, table, &spec.range, g)?,
        None => None,
    };
    let (r, graph) = table
        .query_graphed(&req, in_scan.as_ref().map(|g| (&g.bins, g.measure)))
        .map_err(bad)?;
    let name = table.next_column(columns, &req.path);
    let mut v = response_json(&r, name);
    if !table.values.is_empty() {
        if let Some(rows) = v["rows"].as_array_mut() {
            for (jr, row) in rows.iter_mut().zip(&r.rows) {
                let values: serde_json::Map<String, Value> = table
                    .values
                    .iter()
                    .zip(&row.sums)
                    .map(|(&(n, div), &s)| (n.to_string(), json!(s as f64 / div)))
                    .collect();
                jr["values"] = Value::Object(values);
            }
        }
    }
    if !values.is_empty() {
        value_columns::add_row_values(&mut v, table, &values, &r);
    }
    v["percent_of"] = super::percent_basis::row_table(table, &r);
    v["path"] = json!(req.path);
    if let (Some(g), Some(opts)) = (graph, in_scan) {
        v["graph"] = opts.json(&g, &req.path);
    }
    Ok(v)
}

/// Key, stack and value columns of a row table, as `/columns` lists them.
pub fn row_table_columns(table: &query::RowTable) -> Value {
    let mut values = vec!["Count"];
    values.extend(table.weight_name);
    values.extend(table.values.iter().map(|(n, _)| *n));
    // Lifetime tables (Processes, Threads, Images) show counts only; event
    // tables (Generic Events too, which has no weight) their groups' first
    // and last event times.
    if table.weight_name.is_some() || !table.values.is_empty() {
        values.push("% Weight");
    }
    if table.timed {
        values.extend(["First (s)", "Last (s)"]);
    }
    let stacks: Vec<&str> = (0..table.columns.len())
        .filter(|&c| table.is_stack(c))
        .map(|c| table.columns[c])
        .collect();
    json!({
        "key_columns": table.columns,
        "stack_columns": stacks,
        "weight_column": table.weight_name,
        "value_columns": values,
    })
}

pub async fn columns(
    State(app): State<AppState>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> ApiResult<Json<Value>> {
    read_auth(&app, &headers)?;
    let t = loaded(&app, &id).await?;
    // The Region column is there with a regions file (the view's, else `--regions`).
    let t = super::regions::for_query(&app, &headers, t)?;
    Ok(Json(columns_json(&t)))
}

/// Every table's key, stack and value columns with their definitions (name,
/// aliases, type, unit, default aggregation): `/columns`, and the column
/// catalog MCP clients read.
pub fn columns_json(t: &LoadedTrace) -> Value {
    let mut tables = serde_json::Map::new();
    tables.insert(
        "cpu-sampled".into(),
        json!({
            "key_columns": Column::ALL
                .iter()
                .filter(|&&c| c != Column::Region || t.engine.has_regions())
                .map(|c| c.name())
                .collect::<Vec<_>>(),
            "value_columns": ["Count", "Weight (ms)", "% Weight", "First (s)", "Last (s)"],
        }),
    );
    for kind in RowTableKind::ALL {
        tables.insert(kind.name().into(), row_table_columns(t.row_table(kind)));
    }
    // The column definitions (name, aliases, type, unit, default
    // aggregation) every table's `values` and export use.
    for (name, table) in tables.iter_mut() {
        if let (Value::Object(m), Value::Object(d)) =
            (table, value_columns::definitions(&t.engine, name))
        {
            m.extend(d);
        }
    }
    json!({ "tables": tables })
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlameSpec {
    #[serde(default)]
    pub range: Option<Range>,
    #[serde(default)]
    pub filters: Vec<FilterSpec>,
    #[serde(default = "default_fraction")]
    pub min_fraction: f64,
    /// name (default) or weight.
    #[serde(default)]
    pub order: Option<String>,
    #[serde(default)]
    pub per_process: bool,
    /// Leave out the samples without a stack walk (their stack is the
    /// instruction pointer alone).
    #[serde(default)]
    pub exclude_no_stack: bool,
    /// One root box per stack tag (the set the query names) instead.
    #[serde(default)]
    pub by_stack_tag: bool,
}

fn default_fraction() -> f64 {
    0.0005
}

pub(super) fn sample_filters(
    t: &LoadedTrace,
    range_spec: &Option<Range>,
    specs: &[FilterSpec],
) -> ApiResult<Filters> {
    check_sizes(0, specs)?;
    let engine = &t.engine;
    let mut filters = Filters {
        range: range(range_spec)?,
        ..Filters::default()
    };
    for f in specs {
        if f.contains {
            filters.columns.push(contains_filter(t, f)?);
            continue;
        }
        let c = sampled_column(t, &f.column)?;
        let mut values = Vec::new();
        // Every row of the column, queried once for all the labels given.
        let mut all: Option<TableResponse> = None;
        for v in &f.values {
            values.push(match v {
                KeyOrLabel::Key(k) => *k,
                KeyOrLabel::Label(l) => {
                    if all.is_none() {
                        all = Some(
                            engine
                                .table(&TableRequest {
                                    columns: vec![c],
                                    limit: 0,
                                    ..TableRequest::default()
                                })
                                .map_err(bad)?,
                        );
                    }
                    all.as_ref()
                        .and_then(|all| find_row(t, all, l))
                        .ok_or_else(|| bad(format!("no {} called {l:?}", c.name())))?
                }
            });
        }
        filters.columns.push(ColumnFilter {
            column: c,
            values,
            exclude: f.exclude,
        });
    }
    Ok(filters)
}

/// A "stack contains" filter as the engine's: a `Stack (Inverted)` filter
/// on func keys matches every stack containing one of them.
fn contains_filter(t: &LoadedTrace, f: &FilterSpec) -> ApiResult<ColumnFilter> {
    let e = &t.engine;
    let c = column(&f.column)?;
    let mut funcs = Vec::new();
    for v in &f.values {
        if let KeyOrLabel::Label(l) = v {
            match stable(t, l) {
                // The function the identity resolves to, and (as with a
                // label) every other key shown under the same name.
                Some(Ok(query::Resolved::Func(k))) if c != Column::Module => {
                    let label = e.func_label(k);
                    funcs.extend((0..e.funcs().len() as u32).filter(|&x| e.func_label(x) == label));
                    continue;
                }
                Some(Ok(query::Resolved::Modules(ms))) if c == Column::Module => {
                    for m in ms {
                        funcs.extend(e.funcs_of_module(m));
                    }
                    continue;
                }
                Some(_) => return Err(bad(format!("no {} {l:?} in this trace", f.column))),
                None => {}
            }
        }
        match (c, v) {
            (Column::Function | Column::StackInverted, KeyOrLabel::Key(k)) => funcs.push(*k),
            (Column::Stack, KeyOrLabel::Key(n)) => {
                let func = e.call_tree().func.get(*n as usize).copied();
                funcs.push(func.ok_or_else(|| bad(format!("no call node {n}")))?);
            }
            (Column::Module, KeyOrLabel::Key(m)) => funcs.extend(e.funcs_of_module(*m)),
            // A label names every key shown so (a module loaded twice
            // under one name is two module rows).
            (Column::Function | Column::StackInverted | Column::Stack, KeyOrLabel::Label(l)) => {
                let all: Vec<u32> = (0..e.funcs().len() as u32)
                    .filter(|&k| e.func_label(k) == *l)
                    .collect();
                if all.is_empty() {
                    return Err(bad(format!("no function called {l:?}")));
                }
                funcs.extend(all);
            }
            (Column::Module, KeyOrLabel::Label(l)) => {
                let tr = t.trace();
                let all: Vec<u32> = (0..tr.modules.len() as u32)
                    .filter(|&m| tr.strings.get(tr.modules.name[m as usize]) == l.as_str())
                    .collect();
                if all.is_empty() {
                    return Err(bad(format!("no module called {l:?}")));
                }
                for m in all {
                    funcs.extend(e.funcs_of_module(m));
                }
            }
            _ => {
                return Err(bad(format!(
                    "'contains' works on Function, Module and Stack, not {:?}",
                    f.column
                )))
            }
        }
    }
    Ok(ColumnFilter {
        column: Column::StackInverted,
        values: funcs,
        exclude: f.exclude,
    })
}

pub async fn flame(
    State(app): State<AppState>,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: axum::body::Bytes,
) -> ApiResult<Json<Value>> {
    answer(app, headers, id, body, run_flame).await
}

/// A flame graph's boxes, as `/flame` answers them.
pub fn run_flame(t: &LoadedTrace, spec: FlameSpec) -> ApiResult<Value> {
    if !(0.0..1.0).contains(&spec.min_fraction) {
        return Err(bad("min_fraction must be in [0, 1)"));
    }
    let mut filters = sample_filters(t, &spec.range, &spec.filters)?;
    if spec.exclude_no_stack {
        // A sample without a stack walk keeps its IP as a one-frame stack.
        filters.min_stack_depth = 2;
    }
    let req = FlameRequest {
        filters,
        min_fraction: spec.min_fraction,
        order: match spec.order.as_deref() {
            None | Some("name") => FlameOrder::Name,
            Some("weight") => FlameOrder::Weight,
            Some(o) => return Err(bad(format!("unknown order {o:?}: name or weight"))),
        },
        per_process: spec.per_process,
    };
    let g = if spec.by_stack_tag {
        t.engine.flame_by_stack_tag(&req)
    } else {
        t.engine.flame(&req)
    }
    .map_err(bad)?;
    let ms = |v: &[i64]| v.iter().map(|&x| x as f64 / 1e6).collect::<Vec<_>>();
    let ids = flame_frame_refs(t, &g.node);
    Ok(json!({
        "total": totals(&g.total),
        "depth": g.depth,
        "start_ms": ms(&g.start),
        "width_ms": ms(&g.width),
        "self_ms": ms(&g.self_ns),
        "func": g.func,
        "label": g.label,
        "module": flame_modules(t, &g.func),
        "frame_module": ids.0,
        "frame_rva": ids.1,
        "module_ids": ids.2,
    }))
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ButterflySpec {
    /// "function" or "module".
    pub kind: String,
    pub target: KeyOrLabel,
    /// Callers/callees listed per "function" (default) or "module".
    #[serde(default)]
    pub by: Option<String>,
    #[serde(default)]
    pub range: Option<Range>,
    #[serde(default)]
    pub filters: Vec<FilterSpec>,
}

pub async fn butterfly(
    State(app): State<AppState>,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: axum::body::Bytes,
) -> ApiResult<Json<Value>> {
    answer(app, headers, id, body, |t, spec: ButterflySpec| {
        let col = match spec.kind.as_str() {
            "function" => Column::Function,
            "module" => Column::Module,
            k => return Err(bad(format!("unknown butterfly kind {k:?}: function or module"))),
        };
        let key = match &spec.target {
            KeyOrLabel::Key(k) => *k,
            KeyOrLabel::Label(l) => butterfly_target(t, col, l)?,
        };
        let req = ButterflyRequest {
            target: if col == Column::Module {
                ButterflyTarget::Module(key)
            } else {
                ButterflyTarget::Function(key)
            },
            by: match spec.by.as_deref() {
                None | Some("function") => NeighborBy::Function,
                Some("module") => NeighborBy::Module,
                Some(b) => return Err(bad(format!("unknown 'by' {b:?}: function or module"))),
            },
            filters: sample_filters(t, &spec.range, &spec.filters)?,
        };
        let b = t.engine.butterfly(&req).map_err(bad)?;
        let by_col = match req.by {
            NeighborBy::Module => Column::Module,
            NeighborBy::Function => Column::Function,
        };
        let list = |v: &[query::Neighbor]| {
            v.iter()
                .map(|n| {
                    json!({
                        "key": n.key,
                        "label": n.label,
                        "id": t.engine.stable_id(by_col, n.key),
                        "count": n.count,
                        "weight_ms": n.weight_ns as f64 / 1e6,
                    })
                })
                .collect::<Vec<_>>()
        };
        Ok(json!({
            "target": {"key": key, "label": t.engine.label(col, key), "id": t.engine.stable_id(col, key)},
            "total": totals(&b.total),
            "inclusive": totals(&b.inclusive),
            "self": totals(&b.self_),
            "callers": list(&b.callers),
            "callees": list(&b.callees),
        }))
    })
    .await
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimelineSpec {
    #[serde(default)]
    pub range: Option<Range>,
    #[serde(default = "default_bins")]
    pub bins: usize,
    /// process (default) or thread.
    #[serde(default)]
    pub by: Option<String>,
    #[serde(default = "default_top")]
    pub top: usize,
    #[serde(default)]
    pub filters: Vec<FilterSpec>,
}

fn default_bins() -> usize {
    400
}

fn default_top() -> usize {
    8
}

pub async fn timeline(
    State(app): State<AppState>,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: axum::body::Bytes,
) -> ApiResult<Json<Value>> {
    answer(app, headers, id, body, |t, spec: TimelineSpec| {
        if spec.bins == 0 || spec.bins > 10_000 {
            return Err(bad("bins must be between 1 and 10000"));
        }
        let whole = TimeRange {
            start_ns: 0,
            end_ns: t.trace().info.duration_ns.max(1),
        };
        let req = TimelineRequest {
            range: range(&spec.range)?.unwrap_or(whole),
            bins: spec.bins,
            by: match spec.by.as_deref() {
                None | Some("process") => SeriesBy::Process,
                Some("thread") => SeriesBy::Thread,
                Some(b) => return Err(bad(format!("unknown 'by' {b:?}: process or thread"))),
            },
            top: spec.top.min(100),
            filters: sample_filters(t, &None, &spec.filters)?,
        };
        let tl = t.engine.timeline(&req).map_err(bad)?;
        // With the row's stable identity, as `/graph` gives it: the UI colours
        // a process by it, the same on the timeline and in the table's graph.
        let column = match req.by {
            SeriesBy::Process => Some(Column::Process),
            SeriesBy::Thread => None,
        };
        let series = |s: &query::Series| {
            let mut v = json!({"key": s.key, "label": s.label, "total_ms": s.total_ns as f64 / 1e6,
                   "weight_ms": s.weight_ns.iter().map(|&w| w as f64 / 1e6).collect::<Vec<_>>()});
            if let Some(id) = column.and_then(|c| t.engine.stable_id(c, s.key)) {
                v["id"] = json!(id);
            }
            v
        };
        Ok(json!({
            "start_s": tl.start_ns as f64 / 1e9,
            "bin_s": tl.bin_ns / 1e9,
            "series": tl.series.iter().map(series).collect::<Vec<_>>(),
            "other": tl.other.as_ref().map(series),
        }))
    })
    .await
}

/// Module name of each flame box's func key ("" for the root and process
/// boxes), labelled once per distinct module.
fn flame_modules(t: &LoadedTrace, funcs: &[u32]) -> Vec<String> {
    let e = &t.engine;
    let mut names: std::collections::HashMap<u32, String> = Default::default();
    funcs
        .iter()
        .map(|&f| {
            if f == model::NONE {
                return String::new();
            }
            let m = e.module_key_of_func(f);
            names
                .entry(m)
                .or_insert_with(|| e.label(Column::Module, m))
                .clone()
        })
        .collect()
}

/// A butterfly target given as a string: a stable identity (`fn:` for a
/// function, `mod:` for a module) or a label.
pub(super) fn butterfly_target(t: &LoadedTrace, col: Column, l: &str) -> ApiResult<u32> {
    match stable(t, l) {
        Some(Ok(query::Resolved::Func(k))) if col == Column::Function => return Ok(k),
        Some(Ok(query::Resolved::Modules(ms))) if col == Column::Module => {
            if let Some(&m) = ms.first() {
                return Ok(m);
            }
        }
        Some(_) => return Err(bad(format!("no {} {l:?} in this trace", col.name()))),
        None => {}
    }
    let all = t
        .engine
        .table(&TableRequest {
            columns: vec![col],
            limit: 0,
            ..TableRequest::default()
        })
        .map_err(bad)?;
    match find_label(&all, l) {
        Some(k) => Ok(k),
        // A function may never be a leaf: look it up by label among funcs.
        None => find_func_or_module(t, col, l)
            .ok_or_else(|| bad(format!("no {} called {l:?}", col.name()))),
    }
}

/// Each flame box's naming frame, compactly: an index into the module
/// identities (`-1` for the root, process boxes and raw frames) and an RVA,
/// so the UI writes a zoom path as `fn:MODULE+RVA` identities.
fn flame_frame_refs(t: &LoadedTrace, nodes: &[u32]) -> (Vec<i64>, Vec<u64>, Vec<String>) {
    let e = &t.engine;
    let mut index: std::collections::HashMap<u32, i64> = Default::default();
    let mut ids = Vec::new();
    let mut module = Vec::with_capacity(nodes.len());
    let mut rva = Vec::with_capacity(nodes.len());
    for &n in nodes {
        let r = (n != model::NONE && n != query::ROOT)
            .then(|| e.node_frame(n))
            .flatten()
            .and_then(|(m, a)| {
                let i = match index.get(&m) {
                    Some(&i) => i,
                    None => {
                        let i = ids.len() as i64;
                        ids.push(e.module_id(m)?);
                        index.insert(m, i);
                        i
                    }
                };
                Some((i, a))
            });
        module.push(r.map_or(-1, |x| x.0));
        rva.push(r.map_or(0, |x| x.1));
    }
    (module, rva, ids)
}

/// A function or module key by its label, including functions that are
/// never a leaf (so no Function row shows them).
fn find_func_or_module(t: &LoadedTrace, col: Column, label: &str) -> Option<u32> {
    let e = &t.engine;
    if col == Column::Module {
        let tr = t.trace();
        return (0..tr.modules.len() as u32)
            .find(|&m| tr.strings.get(tr.modules.name[m as usize]) == label);
    }
    (0..e.funcs().len() as u32).find(|&k| e.func_label(k) == label)
}
