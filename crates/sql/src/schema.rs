//! SQL tables and columns generated from the query crate's one declaration
//! per table column (`query::TableDef`): a table's SQL name is its API name
//! in snake case, a column's is its WPA name in snake case, and its SQL type
//! follows the column's type. Nothing here lists columns by hand.

use model::Trace;
use query::table::columns::{Cells, Numbers};
use query::{ColumnType, TableDef};

/// The SQL name of API table `name` (`file-io` -> `file_io`); `generic` is
/// `generic_events`, as the issue names it (a bare `generic` reads oddly in SQL).
pub fn sql_table_name(name: &str) -> String {
    match name {
        "generic" => "generic_events".into(),
        n => snake_case(n),
    }
}

/// `Process Name` -> `process_name`, `I/O Time` -> `i_o_time`: lower case,
/// every run of other characters one `_`, none at either end.
pub fn snake_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut gap = false;
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            if gap && !out.is_empty() {
                out.push('_');
            }
            gap = false;
            out.push(c.to_ascii_lowercase());
        } else {
            gap = true;
        }
    }
    if out.is_empty() {
        out.push_str("column");
    }
    out
}

/// The SQL type a column's cells have: numbers (ids, sizes, times and
/// durations in nanoseconds) are INTEGER, stacks their INTEGER stack id.
pub fn sql_type(ty: ColumnType) -> &'static str {
    match ty {
        ColumnType::Text | ColumnType::Version => "TEXT",
        _ => "INTEGER",
    }
}

/// One SQL column of a trace table: which declaration it reads.
#[derive(Debug, Clone)]
pub struct SqlColumn {
    pub name: String,
    /// Index into `TableDef::columns`.
    pub def: usize,
    pub ty: ColumnType,
    /// The WPA name it came from.
    pub wpa_name: &'static str,
}

/// The SQL columns of `def`: every declared column but the constant Count
/// (`count(*)` says the same), names made unique by a suffix.
pub fn sql_columns(def: &TableDef<'_>) -> Vec<SqlColumn> {
    let mut out: Vec<SqlColumn> = Vec::new();
    for (i, c) in def.columns.iter().enumerate() {
        if matches!(c.cells, Cells::Number(Numbers::Same(_))) {
            continue;
        }
        let base = snake_case(c.def.name);
        let mut name = base.clone();
        let mut n = 2;
        while out.iter().any(|o| o.name == name) {
            name = format!("{base}_{n}");
            n += 1;
        }
        out.push(SqlColumn {
            name,
            def: i,
            ty: c.def.ty,
            wpa_name: c.def.name,
        });
    }
    out
}

/// `CREATE TABLE x(...)` for `declare_vtab`.
pub fn create_statement(columns: &[(String, &'static str)]) -> String {
    let cols: Vec<String> = columns
        .iter()
        .map(|(n, t)| format!("\"{}\" {t}", n.replace('"', "\"\"")))
        .collect();
    format!("CREATE TABLE x({})", cols.join(", "))
}

/// Every trace table: (SQL name, API name).
pub fn trace_tables() -> Vec<(String, &'static str)> {
    TableDef::NAMES
        .iter()
        .map(|&n| (sql_table_name(n), n))
        .collect()
}

/// The unit of a column's numbers in SQL (documented per column).
pub fn sql_unit(ty: ColumnType) -> &'static str {
    match ty {
        ColumnType::Time => "ns since trace start",
        ColumnType::Duration => "ns",
        ColumnType::Size => "bytes",
        ColumnType::Stack => "stack id (`stacks`)",
        ColumnType::Address => "address",
        _ => "",
    }
}

/// The tables and columns as Markdown (docs/guide/sql.md holds this list; a
/// test checks the two agree). Made from an empty trace: columns do not
/// depend on the data.
pub fn markdown() -> String {
    let t = Trace::default();
    let mut out = String::new();
    for (sql, api) in trace_tables() {
        let Some(def) = TableDef::of(&t, api) else {
            continue;
        };
        let cols: Vec<String> = sql_columns(&def)
            .iter()
            .map(|c| {
                let unit = sql_unit(c.ty);
                if unit.is_empty() {
                    format!("`{}` {}", c.name, sql_type(c.ty))
                } else {
                    format!("`{}` {} ({unit})", c.name, sql_type(c.ty))
                }
            })
            .collect();
        out.push_str(&format!(
            "- `{sql}` (`--table {api}`): {}\n",
            cols.join(", ")
        ));
    }
    for l in crate::lists::LISTS {
        let cols: Vec<String> = l
            .columns
            .iter()
            .map(|(n, ty)| format!("`{n}` {ty}"))
            .collect();
        out.push_str(&format!("- `{}`: {}\n", l.name, cols.join(", ")));
    }
    out
}

/// Every SQL table with its columns (name, SQL type, unit) and the functions,
/// as `GET /api/sql/schema` answers them for the UI's completion: the same
/// declarations `markdown` lists, so the two cannot disagree.
pub fn json() -> serde_json::Value {
    use serde_json::json;
    let t = Trace::default();
    let mut tables = Vec::new();
    for (sql, api) in trace_tables() {
        let Some(def) = TableDef::of(&t, api) else {
            continue;
        };
        let cols: Vec<_> = sql_columns(&def)
            .iter()
            .map(|c| json!({"name": c.name, "type": sql_type(c.ty), "unit": sql_unit(c.ty)}))
            .collect();
        tables.push(json!({"name": sql, "table": api, "columns": cols}));
    }
    for l in crate::lists::LISTS {
        let cols: Vec<_> = l
            .columns
            .iter()
            .map(|(n, ty)| json!({"name": n, "type": ty, "unit": ""}))
            .collect();
        tables.push(json!({"name": l.name, "table": null, "columns": cols}));
    }
    let functions: Vec<_> = crate::functions::SIGNATURES
        .iter()
        .map(|(name, call)| json!({"name": name, "call": call}))
        .collect();
    json!({"tables": tables, "functions": functions})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snake_case_of_wpa_names() {
        assert_eq!(snake_case("Process Name"), "process_name");
        assert_eq!(snake_case("I/O Time"), "i_o_time");
        assert_eq!(snake_case("PID"), "pid");
        assert_eq!(snake_case("% Weight"), "weight");
        assert_eq!(snake_case(" "), "column");
        assert_eq!(sql_table_name("file-io"), "file_io");
        assert_eq!(sql_table_name("generic"), "generic_events");
    }

    /// Every declared table gives an SQL table with unique column names.
    #[test]
    fn every_table_has_unique_columns() {
        let t = Trace::default();
        for (sql, api) in trace_tables() {
            let def = TableDef::of(&t, api).expect(api);
            let cols = sql_columns(&def);
            assert!(!cols.is_empty(), "{sql}");
            let mut names: Vec<&str> = cols.iter().map(|c| c.name.as_str()).collect();
            names.sort_unstable();
            names.dedup();
            assert_eq!(names.len(), cols.len(), "{sql}");
        }
    }
}
