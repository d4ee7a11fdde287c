//! Stack Tag columns of a table: one text column per stack column, keyed
//! by the row's stack through `StackTagKeys`, so it groups, filters and
//! aggregates like any text column.

use super::keys::StackTagKeys;
use crate::scan::filter::TimeRange;
use crate::table::columns::{keyed, Cells, TableColumn, TableDef};
use model::Trace;

/// The tag column of a stack column: its name and older names (WPA names
/// the new thread's in CPU Usage (Precise) plain "Stack Tag").
pub fn tag_column_name(stack: &str) -> Option<(&'static str, &'static [&'static str])> {
    match stack {
        "Stack" => Some(("Stack Tag", &[])),
        "New Thread Stack" => Some(("Stack Tag", &["New Thread Stack Tag"])),
        "Ready Thread Stack" => Some(("Ready Thread Stack Tag", &[])),
        _ => None,
    }
}

/// Whether `name` is a Stack Tag column's name.
pub fn is_tag_column(name: &str) -> bool {
    name == "Stack Tag" || name == "Ready Thread Stack Tag"
}

/// Append to `def` a tag column per stack column of `twin` (the same table
/// built again: its stack readers move into the new columns).
pub fn add<'a>(def: &mut TableDef<'a>, twin: TableDef<'a>, keys: &'a StackTagKeys) {
    for c in twin.columns {
        let Cells::Stack(stack) = c.cells else {
            continue;
        };
        let Some((name, aliases)) = tag_column_name(c.def.name) else {
            continue;
        };
        let column: TableColumn<'a> = keyed(
            name,
            move |row| keys.key(stack(row)),
            move |k| keys.label(k),
        );
        def.columns.push(column.alias(aliases));
    }
}

/// Tables with their Stack Tag columns: here, so that `table::columns`
/// needs nothing of stack tags.
impl<'a> TableDef<'a> {
    /// The table `name` of `t` with a Stack Tag column per stack column
    /// (before Count), tagged by `tags`.
    pub fn of_tagged(t: &'a Trace, name: &str, tags: &'a StackTagKeys) -> Option<TableDef<'a>> {
        TableDef::of_tagged_in(t, name, tags, None)
    }

    /// `of_tagged` with the range-relative columns against `range`.
    pub fn of_tagged_in(
        t: &'a Trace,
        name: &str,
        tags: &'a StackTagKeys,
        range: Option<TimeRange>,
    ) -> Option<TableDef<'a>> {
        TableDef::of_tagged_with(t, &t.regions, name, tags, range)
    }

    /// `of_tagged_in` with its regions from `regions` (a view's regions file).
    pub fn of_tagged_with(
        t: &'a Trace,
        regions: &'a model::regions::RegionTable,
        name: &str,
        tags: &'a StackTagKeys,
        range: Option<TimeRange>,
    ) -> Option<TableDef<'a>> {
        let mut def = TableDef::columns_with(t, regions, name, range)?;
        let twin = TableDef::columns_with(t, regions, name, range)?;
        add(&mut def, twin, tags);
        def.push_count();
        Some(def)
    }
}
