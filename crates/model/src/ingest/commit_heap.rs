//! VirtualAlloc commit lifetimes and heap blocks from the sorted records:
//! each alloc opens a row, the free that matches it closes it.

use super::records::{HeapRec, VirtualAllocRec};
use super::Joiner;
use crate::heap::HeapTable;
use crate::images::NONE;
use crate::processes::OPEN;
use crate::virtual_alloc::CommitTable;
use etl::decode::virtual_alloc::{MEM_COMMIT, MEM_DECOMMIT, MEM_RELEASE};
use etl::decode::HeapOp;
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;

pub fn build_commits(recs: &[VirtualAllocRec], j: &mut Joiner<'_, '_>) -> CommitTable {
    let mut c = CommitTable::default();
    // Per PID: committed rows by base (committed regions do not overlap).
    let mut open: FxHashMap<u32, BTreeMap<u64, usize>> = FxHashMap::default();
    for r in recs {
        let v = &r.v;
        let time = j.clock.to_ns(r.ts);
        let process = j.process_at(v.pid, time);
        if !v.free && v.flags & MEM_COMMIT != 0 && v.size > 0 {
            let rows = open.entry(v.pid).or_default();
            let end = v.base.saturating_add(v.size);
            // Committing committed pages changes nothing (no new charge, the
            // first commit's lifetime goes on): only the gaps between the
            // committed rows inside the range become rows.
            let mut gaps = Vec::new();
            let mut at = v.base;
            let mut inside: Vec<(u64, u64)> = rows
                .range(..end)
                .rev()
                .take_while(|&(&b, &row)| b.saturating_add(c.size[row]) > v.base)
                .map(|(&b, &row)| (b, b.saturating_add(c.size[row])))
                .collect();
            inside.reverse();
            for (b, e) in inside {
                if b > at {
                    gaps.push((at, b));
                }
                at = at.max(e);
            }
            if end > at {
                gaps.push((at, end));
            }
            if gaps.is_empty() {
                continue;
            }
            let (thread, _) = j.thread_at(r.tid, time);
            let stack = j.stack(r.ts, r.tid, process, time);
            for (b, e) in gaps {
                let row = c.len();
                c.process.push(process);
                c.base.push(b);
                c.size.push(e - b);
                c.flags.push(v.flags);
                c.alloc_time.push(time);
                c.free_time.push(OPEN);
                c.thread.push(thread);
                c.commit_stack.push(stack);
                c.decommit_stack.push(NONE);
                rows.insert(b, row);
            }
        } else if v.free && v.flags & (MEM_DECOMMIT | MEM_RELEASE) != 0 {
            let Some(rows) = open.get_mut(&v.pid) else {
                continue;
            };
            // A release of size 0 frees the region that starts at base.
            let end = match v.size {
                0 => rows
                    .get(&v.base)
                    .map_or(v.base, |&row| v.base + c.size[row]),
                n => v.base.saturating_add(n),
            };
            let hit: Vec<(u64, usize)> = rows
                .range(..end)
                .rev()
                .take_while(|&(&b, &row)| b.saturating_add(c.size[row]) > v.base)
                .map(|(&b, &row)| (b, row))
                .collect();
            if hit.is_empty() {
                continue;
            }
            let stack = j.stack(r.ts, r.tid, process, time);
            for (b, row) in hit {
                rows.remove(&b);
                let e = b + c.size[row];
                let (lo, hi) = (b.max(v.base), e.min(end));
                // What stays committed on either side is a row of its own.
                for (pb, pe) in [(b, lo), (hi, e)] {
                    if pe > pb {
                        let kept = c.len();
                        c.process.push(c.process[row]);
                        c.base.push(pb);
                        c.size.push(pe - pb);
                        c.flags.push(c.flags[row]);
                        c.alloc_time.push(c.alloc_time[row]);
                        c.free_time.push(OPEN);
                        c.thread.push(c.thread[row]);
                        c.commit_stack.push(c.commit_stack[row]);
                        c.decommit_stack.push(NONE);
                        rows.insert(pb, kept);
                    }
                }
                c.base[row] = lo;
                c.size[row] = hi - lo;
                c.free_time[row] = time;
                c.decommit_stack[row] = stack;
            }
        }
    }
    c
}

/// A heap event's process, thread, heap, time and stack: what a row it
/// opens or closes records.
struct At {
    pid: u32,
    process: u32,
    thread: u32,
    handle: u64,
    time: i64,
    stack: u32,
}

/// The blocks allocated so far: by (PID, address), and per (PID, heap)
/// for Destroy.
#[derive(Default)]
struct Blocks {
    live: FxHashMap<(u32, u64), usize>,
    heaps: FxHashMap<(u32, u64), Vec<usize>>,
}

impl Blocks {
    fn alloc(&mut self, h: &mut HeapTable, a: &At, address: u64, size: u64) {
        let row = h.len();
        push(h, a, address, size, a.time, OPEN, a.stack, NONE);
        self.live.insert((a.pid, address), row);
        self.heaps.entry((a.pid, a.handle)).or_default().push(row);
    }

    fn free(&mut self, h: &mut HeapTable, a: &At, address: u64) {
        match self.live.remove(&(a.pid, address)) {
            Some(row) => {
                h.free_time[row] = a.time;
                h.free_stack[row] = a.stack;
            }
            // Allocated before the trace: only its free is known.
            None => push(h, a, address, 0, OPEN, a.time, NONE, a.stack),
        }
    }

    fn destroy(&mut self, h: &mut HeapTable, a: &At) {
        for row in self.heaps.remove(&(a.pid, a.handle)).unwrap_or_default() {
            if h.free_time[row] == OPEN {
                self.live.remove(&(a.pid, h.address[row]));
                h.free_time[row] = a.time;
                h.free_stack[row] = a.stack;
            }
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn push(
    h: &mut HeapTable,
    a: &At,
    address: u64,
    size: u64,
    alloc_time: i64,
    free_time: i64,
    alloc_stack: u32,
    free_stack: u32,
) {
    h.process.push(a.process);
    h.handle.push(a.handle);
    h.address.push(address);
    h.size.push(size);
    h.alloc_time.push(alloc_time);
    h.free_time.push(free_time);
    h.thread.push(a.thread);
    h.alloc_stack.push(alloc_stack);
    h.free_stack.push(free_stack);
}

/// Realloc ends the old block and opens the new one (as a Free and an
/// Alloc at once); Destroy ends every block of its heap.
pub fn build_heap(recs: &[HeapRec], j: &mut Joiner<'_, '_>) -> HeapTable {
    let mut h = HeapTable::default();
    let mut blocks = Blocks::default();
    for r in recs {
        let time = j.clock.to_ns(r.ts);
        let (thread, mut process) = j.thread_at(r.tid, time);
        if process == NONE {
            process = j.process_at(r.pid, time);
        }
        let stack = j.stack(r.ts, r.tid, process, time);
        let a = At {
            pid: r.pid,
            process,
            thread,
            handle: r.e.handle,
            time,
            stack,
        };
        match r.e.op {
            HeapOp::Alloc { size, address } => blocks.alloc(&mut h, &a, address, size),
            HeapOp::Free { address } => blocks.free(&mut h, &a, address),
            HeapOp::Realloc {
                new_address,
                old_address,
                new_size,
                ..
            } => {
                blocks.free(&mut h, &a, old_address);
                blocks.alloc(&mut h, &a, new_address, new_size);
            }
            HeapOp::Destroy => blocks.destroy(&mut h, &a),
        }
    }
    h
}
