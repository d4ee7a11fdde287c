//! Timeline: CPU weight per process (or thread) over N equal bins of a
//! time range; the heaviest K series and one "other".

use super::bins::Edges;
pub use super::bins::MAX_BINS;
use crate::scan::filter::{Filters, TimeRange};
use crate::scan::pass::{Hit, Mode};
use crate::scan::plan::{Plan, SlotOf, FILTER_FAIL, PATH_FAIL, SLOT_MASK};
use crate::{Engine, QueryError};
use model::NONE;
use rayon::prelude::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SeriesBy {
    #[default]
    Process,
    Thread,
}

#[derive(Debug, Clone, PartialEq)]
pub struct TimelineRequest {
    /// The binned range (the filters' own range, if any, also applies).
    pub range: TimeRange,
    pub bins: usize,
    pub by: SeriesBy,
    /// Series kept by total weight; the rest sum into `other`.
    pub top: usize,
    pub filters: Filters,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Process or thread row, `NONE` for "other".
    pub key: u32,
    pub label: String,
    pub total_ns: i64,
    /// Weight (ns of CPU) per bin; divide by `bin_ns` for cores busy.
    pub weight_ns: Vec<i64>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Timeline {
    pub start_ns: i64,
    pub bin_ns: f64,
    pub series: Vec<Series>,
    pub other: Option<Series>,
}

/// A thread run with more samples than this per bin is binned by binary
/// search rather than sample by sample.
const DENSE_RUN: usize = 16;

impl Engine {
    pub fn timeline(&self, req: &TimelineRequest) -> Result<Timeline, QueryError> {
        let bins = req.bins;
        if bins == 0 || bins > MAX_BINS || req.range.end_ns < req.range.start_ns {
            return Err(QueryError::BadRequest(format!(
                "a timeline needs 1..={MAX_BINS} bins over a range whose start is not after its end"
            )));
        }
        // A range of no time (a live trace before its first event, a zero-
        // length selection) holds no CPU: a valid question, an empty answer.
        if req.range.end_ns == req.range.start_ns {
            return Ok(Timeline {
                start_ns: req.range.start_ns,
                bin_ns: 0.0,
                series: Vec::new(),
                other: None,
            });
        }
        let mut filters = req.filters.clone();
        let r = req.range;
        filters.range = Some(match filters.range {
            Some(f) => TimeRange {
                start_ns: f.start_ns.max(r.start_ns),
                end_ns: f.end_ns.min(r.end_ns),
            },
            None => r,
        });
        // Series slot per thread: its process row or its own row.
        let nthreads = self.trace.threads.len();
        let (series_of, keys): (Vec<u32>, Vec<u32>) = match req.by {
            SeriesBy::Thread => (
                (0..nthreads as u32).collect(),
                (0..nthreads as u32).collect(),
            ),
            SeriesBy::Process => {
                let mut keys: Vec<u32> = self.keys.thread[0].clone();
                keys.sort_unstable();
                keys.dedup();
                let series = self.keys.thread[0]
                    .iter()
                    .map(|p| keys.binary_search(p).map_or(NONE, |i| i as u32))
                    .collect();
                (series, keys)
            }
        };
        let nseries = keys.len();
        let plan = self.plan(&filters, &[], SlotOf::Thread(series_of), nseries.max(1))?;
        let edges = Edges::new(r, bins)?;
        let cells = self.binned_weights(&plan, nseries, &edges, false);
        let mut series: Vec<Series> = keys
            .iter()
            .enumerate()
            .filter_map(|(i, &key)| {
                let w = cells.get(i * bins..(i + 1) * bins)?.to_vec();
                let total_ns: i64 = w.iter().sum();
                (total_ns > 0).then(|| Series {
                    key,
                    label: self.series_label(req.by, key),
                    total_ns,
                    weight_ns: w,
                })
            })
            .collect();
        series.sort_by(|a, b| b.total_ns.cmp(&a.total_ns).then(a.key.cmp(&b.key)));
        let other = (series.len() > req.top).then(|| {
            let rest = series.split_off(req.top);
            let mut w = vec![0; bins];
            for s in &rest {
                for (x, y) in w.iter_mut().zip(&s.weight_ns) {
                    *x += y;
                }
            }
            Series {
                key: NONE,
                label: format!("Other ({} series)", rest.len()),
                total_ns: w.iter().sum(),
                weight_ns: w,
            }
        });
        Ok(Timeline {
            start_ns: r.start_ns,
            bin_ns: (r.end_ns - r.start_ns) as f64 / bins as f64,
            series,
            other,
        })
    }

    /// The weight per slot and bin (`slot * bins + bin`) of the samples the
    /// plan passes (filters and path), by the fastest way the plan allows.
    pub(crate) fn binned_weights(
        &self,
        plan: &Plan,
        nslots: usize,
        edges: &Edges,
        skip_path_fail: bool,
    ) -> Vec<i64> {
        let bins = edges.bins();
        let bin_of = |t: i64| edges.bin_of(t);
        let edge = |b: usize| edges.edge(b);
        if let Some(cells) = self.bins_from_thread_runs(plan, nslots, bins, &bin_of, &edge) {
            return cells;
        }
        let mode = Mode {
            skip_path_fail,
            by_stack_ok: false,
            by_thread_ok: false,
        };
        self.scan_with(
            plan,
            mode,
            || (vec![0i64; nslots * bins], (i64::MAX, i64::MIN, 0usize)),
            |(v, cache): &mut (Vec<i64>, (i64, i64, usize)), h: Hit| {
                if !h.path_ok {
                    return;
                }
                let b = if h.cell.first_ns >= cache.0 && h.cell.first_ns < cache.1 {
                    cache.2
                } else {
                    // Samples come in time order within a run: the
                    // next one most likely falls in the same bin.
                    let b = bin_of(h.cell.first_ns);
                    *cache = (edge(b), edge(b + 1), b);
                    b
                };
                if let Some(x) = v.get_mut(h.slot as usize * bins + b) {
                    *x += h.cell.weight_ns;
                }
            },
            |(mut a, c), (b, _)| {
                for (x, y) in a.iter_mut().zip(&b) {
                    *x += y;
                }
                (a, c)
            },
        )
        .0
    }

    /// With a plan that reads only the thread and one sampling interval,
    /// the weight per bin is a count per bin, found by binary search of
    /// each thread's time-sorted run: O(non-empty bins x log) per thread
    /// instead of one step per sample.
    fn bins_from_thread_runs(
        &self,
        plan: &Plan,
        nseries: usize,
        bins: usize,
        bin_of: &(dyn Fn(i64) -> usize + Sync),
        edge: &(dyn Fn(usize) -> i64 + Sync),
    ) -> Option<Vec<i64>> {
        let w = self.trace.samples.constant_interval()?;
        if plan.selection.is_some() || plan.uses.1 || plan.uses.2 || plan.uses_region {
            return None;
        }
        let (lo, hi) = plan.time;
        let v = &self.by_thread;
        let threads: Vec<(usize, usize)> = plan
            .thread
            .iter()
            .enumerate()
            .filter(|(_, &bits)| bits & (FILTER_FAIL | PATH_FAIL) == 0)
            .map(|(t, &bits)| (t, (bits & SLOT_MASK) as usize))
            .collect();
        // Few jobs: each owns a series x bins accumulator.
        let per_job = threads
            .len()
            .div_ceil(rayon::current_num_threads().max(1) * 2);
        let cells = threads
            .into_par_iter()
            .with_min_len(per_job.max(1))
            .fold(
                || vec![0i64; nseries * bins],
                |mut acc, (t, series)| {
                    let run = v.narrow(v.run(t), lo, hi);
                    let times = v.time.get(run).unwrap_or(&[]);
                    let Some(row) = acc.get_mut(series * bins..(series + 1) * bins) else {
                        return acc;
                    };
                    if times.len() > bins * DENSE_RUN {
                        // Dense: one binary search per bin.
                        let mut pos = 0;
                        while let Some(&first) = times.get(pos) {
                            let b = bin_of(first);
                            let n = gallop(&times[pos..], edge(b + 1)).max(1);
                            row[b] += n as i64 * w;
                            pos += n;
                        }
                    } else {
                        // Sparse: one step per sample; the run is time-sorted,
                        // so the bin only moves forward.
                        let mut b = times.first().map_or(0, |&x| bin_of(x));
                        let mut hi = edge(b + 1);
                        for &x in times {
                            while x >= hi && b + 1 < bins {
                                b += 1;
                                hi = edge(b + 1);
                            }
                            row[b] += w;
                        }
                    }
                    acc
                },
            )
            .reduce(
                || vec![0i64; nseries * bins],
                |mut a, b| {
                    for (x, y) in a.iter_mut().zip(&b) {
                        *x += y;
                    }
                    a
                },
            );
        Some(cells)
    }

    fn series_label(&self, by: SeriesBy, key: u32) -> String {
        let t = &self.trace;
        match by {
            SeriesBy::Process => t.process_label(key),
            SeriesBy::Thread => {
                let i = key as usize;
                let p = t.threads.process.get(i).copied().unwrap_or(NONE);
                format!(
                    "{} thread {}",
                    t.process_label(p),
                    t.threads.tid.get(i).copied().unwrap_or(0)
                )
            }
        }
    }
}

/// How many leading values of sorted `v` are below `x`, searching outward
/// from the start so the few cache lines near it are all it touches.
fn gallop(v: &[i64], x: i64) -> usize {
    let mut hi = 1;
    while hi < v.len() && v[hi] < x {
        hi *= 2;
    }
    let lo = hi / 2;
    let hi = hi.min(v.len());
    lo + v[lo..hi].partition_point(|&y| y < x)
}
