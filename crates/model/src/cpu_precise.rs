//! CPU Usage (Precise): context switches and ready-thread events.

#[derive(Debug, Clone, Default)]
pub struct ContextSwitchTable {
    /// ns since trace start, sorted.
    pub time: Vec<i64>,
    pub cpu: Vec<u16>,
    /// Thread rows (`images::NONE` when the tid could not be attributed).
    pub new_thread: Vec<u32>,
    pub old_thread: Vec<u32>,
    pub old_wait_reason: Vec<u8>,
    pub old_state: Vec<u8>,
    pub new_priority: Vec<i8>,
    pub old_priority: Vec<i8>,
    /// How long the new thread waited before this switch-in (ns).
    pub new_wait_ns: Vec<i64>,
    /// Stack of the new thread at switch-in, `images::NONE` if none.
    pub stack: Vec<u32>,
}

#[derive(Debug, Clone, Default)]
pub struct ReadyThreadTable {
    pub time: Vec<i64>,
    pub cpu: Vec<u16>,
    /// The thread made ready.
    pub thread: Vec<u32>,
    /// The thread that readied it (the event's own thread).
    pub readying_thread: Vec<u32>,
    pub stack: Vec<u32>,
}

impl ContextSwitchTable {
    pub fn len(&self) -> usize {
        self.time.len()
    }
    pub fn is_empty(&self) -> bool {
        self.time.is_empty()
    }
}

impl ReadyThreadTable {
    pub fn len(&self) -> usize {
        self.time.len()
    }
    pub fn is_empty(&self) -> bool {
        self.time.is_empty()
    }
}
