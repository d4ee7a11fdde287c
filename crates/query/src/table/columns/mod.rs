//! One definition per table column: its WPA name (and older names still
//! accepted), its type and unit, its default aggregation, and how to read
//! it per row. The UI's row tables (`rows::table`), the HTTP API and
//! `etlscope export` (through `table::flat`) all read these; one small file
//! per table says what the table shows.

mod cpu_idle_states;
mod cpu_precise;
mod cpu_sampled;
mod disk_io;
mod dpc_isr;
mod file_io;
mod frame_times;
mod generic;
mod gpu_utilization;
mod hard_faults;
mod heap;
mod images;
mod network;
mod numbers;
mod page_faults;
mod processes;
mod processor_frequency;
mod range_class;
mod regions;
mod registry;
mod threads;
mod ui_delays;
mod virtual_alloc;
mod window_in_focus;

use crate::scan::filter::TimeRange;
use crate::table::aggregate::Aggregation;
use model::strings::StrId;
use model::Trace;
pub use numbers::{IntoNumbers, Numbers};

/// A number cell without a value (a process still running at trace end,
/// an I/O without completion): shown empty, left out of aggregates.
pub const MISSING: i64 = i64::MIN;

/// What a column holds, which fixes its unit, its text and how it sorts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ColumnType {
    Text,
    /// A number of things (rows, samples).
    Count,
    /// Bytes.
    Size,
    /// Nanoseconds; printed as seconds.
    Duration,
    /// Nanoseconds since trace start; printed as seconds.
    Time,
    /// Printed in hex.
    Address,
    /// A number that names something (PID, TID, CPU, priority).
    Id,
    /// Text that sorts in version order.
    Version,
    /// Call stacks: drilled one frame per level in the UI, printed root
    /// first (`;`-joined) by export.
    Stack,
}

impl ColumnType {
    pub fn name(self) -> &'static str {
        match self {
            ColumnType::Text => "text",
            ColumnType::Count => "count",
            ColumnType::Size => "size",
            ColumnType::Duration => "duration",
            ColumnType::Time => "time",
            ColumnType::Address => "address",
            ColumnType::Id => "id",
            ColumnType::Version => "version",
            ColumnType::Stack => "stack",
        }
    }

    /// The unit of the column's numbers in JSON and CSV (base units).
    pub fn unit(self) -> Option<&'static str> {
        match self {
            ColumnType::Size => Some("bytes"),
            ColumnType::Duration => Some("s"),
            ColumnType::Time => Some("s since trace start"),
            _ => None,
        }
    }

    /// Whether cells are numbers (which Sum, Min, Max and Avg need).
    pub fn is_numeric(self) -> bool {
        matches!(
            self,
            ColumnType::Count
                | ColumnType::Size
                | ColumnType::Duration
                | ColumnType::Time
                | ColumnType::Address
                | ColumnType::Id
        )
    }

    /// Numbers stored in ns and shown in seconds.
    pub fn is_nanoseconds(self) -> bool {
        matches!(self, ColumnType::Duration | ColumnType::Time)
    }
}

/// What a table column is, independent of any trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ColumnDef {
    /// WPA's name.
    pub name: &'static str,
    /// Older names, still accepted in links, API requests and the CLI.
    pub aliases: &'static [&'static str],
    pub ty: ColumnType,
    /// The aggregation a value column starts with.
    pub aggregation: Aggregation,
}

impl ColumnDef {
    /// Whether `name` names this column (its name or an alias; case,
    /// spaces, `_` and `-` do not matter).
    pub fn is_called(&self, name: &str) -> bool {
        let n = normalize(name);
        normalize(self.name) == n || self.aliases.iter().any(|a| normalize(a) == n)
    }

    /// Whether `agg` applies to this column. Ids and addresses name
    /// things and instants are points in time: none of them adds up (a sum
    /// of exit codes, PIDs or start times means nothing), so they never
    /// Sum.
    pub fn accepts(&self, agg: Aggregation) -> bool {
        let adds = match self.ty {
            ColumnType::Id | ColumnType::Address | ColumnType::Time => agg != Aggregation::Sum,
            _ => true,
        };
        adds && self.ty != ColumnType::Stack && (self.ty.is_numeric() || !agg.needs_numbers())
    }

    /// The names of the aggregations it takes, in `Aggregation::ALL`'s order
    /// (what `/columns` lists and a refusal names).
    pub fn accepted_names(&self) -> Vec<&'static str> {
        Aggregation::ALL
            .into_iter()
            .filter(|&a| self.accepts(a))
            .map(Aggregation::name)
            .collect()
    }

    /// Why `agg` does not apply (when `accepts` says no).
    pub fn refusal(&self, agg: Aggregation) -> String {
        let why = match self.ty {
            ColumnType::Id | ColumnType::Address => "an id names something, it does not add up",
            ColumnType::Time => "a time is an instant, instants do not add up",
            ColumnType::Stack => "stacks are drilled, not aggregated",
            _ => "it needs numbers",
        };
        let ok = self.accepted_names();
        format!(
            "{} of {:?} ({}) is not possible: {why}; {} takes {}",
            agg.name(),
            self.name,
            self.ty.name(),
            self.name,
            ok.join(", ")
        )
    }
}

fn normalize(s: &str) -> String {
    s.to_lowercase().replace([' ', '_', '-'], "")
}

/// A boxed per-row reader.
pub type RowFn<'a, T> = Box<dyn Fn(usize) -> T + Sync + 'a>;

/// How to read a column's cells.
pub enum Cells<'a> {
    /// A key per row and the text of each key (strings, process rows):
    /// rows with equal keys have equal text, so grouping compares keys.
    Keyed {
        key: RowFn<'a, u32>,
        text: Box<dyn Fn(u32) -> String + Sync + 'a>,
    },
    /// Text made per row.
    Text(RowFn<'a, String>),
    /// A number in the type's base unit, or `MISSING`.
    Number(Numbers<'a>),
    /// A model stack id per row (`model::NONE` without a stack).
    Stack(RowFn<'a, u32>),
}

pub struct TableColumn<'a> {
    pub def: ColumnDef,
    pub cells: Cells<'a>,
    /// Labels of a keyed column whose keys index them (the same in every
    /// range), rather than labels found row by row.
    pub fixed_labels: Option<&'static [&'static str]>,
    /// The cells depend on the range the table was made for
    /// (`TableDef::columns_in`): WPA's allocation classes, Impacting Size.
    pub ranged: bool,
}

impl<'a> TableColumn<'a> {
    fn new(name: &'static str, ty: ColumnType, aggregation: Aggregation, cells: Cells<'a>) -> Self {
        TableColumn {
            def: ColumnDef {
                name,
                aliases: &[],
                ty,
                aggregation,
            },
            cells,
            fixed_labels: None,
            ranged: false,
        }
    }

    /// The same column, its cells relative to the table's range.
    pub(crate) fn ranged(mut self) -> Self {
        self.ranged = true;
        self
    }

    /// The same column, also answering to older names.
    pub(crate) fn alias(mut self, aliases: &'static [&'static str]) -> Self {
        self.def.aliases = aliases;
        self
    }
}

/// Text per row: a column of plain text (the single value, else a count).
pub(crate) fn text<'a>(
    name: &'static str,
    f: impl Fn(usize) -> String + Sync + 'a,
) -> TableColumn<'a> {
    TableColumn::new(
        name,
        ColumnType::Text,
        Aggregation::Single,
        Cells::Text(Box::new(f)),
    )
}

/// Text through a key per row.
pub(crate) fn keyed<'a>(
    name: &'static str,
    key: impl Fn(usize) -> u32 + Sync + 'a,
    text: impl Fn(u32) -> String + Sync + 'a,
) -> TableColumn<'a> {
    TableColumn::new(
        name,
        ColumnType::Text,
        Aggregation::Single,
        Cells::Keyed {
            key: Box::new(key),
            text: Box::new(text),
        },
    )
}

/// A string of the trace's string table per row.
pub(crate) fn string<'a>(
    t: &'a Trace,
    name: &'static str,
    id: impl Fn(usize) -> StrId + Sync + 'a,
) -> TableColumn<'a> {
    keyed(
        name,
        move |i| id(i).0,
        move |k| t.strings.get(StrId(k)).to_string(),
    )
}

/// A version string per row.
pub(crate) fn version<'a>(
    t: &'a Trace,
    name: &'static str,
    id: impl Fn(usize) -> StrId + Sync + 'a,
) -> TableColumn<'a> {
    let mut c = string(t, name, id);
    c.def.ty = ColumnType::Version;
    c
}

/// A number per row (`MISSING` for none): a model column as it is stored
/// (`Numbers`) or a function of the row.
pub(crate) fn number<'a>(
    name: &'static str,
    ty: ColumnType,
    aggregation: Aggregation,
    cells: impl IntoNumbers<'a>,
) -> TableColumn<'a> {
    TableColumn::new(name, ty, aggregation, Cells::Number(cells.into_numbers()))
}

/// An id (PID, TID, CPU, priority) per row.
pub(crate) fn id<'a>(name: &'static str, f: impl IntoNumbers<'a>) -> TableColumn<'a> {
    number(name, ColumnType::Id, Aggregation::Single, f)
}

/// A start time (its aggregate is the earliest).
pub(crate) fn start_time<'a>(name: &'static str, f: impl IntoNumbers<'a>) -> TableColumn<'a> {
    number(name, ColumnType::Time, Aggregation::Min, f)
}

/// An end time (its aggregate is the latest).
pub(crate) fn end_time<'a>(name: &'static str, f: impl IntoNumbers<'a>) -> TableColumn<'a> {
    number(name, ColumnType::Time, Aggregation::Max, f)
}

/// A duration (summed).
pub(crate) fn duration<'a>(name: &'static str, f: impl IntoNumbers<'a>) -> TableColumn<'a> {
    number(name, ColumnType::Duration, Aggregation::Sum, f)
}

/// A size in bytes (summed).
pub(crate) fn size<'a>(name: &'static str, f: impl IntoNumbers<'a>) -> TableColumn<'a> {
    number(name, ColumnType::Size, Aggregation::Sum, f)
}

/// An address, shown in hex.
pub(crate) fn address<'a>(name: &'static str, f: impl IntoNumbers<'a>) -> TableColumn<'a> {
    number(name, ColumnType::Address, Aggregation::Single, f)
}

pub(crate) fn stack<'a>(
    name: &'static str,
    f: impl Fn(usize) -> u32 + Sync + 'a,
) -> TableColumn<'a> {
    TableColumn::new(
        name,
        ColumnType::Stack,
        Aggregation::Count,
        Cells::Stack(Box::new(f)),
    )
}

/// What `% Weight` is a share of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PercentOf {
    /// The CPU time the selected range offers: range x CPUs (CPU Usage
    /// (Sampled)), so filtering to one process keeps its true share.
    CpuCapacity,
    /// The weight of every row the filters keep (or their count when the
    /// table has no weight or it is zero).
    TotalWeight,
}

/// A table: its columns and what the rows' times mean.
pub struct TableDef<'a> {
    /// The name in the API, links and the CLI (`file-io`).
    pub name: &'static str,
    pub rows: usize,
    pub columns: Vec<TableColumn<'a>>,
    /// Lifetime of each row (`model::processes::OPEN` = unbounded); for
    /// events the event time, with `end == start`.
    pub start: Numbers<'a>,
    pub end: Numbers<'a>,
    /// Events (one time each) rather than lifetimes.
    pub timed: bool,
    /// The duration column whose sum is the table's weight.
    pub weight: Option<&'static str>,
    pub percent_of: PercentOf,
    /// Key columns of `export` without `--group` (none: list the rows).
    pub default_keys: &'static [&'static str],
    /// Value columns shown when none are asked for.
    pub default_values: &'static [&'static str],
    /// Columns the UI's weight (`weight_ms`) and summed values (`values`)
    /// were named by, which links made before value columns still carry:
    /// (UI name, column, divisor of the column's base unit).
    pub ui_weight: Option<&'static str>,
    pub ui_sums: &'static [(&'static str, &'static str, f64)],
}

impl<'a> TableDef<'a> {
    /// The table `name` of `t` (`cpu-sampled`, `processes`, ...), without
    /// Stack Tag columns (`of_tagged`, in `stack_tags::columns`, adds them).
    pub fn of(t: &'a Trace, name: &str) -> Option<TableDef<'a>> {
        let mut def = TableDef::columns_of(t, name)?;
        def.push_count();
        Some(def)
    }

    /// `of` with the Region column and the Regions of Interest table from
    /// `regions` (an engine's `regions()`: a view's regions file).
    pub fn of_with(
        t: &'a Trace,
        regions: &'a model::regions::RegionTable,
        name: &str,
    ) -> Option<TableDef<'a>> {
        let mut def = TableDef::columns_with(t, regions, name, None)?;
        def.push_count();
        Some(def)
    }

    pub(crate) fn push_count(&mut self) {
        // Every table counts its rows.
        self.columns.push(number(
            "Count",
            ColumnType::Count,
            Aggregation::Sum,
            Numbers::Same(1),
        ));
    }

    /// The table `name` with its range-relative columns (allocation
    /// classes, Impacting Size) against `range`.
    pub fn of_in(t: &'a Trace, name: &str, range: Option<TimeRange>) -> Option<TableDef<'a>> {
        let mut def = TableDef::columns_in(t, name, range)?;
        def.push_count();
        Some(def)
    }

    /// `of_in` with its regions from `regions` (`of_with`).
    pub fn of_in_with(
        t: &'a Trace,
        regions: &'a model::regions::RegionTable,
        name: &str,
        range: Option<TimeRange>,
    ) -> Option<TableDef<'a>> {
        let mut def = TableDef::columns_with(t, regions, name, range)?;
        def.push_count();
        Some(def)
    }

    pub(crate) fn columns_of(t: &'a Trace, name: &str) -> Option<TableDef<'a>> {
        TableDef::columns_in(t, name, None)
    }

    /// The columns of `name`; those relative to a range (`ranged`) against
    /// `range`, the whole trace without one.
    pub(crate) fn columns_in(
        t: &'a Trace,
        name: &str,
        range: Option<TimeRange>,
    ) -> Option<TableDef<'a>> {
        TableDef::columns_with(t, &t.regions, name, range)
    }

    /// `columns_in` with the Region column and the Regions of Interest
    /// table from `regions` (a view's regions file) instead of the trace's.
    pub(crate) fn columns_with(
        t: &'a Trace,
        regions: &'a model::regions::RegionTable,
        name: &str,
        range: Option<TimeRange>,
    ) -> Option<TableDef<'a>> {
        let mut def = TableDef::columns_without_region(t, regions, name, range)?;
        // The event tables get the Region key from their rows' start times,
        // as Generic Events and CPU Usage (Sampled) build their own: the
        // region of the innermost instance holding the event (WPA's Region
        // column and Filter to Region), only with a regions file in use.
        if EVENT_TABLES_WITH_REGION.contains(&name)
            && !def.columns.iter().any(|c| c.def.name == "Region")
        {
            if let Numbers::I64(times) = def.start {
                let time = move |i: usize| times.get(i).copied().unwrap_or(0);
                def.columns.extend(regions::region_column(regions, time));
            }
        }
        Some(def)
    }

    fn columns_without_region(
        t: &'a Trace,
        regions: &'a model::regions::RegionTable,
        name: &str,
        range: Option<TimeRange>,
    ) -> Option<TableDef<'a>> {
        Some(match name {
            "cpu-sampled" => cpu_sampled::table(t, regions),
            "processes" => processes::table(t),
            "threads" => threads::table(t),
            "images" => images::table(t),
            "file-io" => file_io::table(t),
            "disk-io" => disk_io::table(t),
            "cpu-precise" => cpu_precise::table(t),
            "generic" => generic::table(t, regions),
            "hard-faults" => hard_faults::table(t),
            "network" => network::table(t),
            "page-faults" => page_faults::table(t),
            "registry" => registry::table(t),
            "virtual-alloc" => virtual_alloc::table(t, range),
            "heap" => heap::table(t, range),
            "regions" => regions::table(t, regions),
            "marks" => regions::marks(t),
            "dpc-isr" => dpc_isr::table(t),
            "processor-frequency" => processor_frequency::table(t),
            "cpu-idle-states" => cpu_idle_states::table(t),
            "window-in-focus" => window_in_focus::table(t),
            "ui-delays" => ui_delays::table(t),
            "gpu-utilization" => gpu_utilization::table(t),
            "frame-times" => frame_times::table(t),
            _ => return None,
        })
    }

    pub const NAMES: [&'static str; 23] = [
        "cpu-sampled",
        "processes",
        "threads",
        "images",
        "file-io",
        "disk-io",
        "cpu-precise",
        "generic",
        "hard-faults",
        "network",
        "page-faults",
        "registry",
        "virtual-alloc",
        "heap",
        "regions",
        "marks",
        "dpc-isr",
        "processor-frequency",
        "cpu-idle-states",
        "window-in-focus",
        "ui-delays",
        "gpu-utilization",
        "frame-times",
    ];

    /// A table without rows or columns (a name no definition has).
    pub(crate) fn empty(name: &'static str) -> TableDef<'a> {
        TableDef {
            name,
            rows: 0,
            columns: Vec::new(),
            start: Numbers::Same(0),
            end: Numbers::Same(0),
            timed: true,
            weight: None,
            percent_of: PercentOf::TotalWeight,
            default_keys: &[],
            default_values: &[],
            ui_weight: None,
            ui_sums: &[],
        }
    }

    /// Index of the column `name` names (name or alias).
    pub fn column(&self, name: &str) -> Option<usize> {
        let exact = self.columns.iter().position(|c| c.def.name == name);
        exact.or_else(|| self.columns.iter().position(|c| c.def.is_called(name)))
    }

    /// Whether some column depends on the range the table was made for.
    pub fn has_ranged_columns(&self) -> bool {
        self.columns.iter().any(|c| c.ranged)
    }

    pub fn column_names(&self) -> Vec<&'static str> {
        self.columns.iter().map(|c| c.def.name).collect()
    }

    /// The column's text of row `row`, as the UI and export show it
    /// (stacks: root-first frames joined by `;`).
    pub fn cell_text(&self, t: &Trace, column: usize, row: usize) -> String {
        match self.columns.get(column).map(|c| &c.cells) {
            Some(Cells::Keyed { key, text }) => text(key(row)),
            Some(Cells::Text(f)) => f(row),
            Some(Cells::Number(f)) => number_text(self.columns[column].def.ty, f.at(row)),
            Some(Cells::Stack(f)) => stack_text(t, f(row)),
            None => String::new(),
        }
    }
}

/// A number's text: seconds with 9 decimals for times and durations, hex
/// for addresses, plain digits otherwise; empty when `MISSING`.
pub fn number_text(ty: ColumnType, v: i64) -> String {
    if v == MISSING {
        return String::new();
    }
    match ty {
        ColumnType::Time | ColumnType::Duration => format!("{:.9}", v as f64 / 1e9),
        ColumnType::Address => format!("{:#x}", v as u64),
        _ => v.to_string(),
    }
}

/// Root-first frames joined by `;`, empty without a stack.
pub fn stack_text(t: &Trace, st: u32) -> String {
    if st == model::NONE {
        return String::new();
    }
    let mut frames: Vec<String> = t
        .stacks
        .frames_leaf_first(st)
        .map(|f| t.frame_label(f))
        .collect();
    frames.reverse();
    frames.join(";")
}

/// `get` with a default: model columns are parallel vectors, but a
/// malformed trace must not panic a query.
pub(crate) fn get<T: Copy + Default>(v: &[T], i: usize) -> T {
    v.get(i).copied().unwrap_or_default()
}

/// A model time (`OPEN` when unbounded) as a cell.
pub(crate) fn time_cell(ns: i64) -> i64 {
    if ns == model::processes::OPEN {
        MISSING
    } else {
        ns
    }
}

/// The TID of a thread row (`MISSING` when the row is `NONE`).
pub(crate) fn thread_id<'a>(
    t: &'a Trace,
    name: &'static str,
    thread: impl Fn(usize) -> u32 + Sync + 'a,
) -> TableColumn<'a> {
    id(name, move |i| {
        t.threads
            .tid
            .get(thread(i) as usize)
            .map_or(MISSING, |&x| i64::from(x))
    })
}

/// Tables of one row per event (or per operation starting at one instant)
/// whose Region column comes from the row's start time.
const EVENT_TABLES_WITH_REGION: [&str; 11] = [
    "file-io",
    "disk-io",
    "cpu-precise",
    "hard-faults",
    "network",
    "page-faults",
    "registry",
    "marks",
    "dpc-isr",
    "ui-delays",
    "gpu-utilization",
];
