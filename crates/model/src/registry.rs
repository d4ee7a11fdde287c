//! Registry: one row per registry operation, its key named in full
//! through the KCB rundown.

use crate::strings::StrId;
pub use etl::decode::registry::op_name;

#[derive(Debug, Clone, Default)]
pub struct RegistryTable {
    /// When the operation began (InitialTime), ns since trace start.
    pub time: Vec<i64>,
    /// Until the event (its end); 0 when InitialTime is missing.
    pub duration_ns: Vec<i64>,
    pub thread: Vec<u32>,
    pub process: Vec<u32>,
    /// The registry opcode (`etl::decode::registry::op_name`).
    pub opcode: Vec<u8>,
    /// Full key path: the KeyHandle's KCB name, then KeyName.
    pub key: Vec<StrId>,
    /// Value operations' value name, else empty.
    pub value: Vec<StrId>,
    /// NTSTATUS.
    pub status: Vec<u32>,
    pub stack: Vec<u32>,
}

impl RegistryTable {
    pub fn len(&self) -> usize {
        self.time.len()
    }
    pub fn is_empty(&self) -> bool {
        self.time.is_empty()
    }
}
