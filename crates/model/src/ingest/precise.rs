//! CPU Usage (Precise): context switches and ready-thread events, in time
//! order, with wait and ready times derived from the events themselves.
//!
//! Stacks: TraceEvent reports a CSwitch under its new thread
//! (`CSwitchTraceData.FixupData` puts payload @0 NewThreadId into a header
//! ThreadId of -1; "NewThreadID == ThreadID") and TraceLog joins stacks by
//! (time, ThreadID), so the switch-in stack is looked up by (timestamp, new
//! tid). A ReadyThread (`DispatcherReadyThreadTraceData`) keeps the header
//! thread, the readying one: its stack is looked up by (timestamp, header tid).

use super::records::{CSwitchRec, ReadyRec};
use super::Joiner;
use crate::cpu_precise::{ContextSwitchTable, ReadyThreadTable, UNKNOWN};
use crate::images::NONE;
use rustc_hash::FxHashMap;

/// KTHREAD_STATE Ready: switched out by preemption, not waiting.
const STATE_READY: i8 = 1;

pub fn build_precise(
    cswitches: &[CSwitchRec],
    readies: &[ReadyRec],
    j: &mut Joiner<'_, '_>,
) -> (ContextSwitchTable, ReadyThreadTable) {
    let mut cs = ContextSwitchTable::default();
    let mut rt = ReadyThreadTable::default();
    // tid -> (switch-out time ns, state it was left in).
    let mut switched_out: FxHashMap<u32, (i64, i8)> = FxHashMap::default();
    // tid -> ready-table row of the latest ReadyThread for it.
    let mut readied: FxHashMap<u32, u32> = FxHashMap::default();
    // cpu -> row of its latest switch, to close that row's run time.
    let mut running: FxHashMap<u16, u32> = FxHashMap::default();
    let (mut i, mut k) = (0, 0);
    loop {
        // At equal times a thread is readied before it is switched in.
        let take_ready = match (readies.get(k), cswitches.get(i)) {
            (Some(r), Some(c)) => r.ts <= c.ts,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (None, None) => break,
        };
        if take_ready {
            let Some(r) = readies.get(k) else { break };
            k += 1;
            let time = j.clock.to_ns(r.ts);
            let (thread, _) = j.thread_at(r.c.readied_tid, time);
            let (readying, process) = j.thread_at(r.readying_tid, time);
            let stack = j.stack(r.ts, r.readying_tid, process, time);
            let row = rt.time.len() as u32;
            rt.time.push(time);
            rt.cpu.push(r.cpu);
            rt.thread.push(thread);
            rt.readying_thread.push(readying);
            rt.adjust_reason.push(r.c.adjust_reason);
            rt.adjust_increment.push(r.c.adjust_increment);
            rt.flags.push(r.c.flags);
            rt.stack.push(stack);
            readied.insert(r.c.readied_tid, row);
            continue;
        }
        let Some(c) = cswitches.get(i) else { break };
        i += 1;
        let time = j.clock.to_ns(c.ts);
        let sw = &c.c;
        let (new_thread, new_process) = j.thread_at(sw.new_tid, time);
        let (old_thread, _) = j.thread_at(sw.old_tid, time);
        let out = switched_out.remove(&sw.new_tid);
        let ready_row = readied.remove(&sw.new_tid).filter(|&r| {
            let rtime = rt.time.get(r as usize).copied().unwrap_or(i64::MIN);
            out.is_none_or(|(o, _)| rtime >= o)
        });
        let (wait, ready) = match (ready_row, out) {
            (Some(r), out) => {
                let rtime = rt.time.get(r as usize).copied().unwrap_or(time);
                (
                    out.map_or(UNKNOWN, |(o, _)| rtime.saturating_sub(o)),
                    time.saturating_sub(rtime),
                )
            }
            (None, Some((o, STATE_READY))) => (0, time.saturating_sub(o)),
            (None, Some((o, _))) => (time.saturating_sub(o), 0),
            (None, None) => (UNKNOWN, UNKNOWN),
        };
        let stack = j.stack(c.ts, sw.new_tid, new_process, time);
        cs.time.push(time);
        cs.cpu.push(c.cpu);
        cs.new_thread.push(new_thread);
        cs.old_thread.push(old_thread);
        cs.old_wait_reason.push(sw.old_thread_wait_reason as u8);
        cs.old_state.push(sw.old_thread_state as u8);
        cs.new_priority.push(sw.new_thread_priority);
        cs.old_priority.push(sw.old_thread_priority);
        cs.new_wait_time_raw.push(sw.new_thread_wait_time);
        cs.wait_ns.push(wait);
        cs.ready_ns.push(ready);
        cs.ready_event.push(ready_row.unwrap_or(NONE));
        cs.stack.push(stack);
        cs.run_ns.push(0);
        let row = cs.time.len() as u32 - 1;
        if let Some(prev) = running.insert(c.cpu, row) {
            if let (Some(r), Some(&t0)) =
                (cs.run_ns.get_mut(prev as usize), cs.time.get(prev as usize))
            {
                *r = time.saturating_sub(t0);
            }
        }
        switched_out.insert(sw.old_tid, (time, sw.old_thread_state));
    }
    (cs, rt)
}
