//! One planner for table requests, whatever asks: `etlscope export` (and
//! the HTTP export), the HTTP `/table` endpoint, and later SQL or an agent.
//! A request arrives as names and text (key columns, `COL[:AGG]` value
//! columns, `COLUMN=VALUE` filters, a range in seconds, `COL[:asc|desc]`);
//! `plan` resolves every name against one table's columns and checks it,
//! so a new surface only parses its own syntax and formats its own answer.

use crate::scan::filter::TimeRange;
use crate::table::columns::TableDef;
use crate::table::flat::{FlatRequest, FlatSort, SortOn};
use crate::table::value_spec::{default_values, ValueSpec};
use crate::QueryError;

/// A table request as a surface receives it: nothing resolved yet.
#[derive(Debug, Clone, Copy, Default)]
pub struct TableAsk<'r> {
    /// Key columns by name, outermost first.
    pub keys: &'r [String],
    /// `COL[:AGG]` value columns; `None`: the table's default ones.
    pub values: Option<&'r [String]>,
    /// `COLUMN=VALUE`: rows whose cell in the column shows the value;
    /// `COLUMN!=VALUE` (a column name ending in `!`): rows whose cell does
    /// not.
    pub filters: &'r [(String, String)],
    /// Start and end in seconds from trace start.
    pub range: Option<(f64, f64)>,
    /// `COL[:asc|desc]`: a value column (by spec or header) or a key column.
    pub sort: Option<&'r str>,
    /// At most this many rows; 0 means all.
    pub limit: usize,
}

/// What the sort of a request names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SortPlan {
    /// No sort asked for.
    Unsorted,
    /// A value or key column (values descending by default, keys ascending).
    On(FlatSort),
    /// Neither a value nor a key column of the request: the surface
    /// decides (its own sort names, or an error in its words).
    Unknown(String),
}

/// A request resolved against one table: column indices into `def.columns`.
#[derive(Debug, Clone, PartialEq)]
pub struct TablePlan {
    pub keys: Vec<usize>,
    pub values: Vec<ValueSpec>,
    pub filters: Vec<(usize, String)>,
    /// Rows whose cell shows this text are left out.
    pub excludes: Vec<(usize, String)>,
    pub range: Option<TimeRange>,
    pub sort: SortPlan,
    pub limit: usize,
}

impl TablePlan {
    /// The flat table request of this plan; an unknown sort is the
    /// caller's error to report, so here it is no sort.
    pub fn flat_request(&self) -> FlatRequest {
        FlatRequest {
            keys: self.keys.clone(),
            values: self.values.clone(),
            filters: self.filters.clone(),
            excludes: self.excludes.clone(),
            range: self.range,
            sort: match &self.sort {
                SortPlan::On(s) => Some(*s),
                SortPlan::Unsorted | SortPlan::Unknown(_) => None,
            },
            limit: self.limit,
        }
    }

    /// The value column the sort names, if it names one.
    pub fn sort_value(&self) -> Option<usize> {
        match self.sort {
            SortPlan::On(FlatSort {
                on: SortOn::Value(i),
                ..
            }) => Some(i),
            _ => None,
        }
    }
}

/// `ask` resolved against `def`: every column name, value spec, filter
/// column and the range checked; the first name that does not fit is the
/// error.
pub fn plan(def: &TableDef<'_>, ask: &TableAsk<'_>) -> Result<TablePlan, QueryError> {
    let keys = ask
        .keys
        .iter()
        .map(|k| column(def, k))
        .collect::<Result<Vec<_>, _>>()?;
    let (mut filters, mut excludes) = (Vec::new(), Vec::new());
    for (c, v) in ask.filters {
        match c.trim_end().strip_suffix('!') {
            Some(c) => excludes.push((column(def, c)?, v.clone())),
            None => filters.push((column(def, c)?, v.clone())),
        }
    }
    let range = ask
        .range
        .map(|(start, end)| time_range(start, end))
        .transpose()?;
    let values = match ask.values {
        Some(specs) => specs
            .iter()
            .map(|s| ValueSpec::parse(def, s))
            .collect::<Result<Vec<_>, _>>()?,
        None => default_values(def)?,
    };
    let sort = match ask.sort {
        None => SortPlan::Unsorted,
        Some(s) => sort(def, &keys, &values, s),
    };
    Ok(TablePlan {
        keys,
        values,
        filters,
        excludes,
        range,
        sort,
        limit: ask.limit,
    })
}

/// The column `name` names (its name or an older one).
pub fn column(def: &TableDef<'_>, name: &str) -> Result<usize, QueryError> {
    def.column(name).ok_or_else(|| {
        QueryError::BadRequest(format!(
            "unknown column {name:?}; columns are: {}",
            def.column_names().join(", ")
        ))
    })
}

/// `[start, end)` in seconds from trace start as a time range; a start
/// after the end (or a NaN) is an error.
pub fn time_range(start_s: f64, end_s: f64) -> Result<TimeRange, QueryError> {
    if start_s.is_nan() || end_s.is_nan() || start_s > end_s {
        return Err(QueryError::BadRequest(format!(
            "bad range {start_s}..{end_s}: start must not be after end"
        )));
    }
    Ok(TimeRange {
        start_ns: model::time::s_to_ns(start_s),
        end_ns: model::time::s_to_ns(end_s),
    })
}

/// The value column of `values` that `name` names, by header or by spec.
pub fn value_named(def: &TableDef<'_>, values: &[ValueSpec], name: &str) -> Option<usize> {
    values
        .iter()
        .position(|v| v.header(def) == name)
        .or_else(|| {
            let spec = ValueSpec::parse(def, name).ok()?;
            values.iter().position(|v| *v == spec)
        })
}

/// `COL[:asc|desc]`: a value column (by spec or header) or a key column.
fn sort(def: &TableDef<'_>, keys: &[usize], values: &[ValueSpec], s: &str) -> SortPlan {
    let (name, dir) = match s.rsplit_once(':') {
        Some((n, d)) if d.eq_ignore_ascii_case("asc") => (n, Some(false)),
        Some((n, d)) if d.eq_ignore_ascii_case("desc") => (n, Some(true)),
        _ => (s, None),
    };
    if let Some(i) = value_named(def, values, name) {
        return SortPlan::On(FlatSort {
            on: SortOn::Value(i),
            descending: dir.unwrap_or(true),
        });
    }
    let as_key = def
        .column(name)
        .and_then(|c| keys.iter().position(|&k| k == c));
    match as_key {
        Some(i) => SortPlan::On(FlatSort {
            on: SortOn::Key(i),
            descending: dir.unwrap_or(false),
        }),
        None => SortPlan::Unknown(name.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synthetic::{self, Shape};

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    /// Names resolve to the columns `TableDef::column` and `ValueSpec::parse`
    /// give; a sort names a value (descending) before a key (ascending).
    #[test]
    fn resolves_names_and_sort() {
        let t = synthetic::trace(&Shape::small(1));
        let def = TableDef::of(&t, "cpu-sampled").expect("table");
        let (keys, values) = (strings(&["Process"]), strings(&["Weight:max", "Count"]));
        let mut ask = TableAsk {
            keys: &keys,
            values: Some(&values),
            sort: Some("Weight:max"),
            range: Some((0.5, 1.0)),
            ..TableAsk::default()
        };
        let p = plan(&def, &ask).expect("plan");
        assert_eq!(p.keys, vec![def.column("Process").expect("column")]);
        assert_eq!(
            p.values[0],
            ValueSpec::parse(&def, "Weight:max").expect("spec")
        );
        assert_eq!(p.sort_value(), Some(0));
        assert_eq!(p.range.map(|r| r.start_ns), Some(500_000_000));
        ask.sort = Some("Count:asc");
        let p = plan(&def, &ask).expect("plan");
        let on_count = FlatSort {
            on: SortOn::Value(1),
            descending: false,
        };
        assert_eq!(p.sort, SortPlan::On(on_count));
        ask.sort = Some("Process");
        let on_key = FlatSort {
            on: SortOn::Key(0),
            descending: false,
        };
        assert_eq!(plan(&def, &ask).expect("plan").sort, SortPlan::On(on_key));
        ask.sort = Some("Thread ID");
        let unknown = SortPlan::Unknown("Thread ID".into());
        assert_eq!(plan(&def, &ask).expect("plan").sort, unknown);
    }

    /// Unknown columns, bad aggregations and reversed or NaN ranges are
    /// errors, not panics; no values asked for gives the defaults.
    #[test]
    fn refuses_what_does_not_fit() {
        let t = synthetic::trace(&Shape::small(2));
        let def = TableDef::of(&t, "cpu-sampled").expect("table");
        let (nope, bad_agg) = (strings(&["No Such Column"]), strings(&["Process:sum"]));
        let keys = TableAsk {
            keys: &nope,
            ..TableAsk::default()
        };
        assert!(plan(&def, &keys).is_err());
        let values = TableAsk {
            values: Some(&bad_agg),
            ..TableAsk::default()
        };
        assert!(plan(&def, &values).is_err());
        for range in [(2.0, 1.0), (f64::NAN, 1.0), (0.0, f64::NAN)] {
            let ask = TableAsk {
                range: Some(range),
                ..TableAsk::default()
            };
            assert!(plan(&def, &ask).is_err(), "{range:?}");
        }
        let defaults = plan(&def, &TableAsk::default()).expect("plan").values;
        assert_eq!(defaults, default_values(&def).expect("defaults"));
    }
}
