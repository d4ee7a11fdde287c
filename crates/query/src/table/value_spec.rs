//! `COL[:AGG]` value-column specs, as the CLI (`--values`) and the HTTP
//! API (`values`) take them, resolved against a table's columns.

use crate::table::aggregate::Aggregation;
use crate::table::columns::{ColumnType, TableDef};
use crate::QueryError;

/// The `% Weight` value column: a share, not a column of the rows.
pub const PERCENT_WEIGHT: &str = "% Weight";

/// What a value column aggregates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ValueOf {
    /// A column of the table (index into `TableDef::columns`).
    Column(usize),
    /// The weight as a share (see `table::columns::PercentOf`).
    PercentWeight,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ValueSpec {
    pub of: ValueOf,
    pub aggregation: Aggregation,
}

impl ValueSpec {
    /// Parses `COL` (its default aggregation) or `COL:AGG`.
    pub fn parse(def: &TableDef<'_>, spec: &str) -> Result<ValueSpec, QueryError> {
        let (name, agg) = match spec.rsplit_once(':') {
            Some((n, a)) if Aggregation::from_name(a).is_some() => {
                (n.trim(), Aggregation::from_name(a))
            }
            Some((_, a)) => {
                let names: Vec<&str> = Aggregation::ALL.iter().map(|a| a.name()).collect();
                return Err(QueryError::BadRequest(format!(
                    "unknown aggregation {a:?} in {spec:?}; aggregations are {}",
                    names.join(", ")
                )));
            }
            None => (spec.trim(), None),
        };
        // A share of the weight, or of the count where there is none.
        if name == PERCENT_WEIGHT {
            return Ok(ValueSpec {
                of: ValueOf::PercentWeight,
                aggregation: Aggregation::Sum,
            });
        }
        let c = def.column(name).ok_or_else(|| {
            QueryError::BadRequest(format!(
                "unknown column {name:?}; columns are: {}, {PERCENT_WEIGHT}",
                def.column_names().join(", ")
            ))
        })?;
        let d = def.columns[c].def;
        let aggregation = agg.unwrap_or(d.aggregation);
        if !d.accepts(aggregation) {
            return Err(QueryError::BadRequest(d.refusal(aggregation)));
        }
        Ok(ValueSpec {
            of: ValueOf::Column(c),
            aggregation,
        })
    }

    /// The column header: the column's name, with the aggregation when it
    /// is not the column's default (`Size:max`).
    pub fn header(&self, def: &TableDef<'_>) -> String {
        match self.of {
            ValueOf::PercentWeight => PERCENT_WEIGHT.to_string(),
            ValueOf::Column(c) => {
                let d = def.columns[c].def;
                if self.aggregation == d.aggregation {
                    d.name.to_string()
                } else {
                    format!("{}:{}", d.name, self.aggregation.name())
                }
            }
        }
    }

    /// The type the aggregate is shown as (a count, a percentage, or the
    /// column's own type).
    pub fn shown_type(&self, def: &TableDef<'_>) -> ColumnType {
        match self.of {
            ValueOf::PercentWeight => ColumnType::Count,
            ValueOf::Column(c) => crate::table::cell_value::CellValue::shown_type(
                self.aggregation,
                def.columns[c].def.ty,
            ),
        }
    }
}

/// The table's default value columns.
pub fn default_values(def: &TableDef<'_>) -> Result<Vec<ValueSpec>, QueryError> {
    def.default_values
        .iter()
        .map(|s| ValueSpec::parse(def, s))
        .collect()
}
