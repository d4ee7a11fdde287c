//! WPA profiles (`.wpaProfile`): what WPA reads from them, and etlscope's
//! presets made from that.
//!
//! - [`parse`] reads the XML into a neutral [`Profile`]: one [`Preset`] per
//!   `View/Graphs/Graph/Preset`, its table named by the Graph's GUID, its
//!   columns in file order with name, GUID, visibility, aggregation and sort,
//!   and WPA's four bars (gold bar, graph bar, frozen bars) placed in the one
//!   list of columns (`layout`).
//! - [`map::map_profile`] turns each preset into an etlscope preset (table,
//!   key columns, `COL:AGG` value columns, sort, filters) against a
//!   [`map::Catalog`] of our tables, listing what does not map.
//!
//! The file is untrusted: at most [`MAX_BYTES`], no DTD, a bounded node
//! count; errors carry the line.

mod filter;
mod layout;
pub mod map;
mod names;
mod parse;
mod tables;

pub use filter::{parse_filter, Condition};
pub use layout::{place_bars, Bars};
pub use parse::{parse, Error, MAX_BYTES, MAX_NODES};
pub use tables::{wpa_table, WpaTable, WPA_TABLES};

/// A profile: its presets in file order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Profile {
    pub presets: Vec<Preset>,
    /// `FileReference FileName`s (stack tag files the profile names).
    pub file_references: Vec<String>,
}

/// One `Graph/Preset` of a `View`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Preset {
    pub view_title: String,
    pub view_guid: String,
    /// The Graph's GUID: which WPA table (and graph) the preset is of.
    pub graph_guid: String,
    pub name: String,
    /// Line of the `<Preset>` element.
    pub line: u32,
    /// Every column in file order, hidden ones included.
    pub columns: Vec<Column>,
    /// WPA's bar positions as written (positions in the whole column list,
    /// bars included); `None` when absent.
    pub key_column_count: Option<u32>,
    pub graph_column_count: Option<u32>,
    pub left_frozen_column_count: Option<u32>,
    pub right_frozen_column_count: Option<u32>,
    pub initial_filter_query: Option<String>,
    /// `InitialFilterShouldKeep`: keep the rows the query matches (else
    /// remove them; absent means remove).
    pub initial_filter_should_keep: bool,
    pub initial_selection_query: Option<String>,
    pub graph_filter_column_guid: Option<String>,
    pub graph_chart_type: Option<String>,
    pub layout_style: Option<String>,
    /// `MetadataEntry`s: (column GUID, name, role such as `StartTime`).
    pub metadata: Vec<(String, String, String)>,
}

/// One `Column` of a preset.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Column {
    pub guid: String,
    pub name: String,
    /// `IsVisible="true"`; absent means hidden (WPA writes only `true` for
    /// shown columns in older profiles).
    pub visible: bool,
    /// `AggregationMode` as written (`Sum`, `Max`, `UniqueCount`...).
    pub aggregation: Option<String>,
    pub sort_order: Option<SortOrder>,
    pub sort_priority: Option<i32>,
    /// `StackOptionsParameter Mode` (`StackTag`, `FrameTags`); `Some("")`
    /// for a stack column without a mode (the call stack itself).
    pub stack_mode: Option<String>,
    /// `CellFormat` (`mN`: milliseconds, `N2`: two decimals, `x`: hex).
    pub cell_format: Option<String>,
    /// Left of the gold bar (a key column); set by `layout`.
    pub is_key: bool,
    pub line: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortOrder {
    Ascending,
    Descending,
}

impl Preset {
    /// Key columns: left of the gold bar, in order.
    pub fn keys(&self) -> impl Iterator<Item = &Column> {
        self.columns.iter().filter(|c| c.is_key)
    }

    /// Value columns: right of the gold bar, in order.
    pub fn values(&self) -> impl Iterator<Item = &Column> {
        self.columns.iter().filter(|c| !c.is_key)
    }

    /// The columns WPA sorts by, first to last: those with a `SortOrder`,
    /// by `SortPriority` (absent: last), in file order on a tie.
    pub fn sort_columns(&self) -> Vec<&Column> {
        let mut v: Vec<&Column> = self
            .columns
            .iter()
            .filter(|c| c.sort_order.is_some())
            .collect();
        v.sort_by_key(|c| c.sort_priority.unwrap_or(i32::MAX));
        v
    }
}
