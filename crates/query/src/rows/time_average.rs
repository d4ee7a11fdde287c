//! The graphs above Processor Frequency and CPU Idle States, from rows
//! that hold over [start, end): per bin, each series' value averaged over
//! the time its rows cover in the bin (one CPU's frequency line, as WPA
//! draws it; 0 where none does), or
//! the time the series' rows spend in the bin (idle residency per state).

use crate::graph::bins::{clip, Edges};
use crate::graph::table_graph::{top_series, Graph, GraphBins};
use crate::rows::graph::{measure_value, MAX_BINNED_KEYS, SCAN_CELLS};
use crate::rows::table::{Measure, RowTable, RowTableRequest};
use crate::QueryError;
use model::processes::OPEN;
use rustc_hash::FxHashMap;

/// Keys past the bound share this one ("other").
const OTHER: u32 = u32::MAX;

impl RowTable {
    /// Per bin of `g` and key of the level under `req.path`: the sum of
    /// `measure` x the time each row overlaps the bin, over the time they
    /// overlap it; without `measure`, the sum of the overlaps (ns).
    pub fn time_average(
        &self,
        req: &RowTableRequest,
        g: &GraphBins,
        measure: Option<Measure>,
    ) -> Result<Graph, QueryError> {
        let edges = Edges::new(g.range, g.bins)?;
        let bins = edges.bins();
        let def = self.def();
        let column = match measure {
            Some(m) => Some(self.measure_column(m)?),
            None => None,
        };
        let range = clip(req.range, g.range);
        let max_keys = (SCAN_CELLS / (bins + 1)).clamp(1, MAX_BINNED_KEYS);
        // Per key and bin: [value x ns and ns of the rows that start or end
        // in the bin, then differences of the value and count of rows that
        // cover whole bins], so a row costs O(1) whatever it spans. i128,
        // saturating: value x ns overflows i64 over long traces.
        let sums = self.fold_at_level(
            req,
            Some(range),
            FxHashMap::<u32, Vec<[i128; 4]>>::default,
            |acc, row, key| {
                let key = if acc.len() >= max_keys && !acc.contains_key(&key) {
                    OTHER
                } else {
                    key
                };
                // Open ends (before the trace, still on at its end) reach the range's.
                let s = match def.start.at(row) {
                    OPEN => range.start_ns,
                    s => s.max(range.start_ns),
                };
                let e = match def.end.at(row) {
                    OPEN => range.end_ns,
                    e => e.min(range.end_ns),
                };
                if e <= s {
                    return;
                }
                let v = column.map_or(1, |c| i128::from(measure_value(&def, c, row)));
                let d = acc.entry(key).or_insert_with(|| vec![[0; 4]; bins + 1]);
                let mut part = |b: usize, lo: i64, hi: i64| {
                    let o = i128::from((hi - lo).max(0));
                    d[b][0] = d[b][0].saturating_add(v.saturating_mul(o));
                    d[b][1] = d[b][1].saturating_add(o);
                };
                let (b0, b1) = (edges.bin_of(s), edges.bin_of(e - 1));
                if b0 == b1 {
                    part(b0, s, e);
                    return;
                }
                part(b0, s, edges.edge(b0 + 1));
                part(b1, edges.edge(b1), e);
                if b1 > b0 + 1 {
                    d[b0 + 1][2] = d[b0 + 1][2].saturating_add(v);
                    d[b0 + 1][3] += 1;
                    d[b1][2] = d[b1][2].saturating_sub(v);
                    d[b1][3] -= 1;
                }
            },
            |mut a, b| {
                for (k, v) in b {
                    let x = a.entry(k).or_insert_with(|| vec![[0; 4]; bins + 1]);
                    for (x, y) in x.iter_mut().zip(v) {
                        for (x, y) in x.iter_mut().zip(y) {
                            *x = x.saturating_add(y);
                        }
                    }
                }
                a
            },
        )?;
        let label_col = self.next_column(&req.columns, &req.path);
        let col = label_col.and_then(|n| self.columns.iter().position(|&c| c == n));
        let label = |k: u32| match (k, col) {
            (OTHER, _) | (_, None) => String::new(),
            (k, Some(c)) => self.label(c, k),
        };
        let per_key = sums.into_iter().map(|(k, d)| {
            let (mut run_v, mut run_n) = (0i128, 0i128);
            let v = (d.iter().take(bins).enumerate())
                .map(|(b, &[x, o, dv, dn])| {
                    run_v = run_v.saturating_add(dv);
                    run_n += dn;
                    let w = i128::from((edges.edge(b + 1) - edges.edge(b)).max(0));
                    let x = x.saturating_add(run_v.saturating_mul(w));
                    let o = o.saturating_add(run_n.saturating_mul(w));
                    match column {
                        // Rounded to the nearest (the values are not negative).
                        Some(_) => (x.saturating_mul(2).saturating_add(o))
                            .checked_div(o.saturating_mul(2))
                            .unwrap_or(0),
                        None => o,
                    }
                })
                .map(|x| i64::try_from(x).unwrap_or(i64::MAX))
                .collect();
            (k, v)
        });
        let (series, other) = top_series(per_key, g.top, bins, label);
        Ok(self.graph_of(req, g, bins, series, other))
    }
}
