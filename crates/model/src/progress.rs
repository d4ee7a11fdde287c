//! Progress of a model build, readable from another thread while it runs.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::sync::OnceLock;
use std::time::Instant;

/// The share of a build's time spent reading, the rest correlating: on the
/// 10M-sample bench trace reading took 3.5-8.7 s of 14-25 s (BENCHMARKS.md,
/// Ingest). Only the percent and the time left use it.
const READ_SHARE: f64 = 0.35;

#[derive(Debug, Default)]
pub struct BuildProgress {
    pub buffers_total: AtomicU64,
    pub buffers_done: AtomicU64,
    pub bytes_total: AtomicU64,
    pub bytes_done: AtomicU64,
    pub events: AtomicU64,
    /// The correlating pass: samples joined so far, of all samples plus one
    /// step for the event tables after them.
    pub correlate_total: AtomicU64,
    pub correlate_done: AtomicU64,
    phase: AtomicU8,
    /// When reading began (the clock of the time left).
    started: OnceLock<Instant>,
    /// Set by another thread to stop a build whose result is no longer wanted
    /// (its trace was deleted): the remaining buffers are skipped.
    cancelled: AtomicBool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    Reading = 0,
    Correlating = 1,
    Done = 2,
}

impl BuildProgress {
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::Relaxed);
    }

    pub fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Relaxed)
    }

    pub fn set_phase(&self, p: Phase) {
        self.started.get_or_init(Instant::now);
        self.phase.store(p as u8, Ordering::Relaxed);
    }

    /// How far the build is, 0 to 1: never decreasing while it runs (each
    /// phase's counters only grow and each phase starts where the one before
    /// ends), 1 once done.
    pub fn fraction(&self) -> f64 {
        let ratio = |done: &AtomicU64, total: &AtomicU64| {
            let total = total.load(Ordering::Relaxed);
            if total == 0 {
                return 0.0;
            }
            (done.load(Ordering::Relaxed) as f64 / total as f64).clamp(0.0, 1.0)
        };
        match self.phase() {
            Phase::Reading => READ_SHARE * ratio(&self.bytes_done, &self.bytes_total),
            Phase::Correlating => {
                READ_SHARE + (1.0 - READ_SHARE) * ratio(&self.correlate_done, &self.correlate_total)
            }
            Phase::Done => 1.0,
        }
    }

    /// Seconds since reading began (0 before).
    pub fn elapsed_seconds(&self) -> f64 {
        self.started
            .get()
            .map_or(0.0, |t| t.elapsed().as_secs_f64())
    }

    /// Seconds left at the pace so far; None until there is a pace to go by
    /// (the first 1% of the work).
    pub fn seconds_left(&self) -> Option<f64> {
        let f = self.fraction();
        (f >= 0.01).then(|| self.elapsed_seconds() * (1.0 - f) / f)
    }

    pub fn phase(&self) -> Phase {
        match self.phase.load(Ordering::Relaxed) {
            0 => Phase::Reading,
            1 => Phase::Correlating,
            _ => Phase::Done,
        }
    }

    pub fn phase_name(&self) -> &'static str {
        match self.phase() {
            Phase::Reading => "reading",
            Phase::Correlating => "correlating",
            Phase::Done => "done",
        }
    }
}
