//! The read-only half of joining samples to their thread and stack, done
//! for a block of samples at once on every core: the time, the thread row,
//! the stack parts, and the stack row when the resolver's caches hold it
//! (nearly always, as a trace repeats its stacks) or when every frame and
//! stack row it needs is interned already. What is left (new threads, new
//! rows, the caches' inserts, the columns' pushes) is done in sample order
//! by the caller, so rows are interned in the order a serial join would.

use super::images::AddressMap;
use super::lifetimes::InstanceIndex;
use super::records::SampleRec;
use super::stacks::{self, find_parts, StackResolver};
use crate::frames::FrameTable;
use crate::images::{ImageTable, NONE};
use crate::stacks::StackTable;
use crate::threads::ThreadTable;
use crate::time::Clock;
use rayon::prelude::*;

/// Samples a worker looks up with one sweep of the parts.
const CHUNK: usize = 8192;

/// What the lookups found for one sample.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct SampleLookup {
    pub(super) time: i64,
    /// Thread row and whether it was alive then; None: no thread of that tid.
    pub(super) thread: Option<(u32, bool)>,
    /// Kernel and user fragments of its stack.
    pub(super) parts: (Option<u32>, Option<u32>),
    /// What the resolver found for the parts.
    pub(super) stack: stacks::Looked,
    /// With no parts: the instruction pointer's frame under the root, if
    /// that row exists.
    pub(super) ip_stack: Option<u32>,
}

/// What the lookups read.
pub(super) struct Lookups<'a, 'r> {
    pub(super) clock: &'a Clock,
    pub(super) tidx: &'a InstanceIndex,
    pub(super) threads: &'a ThreadTable,
    pub(super) resolver: &'a StackResolver<'r>,
    pub(super) images: &'a ImageTable,
    pub(super) addresses: &'a AddressMap,
    pub(super) frames: &'a FrameTable,
    pub(super) stacks: &'a StackTable,
}

/// The lookups of `samples`, in their order. The resolver's reference
/// mode (no sweep) looks up no rows, so the caller's serial path does all.
pub(super) fn look_up(samples: &[SampleRec], l: &Lookups) -> Vec<SampleLookup> {
    let mut out = vec![SampleLookup::default(); samples.len()];
    let sweep = l.resolver.sweeps();
    out.par_chunks_mut(CHUNK)
        .zip(samples.par_chunks(CHUNK))
        .for_each(|(out, samples)| {
            let mut cursor = 0;
            for (o, s) in out.iter_mut().zip(samples) {
                *o = look_up_one(s, l, sweep, &mut cursor);
            }
        });
    out
}

fn look_up_one(s: &SampleRec, l: &Lookups, sweep: bool, cursor: &mut usize) -> SampleLookup {
    let time = l.clock.to_ns(s.ts);
    let thread = l.tidx.find(s.tid, time, &l.threads.start, &l.threads.end);
    let parts = find_parts(l.resolver.parts(), sweep, cursor, s.ts, s.tid);
    let process = thread.and_then(|(row, _)| l.threads.process.get(row as usize).copied());
    let mut looked = SampleLookup {
        time,
        thread,
        parts,
        ..SampleLookup::default()
    };
    let Some(p) = process.filter(|_| sweep) else {
        return looked;
    };
    if parts == (None, None) {
        looked.ip_stack = l
            .resolver
            .interned_frame(p, s.ip, time, l.images, l.addresses, l.frames)
            .and_then(|f| l.stacks.get(NONE, f));
    } else {
        looked.stack =
            l.resolver
                .look_up(parts, p, time, l.images, l.addresses, l.frames, l.stacks);
    }
    looked
}

/// Where the resolver's own sweep goes on from after `samples`.
pub(super) fn cursor_after(samples: &[SampleRec], resolver: &StackResolver) -> usize {
    let Some(last) = samples.last() else {
        return 0;
    };
    resolver
        .parts()
        .partition_point(|p| super::stacks::part_key(p) < (last.ts, last.tid))
}
