//! Value columns of `/table` requests (`values`: `COL[:AGG]`, the form
//! `etlscope export --values` takes) and their aggregates in responses:
//! `value_columns` describes them, each row's `values` object holds them
//! by header, in base units (see crate::cell_json).

use super::error::{ApiError, ApiResult};
use crate::cell_json::cell_json;
use query::table::plan::{self, TableAsk};
use query::{ColumnType, RowTable, TableDef, TableResponse, ValueOf, ValueSpec};
use serde_json::{json, Value};

fn bad(e: impl std::fmt::Display) -> ApiError {
    ApiError::bad_request(e.to_string())
}

/// A value column as the response describes it.
fn describe(
    header: &str,
    column: Option<&query::ColumnDef>,
    spec: &ValueSpec,
    shown: ColumnType,
) -> Value {
    json!({
        "name": header,
        "column": column.map_or(query::table::value_spec::PERCENT_WEIGHT, |d| d.name),
        "aggregation": spec.aggregation.name(),
        "type": shown.name(),
        "unit": if spec.of == ValueOf::PercentWeight { Some("%") } else { shown.unit() },
    })
}

/// Adds `value_columns` and each row's aggregates (`values`, by header).
pub fn add_row_values(v: &mut Value, table: &RowTable, values: &[ValueSpec], r: &TableResponse) {
    let heads: Vec<(String, ColumnType)> = values.iter().map(|s| table.value_header(s)).collect();
    v["value_columns"] = Value::Array(
        values
            .iter()
            .zip(&heads)
            .map(|(s, (h, ty))| {
                let col = match s.of {
                    ValueOf::Column(c) => table.defs.get(c),
                    ValueOf::PercentWeight => None,
                };
                describe(h, col, s, *ty)
            })
            .collect(),
    );
    let Some(rows) = v["rows"].as_array_mut() else {
        return;
    };
    for (jr, row) in rows.iter_mut().zip(&r.rows) {
        if !jr["values"].is_object() {
            jr["values"] = json!({});
        }
        for ((h, ty), cell) in heads.iter().zip(&row.values) {
            jr["values"][h.as_str()] = cell_json(cell, *ty);
        }
    }
}

/// The value columns `specs` name in CPU Usage (Sampled), and which of
/// them `sort.by` names (by spec or header), unless it is one of the
/// engine's own sort keys (count, weight, percent, first, last, label).
pub fn sampled_values(
    e: &query::Engine,
    specs: &[String],
    sort: &super::query::SortSpec,
) -> ApiResult<(Vec<ValueSpec>, Option<usize>)> {
    let Some(def) = TableDef::of_with(e.trace(), e.regions(), "cpu-sampled") else {
        return Err(bad("no cpu-sampled table"));
    };
    // The engine's own sort keys are not value columns.
    const OWN: [&str; 6] = ["count", "weight", "percent", "first", "last", "label"];
    let ask = TableAsk {
        values: Some(specs),
        sort: sort.by.as_deref().filter(|b| !OWN.contains(b)),
        ..TableAsk::default()
    };
    let plan = plan::plan(&def, &ask).map_err(bad)?;
    let sort_value = plan.sort_value();
    Ok((plan.values, sort_value))
}

/// Adds `value_columns` and each CPU Usage (Sampled) row's aggregates.
pub fn add_sampled_values(
    v: &mut Value,
    e: &query::Engine,
    values: &[ValueSpec],
    r: &TableResponse,
) {
    let Some(def) = TableDef::of_with(e.trace(), e.regions(), "cpu-sampled") else {
        return;
    };
    let heads: Vec<(String, ColumnType)> = values
        .iter()
        .map(|s| (s.header(&def), s.shown_type(&def)))
        .collect();
    v["value_columns"] = Value::Array(
        values
            .iter()
            .zip(&heads)
            .map(|(s, (h, ty))| {
                let col = match s.of {
                    ValueOf::Column(c) => def.columns.get(c).map(|c| c.def),
                    ValueOf::PercentWeight => None,
                };
                describe(h, col.as_ref(), s, *ty)
            })
            .collect(),
    );
    let Some(rows) = v["rows"].as_array_mut() else {
        return;
    };
    for (jr, row) in rows.iter_mut().zip(&r.rows) {
        let mut m = serde_json::Map::new();
        for ((h, ty), cell) in heads.iter().zip(&row.values) {
            m.insert(h.clone(), cell_json(cell, *ty));
        }
        jr["values"] = Value::Object(m);
    }
}

/// Every table's column definitions, for `/columns`.
pub fn definitions(e: &query::Engine, name: &str) -> Value {
    let t = e.trace();
    // Row tables take their Stack Tag columns as values too (definitions
    // only: the keys are not read); CPU Usage (Sampled)'s values are
    // resolved untagged (`sampled_values`).
    let tags = query::stack_tags::StackTagKeys::empty();
    let def = match name {
        "cpu-sampled" => TableDef::of_with(t, e.regions(), name),
        _ => TableDef::of_tagged_with(t, e.regions(), name, &tags, None),
    };
    let Some(def) = def else {
        return Value::Null;
    };
    json!({
        "columns": def.columns.iter().map(|c| crate::cell_json::column_json(&c.def)).collect::<Vec<_>>(),
        "default_values": def.default_values,
    })
}
