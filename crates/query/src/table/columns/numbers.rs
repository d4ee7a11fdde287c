//! A number column's cells. Most are a model column read as it is stored;
//! those are kept as the slice itself, so a scan over ten million rows
//! reads them inline instead of calling a boxed function per row and
//! column. Anything computed (a join, a conversion) stays a function.

use super::RowFn;

pub enum Numbers<'a> {
    /// Stored as `i64` (times, durations in ns).
    I64(&'a [i64]),
    /// Stored as `u64` (sizes, offsets), read saturated at `i64::MAX`.
    U64(&'a [u64]),
    /// Stored as `u32` (disk I/O sizes).
    U32(&'a [u32]),
    /// The same number on every row (Count's 1).
    Same(i64),
    /// Computed per row.
    Fn(RowFn<'a, i64>),
}

impl<'a> Numbers<'a> {
    /// Computed per row by `f`.
    pub fn of(f: impl Fn(usize) -> i64 + Sync + 'a) -> Numbers<'a> {
        Numbers::Fn(Box::new(f))
    }

    /// Row `row`'s number; 0 past the column's end (model columns are
    /// parallel vectors, but a malformed trace must not panic a query).
    #[inline]
    pub fn at(&self, row: usize) -> i64 {
        match self {
            Numbers::I64(v) => v.get(row).copied().unwrap_or(0),
            Numbers::U64(v) => v.get(row).map_or(0, |&x| x.min(i64::MAX as u64) as i64),
            Numbers::U32(v) => v.get(row).map_or(0, |&x| i64::from(x)),
            Numbers::Same(x) => *x,
            Numbers::Fn(f) => f(row),
        }
    }

    /// The numbers of `rows`, appended to `out`: one dispatch for the
    /// block, then a loop the compiler can keep tight.
    pub fn fill(&self, rows: &[usize], out: &mut Vec<i64>) {
        match self {
            Numbers::I64(v) => out.extend(rows.iter().map(|&r| v.get(r).copied().unwrap_or(0))),
            Numbers::U64(v) => out.extend(
                (rows.iter()).map(|&r| v.get(r).map_or(0, |&x| x.min(i64::MAX as u64) as i64)),
            ),
            Numbers::U32(v) => {
                out.extend((rows.iter()).map(|&r| v.get(r).map_or(0, |&x| i64::from(x))))
            }
            Numbers::Same(x) => out.extend(rows.iter().map(|_| *x)),
            Numbers::Fn(f) => out.extend(rows.iter().map(|&r| f(r))),
        }
    }
}

/// What a number column's definition can be given: its `Numbers`, or a
/// function of the row (computed cells).
pub trait IntoNumbers<'a> {
    fn into_numbers(self) -> Numbers<'a>;
}

impl<'a> IntoNumbers<'a> for Numbers<'a> {
    fn into_numbers(self) -> Numbers<'a> {
        self
    }
}

impl<'a, F: Fn(usize) -> i64 + Sync + 'a> IntoNumbers<'a> for F {
    fn into_numbers(self) -> Numbers<'a> {
        Numbers::of(self)
    }
}
