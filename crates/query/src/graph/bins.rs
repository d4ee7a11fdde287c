//! Equal time bins, shared by the graphs above tables and the timeline:
//! their exact integer edges and the most a request may ask for.

use crate::scan::filter::TimeRange;
use crate::QueryError;

/// More bins than this is not a chart; refuse rather than allocate.
pub const MAX_BINS: usize = 100_000;

/// Exact integer bin edges: `t` is in bin `b` iff `edges[b] <= t < edges[b + 1]`.
pub struct Edges {
    edges: Vec<i64>,
}

impl Edges {
    pub fn new(r: TimeRange, bins: usize) -> Result<Edges, QueryError> {
        if bins == 0 || bins > MAX_BINS || r.end_ns <= r.start_ns {
            return Err(QueryError::BadRequest(format!(
                "a graph needs 1..={} bins over a non-empty range",
                MAX_BINS
            )));
        }
        let span = (r.end_ns - r.start_ns) as i128;
        let n = bins as i128;
        let edges = (0..=n)
            .map(|b| r.start_ns + ((b * span + n - 1) / n) as i64)
            .collect();
        Ok(Edges { edges })
    }

    /// The width of each bin, ns (equal to within 1 ns).
    pub fn widths(&self) -> Vec<i64> {
        self.edges.windows(2).map(|w| w[1] - w[0]).collect()
    }

    pub(crate) fn bins(&self) -> usize {
        self.edges.len().saturating_sub(1)
    }

    /// The bin of `t` (clamped to the first and last bin).
    pub(crate) fn bin_of(&self, t: i64) -> usize {
        self.edges
            .partition_point(|&e| e <= t)
            .clamp(1, self.bins().max(1))
            - 1
    }

    /// The left edge of bin `b` (`i64::MAX` past the last).
    pub(crate) fn edge(&self, b: usize) -> i64 {
        self.edges.get(b).copied().unwrap_or(i64::MAX)
    }
}

/// `a` within `b` (empty when they do not overlap); `b` when `a` is `None`.
pub(crate) fn clip(a: Option<TimeRange>, b: TimeRange) -> TimeRange {
    match a {
        Some(a) => TimeRange {
            start_ns: a.start_ns.max(b.start_ns),
            end_ns: a.end_ns.min(b.end_ns).max(a.start_ns.max(b.start_ns)),
        },
        None => b,
    }
}
