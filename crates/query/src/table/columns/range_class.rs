//! WPA's allocation classes and Impacting Size, relative to the selected
//! range (the whole trace without one). WPA Heap Glossary: AI = allocated
//! within the selection, AO = before it; FI = released within it, FO =
//! still outstanding at its end. Impacting Size (Memory Footprint
//! Optimization, Exercise 2): the size outstanding at the selection's end
//! that it added, i.e. the AIFO rows' sizes.

use super::{keyed, TableColumn};
use crate::scan::filter::TimeRange;
use model::processes::OPEN;

/// The class names, in key order (fixed, so keys mean the same in every
/// range and a filter by label holds across ranges).
pub(crate) const CLASSES: &[&str] = &["AIFI", "AIFO", "AOFI", "AOFO"];
const AIFO: u32 = 1;

/// The range rows are classed against: [start, end).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Selection {
    start: i64,
    end: i64,
}

impl Selection {
    /// `range`, or the whole trace (its end exclusive of nothing: a block
    /// still allocated at the trace's end is outstanding).
    pub(crate) fn new(range: Option<TimeRange>) -> Selection {
        match range {
            Some(r) => Selection {
                start: r.start_ns,
                end: r.end_ns,
            },
            None => Selection {
                start: 0,
                end: i64::MAX,
            },
        }
    }

    /// Key into `CLASSES` of a row allocated at `alloc` and freed at
    /// `free` (`OPEN`: before the trace / never).
    pub(crate) fn class(self, alloc: i64, free: i64) -> u32 {
        let inside = |t: i64| t != OPEN && t >= self.start && t < self.end;
        let allocated_inside = inside(alloc);
        let freed_inside = free != OPEN && free < self.end;
        match (allocated_inside, freed_inside) {
            (true, true) => 0,
            (true, false) => 1,
            (false, true) => 2,
            (false, false) => 3,
        }
    }

    /// The row's Impacting Size: its size when AIFO, else 0.
    pub(crate) fn impacting(self, alloc: i64, free: i64, size: u64) -> i64 {
        if self.class(alloc, free) == AIFO {
            size as i64
        } else {
            0
        }
    }
}

/// A class column (key = index into `CLASSES`).
pub(crate) fn class_column<'a>(
    name: &'static str,
    class: impl Fn(usize) -> u32 + Sync + 'a,
) -> TableColumn<'a> {
    let mut c = keyed(name, class, |k| {
        CLASSES.get(k as usize).copied().unwrap_or("").to_string()
    });
    c.fixed_labels = Some(CLASSES);
    c.ranged = true;
    c
}
