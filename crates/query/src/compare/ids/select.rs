//! Which rows a cut keeps and in what order, without sorting every row:
//! `compare::compare` orders rows by the change of the first value, then
//! by their key texts, and `compare::keep_largest_changes` keeps the
//! `limit` rows of largest |change| (on equal |change|, the earlier in
//! that order). A partial selection on |change| finds those rows; keys
//! are compared (by their texts' ranks) only among rows tied at the cut's
//! edge and among the kept rows, as they are put in order.

use std::cmp::Ordering;

/// The rows kept, in order. `delta` is each row's change; `ranks(rows)`
/// answers `ncol` ranks per given row whose order is the order of the
/// rows' key texts, column by column.
pub(super) fn kept_in_order(
    delta: &[f64],
    limit: usize,
    ncol: usize,
    ranks: impl Fn(&[u32]) -> Vec<u32>,
) -> Vec<u32> {
    let n = delta.len();
    let d = |i: u32| delta.get(i as usize).copied().unwrap_or(0.0);
    let size = |i: u32| d(i).abs();
    let mut kept: Vec<u32> = (0..n as u32).collect();
    if n > limit {
        if limit == 0 {
            return Vec::new();
        }
        kept.select_nth_unstable_by(limit - 1, |&a, &b| size(b).total_cmp(&size(a)));
        let edge = kept.get(limit - 1).map_or(0.0, |&i| size(i));
        let (mut larger, tied): (Vec<u32>, Vec<u32>) = (0..n as u32)
            .filter(|&i| size(i).total_cmp(&edge) != Ordering::Less)
            .partition(|&i| size(i).total_cmp(&edge) == Ordering::Greater);
        // Of those tied at the edge, the first in the rows' order.
        let need = limit.saturating_sub(larger.len());
        let mut tied = tied;
        if tied.len() > need {
            by_order(&mut tied, Some(need), ncol, &d, &ranks);
        }
        larger.extend(tied);
        kept = larger;
    }
    by_order(&mut kept, None, ncol, &d, &ranks);
    kept
}

/// Sorts `rows` by change then key ranks; with `first`, keeps only that
/// many of the first (selected, then sorted).
fn by_order(
    rows: &mut Vec<u32>,
    first: Option<usize>,
    ncol: usize,
    d: &impl Fn(u32) -> f64,
    ranks: &impl Fn(&[u32]) -> Vec<u32>,
) {
    let keyed = ranks(rows);
    let key = |p: usize| keyed.get(p * ncol..(p + 1) * ncol).unwrap_or_default();
    // Positions into `rows` (and `keyed`).
    let mut pos: Vec<usize> = (0..rows.len()).collect();
    let cmp = |&a: &usize, &b: &usize| {
        let (ra, rb) = (rows.get(a).copied(), rows.get(b).copied());
        let (da, db) = (ra.map_or(0.0, d), rb.map_or(0.0, d));
        da.total_cmp(&db).then_with(|| key(a).cmp(key(b)))
    };
    if let Some(m) = first.filter(|&m| m < pos.len()) {
        if m == 0 {
            rows.clear();
            return;
        }
        pos.select_nth_unstable_by(m - 1, cmp);
        pos.truncate(m);
    }
    pos.sort_unstable_by(cmp);
    *rows = pos
        .into_iter()
        .filter_map(|p| rows.get(p).copied())
        .collect();
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rows `keep_largest_changes` keeps of the fully sorted rows.
    fn naive(delta: &[f64], keys: &[u32], limit: usize) -> Vec<u32> {
        let mut all: Vec<u32> = (0..delta.len() as u32).collect();
        all.sort_by(|&a, &b| {
            delta[a as usize]
                .total_cmp(&delta[b as usize])
                .then(keys[a as usize].cmp(&keys[b as usize]))
        });
        crate::compare::by_text::keep_largest_changes(&mut all, limit, |&i| delta[i as usize]);
        all
    }

    #[test]
    fn kept_rows_are_those_of_the_full_sort_and_cut() {
        let mut rng = testdata::Rng::new(7);
        for case in 0..400 {
            let n = rng.below(60);
            let spread = 1 + rng.below(6);
            let delta: Vec<f64> = (0..n)
                .map(|_| {
                    let x = rng.below(2 * spread + 1) as f64 - spread as f64;
                    // -0.0 sorts before 0.0 (total_cmp), of equal size.
                    if x == 0.0 && rng.below(2) == 0 {
                        -0.0
                    } else {
                        x
                    }
                })
                .collect();
            // Distinct keys in a random order.
            let mut keys: Vec<u32> = (0..n as u32).collect();
            for i in (1..n).rev() {
                keys.swap(i, rng.below(i + 1));
            }
            let limit = rng.below(n + 3);
            let ranks = |rows: &[u32]| rows.iter().map(|&r| keys[r as usize]).collect();
            let got = kept_in_order(&delta, limit, 1, ranks);
            assert_eq!(
                got,
                naive(&delta, &keys, limit),
                "case {case}: {delta:?} {limit}"
            );
        }
    }
}
