//! The samples re-sorted by thread and by call node (each run by time), so
//! a query restricted to a few threads or to one call-tree subtree reads
//! only those samples. Built once per engine by a stable counting sort.

use model::samples::SampleTable;
use std::ops::Range;

#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct View {
    pub time: Vec<i64>,
    pub thread_cpu: Vec<u32>,
    pub stack: Vec<u32>,
    /// `start[k]..start[k + 1]` are the samples of key `k`.
    pub start: Vec<usize>,
}

impl View {
    /// Bytes held.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.time.capacity() * 8
            + self.thread_cpu.capacity() * 4
            + self.stack.capacity() * 4
            + self.start.capacity() * 8
    }

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

    /// `build` over samples whose first `kept` rows are the first `kept` of
    /// those `old` was built over, a kept row of old key `k` having key
    /// `remap(k)` now: each old run's kept rows (its first ones: runs are in
    /// row order) are copied in bulk, and only the rows from `kept` on are
    /// placed one by one. `old_after[k]`: rows of old key `k` from `kept`
    /// on. None (build instead) when two old keys with kept rows share a
    /// new key, or one has none, or the counts do not add up.
    pub(crate) fn extend(
        old: &View,
        old_after: &[usize],
        remap: impl Fn(usize) -> Option<usize>,
        s: &SampleTable,
        kept: usize,
        keys: usize,
        key: impl Fn(usize) -> usize,
    ) -> Option<View> {
        let n = s.len();
        let old_keys = old.start.len().checked_sub(1)?;
        let mut kept_of = vec![0usize; keys + 1];
        let mut from = vec![usize::MAX; keys + 1];
        for k in 0..old_keys {
            let run = old.run(k);
            let c = run
                .len()
                .checked_sub(old_after.get(k).copied().unwrap_or(0))?;
            if c == 0 {
                continue;
            }
            let nk = remap(k).filter(|&x| x <= keys)?;
            if from[nk] != usize::MAX {
                return None;
            }
            from[nk] = run.start;
            kept_of[nk] = c;
        }
        if kept_of.iter().sum::<usize>() != kept || kept > n {
            return None;
        }
        let k: Vec<u32> = (kept..n).map(|i| key(i).min(keys) as u32).collect();
        let mut start = vec![0usize; keys + 2];
        for (x, &c) in kept_of.iter().enumerate() {
            start[x + 1] = c;
        }
        for &x in &k {
            start[x as usize + 1] += 1;
        }
        for i in 0..keys + 1 {
            start[i + 1] += start[i];
        }
        let mut v = View {
            time: vec![0; n],
            thread_cpu: vec![0; n],
            stack: vec![0; n],
            start,
        };
        let mut next = v.start.clone();
        for (x, (&c, &at)) in kept_of.iter().zip(&from).enumerate() {
            if c == 0 {
                continue;
            }
            let (to, src) = (next[x]..next[x] + c, at..at + c);
            v.time
                .get_mut(to.clone())?
                .copy_from_slice(old.time.get(src.clone())?);
            v.thread_cpu
                .get_mut(to.clone())?
                .copy_from_slice(old.thread_cpu.get(src.clone())?);
            v.stack.get_mut(to)?.copy_from_slice(old.stack.get(src)?);
            next[x] += c;
        }
        for (j, &x) in k.iter().enumerate() {
            let i = kept + j;
            let at = next[x as usize];
            next[x as usize] += 1;
            v.time[at] = s.time[i];
            v.thread_cpu[at] = s.thread_cpu[i];
            v.stack[at] = s.stack[i];
        }
        Some(v)
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
