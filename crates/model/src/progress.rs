//! Progress of a model build, readable from another thread while it runs.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};

#[derive(Debug, Default)]
pub struct BuildProgress {
    pub buffers_total: AtomicU64,
    pub buffers_done: AtomicU64,
    pub bytes_total: AtomicU64,
    pub bytes_done: AtomicU64,
    pub events: AtomicU64,
    phase: AtomicU8,
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
        self.phase.store(p as u8, Ordering::Relaxed);
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
