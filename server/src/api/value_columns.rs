//! Value columns of `/table` requests (`values`: `COL[:AGG]`, the form
//! `etlscope export --values` takes) and their aggregates in responses:
//! `value_columns` describes them, each row's `values` object holds them
//! by header, in base units (see crate::cell_json).

use super::error::{ApiError, ApiResult};
use crate::cell_json::cell_json;
use query::{CellValue, ColumnType, RowTable, TableDef, TableResponse, ValueOf, ValueSpec};
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
        "column": column.map_or(query::value_spec::PERCENT_WEIGHT, |d| d.name),
        "aggregation": spec.aggregation.name(),
        "type": shown.name(),
        "unit": if spec.of == ValueOf::PercentWeight { Some("%") } else { shown.unit() },
    })
}

/// The value columns `specs` name in a row table.
pub fn row_values(table: &RowTable, specs: &[String]) -> ApiResult<Vec<ValueSpec>> {
    specs
        .iter()
        .map(|s| table.value_spec(s).map_err(bad))
        .collect()
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

/// A value CPU Usage (Sampled) rows carry: the engine counts samples and
/// sums their weight per row, and knows their first and last times.
#[derive(Debug, Clone, Copy)]
pub enum Sampled {
    Count,
    Weight,
    PercentWeight,
    First,
    Last,
}

/// The value columns `specs` name in CPU Usage (Sampled).
pub fn sampled_values(
    t: &model::Trace,
    specs: &[String],
) -> ApiResult<Vec<(Sampled, ColumnType, Value)>> {
    let Some(def) = TableDef::of(t, "cpu-sampled") else {
        return Err(bad("no cpu-sampled table"));
    };
    specs
        .iter()
        .map(|s| {
            let spec = ValueSpec::parse(&def, s).map_err(bad)?;
            let col = match spec.of {
                ValueOf::Column(c) => def.columns.get(c).map(|c| c.def),
                ValueOf::PercentWeight => None,
            };
            let which = match (col.map(|d| d.name), spec.aggregation) {
                (None, _) => Sampled::PercentWeight,
                (Some("Count"), query::Aggregation::Sum) => Sampled::Count,
                (Some("Weight"), query::Aggregation::Sum) => Sampled::Weight,
                (Some("Time"), query::Aggregation::Min) => Sampled::First,
                (Some("Time"), query::Aggregation::Max) => Sampled::Last,
                _ => {
                    return Err(bad(format!(
                        "{s:?}: cpu-sampled value columns are Count, Weight, % Weight, Time:min and Time:max"
                    )))
                }
            };
            let shown = spec.shown_type(&def);
            let d = describe(&spec.header(&def), col.as_ref(), &spec, shown);
            Ok((which, shown, d))
        })
        .collect()
}

/// Adds `value_columns` and each CPU Usage (Sampled) row's values.
pub fn add_sampled_values(
    v: &mut Value,
    values: &[(Sampled, ColumnType, Value)],
    r: &TableResponse,
) {
    v["value_columns"] = Value::Array(values.iter().map(|x| x.2.clone()).collect());
    let Some(rows) = v["rows"].as_array_mut() else {
        return;
    };
    for (jr, row) in rows.iter_mut().zip(&r.rows) {
        let mut m = serde_json::Map::new();
        for (which, ty, d) in values {
            let cell = match which {
                Sampled::Count => CellValue::Count(row.count),
                Sampled::Weight => CellValue::Number(row.weight_ns),
                Sampled::PercentWeight => CellValue::Plain(row.percent_weight),
                Sampled::First => CellValue::Number(row.first_ns),
                Sampled::Last => CellValue::Number(row.last_ns),
            };
            let name = d["name"].as_str().unwrap_or_default().to_string();
            m.insert(name, cell_json(&cell, *ty));
        }
        jr["values"] = Value::Object(m);
    }
}

/// Every table's column definitions, for `/columns`.
pub fn definitions(t: &model::Trace, name: &str) -> Value {
    // Definitions only: the Stack Tag columns' keys are not read.
    let tags = query::stack_tags::StackTagKeys::empty();
    let Some(def) = TableDef::of_tagged(t, name, &tags) else {
        return Value::Null;
    };
    json!({
        "columns": def.columns.iter().map(|c| crate::cell_json::column_json(&c.def)).collect::<Vec<_>>(),
        "default_values": def.default_values,
    })
}
