//! Live snapshots that join only the samples that are new: the state of the
//! sample join after a settled prefix of the samples is kept, and the next
//! snapshot resumes from it when it provably joins that prefix the same
//! way (same lifetimes and images, same prefix of samples, same stack
//! parts for them). Otherwise it joins every sample again, as before.
//!
//! Records arrive in time order and are only appended, so a record list
//! that did not grow is the same list, and samples that arrived later than
//! the prefix's last one sort after it.

use super::records::Batch;
use super::stack_parts::PartsState;
use super::stacks::{Part, ResolverCaches};
use crate::samples::SampleTable;
use crate::{frames::FrameTable, processes::ProcessTable, stacks::StackTable};
use crate::{strings::StringTable, threads::ThreadTable};
use rustc_hash::FxHashMap;

/// Lengths of the record lists lifetimes, images, thread names, the system
/// configuration and sampling intervals are built from: equal lengths mean
/// equal lists (append-only), so the same tables and lookups.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct HeaderInputs([usize; 11]);

impl HeaderInputs {
    /// Taken before the build adopts manifest lifetimes or sorts.
    pub(crate) fn of(b: &Batch) -> HeaderInputs {
        let m = &b.manifest_lifetimes;
        HeaderInputs([
            b.processes.len(),
            b.threads.len(),
            b.thread_names.len(),
            b.images.len(),
            b.image_info.len(),
            b.path_maps.len(),
            b.sysconfig.len(),
            b.intervals.len(),
            m.processes.len(),
            m.threads.len(),
            m.images.len(),
        ])
    }
}

/// The sample join's state after its first `samples` samples (in time
/// order): what the from-scratch join has at that point.
#[derive(Debug, Clone)]
pub struct SampleCheckpoint {
    pub(crate) header: HeaderInputs,
    pub(crate) sweep: bool,
    /// Samples joined, and how many had arrived when they were (the
    /// unsorted records' length: later arrivals are checked against them).
    pub(crate) samples: usize,
    pub(crate) arrived: usize,
    /// The last joined sample's time, and the stack parts of events up to
    /// it (samples of that time on other threads included).
    pub(crate) last_ts: i64,
    pub(crate) parts: PartsProof,
    pub(crate) state: JoinState,
}

/// How the next snapshot knows the stack parts the joined samples used are
/// still the same.
#[derive(Debug, Clone)]
pub(crate) enum PartsProof {
    /// A copy of them (parts built from every stack record).
    Copy(Vec<Part>),
    /// The live parts state they came from (`PartsState::id`): the next
    /// snapshot extends it, and it says what it changed.
    State(u64),
}

/// What the loop over samples changes.
#[derive(Debug, Clone, Default)]
pub(crate) struct JoinState {
    pub strings: StringTable,
    pub processes: ProcessTable,
    pub threads: ThreadTable,
    pub frames: FrameTable,
    pub stacks: StackTable,
    pub samples: SampleTable,
    pub caches: ResolverCaches,
    pub unknown_process: Option<u32>,
    pub unknown_threads: FxHashMap<u32, u32>,
    pub uncertain_samples: u64,
    pub unattributed_samples: u64,
    pub samples_with_stack: u64,
}

impl SampleCheckpoint {
    /// The first half of the check that resuming from here joins the first
    /// `self.samples` samples as a join from the start would: the same
    /// lifetimes and images, and no sample that arrived since (`arrived`:
    /// the batch's samples in arrival order) sorts into them.
    pub(crate) fn arrivals_fit(
        &self,
        header: HeaderInputs,
        sweep: bool,
        arrived: &[super::records::SampleRec],
    ) -> bool {
        if self.header != header || self.sweep != sweep || self.samples == 0 {
            return false;
        }
        match arrived.get(self.arrived..) {
            Some(later) => later.iter().all(|s| s.ts >= self.last_ts),
            None => false,
        }
    }

    /// The second half: the stack parts of events up to the last joined
    /// sample (`parts`, from the new resolver) are the ones it joined with:
    /// the same copy, or the same parts state that added or changed no part
    /// of an event at or before it since.
    pub(crate) fn parts_fit(&self, parts: &[Part], state: Option<&PartsState>) -> bool {
        match &self.parts {
            PartsProof::Copy(old) => parts == old.as_slice(),
            PartsProof::State(id) => {
                state.is_some_and(|s| s.id() == *id && s.changed_from() > self.last_ts)
            }
        }
    }
}
