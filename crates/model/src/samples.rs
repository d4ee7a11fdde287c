//! CPU Usage (Sampled): one row per SampledProfile event, 16 bytes each.

use crate::images::NONE;

/// Bits of `thread_cpu` that hold the thread row; the CPU sits above them.
const THREAD_BITS: u32 = 20;
pub const MAX_THREADS: u32 = 1 << THREAD_BITS;

#[derive(Debug, Clone, Default)]
pub struct SampleTable {
    /// ns since trace start; rows are sorted by time.
    pub time: Vec<i64>,
    /// Thread row (low 20 bits) and CPU (high 12 bits), packed to keep a
    /// sample at 16 bytes.
    pub thread_cpu: Vec<u32>,
    /// Stack row, `NONE` when the sample has no stack (its leaf is the IP,
    /// kept as a one-frame stack instead whenever the IP is known).
    pub stack: Vec<u32>,
    /// Sampling interval in ns for each change of interval, by time.
    pub intervals: Vec<(i64, i64)>,
    /// Where the interval came from: "SampledProfile interval events" or a fallback.
    pub interval_source: &'static str,
}

impl SampleTable {
    pub fn len(&self) -> usize {
        self.time.len()
    }

    pub fn is_empty(&self) -> bool {
        self.time.is_empty()
    }

    pub fn push(&mut self, time: i64, thread: u32, cpu: u16, stack: u32) {
        self.time.push(time);
        self.thread_cpu.push(pack(thread, cpu));
        self.stack.push(stack);
    }

    #[inline]
    pub fn thread(&self, i: usize) -> u32 {
        self.thread_cpu[i] & (MAX_THREADS - 1)
    }

    #[inline]
    pub fn cpu(&self, i: usize) -> u16 {
        (self.thread_cpu[i] >> THREAD_BITS) as u16
    }

    /// Weight of sample `i` in ns: the sampling interval in force at its time.
    pub fn weight_ns(&self, i: usize) -> i64 {
        self.interval_at(self.time[i])
    }

    /// The sampling interval in ns in force at time `t` (the first one
    /// before it starts; 1 ms when the trace recorded none).
    pub fn interval_at(&self, t: i64) -> i64 {
        match self.intervals.partition_point(|&(start, _)| start <= t) {
            0 => self.intervals.first().map_or(1_000_000, |x| x.1),
            k => self.intervals[k - 1].1,
        }
    }

    /// The one interval of a trace that never changes it.
    pub fn constant_interval(&self) -> Option<i64> {
        (self.intervals.len() <= 1).then(|| self.interval_at(0))
    }

    /// `[lo, hi)` cut where the interval changes: `(start, end, interval)`
    /// pieces, in time order, each with the interval `interval_at` gives.
    pub fn interval_spans(&self, lo: i64, hi: i64) -> Vec<(i64, i64, i64)> {
        let iv = &self.intervals;
        let mut out = Vec::with_capacity(iv.len().max(1));
        let mut from = i64::MIN;
        let mut w = self.interval_at(i64::MIN);
        for &(start, interval) in iv.iter().skip(1) {
            out.push((from, start, w));
            from = start;
            w = interval;
        }
        out.push((from, i64::MAX, w));
        out.into_iter()
            .map(|(a, b, w)| (a.max(lo), b.min(hi), w))
            .filter(|&(a, b, _)| a < b)
            .collect()
    }

    pub fn has_stack(&self, i: usize) -> bool {
        self.stack[i] != NONE
    }

    /// Bytes per sample of the columns (for the benchmark report).
    pub const BYTES_PER_SAMPLE: usize = 8 + 4 + 4;
}

fn pack(thread: u32, cpu: u16) -> u32 {
    (thread & (MAX_THREADS - 1)) | ((cpu as u32 & 0xFFF) << THREAD_BITS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packs_thread_and_cpu() {
        let mut s = SampleTable::default();
        s.push(5, 123_456, 63, 7);
        assert_eq!((s.thread(0), s.cpu(0), s.stack[0]), (123_456, 63, 7));
        s.intervals = vec![(0, 1_000_000), (10, 500_000)];
        assert_eq!(s.weight_ns(0), 1_000_000);
    }
}
