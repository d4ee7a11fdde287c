//! Trace time: nanoseconds since the trace's time zero (the log-file header
//! event), converted once from raw clock ticks.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Clock {
    /// Raw timestamp of time zero.
    pub ts0: i64,
    /// Ticks per second of raw timestamps (QPC frequency, 10^7 for system time).
    pub ticks_per_second: i64,
    /// FILETIME of time zero (for absolute times).
    pub start_filetime: i64,
}

impl Clock {
    /// Raw event timestamp to nanoseconds since time zero.
    #[inline]
    pub fn to_ns(&self, ts: i64) -> i64 {
        let d = ts as i128 - self.ts0 as i128;
        let tps = self.ticks_per_second.max(1) as i128;
        (d * 1_000_000_000 / tps).clamp(i64::MIN as i128, i64::MAX as i128) as i64
    }
}

pub fn ns_to_s(ns: i64) -> f64 {
    ns as f64 / 1e9
}

pub fn s_to_ns(s: f64) -> i64 {
    (s * 1e9).round() as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts_qpc_ticks() {
        let c = Clock {
            ts0: 1000,
            ticks_per_second: 10_000_000,
            start_filetime: 0,
        };
        assert_eq!(c.to_ns(1000), 0);
        assert_eq!(c.to_ns(1000 + 10_000_000), 1_000_000_000);
        assert_eq!(c.to_ns(999), -100);
    }
}
