//! Whether a row of a table falls in a time range: an event by its time,
//! a lifetime row by overlapping the range. Shared by the flat tables, the
//! row tables and their graphs.

use crate::scan::filter::TimeRange;
use crate::table::columns::TableDef;

/// Whether row `row` of `def` is in `range`: events whose time is in it,
/// lifetimes that overlap it.
pub(crate) fn in_range(def: &TableDef<'_>, row: usize, r: &TimeRange) -> bool {
    in_range_at(def, row, def.start.at(row), r)
}

/// `in_range` for a row whose start time `s` is already read.
#[inline]
pub(crate) fn in_range_at(def: &TableDef<'_>, row: usize, s: i64, r: &TimeRange) -> bool {
    use model::processes::OPEN;
    if def.timed {
        return s >= r.start_ns && s < r.end_ns;
    }
    let e = def.end.at(row);
    (s == OPEN || s < r.end_ns) && (e == OPEN || e >= r.start_ns)
}
