//! DPC and ISR events written from a list: a test writes what it chooses
//! and computes what the DPC/ISR table must show from the same list.
//! Layouts: Microsoft's MSNT_SystemTrace `DPC` class (EventType 66
//! ThreadDPC, 68 DPC, 69 TimerDPC: InitialTime, ptr Routine) and `ISR`
//! class (EventType 67: InitialTime, ptr Routine, then ReturnValue,
//! Vector, Reserved), read as TraceEvent's `DPCTraceData` /
//! `ISRTraceData` and LibTrace's raw kernel decoder do (u8 ReturnValue,
//! u16 Vector, u8 Reserved; ISR-MSI, EventType 50, then u32
//! MessageNumber). Each event has a PerfInfo header at its exit time, in
//! its CPU's buffer; InitialTime is its entry on the same clock. The
//! drivers are kernel images of the System process's image rundown.

use crate::kernel::{self, hooks, versions, ImageFields};
use crate::prng::Rng;
use etl::writer::{EtlWriter, Record, WriterConfig};
use std::io::{self, Cursor};

const P: u8 = 8;

/// A kernel image (a driver) in the rundown.
#[derive(Debug, Clone)]
pub struct Driver {
    pub base: u64,
    pub size: u64,
    pub path: String,
}

/// One DPC or ISR run: `hook` 0x0F42 ThreadDPC, 0x0F43 ISR, 0x0F44 DPC,
/// 0x0F45 TimerDPC or 0x0F32 ISR-MSI; times in 100 ns ticks after `ts0`.
#[derive(Debug, Clone)]
pub struct Run {
    pub cpu: u16,
    pub hook: u16,
    pub enter: i64,
    pub exit: i64,
    pub routine: u64,
    pub vector: u16,
}

#[derive(Debug, Clone, Default)]
pub struct DpcIsrEvents {
    pub cpus: u16,
    pub drivers: Vec<Driver>,
    pub runs: Vec<Run>,
}

fn payload(r: &Run, ts0: i64) -> Vec<u8> {
    let mut b = (ts0 + r.enter).to_le_bytes().to_vec();
    b.extend(r.routine.to_le_bytes());
    if matches!(r.hook, 0x0F43 | 0x0F32) {
        b.push(1); // ReturnValue: claimed
        b.extend(r.vector.to_le_bytes());
        b.push(0); // Reserved
        if r.hook == 0x0F32 {
            b.extend(0u32.to_le_bytes()); // MessageNumber
        }
    }
    b
}

/// The trace of `m`: the drivers' image rundown, then every run at its
/// exit, in time order.
pub fn write_dpc_isr(m: &DpcIsrEvents) -> io::Result<Vec<u8>> {
    let config = WriterConfig {
        pointer_size: P,
        cpus: m.cpus.max(1),
        logger_name: "etlscope synth dpc-isr".into(),
        log_file_name: "dpc-isr.etl".into(),
        ..WriterConfig::default()
    };
    let ts0 = config.ts0;
    let mut w = EtlWriter::new(Cursor::new(Vec::new()), config)?;
    for d in &m.drivers {
        let f = ImageFields {
            base: d.base,
            size: d.size,
            pid: 0,
            checksum: 0,
            time_date_stamp: 0,
            file_name: &d.path,
        };
        let pl = kernel::image(P, &f);
        w.write(
            0,
            &Record::perfinfo(ts0 + 1, hooks::IMAGE_DC_START, versions::IMAGE, &pl),
        )?;
    }
    let mut runs: Vec<&Run> = m.runs.iter().collect();
    runs.sort_by_key(|r| (r.exit, r.cpu));
    for r in runs {
        let pl = payload(r, ts0);
        w.write(r.cpu, &Record::perfinfo(ts0 + r.exit, r.hook, 2, &pl))?;
    }
    let (cursor, _) = w.finish()?;
    Ok(cursor.into_inner())
}

/// A small scenario (`etlscope synth dpc-isr`): three drivers, `runs`
/// DPCs and ISRs on four CPUs, some ISRs nested inside DPCs, a few DPCs
/// over 1 ms.
pub fn demo_dpc_isr(seed: u64, runs: usize) -> DpcIsrEvents {
    let mut rng = Rng::new(seed);
    let drivers = vec![
        Driver {
            base: 0xFFFF_F800_1000_0000,
            size: 0x10_0000,
            path: r"\SystemRoot\system32\drivers\ndis.sys".into(),
        },
        Driver {
            base: 0xFFFF_F800_2000_0000,
            size: 0x10_0000,
            path: r"\SystemRoot\system32\drivers\storport.sys".into(),
        },
        Driver {
            base: 0xFFFF_F800_3000_0000,
            size: 0x10_0000,
            path: r"\SystemRoot\System32\drivers\dxgkrnl.sys".into(),
        },
    ];
    let hooks = [0x0F44u16, 0x0F45, 0x0F42, 0x0F43, 0x0F32];
    let mut m = DpcIsrEvents {
        cpus: 4,
        drivers,
        runs: Vec::new(),
    };
    for i in 0..runs {
        let cpu = (i % 4) as u16;
        let hook = hooks[rng.below(hooks.len() as u64) as usize];
        let d = &m.drivers[rng.below(3) as usize];
        let enter = 10_000 + 2_000 * i as i64;
        // Mostly tens of microseconds; one in 50 over 1 ms.
        let len = if i % 50 == 7 {
            12_000 + rng.below(5_000) as i64
        } else {
            50 + rng.below(400) as i64
        };
        let routine = d.base + 0x1000 * (1 + rng.below(4));
        m.runs.push(Run {
            cpu,
            hook,
            enter,
            exit: enter + len,
            routine,
            vector: 0x90 + (i % 8) as u16,
        });
        // An ISR that interrupted this DPC.
        if hook != 0x0F43 && hook != 0x0F32 && i % 5 == 0 && len > 40 {
            let base = m.drivers[0].base;
            m.runs.push(Run {
                cpu,
                hook: 0x0F43,
                enter: enter + 10,
                exit: enter + 30,
                routine: base + 0x5000,
                vector: 0xA0,
            });
        }
    }
    m
}
