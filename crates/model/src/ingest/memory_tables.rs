//! Page Faults and Registry from the sorted records.

use super::records::{PageFaultRec, RegistryRec};
use super::Joiner;
use crate::memory::PageFaultTable;
use crate::registry::RegistryTable;
use rustc_hash::FxHashMap;

pub fn build_page_faults(recs: &[PageFaultRec], j: &mut Joiner<'_, '_>) -> PageFaultTable {
    let mut t = PageFaultTable::default();
    for r in recs {
        let time = j.clock.to_ns(r.ts);
        let (thread, process) = j.thread_at(r.tid, time);
        let stack = j.stack(r.ts, r.tid, process, time);
        t.time.push(time);
        t.thread.push(thread);
        t.process.push(process);
        t.kind.push(r.f.kind);
        t.virtual_address.push(r.f.virtual_address);
        t.program_counter.push(r.f.program_counter);
        t.stack.push(stack);
    }
    t
}

/// Operations only: KCB events name keys (KCBCreate and the rundowns
/// name a KCB, KCBDelete forgets it) and are not rows. A KCB named only
/// later (the rundown at the trace's end names keys opened before it
/// started) names the operations before too.
pub fn build_registry(recs: &[RegistryRec], j: &mut Joiner<'_, '_>) -> RegistryTable {
    let mut last_name: FxHashMap<u64, &str> = FxHashMap::default();
    for r in recs.iter().filter(|r| r.r.names_kcb()) {
        last_name.insert(r.r.key_handle, &r.r.key_name);
    }
    let mut live: FxHashMap<u64, &str> = FxHashMap::default();
    let mut t = RegistryTable::default();
    for r in recs {
        let e = &r.r;
        if e.names_kcb() {
            live.insert(e.key_handle, &e.key_name);
            continue;
        }
        if e.opcode == 23 {
            live.remove(&e.key_handle);
            continue;
        }
        let end = j.clock.to_ns(r.ts);
        let start = if e.initial_time > 0 && e.initial_time <= r.ts {
            j.clock.to_ns(e.initial_time)
        } else {
            end
        };
        let (thread, process) = j.thread_at(r.tid, start);
        let stack = j.stack(r.ts, r.tid, process, end);
        let base = match e.key_handle {
            0 => None,
            h => live.get(&h).or_else(|| last_name.get(&h)).copied(),
        };
        let relative = if e.is_value_op() {
            ""
        } else {
            e.key_name.as_str()
        };
        let key = match (base, relative.is_empty()) {
            (Some(b), true) => b.to_string(),
            (Some(b), false) => format!("{b}\\{relative}"),
            (None, _) => relative.to_string(),
        };
        let value = if e.is_value_op() {
            e.key_name.as_str()
        } else {
            ""
        };
        let strings = &mut j.t.strings;
        t.key.push(strings.intern(&key));
        t.value.push(strings.intern(value));
        t.time.push(start);
        t.duration_ns.push(end.saturating_sub(start));
        t.thread.push(thread);
        t.process.push(process);
        t.opcode.push(e.opcode);
        t.status.push(e.status);
        t.stack.push(stack);
    }
    t
}
