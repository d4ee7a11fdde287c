//! DPC/ISR rows from the sorted records: entry from InitialTime, routine
//! resolved through the kernel's image map, Fragmented from the nesting
//! of rows on each CPU.

use super::records::DpcIsrRec;
use super::Joiner;
use crate::dpc_isr::{fragmented, DpcIsrTable};
use crate::images::NONE;
use rustc_hash::FxHashMap;

pub fn build_dpc_isr(recs: &[DpcIsrRec], j: &mut Joiner<'_, '_>) -> DpcIsrTable {
    // (enter, exit, record): an InitialTime after the event (a damaged
    // trace) makes a zero-length row at the event.
    let mut rows: Vec<(i64, i64, &DpcIsrRec)> = recs
        .iter()
        .map(|r| {
            let exit = j.clock.to_ns(r.ts);
            let enter = if r.d.initial_time > 0 && r.d.initial_time <= r.ts {
                j.clock.to_ns(r.d.initial_time)
            } else {
                exit
            };
            (enter, exit, r)
        })
        .collect();
    // By entry, enclosing rows before the rows they enclose.
    rows.sort_by_key(|&(s, e, r)| (s, std::cmp::Reverse(e), r.cpu));
    let mut per_cpu: FxHashMap<u16, Vec<usize>> = FxHashMap::default();
    for (i, &(_, _, r)) in rows.iter().enumerate() {
        per_cpu.entry(r.cpu).or_default().push(i);
    }
    let mut frag = vec![0i64; rows.len()];
    for idx in per_cpu.values() {
        let spans: Vec<(i64, i64)> = idx.iter().map(|&i| (rows[i].0, rows[i].1)).collect();
        for (&i, f) in idx.iter().zip(fragmented(&spans)) {
            frag[i] = f;
        }
    }
    let mut t = DpcIsrTable::default();
    for ((enter, exit, r), f) in rows.into_iter().zip(frag) {
        t.enter.push(enter);
        t.inclusive_ns.push(exit.saturating_sub(enter));
        t.fragmented_ns.push(f);
        t.cpu.push(r.cpu);
        t.kind.push(r.d.kind);
        t.frame.push(j.frame(NONE, r.d.routine, enter));
        t.routine.push(r.d.routine);
        t.vector.push(r.d.vector);
    }
    t
}
