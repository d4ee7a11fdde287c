//! WPA profiles (`.wpaProfile`) read once, in Rust, for the CLI
//! (`export --profile`) and the UI (`POST /api/wpa-profile`): the
//! `wpaprofile` crate parses and maps them onto our tables' columns.

use model::Trace;
use query::stack_tags::StackTagKeys;
use query::{ColumnType, TableDef};
use serde_json::{json, Value};
use wpaprofile::map::{Catalog, CatalogColumn, Kind, MappedColumn, MappedPreset};

pub use wpaprofile::MAX_BYTES;

/// Our tables and their columns (Stack Tag columns and `% Weight`
/// included), as `query::TableDef` defines them.
pub fn catalog() -> Catalog {
    let empty = Trace::default();
    let tags = StackTagKeys::empty();
    let tables = TableDef::NAMES
        .iter()
        .filter_map(|&name| {
            let def = TableDef::of_tagged(&empty, name, &tags)?;
            let mut cols: Vec<CatalogColumn> = def
                .columns
                .iter()
                .map(|c| CatalogColumn {
                    name: c.def.name.to_string(),
                    aliases: c.def.aliases.iter().map(|a| a.to_string()).collect(),
                    kind: kind(c.def.ty),
                    aggregation: c.def.aggregation.name().to_string(),
                    refused: query::Aggregation::ALL
                        .into_iter()
                        .filter(|&a| !c.def.accepts(a))
                        .map(|a| a.name().to_string())
                        .collect(),
                })
                .collect();
            cols.push(CatalogColumn {
                name: query::table::value_spec::PERCENT_WEIGHT.to_string(),
                aliases: Vec::new(),
                kind: Kind::Percent,
                aggregation: "sum".to_string(),
                refused: Vec::new(),
            });
            Some((name.to_string(), cols))
        })
        .collect();
    Catalog { tables }
}

fn kind(ty: ColumnType) -> Kind {
    match ty {
        ColumnType::Text | ColumnType::Version => Kind::Text,
        ColumnType::Duration => Kind::Duration,
        ColumnType::Time => Kind::Time,
        ColumnType::Stack => Kind::Stack,
        ColumnType::Count | ColumnType::Size | ColumnType::Address | ColumnType::Id => Kind::Number,
    }
}

/// The mapped presets of a profile's XML; `Err` names the line.
pub fn read(xml: &str) -> Result<(wpaprofile::Profile, Vec<MappedPreset>), wpaprofile::Error> {
    let profile = wpaprofile::parse(xml)?;
    let mapped = wpaprofile::map::map_profile(&profile, &catalog());
    Ok((profile, mapped))
}

fn column_json(c: &MappedColumn) -> Value {
    json!({
        "wpa": c.wpa,
        "guid": c.guid,
        "aggregation": c.aggregation,
        "ours": c.ours,
        "header": c.header,
    })
}

/// The answer of `POST /api/wpa-profile`.
pub fn to_json(profile: &wpaprofile::Profile, mapped: &[MappedPreset]) -> Value {
    let presets: Vec<Value> = mapped
        .iter()
        .map(|m| {
            json!({
                "name": m.name,
                "view": m.view_title,
                "graph_guid": m.graph_guid,
                "line": m.line,
                "wpa_table": m.wpa_table,
                "table": m.table,
                "file_name": m.file_name,
                "rows": m.rows,
                "keys": m.keys.iter().map(column_json).collect::<Vec<_>>(),
                "values": m.values.iter().map(column_json).collect::<Vec<_>>(),
                "sort": m.sort.as_ref().map(|(c, d)| json!({"column": c, "descending": d})),
                "filter": m.filter.as_ref().map(|f| json!({
                    "column": f.column, "values": f.values, "exclude": f.exclude,
                })),
                "hidden_columns": m.hidden,
                "summary": m.summary(),
                "unmapped": m.unmapped,
                "notes": m.notes,
            })
        })
        .collect();
    json!({ "presets": presets, "file_references": profile.file_references })
}
