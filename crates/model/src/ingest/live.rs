//! The live path: events arriving in time order (a recording, or a replay
//! of a file) become the same records as the normal build's parallel pass,
//! and each snapshot runs the same joins over every record so far. No
//! second model: a snapshot is a `Trace` like any other.
//!
//! Records are appended as events come (`push`); the joins are redone in
//! batches, once per snapshot, on a copy of the records, so the thread that
//! pushes only waits for that copy (`snapshot_input`), not for the joins
//! (`build_snapshot`, on any thread).

use super::records::Batch;
use super::resume::SampleCheckpoint;
use super::stack_parts::PartsState;
use super::steps::StepTimes;
use super::FileMeta;
use crate::progress::BuildProgress;
use crate::Trace;
use etl::Event;

/// Events collected into one batch before it joins the trace's records, as
/// a buffer's events do in the normal build (keeps each payload arena small).
const CHUNK_EVENTS: u64 = 16 * 1024;

#[derive(Debug, Default)]
pub struct LiveBuilder {
    meta: FileMeta,
    records: Batch,
    pending: Batch,
    frames: Vec<u64>,
}

/// A copy of the records at one moment, to build a snapshot from.
#[derive(Debug)]
pub struct SnapshotInput {
    meta: FileMeta,
    records: Batch,
}

impl LiveBuilder {
    pub fn new(meta: FileMeta) -> LiveBuilder {
        LiveBuilder {
            meta,
            ..LiveBuilder::default()
        }
    }

    /// One event, in time order. `buffer_offset` is where its buffer starts
    /// in the file (0 when there is no file), for diagnostics.
    pub fn push(&mut self, e: &Event<'_>, buffer_offset: u64) {
        super::collect::collect_one(e, &mut self.pending, &mut self.frames, buffer_offset);
        if self.pending.events >= CHUNK_EVENTS {
            self.flush();
        }
    }

    /// Diagnostics of the reading itself (damaged buffers), as the normal
    /// build keeps those of each buffer it walks.
    pub fn add_diagnostics(&mut self, d: impl IntoIterator<Item = etl::Diagnostic>) {
        self.pending.diagnostics.extend(d);
    }

    /// Events pushed so far.
    pub fn events(&self) -> u64 {
        self.records.events + self.pending.events
    }

    fn flush(&mut self) {
        let mut chunk = std::mem::take(&mut self.pending);
        for a in &mut chunk.arenas {
            a.shrink_to_fit();
        }
        self.records.extend(chunk);
    }

    /// Copy the records so far (the pushing side pauses only for this).
    pub fn snapshot_input(&mut self) -> SnapshotInput {
        self.flush();
        SnapshotInput {
            meta: self.meta.clone(),
            records: self.records.clone(),
        }
    }

    /// The model of every event pushed, built as `build` builds a file's.
    pub fn finish(mut self) -> Trace {
        self.flush();
        SnapshotInput {
            meta: self.meta,
            records: self.records,
        }
        .build()
    }

    /// `finish`, resuming from the last snapshot (`SnapshotInput::build_after`):
    /// the same model, without joining again what that snapshot settled.
    pub fn finish_after(mut self, from: LiveState) -> Trace {
        self.flush();
        SnapshotInput {
            meta: self.meta,
            records: self.records,
        }
        .build_after(from)
        .trace
    }
}

/// What a snapshot leaves for the next one to resume from: the sample
/// join's checkpoint (`resume.rs`) and the stack parts (`stack_parts.rs`).
#[derive(Debug, Default)]
pub struct LiveState {
    pub(crate) checkpoint: Option<Box<SampleCheckpoint>>,
    pub(crate) parts: Option<Box<PartsState>>,
}

impl LiveState {
    /// Whether the next snapshot extends these stack parts (records in
    /// time order) rather than building them from every stack record.
    pub fn keeps_stack_parts(&self) -> bool {
        self.parts.is_some()
    }
}

/// A snapshot's model, and what the next one can resume from.
#[derive(Debug)]
pub struct LiveBuild {
    pub trace: Trace,
    pub next: LiveState,
    /// Samples taken from the checkpoint instead of joined again (0: a
    /// join from the start).
    pub resumed: usize,
    /// Thread and stack rows taken from the checkpoint with those samples:
    /// the previous snapshot's rows of the same numbers (0: none).
    pub resumed_threads: usize,
    pub resumed_stacks: usize,
}

impl SnapshotInput {
    /// The joins over the copied records: a complete `Trace` of the events
    /// so far (samples whose stack walk has not arrived yet keep their
    /// instruction pointer alone until the next snapshot).
    pub fn build(self) -> Trace {
        super::build_from_batch(self.records, &self.meta, &BuildProgress::default(), true)
    }

    /// `build`, joining only the samples after `from` (the checkpoint the
    /// previous snapshot returned) when the earlier ones are provably joined
    /// the same way (`resume.rs`); the same `Trace` either way. Returns the
    /// checkpoint for the next snapshot.
    pub fn build_after(self, from: LiveState) -> LiveBuild {
        self.build_after_timed(from, &mut StepTimes::default())
    }

    /// `build_after`, marking each step's cost in `steps`.
    pub fn build_after_timed(self, from: LiveState, steps: &mut StepTimes) -> LiveBuild {
        // Stack parts can still come for the newest samples: keep what is
        // older than a tenth of a second of trace time.
        let settle = (self.meta.ticks_per_second / 10.0) as i64;
        let (trace, next, [resumed, resumed_threads, resumed_stacks]) = super::build_resuming(
            self.records,
            &self.meta,
            &BuildProgress::default(),
            true,
            super::Resume::Live { from, settle },
            steps,
        );
        LiveBuild {
            trace,
            next,
            resumed,
            resumed_threads,
            resumed_stacks,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An empty live trace is an empty model, not a panic.
    #[test]
    fn no_events_is_an_empty_trace() {
        let mut b = LiveBuilder::new(FileMeta::default());
        let t = b.snapshot_input().build();
        assert_eq!(t.samples.len(), 0);
        assert_eq!(t.info.events, 0);
        let end = b.finish();
        assert_eq!(end.samples.len(), 0);
        assert_eq!(end.stacks.len(), t.stacks.len());
    }
}
