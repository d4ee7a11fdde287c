//! Stack parts kept from one live snapshot to the next, so a snapshot joins
//! only the stack records that are new instead of rebuilding and sorting
//! the parts of every stack record so far (`StackResolver::new`).
//!
//! Records arrive in time order, give or take the settling time (checked:
//! a record from before the horizon makes a fresh state; key definitions
//! must come in time order, or the parts are built as before). Arrivals
//! before the `horizon` (the newest event's time less the settling time, or
//! an earlier key reference still without a definition) are joined once and
//! kept, sorted, with the exit-from-kernel state after them; the arrivals
//! from the horizon on can still change (a later stack record of the same
//! time sorts before a key reference; a definition can come for a
//! reference), so each snapshot joins them again on a copy of that state
//! and merges their parts in for its build only. The parts are the same
//! list `StackResolver::new` makes: the same arrivals joined in the same
//! order, and a stable merge by event keeps parts pushed earlier first.

use super::records::{Batch, FragmentSet, InlineStackRec, StackKeyRefRec};
use super::stacks::{self, Arrival, DefIndex, Part, StackResolver, StackStats, Waiting};
use std::sync::atomic::{AtomicU64, Ordering};

#[derive(Debug, Clone, Default)]
pub struct PartsState {
    /// Unique per state: a checkpoint names the state its parts came from.
    id: u64,
    pointer_size: u32,
    /// Records looked at (each list's length then) and, of them, the
    /// inline walks at or after the horizon, in arrival order.
    inline_seen: usize,
    refs_seen: usize,
    defs_done: usize,
    pending_inline: Vec<InlineStackRec>,
    /// Every arrival before this time is in `parts`; no later record may
    /// come before it.
    horizon: i64,
    last_def_ts: i64,
    defs: DefIndex,
    waiting: Waiting,
    /// Sorted by `part_key`, parts of equal key in the order pushed.
    parts: Vec<Part>,
    inline_fragments: u64,
    key_refs: u64,
    /// The earliest event time of the parts this snapshot added for good,
    /// of its tail, and of the previous snapshot's tail (i64::MAX: none).
    fresh_from: i64,
    tail_from: i64,
    previous_tail_from: i64,
}

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// What a snapshot merged into the kept parts, to take out again after.
pub(super) struct Tail {
    at: usize,
    replaced: Vec<Part>,
}

/// Records from `seen` on all at or after `floor` (in time order too when
/// `ordered`).
fn new_from<T>(
    records: &[T],
    seen: usize,
    floor: i64,
    ordered: bool,
    ts: impl Fn(&T) -> i64,
) -> bool {
    let Some(new) = records.get(seen..) else {
        return false;
    };
    let mut last = floor;
    new.iter().all(|r| {
        let ok = ts(r) >= last;
        if ordered {
            last = ts(r);
        }
        ok
    })
}

impl PartsState {
    fn new(pointer_size: u32) -> PartsState {
        PartsState {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            pointer_size,
            fresh_from: i64::MAX,
            tail_from: i64::MAX,
            previous_tail_from: i64::MAX,
            horizon: i64::MIN,
            last_def_ts: i64::MIN,
            ..PartsState::default()
        }
    }

    /// Whether `b` (in arrival order, before the build sorts it) only adds
    /// stack records at or after what this state joined.
    fn fits(&self, b: &Batch, pointer_size: u32) -> bool {
        self.pointer_size == pointer_size
            && new_from(
                &b.inline_stacks,
                self.inline_seen,
                self.horizon,
                false,
                |r| r.ts,
            )
            && new_from(&b.key_refs, self.refs_seen, self.horizon, false, |r| r.ts)
            && new_from(&b.key_defs, self.defs_done, self.last_def_ts, true, |r| {
                r.ts
            })
    }

    /// `state` when `b` extends it, else a new one when `b`'s stack records
    /// are in time order; None: build the parts from scratch.
    pub(super) fn for_batch(
        state: Option<Box<PartsState>>,
        b: &Batch,
        pointer_size: u32,
    ) -> Option<Box<PartsState>> {
        state.filter(|s| s.fits(b, pointer_size)).or_else(|| {
            let s = Box::new(PartsState::new(pointer_size));
            s.fits(b, pointer_size).then_some(s)
        })
    }

    /// Join the new records: those before the new horizon for good, the
    /// rest for this snapshot. `b` is sorted by now (a no-op on records
    /// that `fits` found in time order). Returns the resolver and what to
    /// take out of its parts afterwards (`take_back`).
    pub(super) fn resolver<'a>(
        &mut self,
        b: &Batch,
        fragments: &'a FragmentSet,
        settle: i64,
    ) -> (StackResolver<'a>, Tail) {
        let ps = self.pointer_size;
        let new_defs = b.key_defs.get(self.defs_done..).unwrap_or_default();
        stacks::index_defs(&mut self.defs, new_defs, fragments, ps);
        self.defs_done = b.key_defs.len();
        self.last_def_ts = new_defs.last().map_or(self.last_def_ts, |d| d.ts);

        // Every record not joined for good is at or after the horizon:
        // the inline walks kept, the new ones, and the (sorted) references
        // from the horizon on, each in the order a stable sort by time
        // gives (ties in arrival order).
        let mut inline = std::mem::take(&mut self.pending_inline);
        inline.extend_from_slice(b.inline_stacks.get(self.inline_seen..).unwrap_or_default());
        inline.sort_by_key(|r| r.ts);
        self.inline_seen = b.inline_stacks.len();
        self.refs_seen = b.key_refs.len();
        let refs = b
            .key_refs
            .get(b.key_refs.partition_point(|r| r.ts < self.horizon)..);
        let refs = refs.unwrap_or_default();
        let unresolved = refs
            .iter()
            .find(|r| stacks::ref_arrival(r, &self.defs).is_none())
            .map(|r| r.ts);
        // Records can arrive a little out of time order: keep `settle`
        // ticks open (a record older than that makes a fresh state).
        let newest = b.max_ts.unwrap_or(i64::MIN).saturating_sub(settle);
        let horizon = unresolved
            .map_or(newest, |u| u.min(newest))
            .max(self.horizon);
        let (inline_now, inline_later) =
            inline.split_at(inline.partition_point(|r| r.ts < horizon));
        let (refs_now, refs_later) = refs.split_at(refs.partition_point(|r| r.ts < horizon));

        let (arrivals, _) = self.arrivals(inline_now, refs_now, fragments);
        let mut fresh = Vec::with_capacity(arrivals.len());
        stacks::join_arrivals(&arrivals, &mut self.waiting, &mut fresh);
        self.fresh_from = earliest(&fresh);
        merge_in(&mut self.parts, fresh);
        self.inline_fragments += inline_now.len() as u64;
        self.key_refs += refs_now.len() as u64;
        self.horizon = horizon;

        let (arrivals, unresolved) = self.arrivals(inline_later, refs_later, fragments);
        let mut later = Vec::with_capacity(arrivals.len());
        stacks::join_arrivals(&arrivals, &mut self.waiting.clone(), &mut later);
        self.previous_tail_from = self.tail_from;
        self.tail_from = earliest(&later);
        let tail = merge_in(&mut self.parts, later);
        let inline_later = inline_later.len();
        self.pending_inline = inline.split_off(inline.len() - inline_later);
        let stats = StackStats {
            inline_fragments: self.inline_fragments + inline_later as u64,
            key_refs: self.key_refs + refs_later.len() as u64,
            unresolved_key_refs: unresolved,
            joined_events: 0,
        };
        let parts = std::mem::take(&mut self.parts);
        (StackResolver::from_parts(parts, stats, fragments, ps), tail)
    }

    /// Parts of events before this time are joined for good. Not the
    /// horizon alone: a stack record is logged after its event, so one
    /// that arrived after the horizon (in the tail, joined again next
    /// time) can be of an earlier event.
    pub(super) fn settled_before(&self) -> i64 {
        self.horizon.min(self.tail_from)
    }

    pub(super) fn id(&self) -> u64 {
        self.id
    }

    /// Parts of events before this time are the same as in the previous
    /// snapshot's resolver (none added, none of its tail gone).
    pub(super) fn changed_from(&self) -> i64 {
        self.fresh_from
            .min(self.tail_from)
            .min(self.previous_tail_from)
    }

    /// The parts back from the snapshot's resolver, without its tail.
    pub(super) fn take_back(&mut self, mut parts: Vec<Part>, tail: Tail) {
        parts.truncate(tail.at);
        parts.extend(tail.replaced);
        self.parts = parts;
    }

    /// Arrivals of the records, in the order `StackResolver::new` joins
    /// them (by time; of equal times, inline walks first); and how many
    /// references have no definition yet.
    fn arrivals(
        &self,
        inline: &[InlineStackRec],
        refs: &[StackKeyRefRec],
        fragments: &FragmentSet,
    ) -> (Vec<Arrival>, u64) {
        let ps = self.pointer_size;
        let mut v: Vec<Arrival> = inline
            .iter()
            .map(|r| stacks::inline_arrival(r, fragments, ps))
            .collect();
        let mut unresolved = 0;
        for r in refs {
            match stacks::ref_arrival(r, &self.defs) {
                Some(a) => v.push(a),
                None => unresolved += 1,
            }
        }
        stacks::sort_arrivals(&mut v);
        (v, unresolved)
    }
}

fn earliest(parts: &[Part]) -> i64 {
    parts.iter().map(|p| p.event_ts).min().unwrap_or(i64::MAX)
}

/// Merge `fresh` (in push order) into the sorted `parts`, as a stable sort
/// of `parts` then `fresh` would order them; only the parts from the first
/// new key on move. Returns how to undo it.
fn merge_in(parts: &mut Vec<Part>, mut fresh: Vec<Part>) -> Tail {
    stacks::sort_parts(&mut fresh);
    let Some(first) = fresh.first().map(stacks::part_key) else {
        return Tail {
            at: parts.len(),
            replaced: Vec::new(),
        };
    };
    let at = parts.partition_point(|p| stacks::part_key(p) <= first);
    let replaced = parts.split_off(at);
    parts.reserve(replaced.len() + fresh.len());
    let (mut a, mut b) = (replaced.iter().peekable(), fresh.into_iter().peekable());
    loop {
        let take_old = match (a.peek(), b.peek()) {
            (Some(x), Some(y)) => stacks::part_key(x) <= stacks::part_key(y),
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (None, None) => break,
        };
        let next = if take_old {
            a.next().copied()
        } else {
            b.next()
        };
        parts.extend(next);
    }
    Tail { at, replaced }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(event_ts: i64, fragment: u32) -> Part {
        Part {
            event_ts,
            tid: 1,
            fragment,
            kernel: false,
            inherited: false,
            seq: 0,
        }
    }

    /// The merge is a stable sort of old then new, and undoes exactly.
    #[test]
    fn merge_in_orders_as_a_stable_sort_and_undoes() {
        let old = vec![part(1, 0), part(3, 1), part(3, 2), part(7, 3)];
        let fresh = vec![part(9, 4), part(3, 5), part(2, 6), part(7, 7)];
        let mut want: Vec<Part> = old.iter().chain(&fresh).copied().collect();
        want.sort_by_key(stacks::part_key);
        let mut got = old.clone();
        let tail = merge_in(&mut got, fresh);
        assert_eq!(got, want);
        let mut state = PartsState::default();
        state.take_back(got, tail);
        assert_eq!(state.parts, old);
    }
}
