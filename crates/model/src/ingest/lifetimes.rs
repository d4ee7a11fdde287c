//! Process and thread lifetimes from start/end/rundown records in time order.

use super::records::{Lifetime, ProcessRec, ThreadRec};
use crate::processes::{ProcessTable, OPEN};
use crate::strings::StringTable;
use crate::threads::ThreadTable;
use crate::time::Clock;
use rustc_hash::FxHashMap;

/// Rows per pid / tid in time order, to find the instance alive at a time.
#[derive(Debug, Default)]
pub struct InstanceIndex {
    by_id: FxHashMap<u32, Vec<u32>>,
}

impl InstanceIndex {
    fn add(&mut self, id: u32, row: u32) {
        self.by_id.entry(id).or_default().push(row);
    }

    /// The row for `id` alive at `t`; else the nearest one in time (counted
    /// as uncertain by the caller via the `exact` flag).
    pub fn find(&self, id: u32, t: i64, start: &[i64], end: &[i64]) -> Option<(u32, bool)> {
        let rows = self.by_id.get(&id)?;
        let mut best: Option<(u32, i64)> = None;
        for &r in rows.iter().rev() {
            let (s, e) = (start[r as usize], end[r as usize]);
            let after_start = s == OPEN || s <= t;
            let before_end = e == OPEN || t <= e;
            if after_start && before_end {
                return Some((r, true));
            }
            let dist = if !after_start { s - t } else { t - e };
            if best.is_none_or(|b| dist < b.1) {
                best = Some((r, dist));
            }
        }
        best.map(|b| (b.0, false))
    }

    pub fn rows(&self, id: u32) -> &[u32] {
        self.by_id.get(&id).map_or(&[], |v| v)
    }
}

pub fn build_processes(
    recs: &[ProcessRec],
    clock: &Clock,
    strings: &mut StringTable,
) -> (ProcessTable, InstanceIndex) {
    let mut t = ProcessTable::default();
    let mut idx = InstanceIndex::default();
    let mut current: FxHashMap<u32, u32> = FxHashMap::default();
    for r in recs {
        let time = clock.to_ns(r.ts);
        let cur = current.get(&r.pid).copied();
        let row = match (r.kind, cur) {
            (Lifetime::Start, Some(c))
                if t.end[c as usize] == OPEN
                    && t.unique_key[c as usize] == r.unique_key
                    && r.unique_key != 0 =>
            {
                c
            }
            (Lifetime::Start, _) => {
                if let Some(c) = cur {
                    // A reused pid without an end event: close the old instance.
                    if t.end[c as usize] == OPEN {
                        t.end[c as usize] = time;
                    }
                }
                new_row(&mut t, &mut idx, &mut current, r.pid, time)
            }
            (Lifetime::DcStart, Some(c)) => c,
            // Defunct: a process that exited but whose object is still
            // referenced, logged at rundown after its End. The same process,
            // not another instance of its pid.
            (Lifetime::Defunct, Some(c)) => c,
            (Lifetime::DcStart, None) => new_row(&mut t, &mut idx, &mut current, r.pid, OPEN),
            (Lifetime::End | Lifetime::DcEnd, Some(c)) if t.end[c as usize] == OPEN => c,
            (Lifetime::End | Lifetime::DcEnd | Lifetime::Defunct, _) => {
                new_row(&mut t, &mut idx, &mut current, r.pid, OPEN)
            }
        };
        let i = row as usize;
        let ended = t.end[i] != OPEN;
        if r.kind == Lifetime::End || (r.kind == Lifetime::Defunct && !ended) {
            t.end[i] = time;
            t.exit_status[i] = r.exit_status;
        }
        // An end event's kernel name is cut to 14 characters: it does not
        // replace the full name the start gave.
        let had = strings.get(t.name[i]);
        if !r.name.is_empty() && !super::cut_names::is_cut_of(&r.name, had) {
            t.name[i] = strings.intern(&r.name);
        }
        if !r.command_line.is_empty() {
            t.command_line[i] = strings.intern(&r.command_line);
        }
        if r.parent_pid != 0 || t.parent_pid[i] == 0 {
            t.parent_pid[i] = r.parent_pid;
        }
        t.session[i] = r.session;
        if r.unique_key != 0 {
            t.unique_key[i] = r.unique_key;
        }
    }
    super::cut_names::complete_cut_names(&mut t, strings);
    ensure_idle_and_system(&mut t, &mut idx, strings);
    (t, idx)
}

/// A row named "Unknown" (open at both ends) for every pid in `pids` that no
/// process event describes: WPA's "Unknown (pid)". Pid 0 and 4 exist already.
pub fn add_undescribed(
    t: &mut ProcessTable,
    idx: &mut InstanceIndex,
    pids: impl Iterator<Item = u32>,
    strings: &mut StringTable,
) {
    let unknown = strings.intern("Unknown");
    for pid in pids {
        if idx.rows(pid).is_empty() {
            let row = t.push(pid, unknown, OPEN);
            idx.add(pid, row);
        }
    }
}

fn new_row(
    t: &mut ProcessTable,
    idx: &mut InstanceIndex,
    current: &mut FxHashMap<u32, u32>,
    pid: u32,
    start: i64,
) -> u32 {
    let row = t.push(pid, crate::strings::StrId::EMPTY, start);
    idx.add(pid, row);
    current.insert(pid, row);
    row
}

/// Idle (pid 0) and System (pid 4) always exist so kernel images and idle
/// samples have a home even in traces without their rundown.
fn ensure_idle_and_system(
    t: &mut ProcessTable,
    idx: &mut InstanceIndex,
    strings: &mut StringTable,
) {
    for (pid, name) in [(0u32, "Idle"), (4u32, "System")] {
        if idx.rows(pid).is_empty() {
            let row = t.push(pid, strings.intern(name), OPEN);
            idx.add(pid, row);
        } else {
            for &r in idx.rows(pid) {
                if t.name[r as usize] == crate::strings::StrId::EMPTY {
                    t.name[r as usize] = strings.intern(name);
                }
            }
        }
    }
}

pub fn build_threads(
    recs: &[ThreadRec],
    clock: &Clock,
    processes: &ProcessTable,
    process_index: &InstanceIndex,
    strings: &mut StringTable,
) -> (ThreadTable, InstanceIndex) {
    let mut t = ThreadTable::default();
    let mut idx = InstanceIndex::default();
    let mut current: FxHashMap<u32, u32> = FxHashMap::default();
    for r in recs {
        let time = clock.to_ns(r.ts);
        let cur = current.get(&r.tid).copied();
        // tid 0 is the idle thread of every CPU: one row is enough.
        let same_process = |c: u32| {
            let p = t.process[c as usize] as usize;
            processes.pid.get(p) == Some(&r.pid)
        };
        let row = match (r.kind, cur) {
            (Lifetime::Start, Some(c)) if r.tid == 0 && same_process(c) => c,
            (Lifetime::Start, c) => {
                if let Some(c) = c {
                    if t.end[c as usize] == OPEN {
                        t.end[c as usize] = time;
                    }
                }
                let p = owner(processes, process_index, r.pid, time);
                let row = t.push(r.tid, p, time);
                idx.add(r.tid, row);
                current.insert(r.tid, row);
                row
            }
            (_, Some(c)) if t.end[c as usize] == OPEN && same_process(c) => c,
            (_, _) => {
                let p = owner(processes, process_index, r.pid, time);
                let row = t.push(r.tid, p, OPEN);
                idx.add(r.tid, row);
                current.insert(r.tid, row);
                row
            }
        };
        let i = row as usize;
        if r.kind == Lifetime::End {
            t.end[i] = time;
        }
        if r.start_address != 0 {
            t.start_address[i] = r.start_address;
        }
        if let Some(n) = r.name.as_deref().filter(|n| !n.is_empty()) {
            t.name[i] = strings.intern(n);
        }
    }
    (t, idx)
}

/// The process row for `pid` at `time`, creating nothing: pids with no
/// process event map to the nearest instance, or to row 0 (Idle) if none.
pub fn owner(processes: &ProcessTable, idx: &InstanceIndex, pid: u32, time: i64) -> u32 {
    idx.find(pid, time, &processes.start, &processes.end)
        .map(|(r, _)| r)
        .or_else(|| idx.rows(0).first().copied())
        .unwrap_or(0)
}
