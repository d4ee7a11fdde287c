//! Idle periods written as context switches from a list: a test writes
//! what it chooses and computes what CPU Idle States must show from the
//! same list. Layout: Microsoft's MSNT_SystemTrace `CSwitch` class
//! (EventType 36, version 2: NewThreadId, OldThreadId, NewThreadPriority,
//! OldThreadPriority, PreviousCState, SpareByte, OldThreadWaitReason,
//! OldThreadWaitMode, OldThreadState, OldThreadWaitIdealProcessor,
//! NewThreadWaitTime, Reserved), as TraceEvent's `CSwitchTraceData` reads
//! it. Thread 0 is a processor's idle thread; the switch away from it
//! carries the C-state the processor was in (PreviousCState).

use crate::prng::Rng;
use etl::writer::{EtlWriter, KernelHeader, Record, WriterConfig};
use std::io::{self, Cursor};

const CSWITCH: u16 = 0x0524;

/// One context switch on `cpu` at `time` (100 ns ticks after `ts0`).
#[derive(Debug, Clone)]
pub struct Switch {
    pub cpu: u16,
    pub time: i64,
    pub new_tid: u32,
    pub old_tid: u32,
    pub previous_c_state: u8,
}

#[derive(Debug, Clone, Default)]
pub struct IdleEvents {
    pub cpus: u16,
    pub switches: Vec<Switch>,
}

fn payload(s: &Switch) -> Vec<u8> {
    let mut b = s.new_tid.to_le_bytes().to_vec();
    b.extend(s.old_tid.to_le_bytes());
    b.extend([9u8, 8, s.previous_c_state, 0]); // priorities, PreviousCState, spare
    b.extend([6u8, 1, 5, 0]); // UserRequest, user mode, Waiting, ideal processor
    b.extend(0u32.to_le_bytes()); // NewThreadWaitTime
    b.extend(0u32.to_le_bytes()); // Reserved
    b
}

/// The trace of `m`: every switch in time order, in its CPU's buffer.
pub fn write_idle(m: &IdleEvents) -> io::Result<Vec<u8>> {
    let config = WriterConfig {
        pointer_size: 8,
        cpus: m.cpus.max(1),
        logger_name: "etlscope synth cpu-idle-states".into(),
        log_file_name: "cpu-idle-states.etl".into(),
        ..WriterConfig::default()
    };
    let ts0 = config.ts0;
    let mut w = EtlWriter::new(Cursor::new(Vec::new()), config)?;
    let mut switches: Vec<&Switch> = m.switches.iter().collect();
    switches.sort_by_key(|s| (s.time, s.cpu));
    for s in switches {
        let h = KernelHeader {
            hook_id: CSWITCH,
            version: 2,
            pid: 0,
            tid: 0,
        };
        let pl = payload(s);
        w.write(s.cpu, &Record::system(ts0 + s.time, h, &pl))?;
    }
    let (cursor, _) = w.finish()?;
    Ok(cursor.into_inner())
}

/// A small scenario (`etlscope synth cpu-idle-states`): four CPUs that
/// alternate between a thread and their idle thread, `periods` idle
/// periods in all, in C1, C2 or C3 (deeper ones longer).
pub fn demo_idle(seed: u64, periods: usize) -> IdleEvents {
    let mut rng = Rng::new(seed);
    let mut m = IdleEvents {
        cpus: 4,
        switches: Vec::new(),
    };
    let mut now = [10_000i64; 4];
    for i in 0..periods {
        let cpu = i % 4;
        let tid = 1_000 + cpu as u32;
        // Busy, then idle.
        now[cpu] += 200 + rng.below(2_000) as i64;
        m.switches.push(Switch {
            cpu: cpu as u16,
            time: now[cpu],
            new_tid: 0,
            old_tid: tid,
            previous_c_state: 0,
        });
        let c_state = 1 + rng.below(3) as u8;
        now[cpu] += i64::from(c_state) * (500 + rng.below(3_000) as i64);
        m.switches.push(Switch {
            cpu: cpu as u16,
            time: now[cpu],
            new_tid: tid,
            old_tid: 0,
            previous_c_state: c_state,
        });
    }
    m
}
