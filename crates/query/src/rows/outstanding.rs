//! The graph above VirtualAlloc Commit Lifetimes and Heap Allocations:
//! per bin, what is outstanding in it (each row's count or value counted
//! in every bin its lifetime touches, as `--range` over that bin keeps
//! it), one series per row of the level.

use crate::graph::bins::{clip, Edges};
use crate::graph::table_graph::{top_series, Graph, GraphBins};
use crate::rows::graph::{measure_value, MAX_BINNED_KEYS, SCAN_CELLS};
use crate::rows::table::{Measure, RowTable, RowTableRequest};
use crate::QueryError;
use model::processes::OPEN;
use rustc_hash::FxHashMap;

/// Keys past `MAX_BINNED_KEYS` share this one ("other").
const OTHER: u32 = u32::MAX;

impl RowTable {
    /// The outstanding count (or value of `measure`) of the rows under
    /// `req.path` in each of `g`'s bins: differences at the first and
    /// after the last bin of each lifetime, then running sums.
    pub fn outstanding(
        &self,
        req: &RowTableRequest,
        g: &GraphBins,
        measure: Measure,
    ) -> Result<Graph, QueryError> {
        let edges = Edges::new(g.range, g.bins)?;
        let bins = edges.bins();
        let def = self.def();
        let column = self.measure_column(measure)?;
        let range = clip(req.range, g.range);
        // Keys x bins bounded as the event graphs' one-pass bins are (per
        // accumulator); the keys past it share "other".
        let max_keys = (SCAN_CELLS / (bins + 1)).clamp(1, MAX_BINNED_KEYS);
        let diffs = self.fold_at_level(
            req,
            Some(range),
            FxHashMap::<u32, Vec<i64>>::default,
            |acc, row, key| {
                let key = if acc.len() >= max_keys && !acc.contains_key(&key) {
                    OTHER
                } else {
                    key
                };
                let s = match def.start.at(row) {
                    OPEN => range.start_ns,
                    s => s.max(range.start_ns),
                };
                let e = match def.end.at(row) {
                    OPEN => range.end_ns - 1,
                    e => e.min(range.end_ns - 1),
                };
                if e < s {
                    return;
                }
                let (b0, b1) = (edges.bin_of(s), edges.bin_of(e));
                let v = measure_value(&def, column, row);
                let d = acc.entry(key).or_insert_with(|| vec![0; bins + 1]);
                d[b0] = d[b0].saturating_add(v);
                d[b1 + 1] = d[b1 + 1].saturating_sub(v);
            },
            |mut a, b| {
                for (k, v) in b {
                    let x = a.entry(k).or_insert_with(|| vec![0; bins + 1]);
                    for (x, y) in x.iter_mut().zip(v) {
                        *x = x.saturating_add(y);
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
        let per_key = diffs.into_iter().map(|(k, d)| {
            let mut run = 0i64;
            let v: Vec<i64> = d[..bins]
                .iter()
                .map(|&x| {
                    run = run.saturating_add(x);
                    run
                })
                .collect();
            (k, v)
        });
        let (series, other) = top_series(per_key, g.top, bins, label);
        Ok(self.graph_of(req, g, bins, series, other))
    }
}
