//! Joins stack events to the events they belong to and interns the result
//! into the stack prefix tree.
//!
//! A stack belongs to the event with the same timestamp and thread. It comes
//! inline (StackWalk) or as references to cached keys (StackKeyKernel /
//! StackKeyUser), each resolved to the next definition of that key at or
//! after the reference (KeyDelete / KeyRundown). The kernel half (leaf side)
//! and the user half are concatenated.

use super::images::{is_kernel_address, AddressMap};
use super::records::{FragmentSet, InlineStackRec, StackKeyDefRec, StackKeyRefRec};
use crate::frames::FrameTable;
use crate::images::{ImageTable, NONE};
use crate::stacks::StackTable;
use rustc_hash::FxHashMap;

#[derive(Debug, Clone, Copy)]
struct Part {
    event_ts: i64,
    tid: u32,
    fragment: u32,
    kernel: bool,
}

#[derive(Debug, Default, Clone, Copy)]
pub struct StackStats {
    pub inline_fragments: u64,
    pub key_refs: u64,
    pub unresolved_key_refs: u64,
    pub joined_events: u64,
}

pub struct StackResolver<'a> {
    parts: Vec<Part>,
    fragments: &'a FragmentSet,
    pointer_size: u32,
    frame_cache: FxHashMap<(u32, u64), u32>,
    user_cache: FxHashMap<(u32, u32), u32>,
    full_cache: FxHashMap<(u32, u32), u32>,
    pub stats: StackStats,
}

impl<'a> StackResolver<'a> {
    pub fn new(
        inline: &[InlineStackRec],
        refs: &[StackKeyRefRec],
        defs: &[StackKeyDefRec],
        fragments: &'a FragmentSet,
        pointer_size: u32,
    ) -> StackResolver<'a> {
        let is_kernel_fragment = |f: &[u64]| -> bool {
            f.last()
                .is_some_and(|&a| is_kernel_address(a, pointer_size))
        };
        let mut parts = Vec::with_capacity(inline.len() + refs.len());
        let mut stats = StackStats::default();
        for r in inline {
            let f = fragments.get(r.fragment);
            parts.push(Part {
                event_ts: r.event_ts,
                tid: r.tid,
                fragment: r.fragment,
                kernel: is_kernel_fragment(f),
            });
            stats.inline_fragments += 1;
        }
        // Definitions per (kernel?, key), in time order (defs are sorted).
        let mut def_index: FxHashMap<(bool, u64), Vec<(i64, u32)>> = FxHashMap::default();
        for d in defs {
            let kernel = is_kernel_fragment(fragments.get(d.fragment));
            def_index
                .entry((kernel, d.key))
                .or_default()
                .push((d.ts, d.fragment));
        }
        for r in refs {
            stats.key_refs += 1;
            let kernel = !r.user;
            let found = def_index.get(&(kernel, r.key)).and_then(|list| {
                let i = list.partition_point(|&(ts, _)| ts < r.ts);
                list.get(i).map(|&(_, f)| f)
            });
            match found {
                Some(fragment) => parts.push(Part {
                    event_ts: r.event_ts,
                    tid: r.tid,
                    fragment,
                    kernel,
                }),
                None => stats.unresolved_key_refs += 1,
            }
        }
        parts.sort_by_key(|p| (p.event_ts, p.tid));
        StackResolver {
            parts,
            fragments,
            pointer_size,
            frame_cache: FxHashMap::default(),
            user_cache: FxHashMap::default(),
            full_cache: FxHashMap::default(),
            stats,
        }
    }

    /// Kernel and user fragments attached to the event at (ts, tid).
    fn find(&self, ts: i64, tid: u32) -> (Option<u32>, Option<u32>) {
        let i = self
            .parts
            .partition_point(|p| (p.event_ts, p.tid) < (ts, tid));
        let mut kernel = None;
        let mut user = None;
        for p in self.parts[i..]
            .iter()
            .take_while(|p| p.event_ts == ts && p.tid == tid)
        {
            if p.kernel {
                kernel = Some(p.fragment);
            } else {
                user = Some(p.fragment);
            }
        }
        (kernel, user)
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
        if kernel.is_none() && user.is_none() {
            return None;
        }
        self.stats.joined_events += 1;
        let user_node = match user {
            None => NONE,
            Some(u) => match self.user_cache.get(&(process, u)) {
                Some(&n) => n,
                None => {
                    let f = self.fragments.get(u);
                    let n = self.intern_frames(
                        NONE, f, process, time_ns, images, addresses, frames, stacks,
                    );
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
                    let f = self.fragments.get(k);
                    let n = self.intern_frames(
                        user_node, f, process, time_ns, images, addresses, frames, stacks,
                    );
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
        let mut node = parent;
        for &addr in leaf_first.iter().rev() {
            let f = self.frame(process, addr, time_ns, images, addresses, frames);
            node = stacks.intern(node, f);
        }
        node
    }

    /// The frame row for an address seen in `process`.
    pub fn frame(
        &mut self,
        process: u32,
        addr: u64,
        time_ns: i64,
        images: &ImageTable,
        addresses: &AddressMap,
        frames: &mut FrameTable,
    ) -> u32 {
        // Kernel addresses mean the same in every process.
        let key_process = if is_kernel_address(addr, self.pointer_size) {
            NONE
        } else {
            process
        };
        if let Some(&f) = self.frame_cache.get(&(key_process, addr)) {
            return f;
        }
        let f = match addresses.lookup(images, process, addr, time_ns) {
            Some(img) => {
                let i = img as usize;
                frames.intern_module_frame(images.module[i], addr - images.base[i])
            }
            None => frames.intern_raw_frame(key_process, addr),
        };
        self.frame_cache.insert((key_process, addr), f);
        f
    }
}
