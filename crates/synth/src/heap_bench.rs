//! The heap benchmark trace (scripts/bench `heap`): a heap-tracing
//! session's events at scale, written as they are made (no list in
//! memory). Sixteen threads of four processes allocate blocks, each alloc
//! with a stack walk (from a pool of distinct stacks); a block is freed
//! 1,000 events after it was made, one in eight reallocated instead, one
//! in sixteen never freed (AIFO). Layouts as `memory_events`.

use crate::memory_events::{rundown, Proc, EXE_BASE};
use crate::prng::Rng;
use etl::writer::{EtlWriter, KernelHeader, Record, WriteSummary, WriterConfig};
use std::collections::VecDeque;
use std::io::{self, Seek, Write};

const P: u8 = 8;

/// Write `events` heap events (their stack walks not counted).
pub fn write_heap_bench<W: Write + Seek>(
    sink: W,
    events: u64,
    seed: u64,
) -> io::Result<(W, WriteSummary)> {
    let config = WriterConfig {
        pointer_size: P,
        cpus: 4,
        logger_name: "etlscope synth heap-bench".into(),
        log_file_name: "heap-bench.etl".into(),
        ..WriterConfig::default()
    };
    let ts0 = config.ts0;
    let mut w = EtlWriter::new(sink, config)?;
    let processes: Vec<Proc> = (0..4u32)
        .map(|i| Proc {
            pid: 1000 + 100 * i,
            exe: format!("heap{i}.exe"),
            tids: (1..=4).map(|t| 1000 + 100 * i + t).collect(),
        })
        .collect();
    rundown(&mut w, ts0, &processes)?;
    let mut rng = Rng::new(seed);
    // 4,096 distinct stacks of 4 to 12 frames in the exe.
    let stacks: Vec<Vec<u64>> = (0..4096)
        .map(|_| {
            (0..4 + rng.below(9))
                .map(|_| EXE_BASE + 0x10 * (1 + rng.below(0x8000)))
                .collect()
        })
        .collect();
    // Blocks waiting to be freed: (pid, tid, address, size).
    let mut pending: VecDeque<(u32, u32, u64, u64)> = VecDeque::new();
    let mut next_address = 0x1_0000_0000u64;
    let mut payload = Vec::with_capacity(64);
    let mut written = 0u64;
    let mut ts = ts0 + 1_000;
    while written < events {
        ts += 10;
        let cpu = (written % 4) as u16;
        let due = pending.len() >= 1_000;
        let (hook, pid, tid) = if due {
            let (pid, tid, address, size) = pending.pop_front().unwrap_or_default();
            payload.clear();
            payload.extend(0x500u64.to_le_bytes());
            if rng.below(8) == 0 {
                let new = next_address;
                next_address += 0x100;
                for x in [new, address, size * 2, size] {
                    payload.extend(x.to_le_bytes());
                }
                pending.push_back((pid, tid, new, size * 2));
                (0x1022, pid, tid)
            } else {
                payload.extend(address.to_le_bytes());
                (0x1024, pid, tid)
            }
        } else {
            let p = &processes[rng.below(4) as usize];
            let tid = p.tids[rng.below(4) as usize];
            let (address, size) = (next_address, 16 + 8 * rng.below(64));
            next_address += 0x100;
            payload.clear();
            for x in [0x500u64, size, address] {
                payload.extend(x.to_le_bytes());
            }
            if rng.below(16) != 0 {
                pending.push_back((p.pid, tid, address, size));
            }
            (0x1021, p.pid, tid)
        };
        if hook != 0x1023 {
            payload.extend(0u32.to_le_bytes()); // SourceId
        }
        let h = KernelHeader {
            hook_id: hook,
            version: 2,
            pid,
            tid,
        };
        w.write(cpu, &Record::system(ts, h, &payload))?;
        if hook == 0x1021 || hook == 0x1022 {
            let stack = &stacks[rng.below(stacks.len() as u64) as usize];
            let pl = crate::kernel::stack_walk(P, ts, pid, tid, stack);
            let rec = Record::perfinfo(ts + 1, 0x1820, 2, &pl);
            w.write(cpu, &rec)?;
        }
        written += 1;
    }
    w.finish()
}
