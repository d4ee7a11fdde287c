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
use super::stacks::{self, find_parts, FrameKeys, StackResolver};
use crate::frames::FrameTable;
use crate::images::{ImageTable, NONE};
use crate::stacks::StackTable;
use crate::threads::ThreadTable;
use crate::time::Clock;
use rayon::prelude::*;
use std::ops::Range;
use std::sync::mpsc::{Receiver, Sender};
use std::thread::ScopedJoinHandle;

/// Samples a worker looks up with one sweep of the parts.
const CHUNK: usize = 8192;

/// What the lookups found for one sample.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct SampleLookup {
    pub(super) time: i64,
    /// Thread row and whether it was alive then; None: no thread of that tid.
    pub(super) thread: Option<(u32, bool)>,
    /// The thread's process row (None with no thread).
    pub(super) process: Option<u32>,
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
        process,
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

/// The frame rows one sample's parts were made with on the frame thread
/// (`make_frames`): how many of `FrameChunk::rows` each part took, or
/// `NOT_MADE`, and the instruction pointer's frame row (`NONE` if not made).
#[derive(Debug, Clone, Copy)]
pub(super) struct MadeFrames {
    pub(super) user: u32,
    pub(super) kernel: u32,
    pub(super) ip: u32,
}

pub(super) const NOT_MADE: u32 = u32::MAX;

/// Consecutive samples' made frame rows, root side first, one part after
/// the other.
#[derive(Debug, Default)]
pub(super) struct FrameChunk {
    pub(super) rows: Vec<u32>,
    pub(super) made: Vec<MadeFrames>,
}

/// Samples per chunk sent to the join's thread.
const FRAME_CHUNK: usize = 1024;

/// The frame thread of the sample join: of the samples of a block in
/// order, the frame rows of every part `look_up` did not find whole,
/// found or added in the frame table, sent to the join's thread in
/// chunks. In order and from what `look_up` found alone, the rows are
/// added as the join would add them: each part whose rows the join makes
/// (its caches missed) is a part `look_up` missed; a missed part the join
/// finds in its caches instead was made by an earlier sample of the block,
/// its frame rows with it. The join interns only stack rows meanwhile,
/// the other half of what it made alone. `unknown_process` is the process
/// row the join gives samples with no thread.
#[allow(clippy::too_many_arguments)]
pub(super) fn make_frames(
    samples: &[SampleRec],
    looked: &[SampleLookup],
    keys: FrameKeys,
    unknown_process: u32,
    images: &ImageTable,
    addresses: &AddressMap,
    frames: &mut FrameTable,
    to_join: &Sender<FrameChunk>,
) {
    let mut scratch = Vec::new();
    for (samples, looked) in samples.chunks(FRAME_CHUNK).zip(looked.chunks(FRAME_CHUNK)) {
        let mut chunk = FrameChunk {
            rows: Vec::new(),
            made: Vec::with_capacity(samples.len()),
        };
        for (s, l) in samples.iter().zip(looked) {
            let process = l.process.unwrap_or(unknown_process);
            let mut made = MadeFrames {
                user: NOT_MADE,
                kernel: NOT_MADE,
                ip: NONE,
            };
            let (kernel, user) = l.parts;
            let mut part = |fragment: u32, rows: &mut Vec<u32>| {
                let before = rows.len();
                keys.push_rows(
                    keys.fragment(fragment),
                    process,
                    l.time,
                    images,
                    addresses,
                    frames,
                    &mut scratch,
                    rows,
                );
                (rows.len() - before) as u32
            };
            if kernel.is_none() && user.is_none() {
                if l.ip_stack.is_none() {
                    let key = keys.key_at(process, s.ip, l.time, images, addresses);
                    made.ip = frames.intern_key(key);
                }
            } else if !l.stack.cached {
                if let Some(u) = user.filter(|_| l.stack.user_node.is_none()) {
                    made.user = part(u, &mut chunk.rows);
                }
                if let Some(k) = kernel.filter(|_| l.stack.node.is_none()) {
                    made.kernel = part(k, &mut chunk.rows);
                }
            }
            chunk.made.push(made);
        }
        if to_join.send(chunk).is_err() {
            // The join stopped taking them (it makes its own now).
            return;
        }
    }
}

/// Where the join's thread takes a block's frame rows from: the frame
/// thread while it runs (`make_frames`), the table itself once it is done.
pub(super) struct JoinFrames<'scope, 'f> {
    here: Option<&'f mut FrameTable>,
    piped: Option<Piped<'scope, 'f>>,
}

struct Piped<'scope, 'f> {
    from_frames: Receiver<FrameChunk>,
    chunk: FrameChunk,
    /// The next sample's entry in `chunk.made`, and its first row.
    at: usize,
    row: usize,
    maker: ScopedJoinHandle<'scope, &'f mut FrameTable>,
}

impl<'scope, 'f> JoinFrames<'scope, 'f> {
    pub(super) fn here(frames: &'f mut FrameTable) -> Self {
        JoinFrames {
            here: Some(frames),
            piped: None,
        }
    }

    /// Rows from `maker`, the frame thread, which gives the table back
    /// when done.
    pub(super) fn piped(
        from_frames: Receiver<FrameChunk>,
        maker: ScopedJoinHandle<'scope, &'f mut FrameTable>,
    ) -> Self {
        JoinFrames {
            here: None,
            piped: Some(Piped {
                from_frames,
                chunk: FrameChunk::default(),
                at: 0,
                row: 0,
                maker,
            }),
        }
    }

    /// What the frame thread made for the next sample, with its rows'
    /// place in `made_rows`; None once the rows are made here.
    pub(super) fn next_made(&mut self) -> Option<(MadeFrames, Range<usize>)> {
        let p = self.piped.as_mut()?;
        if p.at == p.chunk.made.len() {
            match p.from_frames.recv() {
                Ok(c) => {
                    p.chunk = c;
                    p.at = 0;
                    p.row = 0;
                }
                // The frame thread ended early (a panic, resumed here).
                Err(_) => {
                    self.make_here();
                    return None;
                }
            }
        }
        let m = *p.chunk.made.get(p.at)?;
        p.at += 1;
        let len = |n: u32| if n == NOT_MADE { 0 } else { n as usize };
        let rows = p.row..p.row + len(m.user) + len(m.kernel);
        p.row = rows.end;
        Some((m, rows))
    }

    /// Rows `next_made` placed, split into the user part's and the kernel
    /// part's (empty once made here).
    pub(super) fn made_rows(&self, m: MadeFrames, rows: Range<usize>) -> (&[u32], &[u32]) {
        let Some(p) = &self.piped else {
            return (&[], &[]);
        };
        let rows = p.chunk.rows.get(rows).unwrap_or_default();
        let user = if m.user == NOT_MADE {
            0
        } else {
            m.user as usize
        };
        rows.split_at(user.min(rows.len()))
    }

    pub(super) fn is_piped(&self) -> bool {
        self.piped.is_some()
    }

    /// From here on the rows are made on this thread: once the frame
    /// thread is done with the block (every row it makes comes first).
    pub(super) fn make_here(&mut self) {
        if let Some(p) = self.piped.take() {
            drop(p.from_frames);
            match p.maker.join() {
                Ok(frames) => self.here = Some(frames),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
    }

    /// The frame table, the frame thread done with it.
    pub(super) fn table(&mut self) -> &mut FrameTable {
        self.make_here();
        self.here
            .as_deref_mut()
            .expect("the frame table is here once the frame thread is joined")
    }
}
