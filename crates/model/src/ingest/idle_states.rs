//! The CPU Idle States table from the context switches (see
//! `crate::idle_states`).

use super::records::CSwitchRec;
use crate::idle_states::IdleStateTable;
use crate::time::Clock;
use rustc_hash::FxHashMap;

/// The idle thread's id on every processor.
const IDLE_TID: u32 = 0;

/// `cswitches` sorted by time. An idle period whose start is before the
/// trace (its CPU's first switch leaves thread 0) is left out: its length
/// is unknown.
pub(super) fn build_idle_states(cswitches: &[CSwitchRec], clock: &Clock) -> IdleStateTable {
    let mut t = IdleStateTable::default();
    // Per CPU: when its idle thread was switched in.
    let mut idle_since: FxHashMap<u16, i64> = FxHashMap::default();
    for c in cswitches {
        let time = clock.to_ns(c.ts);
        if c.c.old_tid == IDLE_TID {
            if let Some(start) = idle_since.remove(&c.cpu) {
                t.start.push(start);
                t.end.push(time.max(start));
                t.cpu.push(c.cpu);
                t.c_state.push(c.c.previous_c_state);
            }
        }
        if c.c.new_tid == IDLE_TID {
            idle_since.insert(c.cpu, time);
        }
    }
    // By start, as the other tables' rows are.
    let mut order: Vec<usize> = (0..t.len()).collect();
    order.sort_by_key(|&i| (t.start[i], t.cpu[i]));
    IdleStateTable {
        start: order.iter().map(|&i| t.start[i]).collect(),
        end: order.iter().map(|&i| t.end[i]).collect(),
        cpu: order.iter().map(|&i| t.cpu[i]).collect(),
        c_state: order.iter().map(|&i| t.c_state[i]).collect(),
    }
}
