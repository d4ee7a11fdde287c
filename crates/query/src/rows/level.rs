//! The fast way to a row table level: when every column down to the level
//! is a text or number column (one key per row, no stack spanning levels),
//! a row's key at the level is one slice read and the path one compare per
//! level above it, and the level's groups fit flat arrays indexed by key.

use crate::rows::keys::KeyColumn;

/// Flat per-key arrays are used up to this many keys at the level.
pub(crate) const MAX_DENSE_KEYS: usize = 1 << 22;

/// The keys of the level below a path of text and number columns.
pub(crate) struct FlatLevel<'a> {
    /// Per level above: the column's keys and the path's key there.
    prefix: Vec<(&'a [u32], u32)>,
    keys: &'a [u32],
    /// Every key at the level is below this.
    pub space: usize,
    /// The level's column (index into the table's columns).
    pub column: usize,
    /// Whether there are levels below this one.
    pub deeper: bool,
}

impl<'a> FlatLevel<'a> {
    /// The level below `path` of `columns` (outermost first), if every
    /// column down to it is flat and the key space is small enough.
    pub(crate) fn new(columns: &[(usize, &'a KeyColumn)], path: &[u32]) -> Option<FlatLevel<'a>> {
        let depth = path.len();
        let &(column, kc) = columns.get(depth)?;
        let (keys, space) = kc.dense()?;
        if space > MAX_DENSE_KEYS {
            return None;
        }
        let prefix = columns
            .iter()
            .zip(path)
            .map(|(&(_, kc), &p)| Some((kc.dense()?.0, p)))
            .collect::<Option<Vec<_>>>()?;
        Some(FlatLevel {
            prefix,
            keys,
            space,
            column,
            deeper: columns.len() > depth + 1,
        })
    }

    /// Whether `row` is under the path.
    #[inline]
    pub(crate) fn under(&self, row: usize) -> bool {
        // As `KeyColumn::levels_of`: a row without a key reads key 0.
        self.prefix
            .iter()
            .all(|&(keys, p)| keys.get(row).copied().unwrap_or(0) == p)
    }

    /// The row's key at the level (whether or not it is under the path).
    #[inline]
    pub(crate) fn key(&self, row: usize) -> u32 {
        self.keys.get(row).copied().unwrap_or(0)
    }
}
