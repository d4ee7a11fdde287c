//! Generic Events: every event no specialised table took, with its payload
//! kept in one byte arena and fields decoded on demand.

use crate::strings::StrId;
use etl::Guid;

#[derive(Debug, Clone, Default)]
pub struct GenericEventTable {
    pub time: Vec<i64>,
    /// Row in `providers`.
    pub provider: Vec<u32>,
    /// Event id (EventHeader) or opcode-derived id (classic); kernel hook id for kernel events.
    pub id: Vec<u16>,
    pub opcode: Vec<u8>,
    pub task: Vec<u16>,
    pub level: Vec<u8>,
    pub version: Vec<u8>,
    pub keyword: Vec<u64>,
    pub pid: Vec<u32>,
    pub tid: Vec<u32>,
    pub cpu: Vec<u16>,
    /// Event name when known (TraceLogging, well-known manifests), else empty.
    pub name: Vec<StrId>,
    /// Payload bytes: `arena[payload_start[i]..payload_start[i + 1]]`.
    pub payload_start: Vec<u64>,
    pub arena: Vec<u8>,
    /// TraceLogging schema blob per event (row in `schemas`), `u32::MAX` if none.
    pub schema: Vec<u32>,
    pub stack: Vec<u32>,
    pub providers: ProviderTable,
    pub schemas: Vec<Vec<u8>>,
    pub pointer_size: Vec<u8>,
}

#[derive(Debug, Clone, Default)]
pub struct ProviderTable {
    pub guid: Vec<Option<Guid>>,
    /// Kernel hook group for kernel events without a GUID.
    pub kernel_group: Vec<Option<u8>>,
    pub name: Vec<StrId>,
}

impl GenericEventTable {
    pub fn len(&self) -> usize {
        self.time.len()
    }
    pub fn is_empty(&self) -> bool {
        self.time.is_empty()
    }
    pub fn payload(&self, i: usize) -> &[u8] {
        let s = self.payload_start.get(i).copied().unwrap_or(0) as usize;
        let e = self
            .payload_start
            .get(i + 1)
            .map_or(self.arena.len(), |&e| e as usize);
        self.arena.get(s..e).unwrap_or(&[])
    }
}
