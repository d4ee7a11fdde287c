//! Context switches with stacks: two processes whose threads CPU 0
//! switches between, each CSwitch (v2) followed by the new thread's
//! StackWalk, frames drawn at random from three images (ntoskrnl.exe,
//! kernel32.dll and the process's own exe), no PDBs. For tests of CPU
//! Usage (Precise) over a written trace; deterministic from the seed.

use crate::kernel::{self, hooks, versions, ImageFields, ProcessFields, ThreadFields};
use crate::prng::Rng;
use etl::writer::{EtlWriter, KernelHeader, Record, WriterConfig};
use std::io::{self, Cursor};

const P: u8 = 8;
const CSWITCH: u16 = 0x0524;
/// (pid, exe, tids).
const PROCESSES: [(u32, &str, [u32; 2]); 2] =
    [(100, "a.exe", [101, 102]), (200, "b.exe", [201, 202])];
const KERNEL: (u64, &str) = (
    0xFFFF_F800_0000_0000,
    "\\SystemRoot\\system32\\ntoskrnl.exe",
);
const KERNEL32: (u64, &str) = (0x7FFA_0000_0000, "C:\\Windows\\System32\\kernel32.dll");
const EXE_BASE: u64 = 0x7FF6_0000_0000;
const IMAGE_SIZE: u64 = 0x10_0000;

/// CSwitch v2: new and old thread ids, priorities, wait reason, mode, state.
fn cswitch(new: u32, old: u32) -> Vec<u8> {
    let mut p = new.to_le_bytes().to_vec();
    p.extend(old.to_le_bytes());
    p.extend([9u8, 8, 0, 0]); // priorities new 9 / old 8, C-state, spare
    p.extend([6u8, 1, 5, 0]); // UserRequest, user mode, Waiting
    p.extend(0u32.to_le_bytes());
    p.extend(0u32.to_le_bytes());
    p
}

/// A trace of `switches` context switches 1 ms apart.
pub fn write_switches(seed: u64, switches: usize) -> io::Result<Vec<u8>> {
    let config = WriterConfig {
        pointer_size: P,
        cpus: 1,
        logger_name: "etlscope synth switches".into(),
        log_file_name: "switches.etl".into(),
        ..WriterConfig::default()
    };
    let ts0 = config.ts0;
    let mut w = EtlWriter::new(Cursor::new(Vec::new()), config)?;
    let image = |w: &mut EtlWriter<_>, pid: u32, base: u64, name: &str| {
        let f = ImageFields {
            base,
            size: IMAGE_SIZE,
            pid,
            checksum: 0,
            time_date_stamp: 0,
            file_name: name,
        };
        let pl = kernel::image(P, &f);
        w.write(
            0,
            &Record::perfinfo(ts0 + 30, hooks::IMAGE_DC_START, versions::IMAGE, &pl),
        )
    };
    image(&mut w, 0, KERNEL.0, KERNEL.1)?;
    for (pid, exe, tids) in PROCESSES {
        let f = ProcessFields {
            unique_process_key: 0xFFFF_8000_0000_0000 + u64::from(pid),
            pid,
            parent_pid: 4,
            session_id: 1,
            directory_table_base: 0x1AD000,
            image_file_name: exe,
            command_line: exe,
        };
        let pl = kernel::process(P, &f);
        w.write(
            0,
            &Record::perfinfo(ts0 + 10, hooks::PROCESS_DC_START, versions::PROCESS, &pl),
        )?;
        for tid in tids {
            let f = ThreadFields {
                pid,
                tid,
                stack_base: 0xFFFF_9000_0000_6000,
                stack_limit: 0xFFFF_9000_0000_0000,
                start_addr: EXE_BASE,
                win32_start_addr: EXE_BASE,
                teb_base: 0x7FFD_0000,
                base_priority: 8,
            };
            let h = KernelHeader {
                hook_id: hooks::THREAD_DC_START,
                version: versions::THREAD,
                pid,
                tid,
            };
            w.write(0, &Record::system(ts0 + 20, h, &kernel::thread(P, &f)))?;
        }
        image(&mut w, pid, KERNEL32.0, KERNEL32.1)?;
        image(&mut w, pid, EXE_BASE, &format!("C:\\app\\{exe}"))?;
    }
    let mut rng = Rng::new(seed);
    let mut old = 0u32;
    for i in 0..switches {
        let ts = ts0 + 1_000 + 10_000 * i as i64;
        let (pid, _, tids) = PROCESSES[rng.below(PROCESSES.len() as u64) as usize];
        let tid = tids[rng.below(2) as usize];
        let h = KernelHeader {
            hook_id: CSWITCH,
            version: 2,
            pid: 0,
            tid: 0,
        };
        w.write(0, &Record::system(ts, h, &cswitch(tid, old)))?;
        old = tid;
        // One switch in five has no stack.
        if rng.below(5) == 0 {
            continue;
        }
        let depth = 1 + rng.below(6) as usize;
        let frames: Vec<u64> = (0..depth)
            .map(|_| {
                let base = [KERNEL.0, KERNEL32.0, EXE_BASE][rng.below(3) as usize];
                base + 0x1000 * (1 + rng.below(8))
            })
            .collect();
        let pl = kernel::stack_walk(P, ts, pid, tid, &frames);
        w.write(
            0,
            &Record::perfinfo(ts + 2, hooks::STACK_WALK, versions::STACK_WALK, &pl),
        )?;
    }
    let (cursor, _) = w.finish()?;
    Ok(cursor.into_inner())
}
