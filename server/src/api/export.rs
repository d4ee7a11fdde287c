//! `POST /api/traces/{id}/export`: the current view of a table as CSV or TSV, written by the
//! same code as `etlscope export` (so the UI's download equals the CLI's output byte for byte).

use super::error::{ApiError, ApiResult};
use super::state::AppState;
use super::traces::{loaded, read_auth};
use crate::cli::export::{self, ExportArgs, Format};
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;

/// `etlscope export`'s arguments as JSON.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExportSpec {
    table: String,
    #[serde(default)]
    group: Vec<String>,
    /// `COL[:AGG]`; absent: the table's default value columns.
    #[serde(default)]
    values: Option<Vec<String>>,
    /// `COL[:asc|desc]`.
    #[serde(default)]
    sort: Option<String>,
    #[serde(default)]
    limit: usize,
    #[serde(default)]
    range: Option<super::query::Range>,
    /// `COLUMN=VALUE` strings, as `--filter` takes them.
    #[serde(default)]
    filters: Vec<String>,
    /// `csv` or `tsv`.
    format: String,
    /// Every row with every column, nothing grouped (`--rows`).
    #[serde(default)]
    rows: bool,
}

pub async fn export(
    State(app): State<AppState>,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: axum::body::Bytes,
) -> ApiResult<Response> {
    read_auth(&app, &headers)?;
    let spec: ExportSpec = serde_json::from_slice(&body)
        .map_err(|e| ApiError::bad_request(format!("bad export: {e}")))?;
    let (format, mime, ext) = match spec.format.as_str() {
        "csv" => (Format::Csv, "text/csv; charset=utf-8", "csv"),
        "tsv" => (
            Format::Tsv,
            "text/tab-separated-values; charset=utf-8",
            "tsv",
        ),
        f => {
            return Err(ApiError::bad_request(format!(
                "unknown format {f:?}: csv or tsv"
            )))
        }
    };
    if spec.rows && (!spec.group.is_empty() || spec.values.is_some() || spec.sort.is_some()) {
        return Err(ApiError::bad_request(
            "rows lists every row as it is: no group, values or sort with it",
        ));
    }
    let t = loaded(&app, &id).await?;
    // The view's stack tag set (X-Etlscope-Stack-Tags), as its queries use.
    let t = super::stack_tags::for_query(&app, &headers, t)?;
    // And its regions file (X-Etlscope-Regions).
    let regions = super::regions::chosen(&app, &headers)?;
    let bytes = tokio::task::spawn_blocking(move || -> ApiResult<Vec<u8>> {
        let t = super::regions::apply(&app, t, regions);
        let filters = spec
            .filters
            .iter()
            .map(|f| export::parse_filter(f))
            .collect::<anyhow::Result<_>>()
            .map_err(|e| ApiError::bad_request(e.to_string()))?;
        let args = ExportArgs {
            table: &spec.table,
            group: spec.group.clone(),
            values: spec.values.clone(),
            sort: spec.sort.as_deref(),
            limit: spec.limit,
            range: spec.range.as_ref().map(|r| (r.start_s, r.end_s)),
            filters,
            format,
            symbol_path: None,
            stack_tags: None,
            rows: spec.rows,
        };
        let tags = || query::stack_tags::StackTagKeys::of_engine(&t.engine);
        let table = export::export_tagged(t.trace(), t.engine.regions(), &args, &tags)
            .map_err(|e| ApiError::bad_request(format!("{e:#}")))?;
        let mut out = Vec::new();
        export::write(&mut out, &table, format).map_err(|e| ApiError::internal(e.to_string()))?;
        Ok(out)
    })
    .await
    .map_err(|e| ApiError::internal(e.to_string()))??;
    let name = format!("attachment; filename=\"{}.{ext}\"", spec_name(&id));
    Ok((
        [
            (header::CONTENT_TYPE, mime.to_string()),
            (header::CONTENT_DISPOSITION, name),
        ],
        bytes,
    )
        .into_response())
}

/// The download's file name: the trace id, which is hex (nothing to escape in a header).
fn spec_name(id: &str) -> String {
    id.chars().filter(|c| c.is_ascii_alphanumeric()).collect()
}
