//! `POST /api/compare`: one table grouped the same way on two traces
//! (baseline and comparison), rows matched by identity, with baseline,
//! comparison, delta and delta % per numeric value column: the rows
//! `etlscope compare` prints, computed by the same code
//! (`cli::compare::compare_cut`).

use super::error::{ApiError, ApiResult};
use super::query::{bad, check_limit, default_limit, Range};
use super::state::AppState;
use super::traces::{loaded, read_auth};
use crate::cli::compare::{self, CompareArgs};
use axum::extract::State;
use axum::http::HeaderMap;
use axum::Json;
use query::compare::{CompareRow, CompareTable};
use serde::Deserialize;
use serde_json::{json, Value};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CompareSpec {
    /// Trace ids.
    base: String,
    new: String,
    #[serde(default = "super::query::default_table")]
    table: String,
    /// Key columns, as `/table`'s `columns`.
    #[serde(default)]
    columns: Vec<String>,
    /// `COL[:AGG]`, as `/table`'s `values`; absent: the table's defaults.
    #[serde(default)]
    values: Option<Vec<String>>,
    #[serde(default)]
    base_range: Option<Range>,
    #[serde(default)]
    new_range: Option<Range>,
    /// none, time or samples.
    #[serde(default = "none")]
    normalize: String,
    #[serde(default = "default_limit")]
    limit: usize,
}

fn none() -> String {
    "none".into()
}

/// A range in seconds, refused as `/table` refuses it (not finite, start after end).
fn seconds(r: &Option<Range>) -> ApiResult<Option<(f64, f64)>> {
    super::query::range(r)?;
    Ok(r.as_ref().map(|r| (r.start_s, r.end_s)))
}

/// A whole number as an integer (counts, bytes), else a float; NaN as null.
fn num(x: f64) -> Value {
    if x.fract() == 0.0 && x.abs() < 9.0e15 {
        Value::from(x as i64)
    } else {
        serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number)
    }
}

fn row_json(t: &CompareTable, r: &CompareRow) -> Value {
    let values: Vec<Value> = (0..t.value_names.len())
        .map(|i| {
            let (b, n) = r.values.get(i).copied().unwrap_or((0.0, 0.0));
            json!([
                num(b),
                num(n),
                num(r.delta(i)),
                r.delta_percent(i).map_or(Value::Null, num)
            ])
        })
        .collect();
    json!({"keys": r.keys, "values": values})
}

pub async fn compare(
    State(app): State<AppState>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> ApiResult<Json<Value>> {
    read_auth(&app, &headers)?;
    let spec: CompareSpec =
        serde_json::from_slice(&body).map_err(|e| bad(format!("bad compare request: {e}")))?;
    compare_value(&app, spec).await.map(Json)
}

/// The compared rows of two traces, as `/compare` answers them.
pub async fn compare_value(app: &AppState, spec: CompareSpec) -> ApiResult<Value> {
    check_limit(spec.limit)?;
    let args = CompareArgs {
        table: spec.table.clone(),
        group: spec.columns.clone(),
        values: spec.values.clone(),
        range_base: seconds(&spec.base_range)?,
        range_new: seconds(&spec.new_range)?,
        normalize: spec.normalize.clone(),
        json: true,
        symbol_path: None,
    };
    let base = loaded(app, &spec.base).await?;
    let new = loaded(app, &spec.new).await?;
    let limit = spec.limit;
    let out = tokio::task::spawn_blocking(move || -> ApiResult<Value> {
        let factor = compare::normalize(base.trace(), new.trace(), &args)
            .map_err(|e| bad(format!("{e:#}")))?
            .factor();
        let cut = compare::compare_cut(&base.engine, &new.engine, &args, limit)
            .map_err(|e| bad(format!("{e:#}")))?;
        let (t, total, omitted) = (cut.table, cut.total, cut.omitted);
        Ok(json!({
            "table": args.table,
            "keys": t.key_names,
            "values": t.value_names,
            "value_types": t.value_types.iter().map(|ty| ty.name()).collect::<Vec<_>>(),
            "normalize": args.normalize,
            "factor": factor,
            "total_rows": total,
            "omitted": omitted,
            "rows": t.rows.iter().map(|r| row_json(&t, r)).collect::<Vec<_>>(),
        }))
    })
    .await
    .map_err(|e| ApiError::internal(e.to_string()))??;
    Ok(out)
}
