//! DPC/ISR: one row per DPC or ISR execution (PerfInfo DPC, TimerDPC,
//! ThreadDPC, ISR, ISR-MSI), its routine a frame like a stack's (named by
//! the image map, then by symbols).

pub use etl::decode::DpcIsrKind;

#[derive(Debug, Clone, Default)]
pub struct DpcIsrTable {
    /// Entry (InitialTime), ns since trace start, sorted.
    pub enter: Vec<i64>,
    /// Exit (the event's time) minus entry.
    pub inclusive_ns: Vec<i64>,
    /// Inclusive less what ran nested inside it on its CPU (an ISR that
    /// interrupted a DPC): WPA's Exclusive Duration, the sum of its
    /// fragments.
    pub fragmented_ns: Vec<i64>,
    pub cpu: Vec<u16>,
    pub kind: Vec<DpcIsrKind>,
    /// The routine's row in `Trace::frames`.
    pub frame: Vec<u32>,
    pub routine: Vec<u64>,
    /// ISRs' interrupt vector.
    pub vector: Vec<u16>,
}

impl DpcIsrTable {
    pub fn len(&self) -> usize {
        self.enter.len()
    }
    pub fn is_empty(&self) -> bool {
        self.enter.is_empty()
    }
}

/// Fragmented durations of intervals on one CPU: each interval's length
/// less that of the intervals directly nested in it (`spans` sorted by
/// start, then longest first; `(start, end)`).
pub fn fragmented(spans: &[(i64, i64)]) -> Vec<i64> {
    let mut out: Vec<i64> = spans.iter().map(|&(s, e)| e.saturating_sub(s)).collect();
    // Indices of the open intervals that enclose the current one.
    let mut open: Vec<usize> = Vec::new();
    for (i, &(s, e)) in spans.iter().enumerate() {
        while let Some(&top) = open.last() {
            let (ts, te) = spans[top];
            if s >= ts && e <= te && i != top {
                break;
            }
            open.pop();
        }
        if let Some(&parent) = open.last() {
            if let Some(x) = out.get_mut(parent) {
                *x = x.saturating_sub(e.saturating_sub(s));
            }
        }
        open.push(i);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::fragmented;

    #[test]
    fn nested_time_is_taken_from_the_enclosing_interval_only() {
        // A DPC 0..100 with ISRs 10..20 and 30..35 inside, the second
        // interrupted by another 31..32; then a lone one.
        let spans = [(0, 100), (10, 20), (30, 35), (31, 32), (200, 250)];
        assert_eq!(fragmented(&spans), vec![85, 10, 4, 1, 50]);
        // Overlapping without nesting: nothing is taken.
        assert_eq!(fragmented(&[(0, 10), (5, 15)]), vec![10, 10]);
    }
}
