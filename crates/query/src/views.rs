//! The samples re-sorted by thread and by call node (each run by time), so
//! a query restricted to a few threads or to one call-tree subtree reads
//! only those samples. Built once per engine by a stable counting sort.

use model::samples::SampleTable;
use std::ops::Range;

#[derive(Debug, Default, Clone)]
pub(crate) struct View {
    pub time: Vec<i64>,
    pub thread_cpu: Vec<u32>,
    pub stack: Vec<u32>,
    /// `start[k]..start[k + 1]` are the samples of key `k`.
    pub start: Vec<usize>,
}

impl View {
    /// Samples grouped by `key(row)` (`< keys`, else the last group).
    pub(crate) fn build(s: &SampleTable, keys: usize, key: impl Fn(usize) -> usize) -> View {
        let n = s.len();
        let k: Vec<u32> = (0..n).map(|i| key(i).min(keys) as u32).collect();
        let mut start = vec![0usize; keys + 2];
        for &x in &k {
            start[x as usize + 1] += 1;
        }
        for i in 0..keys + 1 {
            start[i + 1] += start[i];
        }
        let mut next = start.clone();
        let mut v = View {
            time: vec![0; n],
            thread_cpu: vec![0; n],
            stack: vec![0; n],
            start,
        };
        // Rows are visited in time order, so every run stays time-sorted.
        for (i, &x) in k.iter().enumerate() {
            let at = next[x as usize];
            next[x as usize] += 1;
            v.time[at] = s.time[i];
            v.thread_cpu[at] = s.thread_cpu[i];
            v.stack[at] = s.stack[i];
        }
        v
    }

    pub(crate) fn run(&self, key: usize) -> Range<usize> {
        match (self.start.get(key), self.start.get(key + 1)) {
            (Some(&a), Some(&b)) => a..b,
            _ => 0..0,
        }
    }

    /// The rows of run `r` whose time lies in `[lo, hi)`.
    pub(crate) fn narrow(&self, r: Range<usize>, lo: i64, hi: i64) -> Range<usize> {
        let Some(t) = self.time.get(r.clone()) else {
            return 0..0;
        };
        let a = t.partition_point(|&x| x < lo);
        let b = t.partition_point(|&x| x < hi).max(a);
        r.start + a..r.start + b
    }
}
