//! CPU Idle States: one row per time a CPU ran its idle thread, with the
//! C-state it was in. From context switches (MSNT_SystemTrace `CSwitch`
//! class, TraceEvent's `CSwitchTraceData`): a switch to thread 0 (the
//! processor's idle thread) starts an idle period; the next switch on that
//! CPU away from thread 0 ends it, and its PreviousCState is the C-state
//! the processor was in (WPA's "Previous C-State" of CPU Usage (Precise)).

#[derive(Debug, Clone, Default)]
pub struct IdleStateTable {
    /// ns since trace start, sorted.
    pub start: Vec<i64>,
    pub end: Vec<i64>,
    pub cpu: Vec<u16>,
    pub c_state: Vec<u8>,
}

impl IdleStateTable {
    pub fn len(&self) -> usize {
        self.start.len()
    }
    pub fn is_empty(&self) -> bool {
        self.start.is_empty()
    }
}
