//! Where WPA's bars sit among a preset's columns.
//!
//! WPA keeps one ordered list of columns in which its four bars are entries
//! too: the gold bar (left of it: key columns), the graph bar (right of it:
//! the graphed columns) and the left and right freeze bars. A profile saves
//! the real columns (hidden ones included) and, for each bar, its position in
//! that whole list (`KeyColumnCount`, `GraphColumnCount`,
//! `LeftFrozenColumnCount`, `RightFrozenColumnCount`). So in a list with the
//! left freeze bar at 0 and `KeyColumnCount="16"`, the gold bar follows 15
//! real columns, not 16. An absent count is position 0 for the gold bar (no
//! key columns: WPA lists every row) and "not in the list" for the others.

use crate::Preset;

/// The bars' positions in the whole list, and the real columns left of the
/// gold bar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bars {
    /// Real columns left of the gold bar (the first `keys` of the file's
    /// columns are key columns).
    pub keys: usize,
    /// A position was out of the list or two bars claimed one position
    /// (a hand-edited file): the bars were placed as near as possible.
    pub adjusted: bool,
}

/// Places the bars of `p` among its `columns` real columns.
pub fn place_bars(p: &Preset, columns: usize) -> Bars {
    // (position as written, order on a tie: left freeze, gold, right
    // freeze, graph); the gold bar always takes part.
    let mut bars: Vec<(u64, u8)> = vec![(u64::from(p.key_column_count.unwrap_or(0)), 1)];
    for (at, order) in [
        (p.left_frozen_column_count, 0),
        (p.right_frozen_column_count, 2),
        (p.graph_column_count, 3),
    ] {
        if let Some(at) = at {
            bars.push((u64::from(at), order));
        }
    }
    bars.sort_unstable();
    let n = bars.len() as u64;
    let total = columns as u64 + n;
    let mut adjusted = false;
    let mut next_free = 0u64;
    let mut keys = 0usize;
    for (i, &(at, order)) in bars.iter().enumerate() {
        // Its own position, or the next free one, leaving room for the bars
        // still to come.
        let last_possible = total - (n - i as u64);
        let pos = at.max(next_free).min(last_possible);
        adjusted |= pos != at;
        if order == 1 {
            // The bars before it are `i`; the rest of the positions before
            // it are real columns.
            keys = usize::try_from(pos - i as u64)
                .unwrap_or(columns)
                .min(columns);
        }
        next_free = pos + 1;
    }
    Bars { keys, adjusted }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bars(k: Option<u32>, g: Option<u32>, l: Option<u32>, r: Option<u32>, n: usize) -> Bars {
        let p = Preset {
            key_column_count: k,
            graph_column_count: g,
            left_frozen_column_count: l,
            right_frozen_column_count: r,
            ..Preset::default()
        };
        place_bars(&p, n)
    }

    #[test]
    fn positions_count_the_other_bars() {
        // Left freeze bar at 0: the gold bar at 16 follows 15 columns.
        let b = bars(Some(16), Some(22), Some(0), Some(20), 20);
        assert_eq!(
            b,
            Bars {
                keys: 15,
                adjusted: false
            }
        );
        // Gold bar first, freeze bar after it.
        assert_eq!(bars(Some(2), Some(17), Some(4), Some(16), 16).keys, 2);
        assert_eq!(bars(Some(2), Some(7), Some(1), Some(6), 6).keys, 1);
        // No KeyColumnCount: no key columns.
        assert_eq!(bars(None, Some(23), Some(1), Some(22), 20).keys, 0);
        // Only the gold bar.
        assert_eq!(bars(Some(3), None, None, None, 5).keys, 3);
    }

    #[test]
    fn hand_edited_positions_stay_in_the_list() {
        let b = bars(Some(4000000000), Some(4000000000), Some(0), None, 3);
        assert_eq!(b.keys, 3);
        assert!(b.adjusted);
        let b = bars(Some(1), Some(1), Some(1), Some(1), 0);
        assert_eq!(b.keys, 0);
        assert_eq!(bars(Some(5), None, None, None, 2).keys, 2);
    }
}
