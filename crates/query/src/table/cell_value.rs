//! A cell of a grouped table (a key or an aggregate), with the text, the
//! JSON number and the order its column type gives it.

use crate::table::aggregate::{AggValue, Aggregation};
use crate::table::columns::{number_text, ColumnType};
use crate::table::text_order::{text_cmp, version_cmp};
use std::cmp::Ordering;

#[derive(Debug, Clone, PartialEq)]
pub enum CellValue {
    Empty,
    /// A count, whatever the column's unit (Count, Unique Count, or the
    /// single-value mode over several values).
    Count(u64),
    /// A plain number (a percentage).
    Plain(f64),
    /// A value in the column's base unit (ns for times and durations).
    Number(i64),
    /// An average in the column's base unit.
    Float(f64),
    Text(String),
}

impl CellValue {
    /// The aggregate `v` of a column of type `ty`; `label` gives the text
    /// of a text column's key.
    pub fn of_aggregate(v: AggValue, ty: ColumnType, label: impl Fn(i64) -> String) -> CellValue {
        match v {
            AggValue::Empty => CellValue::Empty,
            AggValue::Count(n) => CellValue::Count(n),
            // Text shows how many; a number column shows nothing rather
            // than a count that would read as a PID or a time.
            AggValue::Several(n) if !ty.is_numeric() => CellValue::Count(n),
            AggValue::Several(_) => CellValue::Empty,
            AggValue::Float(x) => CellValue::Float(x),
            AggValue::Value(k) if !ty.is_numeric() => CellValue::Text(label(k)),
            AggValue::Value(x) if x == crate::table::columns::MISSING => CellValue::Empty,
            AggValue::Value(x) => CellValue::Number(x),
        }
    }

    /// The type the value is shown as: counts are counts whatever the column.
    pub fn shown_type(agg: Aggregation, ty: ColumnType) -> ColumnType {
        match agg {
            Aggregation::Count | Aggregation::UniqueCount => ColumnType::Count,
            _ => ty,
        }
    }

    /// The value in base units as a JSON-ready number: seconds for times
    /// and durations, bytes, counts. `None` for text, addresses (hex text)
    /// and empty cells.
    pub fn number(&self, ty: ColumnType) -> Option<f64> {
        let ns = |x: f64| if ty.is_nanoseconds() { x / 1e9 } else { x };
        match *self {
            CellValue::Count(n) => Some(n as f64),
            CellValue::Plain(x) => Some(x),
            CellValue::Number(_) if ty == ColumnType::Address => None,
            CellValue::Number(v) => Some(ns(v as f64)),
            CellValue::Float(x) => Some(ns(x)),
            CellValue::Empty | CellValue::Text(_) => None,
        }
    }

    /// The value as an exact integer when it is one in base units (counts,
    /// bytes, ids), so JSON keeps every digit.
    pub fn integer(&self, ty: ColumnType) -> Option<i64> {
        match *self {
            CellValue::Count(n) => i64::try_from(n).ok(),
            CellValue::Number(v) if !ty.is_nanoseconds() && ty != ColumnType::Address => Some(v),
            _ => None,
        }
    }

    /// Text without units or thousands separators (CSV, labels).
    pub fn text(&self, ty: ColumnType) -> String {
        match self {
            CellValue::Empty => String::new(),
            CellValue::Count(n) => n.to_string(),
            CellValue::Plain(x) => x.to_string(),
            CellValue::Number(v) => number_text(ty, *v),
            CellValue::Float(x) if ty.is_nanoseconds() => format!("{:.9}", x / 1e9),
            CellValue::Float(x) => x.to_string(),
            CellValue::Text(s) => s.clone(),
        }
    }

    /// WPA's order: empty first, then text (version order for versions,
    /// else case-insensitive), then numbers.
    pub fn compare(&self, other: &CellValue, ty: ColumnType) -> Ordering {
        let rank = |c: &CellValue| match c {
            CellValue::Empty => 0,
            CellValue::Text(_) => 1,
            _ => 2,
        };
        let as_f64 = |c: &CellValue| match *c {
            CellValue::Count(n) => n as f64,
            CellValue::Plain(x) | CellValue::Float(x) => x,
            CellValue::Number(v) => v as f64,
            _ => 0.0,
        };
        match (self, other) {
            (CellValue::Text(a), CellValue::Text(b)) if ty == ColumnType::Version => {
                version_cmp(a, b)
            }
            (CellValue::Text(a), CellValue::Text(b)) => text_cmp(a, b),
            (CellValue::Number(a), CellValue::Number(b)) => a.cmp(b),
            (CellValue::Count(a), CellValue::Count(b)) => a.cmp(b),
            (a, b) if rank(a) != rank(b) => rank(a).cmp(&rank(b)),
            (a, b) => as_f64(a).total_cmp(&as_f64(b)),
        }
    }
}
