//! Processor Frequency: one row per interval a CPU ran at one frequency,
//! from Microsoft-Windows-Kernel-Processor-Power's ProcessorPerfStateChange
//! (event 10, versions 0-4 in its manifest, our built-in schema pack:
//! UInt32 State, UInt32 Speed (MHz), UInt16 Group, UInt8 Number, then
//! from version 1 UInt32 Performance (% of nominal)). Each change lasts
//! until that CPU's next change, the last until the end of the trace.
//! The events stay in Generic Events as well; this reads their payloads.

use crate::generic::GenericEventTable;
use etl::Guid;

/// Microsoft-Windows-Kernel-Processor-Power.
pub const KERNEL_PROCESSOR_POWER: Guid = Guid::from_u128(0x0f67e49f_fe51_4e9f_b490_6f2948cc6027);
/// ProcessorPerfStateChange.
pub const PERF_STATE_CHANGE: u16 = 10;
/// Logical processors per group (KAFFINITY's width): CPU = Group * 64 + Number.
const GROUP_CPUS: u32 = 64;

#[derive(Debug, Clone, Default)]
pub struct FrequencyTable {
    /// ns since trace start, sorted.
    pub start: Vec<i64>,
    pub end: Vec<i64>,
    pub cpu: Vec<u32>,
    pub mhz: Vec<u32>,
    pub state: Vec<u32>,
    /// Percent of nominal performance; `u32::MAX` before version 1.
    pub performance: Vec<u32>,
}

impl FrequencyTable {
    pub fn len(&self) -> usize {
        self.start.len()
    }
    pub fn is_empty(&self) -> bool {
        self.start.is_empty()
    }
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

/// The frequency intervals of `g`'s ProcessorPerfStateChange rows; a
/// payload too short for its fields is left to Generic Events only.
pub fn build_frequency(g: &GenericEventTable, end_of_trace: i64) -> FrequencyTable {
    let power = g
        .providers
        .guid
        .iter()
        .map(|p| *p == Some(KERNEL_PROCESSOR_POWER))
        .collect::<Vec<_>>();
    let mut t = FrequencyTable::default();
    // Row in `t` of each CPU's open interval.
    let mut open: rustc_hash::FxHashMap<u32, usize> = Default::default();
    for i in 0..g.len() {
        let ours = g.provider.get(i).and_then(|&p| power.get(p as usize)) == Some(&true)
            && g.id.get(i) == Some(&PERF_STATE_CHANGE);
        if !ours {
            continue;
        }
        let b = g.payload(i);
        let (Some(state), Some(speed), Some(group), Some(&number)) = (
            u32_at(b, 0),
            u32_at(b, 4),
            b.get(8..10).map(|x| u16::from_le_bytes([x[0], x[1]])),
            b.get(10),
        ) else {
            continue;
        };
        let version = g.version.get(i).copied().unwrap_or(0);
        let performance = match version {
            0 => u32::MAX,
            _ => u32_at(b, 11).unwrap_or(u32::MAX),
        };
        let cpu = u32::from(group) * GROUP_CPUS + u32::from(number);
        let time = g.time.get(i).copied().unwrap_or(0);
        if let Some(&row) = open.get(&cpu) {
            t.end[row] = time;
        }
        open.insert(cpu, t.start.len());
        t.start.push(time);
        t.end.push(end_of_trace.max(time));
        t.cpu.push(cpu);
        t.mhz.push(speed);
        t.state.push(state);
        t.performance.push(performance);
    }
    t
}
