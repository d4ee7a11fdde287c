//! What the event tables built after samples share: thread and process
//! attribution at a time, and stack joins, over the partly built trace.

use super::images::AddressMap;
use super::lifetimes::{self, InstanceIndex};
use super::stacks::StackResolver;
use crate::images::NONE;
use crate::time::Clock;
use crate::Trace;

pub struct Joiner<'r, 'a> {
    pub clock: Clock,
    pub t: &'r mut Trace,
    pub tidx: &'r InstanceIndex,
    pub pidx: &'r InstanceIndex,
    pub addresses: &'r AddressMap,
    pub resolver: &'r mut StackResolver<'a>,
    /// Events whose thread id matched no thread instance.
    pub unattributed: u64,
}

impl Joiner<'_, '_> {
    /// Thread row of `tid` at `time` (the instance alive then, else the
    /// nearest, as for samples) and its process row; `NONE`s if unknown.
    pub fn thread_at(&mut self, tid: u32, time: i64) -> (u32, u32) {
        // -1: the event names no thread (not counted as unattributed).
        if tid == u32::MAX {
            return (NONE, NONE);
        }
        let t = &self.t.threads;
        match self.tidx.find(tid, time, &t.start, &t.end) {
            Some((row, _)) => (row, t.process.get(row as usize).copied().unwrap_or(NONE)),
            None => {
                self.unattributed += 1;
                (NONE, NONE)
            }
        }
    }

    /// Process row of `pid` at `time`, `NONE` if no process event names it.
    pub fn process_at(&self, pid: u32, time: i64) -> u32 {
        if self.pidx.rows(pid).is_empty() {
            return NONE;
        }
        lifetimes::owner(&self.t.processes, self.pidx, pid, time)
    }

    /// Stack walked for the event at raw (ts, tid), `NONE` if none.
    pub fn stack(&mut self, ts: i64, tid: u32, process: u32, time: i64) -> u32 {
        let t = &mut *self.t;
        self.resolver
            .resolve(
                ts,
                tid,
                process,
                time,
                &t.images,
                self.addresses,
                &mut t.frames,
                &mut t.stacks,
            )
            .unwrap_or(NONE)
    }

    /// The frame row of a code address (a DPC's routine) in `process`
    /// (`NONE`: kernel images only), as a stack's frame would be.
    pub fn frame(&mut self, process: u32, addr: u64, time: i64) -> u32 {
        let t = &mut *self.t;
        self.resolver.frame(
            process,
            addr,
            time,
            &t.images,
            self.addresses,
            &mut t.frames,
        )
    }

    /// Stack of a leaf-first fragment carried by the event itself.
    pub fn fragment_stack(&mut self, fragment: u32, process: u32, time: i64) -> u32 {
        let t = &mut *self.t;
        self.resolver.resolve_fragment(
            fragment,
            process,
            time,
            &t.images,
            self.addresses,
            &mut t.frames,
            &mut t.stacks,
        )
    }
}
