//! File I/O, Disk I/O and hard-fault tables from the sorted records.

use super::fileio::{op_path, FileNames, OpEnds};
use super::paths::PathMapper;
use super::records::{Batch, DiskInitRec};
use super::Joiner;
use crate::images::NONE;
use crate::io::{DiskIoTable, FileIoTable, HardFaultKind, HardFaultTable};
use rustc_hash::FxHashMap;
use rustc_hash::FxHashSet;

pub fn build_file_io(
    b: &Batch,
    names: &FileNames,
    mapper: &PathMapper,
    j: &mut Joiner<'_, '_>,
) -> FileIoTable {
    let ends = OpEnds::new(&b.file_op_ends);
    let mut f = FileIoTable::default();
    for r in &b.file_ops {
        let time = j.clock.to_ns(r.ts);
        let (thread, mut process) = j.thread_at(r.tid, time);
        if process == NONE {
            if let Some(pid) = r.pid {
                process = j.process_at(pid, time);
            }
        }
        let stack = match (r.ext_stack, r.header_tid) {
            (Some(frag), _) => j.fragment_stack(frag, process, time),
            (None, Some(tid)) => j.stack(r.ts, tid, process, time),
            (None, None) => NONE,
        };
        let duration = ends
            .end(r.irp, r.ts)
            .filter(|_| r.irp != 0)
            .map_or(0, |e| j.clock.to_ns(e).saturating_sub(time));
        let path = op_path(r, names, mapper, &mut j.t.strings);
        f.time.push(time);
        f.duration_ns.push(duration);
        f.op.push(r.op);
        f.thread.push(thread);
        f.process.push(process);
        f.path.push(path);
        f.size.push(r.size);
        f.offset.push(r.offset);
        f.file_object.push(r.file_object);
        f.stack.push(stack);
        f.from_kernel_file_provider.push(r.kernel_file_provider);
    }
    f
}

/// Disk I/O: one row per completion, timed from its issue, its stack from
/// the init event with the same IRP (stacks attach to inits by (time, tid)).
pub fn build_disk_io(b: &Batch, names: &FileNames, j: &mut Joiner<'_, '_>) -> DiskIoTable {
    let mut inits: FxHashMap<u64, Vec<DiskInitRec>> = FxHashMap::default();
    for i in &b.disk_inits {
        inits.entry(i.irp).or_default().push(*i);
    }
    let tps = j.clock.ticks_per_second.max(1) as i128;
    let mut d = DiskIoTable::default();
    for r in &b.disk {
        let end = j.clock.to_ns(r.ts);
        let duration = r.response_ticks.map_or(0, |t| {
            (t as i128 * 1_000_000_000 / tps).min(i64::MAX as i128) as i64
        });
        // The latest init of this IRP at or before the completion.
        let init = inits.get(&r.irp).and_then(|list| {
            let k = list.partition_point(|i| i.ts <= r.ts);
            k.checked_sub(1).and_then(|k| list.get(k))
        });
        let start = end.saturating_sub(duration);
        let tid = r
            .issuing_tid
            .or(init.map(|i| i.tid))
            .or(r.header_tid)
            .unwrap_or(u32::MAX);
        let (thread, process) = j.thread_at(tid, start);
        let stack = match init {
            Some(i) => {
                let t = j.clock.to_ns(i.ts);
                j.stack(i.ts, i.tid, process, t)
            }
            None => NONE,
        };
        d.time.push(start);
        d.duration_ns.push(duration);
        d.op.push(r.kind);
        d.disk.push(r.disk);
        d.thread.push(thread);
        d.process.push(process);
        d.path
            .push(names.lookup(r.file_key, r.ts).unwrap_or_default());
        d.size.push(r.size);
        d.offset.push(r.offset);
        d.priority.push(r.priority);
        d.stack.push(stack);
    }
    d
}

pub fn build_hard_faults(b: &Batch, names: &FileNames, j: &mut Joiner<'_, '_>) -> HardFaultTable {
    let mut h = HardFaultTable::default();
    // File names of the images the trace loaded (paths name them in NT or
    // DOS form, so the name is what compares).
    let image_names: FxHashSet<String> =
        j.t.images
            .path
            .iter()
            .map(|&p| file_name(j.t.strings.get(p)))
            .collect();
    for r in &b.hard_faults {
        let end = j.clock.to_ns(r.ts);
        // InitialTime is a raw timestamp of the same clock; distrust one after the end.
        let start = if r.h.initial_time > 0 && r.h.initial_time <= r.ts {
            j.clock.to_ns(r.h.initial_time)
        } else {
            end
        };
        let (thread, process) = j.thread_at(r.h.tid, start);
        h.time.push(start);
        h.thread.push(thread);
        h.process.push(process);
        let path = names.lookup(r.h.file_object, r.ts).unwrap_or_default();
        let text = j.t.strings.get(path);
        let kind = HardFaultKind::of(text, image_names.contains(&file_name(text)));
        // The stack walked at the fault's end, on the faulting thread.
        let stack = j.stack(r.ts, r.h.tid, process, end);
        h.path.push(path);
        h.kind.push(kind);
        h.stack.push(stack);
        h.size.push(r.h.byte_count);
        h.offset.push(r.h.read_offset);
        h.duration_ns.push(end.saturating_sub(start));
        h.virtual_address.push(r.h.virtual_address);
    }
    h
}

fn file_name(path: &str) -> String {
    path.rsplit(['\\', '/'])
        .next()
        .unwrap_or("")
        .to_ascii_lowercase()
}
