//! Processor frequency changes written from a list: a test writes what it
//! chooses and computes what Processor Frequency must show from the same
//! list. Layout: Microsoft-Windows-Kernel-Processor-Power's
//! ProcessorPerfStateChange (event 10) as its manifest gives it (our
//! built-in schema pack, from the Windows 10 manifests TDH reconstructs:
//! version 1 = UInt32 State, UInt32 Speed (MHz), UInt16 Group, UInt8
//! Number, UInt32 Performance), level Information, keyword Perf.

use crate::prng::Rng;
use etl::writer::{EtlWriter, EventHeaderFields, Record, WriterConfig};
use etl::Guid;
use std::io::{self, Cursor};

/// Microsoft-Windows-Kernel-Processor-Power.
pub const KERNEL_PROCESSOR_POWER: Guid = Guid::from_u128(0x0f67e49f_fe51_4e9f_b490_6f2948cc6027);

/// One frequency change: `cpu` = Group * 64 + Number; `time` in 100 ns
/// ticks after `ts0`.
#[derive(Debug, Clone)]
pub struct Change {
    pub cpu: u16,
    pub time: i64,
    pub mhz: u32,
    pub state: u32,
    pub performance: u32,
}

#[derive(Debug, Clone, Default)]
pub struct PowerEvents {
    pub cpus: u16,
    pub changes: Vec<Change>,
}

fn payload(c: &Change) -> Vec<u8> {
    let mut b = c.state.to_le_bytes().to_vec();
    b.extend(c.mhz.to_le_bytes());
    b.extend((c.cpu / 64).to_le_bytes()); // Group
    b.push((c.cpu % 64) as u8); // Number
    b.extend(c.performance.to_le_bytes());
    b
}

/// The trace of `m`: every change in time order, in its CPU's buffer.
pub fn write_power(m: &PowerEvents) -> io::Result<Vec<u8>> {
    let config = WriterConfig {
        pointer_size: 8,
        cpus: m.cpus.max(1),
        logger_name: "etlscope synth processor-frequency".into(),
        log_file_name: "processor-frequency.etl".into(),
        ..WriterConfig::default()
    };
    let ts0 = config.ts0;
    let mut w = EtlWriter::new(Cursor::new(Vec::new()), config)?;
    let mut changes: Vec<&Change> = m.changes.iter().collect();
    changes.sort_by_key(|c| (c.time, c.cpu));
    for c in changes {
        let h = EventHeaderFields {
            provider: KERNEL_PROCESSOR_POWER,
            id: 10,
            version: 1,
            level: 4,
            keyword: 0x2, // Perf
            ..EventHeaderFields::default()
        };
        let pl = payload(c);
        w.write(c.cpu % m.cpus.max(1), &Record::event(ts0 + c.time, h, &pl))?;
    }
    let (cursor, _) = w.finish()?;
    Ok(cursor.into_inner())
}

/// A small scenario (`etlscope synth processor-frequency`): `changes`
/// frequency changes over four CPUs, between 800 MHz and 4.2 GHz.
pub fn demo_power(seed: u64, changes: usize) -> PowerEvents {
    let mut rng = Rng::new(seed);
    let mut m = PowerEvents {
        cpus: 4,
        changes: Vec::new(),
    };
    for i in 0..changes {
        let state = rng.below(8) as u32;
        m.changes.push(Change {
            cpu: (i % 4) as u16,
            time: 10_000 + 2_500 * i as i64 + rng.below(1_000) as i64,
            mhz: 4_200 - 400 * state,
            state,
            performance: 100 - 10 * state,
        });
    }
    m
}
