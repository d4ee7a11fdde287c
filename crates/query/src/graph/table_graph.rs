//! The graph above a table (WPA's "Utilization" graphs): the rows of one
//! table level (the top-level groups, or the children of an expanded
//! path) as series over equal time bins. CPU Usage (Sampled) plots CPU
//! weight per bin; row tables plot count, weight or a numeric column per
//! bin (`rows::graph`), and lifetime tables give one span per row instead.

use super::bins::{clip, Edges};
use crate::scan::filter::{Next, TimeRange};
use crate::table::sampled::TableRequest;
use crate::{Column, Engine, QueryError};
use model::NONE;
use rustc_hash::FxHashMap;

/// How to bin: the range, how many bins, how many series to keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GraphBins {
    pub range: TimeRange,
    pub bins: usize,
    /// Series kept by total; the rest sum into `other`.
    pub top: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub struct GraphSeries {
    /// The row's key at the level (the key its table row has).
    pub key: u32,
    pub label: String,
    pub total: i64,
    /// Per bin: ns of CPU (sampled), or count / weight / column sum (row tables).
    pub values: Vec<i64>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Graph {
    /// The column the series' rows are grouped by (`None` below the last).
    pub column: Option<&'static str>,
    pub start_ns: i64,
    pub bin_ns: f64,
    pub series: Vec<GraphSeries>,
    pub other: Option<GraphSeries>,
}

/// More bins than this is not a chart.
pub const MAX_GRAPH_BINS: usize = 10_000;

/// The heaviest `top` series (ties by key) and the rest summed as "other".
pub(crate) fn top_series(
    per_key: impl IntoIterator<Item = (u32, Vec<i64>)>,
    top: usize,
    bins: usize,
    label: impl Fn(u32) -> String,
) -> (Vec<GraphSeries>, Option<GraphSeries>) {
    let mut all: Vec<(u32, i64, Vec<i64>)> = per_key
        .into_iter()
        .map(|(k, v)| (k, v.iter().fold(0i64, |a, &x| a.saturating_add(x)), v))
        .filter(|(_, _, v)| v.iter().any(|&x| x != 0))
        .collect();
    all.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let rest = all.split_off(top.min(all.len()));
    let other = (!rest.is_empty()).then(|| {
        let mut values = vec![0i64; bins];
        for (_, _, v) in &rest {
            for (x, y) in values.iter_mut().zip(v) {
                *x = x.saturating_add(*y);
            }
        }
        GraphSeries {
            key: NONE,
            label: format!("Other ({} rows)", rest.len()),
            total: values.iter().fold(0i64, |a, &x| a.saturating_add(x)),
            values,
        }
    });
    let series = all
        .into_iter()
        .map(|(key, total, values)| GraphSeries {
            key,
            label: label(key),
            total,
            values,
        })
        .collect();
    (series, other)
}

impl Engine {
    /// CPU Usage (Sampled): the CPU weight per bin of each row under
    /// `req.path` (its columns, filters and path; sort and limit unused).
    pub fn table_graph(&self, req: &TableRequest, g: &GraphBins) -> Result<Graph, QueryError> {
        let edges = Edges::new(g.range, g.bins)?;
        let (preds, next) = self.path_preds(&req.columns, &req.path)?;
        let column = match &next {
            Next::Leaf => None,
            Next::Flat { column, .. } => Some(*column),
            Next::Stack { .. } => Some(Column::Stack),
            Next::Inverted { .. } => Some(Column::StackInverted),
        };
        let level = self.level(&next);
        let mut filters = req.filters.clone();
        filters.range = Some(clip(filters.range, g.range));
        let nslots = level.keys.len();
        let plan = self.plan(&filters, &preds, level.slot_of, nslots.max(1))?;
        let cells = self.binned_weights(&plan, nslots, &edges, true);
        let bins = edges.bins();
        // A Stack level gives each child two slots (ending there, deeper): one series.
        let mut per_key: FxHashMap<u32, Vec<i64>> = FxHashMap::default();
        if column.is_some() {
            for (slot, &key) in level.keys.iter().enumerate() {
                let Some(w) = cells.get(slot * bins..(slot + 1) * bins) else {
                    continue;
                };
                let acc = per_key.entry(key).or_insert_with(|| vec![0; bins]);
                for (x, y) in acc.iter_mut().zip(w) {
                    *x += y;
                }
            }
        }
        let col = column.unwrap_or(Column::Stack);
        let (series, other) = top_series(per_key, g.top, bins, |k| self.label(col, k));
        Ok(Graph {
            column: column.map(Column::name),
            start_ns: g.range.start_ns,
            bin_ns: (g.range.end_ns - g.range.start_ns) as f64 / bins as f64,
            series,
            other,
        })
    }
}
