//! Joins stack events to the events they belong to and interns the result
//! into the stack prefix tree.
//!
//! A stack belongs to the event with the same timestamp and thread. It comes
//! inline (StackWalk) or as references to cached keys (StackKeyKernel /
//! StackKeyUser), each resolved to the next definition of that key at or
//! after the reference (KeyDelete / KeyRundown). The kernel half (leaf side)
//! and the user half are concatenated.
//!
//! While a thread stays in kernel mode its user half cannot change, and the
//! kernel logs it once, on the way out, under the EventTimeStamp of the
//! first event of that kernel excursion. So a user-only fragment completes
//! every kernel-only stack of its thread still waiting for one (as PerfView's
//! TraceLog does in `EmitStackOnExitFromKernel`). In perfview-net452-x64.etl
//! a sample at ts T of tid 3680 gets a kernel key ref for (T, 3680) and then
//! a user key ref for (T - 583, 3680), the thread's earlier kernel event.

use super::fragment_memo::FragmentMemo;
use super::images::{is_kernel_address, AddressMap};
use super::lean_sort::{read_releasing, sort_stable_in_place, Sequenced};
use super::records::{FragmentSet, InlineStackRec, StackKeyDefRec, StackKeyRefRec};
use crate::frames::{FrameKey, FrameTable};
use crate::images::{ImageTable, NONE};
use crate::stacks::StackTable;
use rayon::prelude::*;
use rustc_hash::FxHashMap;

#[derive(Debug, Clone, Copy)]
pub(crate) struct Part {
    pub(super) event_ts: i64,
    pub(super) tid: u32,
    pub(super) fragment: u32,
    pub(super) kernel: bool,
    /// A user half taken from the thread's exit from kernel mode rather
    /// than logged for this event itself.
    pub(super) inherited: bool,
    /// Its position while sorted (`lean_sort`); in the padding, not compared.
    pub(super) seq: u32,
}

impl PartialEq for Part {
    fn eq(&self, o: &Part) -> bool {
        (
            self.event_ts,
            self.tid,
            self.fragment,
            self.kernel,
            self.inherited,
        ) == (o.event_ts, o.tid, o.fragment, o.kernel, o.inherited)
    }
}

impl Sequenced for Part {
    fn set_seq(&mut self, seq: u32) {
        self.seq = seq;
    }
    fn seq(&self) -> u32 {
        self.seq
    }
}

impl Sequenced for Arrival {
    fn set_seq(&mut self, seq: u32) {
        self.seq = seq;
    }
    fn seq(&self) -> u32 {
        self.seq
    }
}

/// Sort parts by their event, stably, without a copy of them.
pub(super) fn sort_parts(parts: &mut [Part]) {
    sort_stable_in_place(parts, part_key);
}

/// Sort arrivals by time, stably, without a copy of them.
pub(super) fn sort_arrivals(arrivals: &mut [Arrival]) {
    sort_stable_in_place(arrivals, |a| a.ts);
}

/// A stack fragment in the order the trace delivered it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Arrival {
    /// When the stack event came (arrivals are joined in this order).
    pub(super) ts: i64,
    event_ts: i64,
    tid: u32,
    fragment: u32,
    kernel: bool,
    /// Every frame in user mode: the thread is leaving the kernel.
    pure_user: bool,
    /// Its position while sorted (`lean_sort`); in the padding.
    seq: u32,
}

#[derive(Debug, Default, Clone, Copy)]
pub struct StackStats {
    pub inline_fragments: u64,
    pub key_refs: u64,
    pub unresolved_key_refs: u64,
    pub joined_events: u64,
}

/// Turn fragments, in arrival order, into parts keyed by their event; a
/// user-only fragment also becomes the user half of every kernel-only stack
/// its thread logged since it last left the kernel.
fn join_exits_from_kernel(mut arrivals: Vec<Arrival>) -> Vec<Part> {
    sort_arrivals(&mut arrivals);
    let mut parts = Vec::with_capacity(arrivals.len());
    let mut waiting = Waiting::default();
    // The arrivals read so far are freed as the parts grow: at no time
    // are both lists whole.
    read_releasing(&mut arrivals, |chunk| {
        join_arrivals(chunk, &mut waiting, &mut parts)
    });
    parts
}

/// Per thread: events with a kernel half and, so far, no user half.
pub(super) type Waiting = FxHashMap<u32, Vec<i64>>;

/// `join_exits_from_kernel` over time-sorted `arrivals`, continuing from
/// `waiting` (a live snapshot's earlier arrivals) and appending to `parts`.
pub(super) fn join_arrivals(arrivals: &[Arrival], waiting: &mut Waiting, parts: &mut Vec<Part>) {
    for a in arrivals {
        let part = |event_ts, inherited| Part {
            event_ts,
            tid: a.tid,
            fragment: a.fragment,
            kernel: a.kernel,
            inherited,
            seq: 0,
        };
        if a.kernel {
            waiting.entry(a.tid).or_default().push(a.event_ts);
        } else if a.pure_user {
            if let Some(list) = waiting.remove(&a.tid) {
                for event_ts in list.into_iter().filter(|&e| e != a.event_ts) {
                    parts.push(part(event_ts, true));
                }
            }
        } else if let Some(list) = waiting.get_mut(&a.tid) {
            // A whole stack walked inline: its event is complete.
            list.retain(|&e| e != a.event_ts);
        }
        parts.push(part(a.event_ts, false));
    }
}

/// `inline` turned into arrivals by `arrival`, on every core, each
/// written over its own record (the two have one size and alignment).
fn arrivals_in_place(
    inline: Vec<InlineStackRec>,
    arrival: impl Fn(&InlineStackRec) -> Arrival + Sync,
) -> Vec<Arrival> {
    const {
        assert!(std::mem::size_of::<InlineStackRec>() == std::mem::size_of::<Arrival>());
        assert!(std::mem::align_of::<InlineStackRec>() == std::mem::align_of::<Arrival>());
    }
    // Never dropped as records: the same allocation is the arrivals' below
    // (leaked if `arrival` panics; both are plain data).
    let mut inline = std::mem::ManuallyDrop::new(inline);
    let (ptr, len, cap) = (inline.as_mut_ptr(), inline.len(), inline.capacity());
    let base = ptr as usize;
    (0..len).into_par_iter().with_min_len(4096).for_each(|i| {
        // SAFETY: i < len, so the slot is inside the allocation; each
        // index is visited by one worker only, which reads its record
        // before writing the arrival of the same size over it.
        unsafe {
            let slot = (base as *mut InlineStackRec).add(i);
            let a = arrival(&slot.read());
            slot.cast::<Arrival>().write(a);
        }
    });
    // SAFETY: the allocation came from a Vec of a type of the same size and
    // alignment, and every one of its `len` slots now holds an Arrival.
    unsafe { Vec::from_raw_parts(ptr.cast::<Arrival>(), len, cap) }
}

/// The arrival of an inline stack walk.
pub(super) fn inline_arrival(r: &InlineStackRec, fragments: &FragmentSet, ps: u32) -> Arrival {
    let f = fragments.get(r.fragment);
    let kernel = is_kernel_fragment(f, ps);
    Arrival {
        ts: r.ts,
        event_ts: r.event_ts,
        tid: r.tid,
        fragment: r.fragment,
        kernel,
        pure_user: !kernel && f.first().is_some_and(|&a| !is_kernel_address(a, ps)),
        seq: 0,
    }
}

/// Definitions per (kernel?, key), in time order.
pub(super) type DefIndex = FxHashMap<(bool, u64), Vec<(i64, u32)>>;

pub(super) fn index_defs(
    index: &mut DefIndex,
    defs: &[StackKeyDefRec],
    fragments: &FragmentSet,
    ps: u32,
) {
    for d in defs {
        let kernel = is_kernel_fragment(fragments.get(d.fragment), ps);
        index
            .entry((kernel, d.key))
            .or_default()
            .push((d.ts, d.fragment));
    }
}

/// The arrival of a key reference: the next definition of its key at or
/// after it; None while that has not come (yet).
pub(super) fn ref_arrival(r: &StackKeyRefRec, index: &DefIndex) -> Option<Arrival> {
    let kernel = !r.user;
    let list = index.get(&(kernel, r.key))?;
    let i = list.partition_point(|&(ts, _)| ts < r.ts);
    list.get(i).map(|&(_, fragment)| Arrival {
        ts: r.ts,
        event_ts: r.event_ts,
        tid: r.tid,
        fragment,
        kernel,
        pure_user: !kernel,
        seq: 0,
    })
}

fn is_kernel_fragment(f: &[u64], ps: u32) -> bool {
    f.last().is_some_and(|&a| is_kernel_address(a, ps))
}

/// The order parts are looked up in: by event (its time, then thread).
pub(super) fn part_key(p: &Part) -> (i64, u32) {
    (p.event_ts, p.tid)
}

/// What a resolver has learnt from the lookups so far (see `resume.rs`).
#[derive(Debug, Clone, Default)]
pub(crate) struct ResolverCaches {
    user_cache: FxHashMap<(u32, u32), u32>,
    full_cache: FxHashMap<(u32, u32), u32>,
    joined_events: u64,
}

pub struct StackResolver<'a> {
    parts: Vec<Part>,
    fragments: &'a FragmentSet,
    pointer_size: u32,
    /// Finds a user half interned in another process without the tables.
    memo: FragmentMemo,
    user_cache: FxHashMap<(u32, u32), u32>,
    full_cache: FxHashMap<(u32, u32), u32>,
    /// Where the last lookup landed in `parts`: events arrive in time
    /// order, so the next one is found by galloping forward from here.
    cursor: usize,
    /// Off: a binary search over all parts per lookup (the test oracle).
    sweep: bool,
    pub stats: StackStats,
    /// `intern_frames`' buffers, kept to reuse their memory.
    scratch_keys: Vec<FrameKey>,
    scratch_frames: Vec<u32>,
}

/// `parts.partition_point(|p| (p.event_ts, p.tid) < key)`, found from `from`
/// when every part before it is below `key` (the usual case when lookups
/// come in time order): exponential steps forward, then a binary search in
/// the last step, so a sweep over sorted lookups costs O(1) per lookup.
fn sweep_point(parts: &[Part], from: usize, key: (i64, u32)) -> usize {
    let below = |p: &Part| (p.event_ts, p.tid) < key;
    let from = from.min(parts.len());
    if from > 0 && !parts.get(from - 1).is_some_and(below) {
        return parts.partition_point(below);
    }
    let mut lo = from;
    let mut step = 1;
    while parts.get(lo + step - 1).is_some_and(below) {
        lo += step;
        step *= 2;
    }
    let hi = (lo + step).min(parts.len());
    lo + parts.get(lo..hi).unwrap_or_default().partition_point(below)
}

/// Kernel and user fragments of the event at (ts, tid) in `parts` (sorted
/// by `part_key`), swept forward from `cursor` (left where it landed), or
/// found by a binary search when not `sweep`.
pub(super) fn find_parts(
    parts: &[Part],
    sweep: bool,
    cursor: &mut usize,
    ts: i64,
    tid: u32,
) -> (Option<u32>, Option<u32>) {
    let i = if sweep {
        sweep_point(parts, *cursor, (ts, tid))
    } else {
        parts.partition_point(|p| (p.event_ts, p.tid) < (ts, tid))
    };
    *cursor = i;
    let mut kernel = None;
    let mut user = None;
    let mut inherited_user = None;
    for p in parts
        .get(i..)
        .unwrap_or_default()
        .iter()
        .take_while(|p| p.event_ts == ts && p.tid == tid)
    {
        if p.kernel {
            kernel = Some(p.fragment);
        } else if p.inherited {
            inherited_user = inherited_user.or(Some(p.fragment));
        } else {
            user = Some(p.fragment);
        }
    }
    // The event's own user half wins over one inherited from the exit.
    (kernel, user.or(inherited_user))
}

impl<'a> StackResolver<'a> {
    /// Look every event up by a binary search over all parts instead of
    /// sweeping (the reference build that tests compare with).
    pub fn without_sweep(mut self) -> Self {
        self.sweep = false;
        self
    }

    /// Takes the inline records by value: they are freed as soon as their
    /// arrivals are made, before the joins and sorts that follow.
    pub fn new(
        inline: Vec<InlineStackRec>,
        refs: &[StackKeyRefRec],
        defs: &[StackKeyDefRec],
        fragments: &'a FragmentSet,
        pointer_size: u32,
    ) -> StackResolver<'a> {
        let mut stats = StackStats::default();
        stats.inline_fragments += inline.len() as u64;
        // One per sample on a sampled trace: on every core, each into its
        // own record's place (the two lists were the build's peak).
        let mut arrivals =
            arrivals_in_place(inline, |r| inline_arrival(r, fragments, pointer_size));
        // Grown where it lies (a large block is remapped, not copied).
        arrivals.reserve_exact(refs.len());
        // Definitions per (kernel?, key), in time order (defs are sorted).
        let mut def_index = DefIndex::default();
        index_defs(&mut def_index, defs, fragments, pointer_size);
        for r in refs {
            stats.key_refs += 1;
            match ref_arrival(r, &def_index) {
                Some(a) => arrivals.push(a),
                None => stats.unresolved_key_refs += 1,
            }
        }
        let mut parts = join_exits_from_kernel(arrivals);
        sort_parts(&mut parts);
        StackResolver::from_parts(parts, stats, fragments, pointer_size)
    }

    /// A resolver over parts already joined and sorted by `part_key`.
    pub(super) fn from_parts(
        parts: Vec<Part>,
        stats: StackStats,
        fragments: &'a FragmentSet,
        pointer_size: u32,
    ) -> StackResolver<'a> {
        StackResolver {
            parts,
            fragments,
            pointer_size,
            memo: FragmentMemo::default(),
            user_cache: FxHashMap::default(),
            full_cache: FxHashMap::default(),
            cursor: 0,
            sweep: true,
            stats,
            scratch_keys: Vec::new(),
            scratch_frames: Vec::new(),
        }
    }

    /// The parts back, for the next live snapshot to extend.
    pub(super) fn into_parts(self) -> Vec<Part> {
        self.parts
    }

    /// The parts of events at or before `ts`.
    pub(crate) fn parts_through(&self, ts: i64) -> &[Part] {
        let n = self.parts.partition_point(|p| p.event_ts <= ts);
        self.parts.get(..n).unwrap_or_default()
    }

    /// A copy of the caches, to resume a later join from.
    pub(crate) fn caches(&self) -> ResolverCaches {
        ResolverCaches {
            user_cache: self.user_cache.clone(),
            full_cache: self.full_cache.clone(),
            joined_events: self.stats.joined_events,
        }
    }

    /// Continue from the caches of an earlier join of the same parts.
    pub(crate) fn restore(&mut self, c: ResolverCaches) {
        self.user_cache = c.user_cache;
        self.full_cache = c.full_cache;
        self.stats.joined_events = c.joined_events;
    }

    /// Kernel and user fragments attached to the event at (ts, tid).
    fn find(&mut self, ts: i64, tid: u32) -> (Option<u32>, Option<u32>) {
        let mut cursor = self.cursor;
        let found = find_parts(&self.parts, self.sweep, &mut cursor, ts, tid);
        self.cursor = cursor;
        found
    }

    /// Whether lookups sweep (else each is a binary search: the oracle).
    pub(super) fn sweeps(&self) -> bool {
        self.sweep
    }

    pub(super) fn parts(&self) -> &[Part] {
        &self.parts
    }

    /// Where the next lookup starts (after a block looked up elsewhere).
    pub(super) fn set_cursor(&mut self, cursor: usize) {
        self.cursor = cursor;
    }

    /// The stack row of an event's parts in `process` as far as it can be
    /// found without changing anything (read only, so blocks of samples are
    /// looked up in parallel): from the caches, or else the frames and stack
    /// rows already interned. `None` where a row is still to be made.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn look_up(
        &self,
        (kernel, user): (Option<u32>, Option<u32>),
        process: u32,
        time_ns: i64,
        images: &ImageTable,
        addresses: &AddressMap,
        frames: &FrameTable,
        stacks: &StackTable,
    ) -> Looked {
        let (user_node, user_cached) = match user {
            None => (Some(NONE), true),
            Some(u) => match self.user_cache.get(&(process, u)) {
                Some(&n) => (Some(n), true),
                None => {
                    let f = self.fragments.get(u);
                    let n = self
                        .memo
                        .node(u, f, process, time_ns, images, addresses)
                        .or_else(|| {
                            self.chain(NONE, f, process, time_ns, images, addresses, frames, stacks)
                        });
                    (n, false)
                }
            },
        };
        let Some(user_node) = user_node else {
            return Looked::default();
        };
        let (node, cached) = match kernel {
            None => (Some(user_node), user_cached),
            Some(k) => match self.full_cache.get(&(user_node, k)) {
                Some(&n) => (Some(n), user_cached),
                None => {
                    let f = self.fragments.get(k);
                    let n = self.chain(
                        user_node, f, process, time_ns, images, addresses, frames, stacks,
                    );
                    (n, false)
                }
            },
        };
        Looked {
            user_node: Some(user_node),
            node,
            cached: cached && node.is_some(),
        }
    }

    /// `intern_frames` for a chain whose every frame and stack row exists.
    #[allow(clippy::too_many_arguments)]
    fn chain(
        &self,
        parent: u32,
        leaf_first: &[u64],
        process: u32,
        time_ns: i64,
        images: &ImageTable,
        addresses: &AddressMap,
        frames: &FrameTable,
        stacks: &StackTable,
    ) -> Option<u32> {
        let mut node = parent;
        for &addr in leaf_first.iter().rev() {
            let f = self.interned_frame(process, addr, time_ns, images, addresses, frames)?;
            node = stacks.get(node, f)?;
        }
        Some(node)
    }

    /// `frame` for a frame row that exists; read only.
    pub(super) fn interned_frame(
        &self,
        process: u32,
        addr: u64,
        time_ns: i64,
        images: &ImageTable,
        addresses: &AddressMap,
        frames: &FrameTable,
    ) -> Option<u32> {
        frames.get_key(self.frame_key_at(process, addr, time_ns, images, addresses))
    }

    /// Stack row of the event at (ts, tid) in `process`, if a stack was recorded.
    #[allow(clippy::too_many_arguments)]
    pub fn resolve(
        &mut self,
        ts: i64,
        tid: u32,
        process: u32,
        time_ns: i64,
        images: &ImageTable,
        addresses: &AddressMap,
        frames: &mut FrameTable,
        stacks: &mut StackTable,
    ) -> Option<u32> {
        let (kernel, user) = self.find(ts, tid);
        self.resolve_found(
            (kernel, user),
            Looked::default(),
            process,
            time_ns,
            images,
            addresses,
            FrameRows::Intern(frames),
            stacks,
        )
    }

    /// Stack row of an event whose parts were found already (`find_parts`),
    /// with what `look_up` found for them then (`Looked::default()` if not
    /// asked). The caches may have grown since: what they hold wins, as it
    /// would in a join of one event after the other. The frame rows of the
    /// parts to intern are `frames`' to find or make (see `FrameRows`).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn resolve_found(
        &mut self,
        (kernel, user): (Option<u32>, Option<u32>),
        looked: Looked,
        process: u32,
        time_ns: i64,
        images: &ImageTable,
        addresses: &AddressMap,
        mut frames: FrameRows,
        stacks: &mut StackTable,
    ) -> Option<u32> {
        if kernel.is_none() && user.is_none() {
            return None;
        }
        self.stats.joined_events += 1;
        if looked.cached {
            return looked.node;
        }
        let user_node = match user {
            None => NONE,
            Some(u) => match self.user_cache.get(&(process, u)) {
                Some(&n) => n,
                None => {
                    let f = self.fragments.get(u);
                    let n = match looked.user_node {
                        Some(n) => n,
                        None => self.intern_part(
                            NONE,
                            f,
                            Half::User,
                            (process, time_ns, images, addresses),
                            &mut frames,
                            stacks,
                        ),
                    };
                    self.memo
                        .learn(u, f, n, process, time_ns, images, addresses);
                    self.user_cache.insert((process, u), n);
                    n
                }
            },
        };
        let node = match kernel {
            None => user_node,
            Some(k) => match self.full_cache.get(&(user_node, k)) {
                Some(&n) => n,
                None => {
                    // What was looked up holds if it hangs from this user half.
                    let looked_node = looked.node.filter(|_| looked.user_node == Some(user_node));
                    let n = match looked_node {
                        Some(n) => n,
                        None => self.intern_part(
                            user_node,
                            self.fragments.get(k),
                            Half::Kernel,
                            (process, time_ns, images, addresses),
                            &mut frames,
                            stacks,
                        ),
                    };
                    self.full_cache.insert((user_node, k), n);
                    n
                }
            },
        };
        Some(node)
    }

    /// Stack row of a whole leaf-first frame list already in the fragment
    /// set (e.g. an EventHeader event's STACK_TRACE64 item) seen in `process`.
    #[allow(clippy::too_many_arguments)]
    pub fn resolve_fragment(
        &mut self,
        fragment: u32,
        process: u32,
        time_ns: i64,
        images: &ImageTable,
        addresses: &AddressMap,
        frames: &mut FrameTable,
        stacks: &mut StackTable,
    ) -> u32 {
        // A whole stack interned under the root is what the user-half cache holds.
        if let Some(&n) = self.user_cache.get(&(process, fragment)) {
            return n;
        }
        self.stats.joined_events += 1;
        let f = self.fragments.get(fragment);
        let n = self.intern_frames(NONE, f, process, time_ns, images, addresses, frames, stacks);
        self.user_cache.insert((process, fragment), n);
        n
    }

    /// The stack row of one half of a stack, leaf first, under `parent`:
    /// its frame rows found or added in the table, or those `frames` made
    /// for that half already.
    fn intern_part(
        &mut self,
        parent: u32,
        leaf_first: &[u64],
        half: Half,
        (process, time_ns, images, addresses): (u32, i64, &ImageTable, &AddressMap),
        frames: &mut FrameRows,
        stacks: &mut StackTable,
    ) -> u32 {
        match frames {
            FrameRows::Intern(frames) => self.intern_frames(
                parent, leaf_first, process, time_ns, images, addresses, frames, stacks,
            ),
            FrameRows::Made { user, kernel } => {
                let made = match half {
                    Half::User => user,
                    Half::Kernel => kernel,
                };
                stacks.intern_path(parent, made.iter().copied())
            }
        }
    }

    /// Append a leaf-first fragment under `parent` (root side first).
    #[allow(clippy::too_many_arguments)]
    fn intern_frames(
        &mut self,
        parent: u32,
        leaf_first: &[u64],
        process: u32,
        time_ns: i64,
        images: &ImageTable,
        addresses: &AddressMap,
        frames: &mut FrameTable,
        stacks: &mut StackTable,
    ) -> u32 {
        // In three tight passes (keys, frame rows, stack rows): the rows'
        // hash lookups of one pass need nothing from each other, so their
        // cache misses overlap, where one pass per address kept them apart.
        let mut keys = std::mem::take(&mut self.scratch_keys);
        let mut rows = std::mem::take(&mut self.scratch_frames);
        rows.clear();
        self.keys().push_rows(
            leaf_first, process, time_ns, images, addresses, frames, &mut keys, &mut rows,
        );
        let node = stacks.intern_path(parent, rows.iter().copied());
        self.scratch_keys = keys;
        self.scratch_frames = rows;
        node
    }

    /// The frame key of an address seen in `process` at `time_ns`: its
    /// module and RVA, or else the raw address (per process unless kernel).
    fn frame_key_at(
        &self,
        process: u32,
        addr: u64,
        time_ns: i64,
        images: &ImageTable,
        addresses: &AddressMap,
    ) -> FrameKey {
        self.keys()
            .key_at(process, addr, time_ns, images, addresses)
    }

    /// What making frame keys needs, apart from the resolver's state.
    pub(super) fn keys(&self) -> FrameKeys<'a> {
        FrameKeys {
            fragments: self.fragments,
            pointer_size: self.pointer_size,
        }
    }

    /// Whether `resolve_found` would make a part's frame rows that `made`
    /// does not hold: what a part's rows were made for on another thread
    /// (`sample_join::make_frames`) follows from `looked` alone, while
    /// `resolve_found` goes by the caches too. Read only, so that the
    /// caller can make them itself before anything changes.
    pub(super) fn wants_unmade(
        &self,
        (kernel, user): (Option<u32>, Option<u32>),
        looked: Looked,
        process: u32,
        made: (bool, bool),
    ) -> bool {
        let (made_user, made_kernel) = made;
        if (kernel.is_none() && user.is_none()) || looked.cached {
            return false;
        }
        let user_node = match user {
            None => Some(NONE),
            Some(u) => match self.user_cache.get(&(process, u)) {
                Some(&n) => Some(n),
                None if looked.user_node.is_some() => looked.user_node,
                None if !made_user => return true,
                // Its row is known once made.
                None => None,
            },
        };
        let Some(k) = kernel else {
            return false;
        };
        let Some(user_node) = user_node else {
            return !made_kernel;
        };
        if self.full_cache.contains_key(&(user_node, k)) {
            return false;
        }
        let looked_node = looked.node.filter(|_| looked.user_node == Some(user_node));
        looked_node.is_none() && !made_kernel
    }

    /// The frame row for an address seen in `process` at `time_ns`.
    pub fn frame(
        &self,
        process: u32,
        addr: u64,
        time_ns: i64,
        images: &ImageTable,
        addresses: &AddressMap,
        frames: &mut FrameTable,
    ) -> u32 {
        frames.intern_key(self.frame_key_at(process, addr, time_ns, images, addresses))
    }
}

/// Which half of a stack a fragment is.
#[derive(Clone, Copy)]
enum Half {
    User,
    Kernel,
}

/// The frame rows `resolve_found` interns a part's stack rows with.
pub(super) enum FrameRows<'f> {
    /// Found in the table, or added to it.
    Intern(&'f mut FrameTable),
    /// Made already, root side first, by the sample join's frame thread
    /// (`sample_join::make_frames`), for whichever parts `wants_unmade`
    /// found them made.
    Made { user: &'f [u32], kernel: &'f [u32] },
}

/// Frame keys of addresses: what the frame thread of the sample join
/// needs of a resolver, which the join's own thread keeps changing.
#[derive(Clone, Copy)]
pub(super) struct FrameKeys<'a> {
    fragments: &'a FragmentSet,
    pointer_size: u32,
}

impl FrameKeys<'_> {
    /// The frame key of an address seen in `process` at `time_ns`: its
    /// module and RVA, or else the raw address (per process unless kernel).
    pub(super) fn key_at(
        &self,
        process: u32,
        addr: u64,
        time_ns: i64,
        images: &ImageTable,
        addresses: &AddressMap,
    ) -> FrameKey {
        match addresses.module_rva(images, process, addr, time_ns) {
            Some((module, rva)) => FrameKey::module(module, rva),
            // Kernel addresses mean the same in every process.
            None if is_kernel_address(addr, self.pointer_size) => FrameKey::raw(NONE, addr),
            None => FrameKey::raw(process, addr),
        }
    }

    /// The addresses of fragment `fragment`, leaf first.
    pub(super) fn fragment(&self, fragment: u32) -> &[u64] {
        self.fragments.get(fragment)
    }

    /// Append the frame rows of `leaf_first`'s addresses, root side first,
    /// to `out`: all their keys (into `keys`), then all their rows.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn push_rows(
        &self,
        leaf_first: &[u64],
        process: u32,
        time_ns: i64,
        images: &ImageTable,
        addresses: &AddressMap,
        frames: &mut FrameTable,
        keys: &mut Vec<FrameKey>,
        out: &mut Vec<u32>,
    ) {
        keys.clear();
        keys.extend(
            leaf_first
                .iter()
                .rev()
                .map(|&a| self.key_at(process, a, time_ns, images, addresses)),
        );
        out.extend(keys.iter().map(|&k| frames.intern_key(k)));
    }
}

/// What `look_up` found for an event's parts without changing anything.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Looked {
    /// The user half's stack row (`NONE` when there is none).
    pub(super) user_node: Option<u32>,
    /// The whole stack's row.
    pub(super) node: Option<u32>,
    /// Both from the caches: nothing is left to record.
    pub(super) cached: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arrival(ts: i64, event_ts: i64, fragment: u32, kernel: bool) -> Arrival {
        Arrival {
            ts,
            event_ts,
            tid: 7,
            fragment,
            kernel,
            pure_user: !kernel,
            seq: 0,
        }
    }

    #[test]
    fn user_half_on_exit_completes_every_waiting_kernel_stack() {
        // Kernel halves for events at 100 and 120, then one user half logged
        // on exit under the first event's timestamp; then a later excursion.
        let parts = join_exits_from_kernel(vec![
            arrival(101, 100, 1, true),
            arrival(121, 120, 2, true),
            arrival(130, 100, 3, false),
            arrival(201, 200, 4, true),
        ]);
        let got: Vec<_> = parts
            .iter()
            .map(|p| (p.event_ts, p.fragment, p.kernel, p.inherited))
            .collect();
        assert_eq!(
            got,
            vec![
                (100, 1, true, false),
                (120, 2, true, false),
                (120, 3, false, true),
                (100, 3, false, false),
                (200, 4, true, false),
            ]
        );
    }

    #[test]
    fn sweep_finds_what_a_binary_search_finds() {
        let mut rng = testdata::Rng::new(15);
        for round in 0..200 {
            let n = rng.below(60);
            let mut parts: Vec<Part> = (0..n)
                .map(|_| Part {
                    event_ts: rng.below_u64(40) as i64,
                    tid: rng.below_u64(4) as u32,
                    fragment: 0,
                    kernel: false,
                    inherited: false,
                    seq: 0,
                })
                .collect();
            parts.par_sort_by_key(|p| (p.event_ts, p.tid));
            // Lookups mostly in time order, with jumps back (other tables,
            // ties in another thread order) in every other round.
            let mut cursor = 0;
            let mut ts = 0i64;
            for _ in 0..100 {
                ts = if round % 2 == 1 && rng.below(5) == 0 {
                    rng.below_u64(45) as i64 - 2
                } else {
                    ts + rng.below_u64(3) as i64
                };
                let key = (ts, rng.below_u64(5) as u32);
                let want = parts.partition_point(|p| (p.event_ts, p.tid) < key);
                let got = sweep_point(&parts, cursor, key);
                assert_eq!(got, want, "round {round}, key {key:?}, from {cursor}");
                cursor = got;
            }
            // A stale cursor past the end is safe too.
            assert_eq!(sweep_point(&parts, n + 7, (i64::MAX, 0)), n);
        }
    }
}
