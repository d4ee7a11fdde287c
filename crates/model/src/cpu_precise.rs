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
    /// NewThreadWaitTime as the payload gives it. The MOF says only "wait
    /// time for the new thread" with no unit (the decoder's guess: clock
    /// interrupt ticks; no real trace here to check), so it is kept raw and
    /// `wait_ns` / `ready_ns` are derived from the events instead.
    pub new_wait_time_raw: Vec<u32>,
    /// New thread: from its previous switch-out to the ReadyThread that
    /// readied it (or to this switch-in when none did and it was waiting).
    /// `UNKNOWN` when its switch-out is not in the trace.
    pub wait_ns: Vec<i64>,
    /// New thread: from being readied (or preempted) to this switch-in.
    pub ready_ns: Vec<i64>,
    /// Row in the ready-thread table of the event that readied the new thread.
    pub ready_event: Vec<u32>,
    /// How long the new thread then ran: until the next switch on this CPU
    /// (WPA's CPU Usage), 0 for the last switch of a CPU.
    pub run_ns: Vec<i64>,
    /// Stack of the new thread at switch-in, `images::NONE` if none.
    pub stack: Vec<u32>,
}

/// `wait_ns` / `ready_ns` value when the trace does not say.
pub const UNKNOWN: i64 = -1;

/// KTHREAD_STATE names (`old_state`).
pub fn thread_state_name(state: u8) -> &'static str {
    match state {
        0 => "Initialized",
        1 => "Ready",
        2 => "Running",
        3 => "Standby",
        4 => "Terminated",
        5 => "Waiting",
        6 => "Transition",
        7 => "DeferredReady",
        8 => "GateWaitObsolete",
        9 => "WaitingForProcessInSwap",
        _ => "Unknown",
    }
}

/// KWAIT_REASON names (`old_wait_reason`).
pub fn wait_reason_name(reason: u8) -> &'static str {
    const NAMES: [&str; 38] = [
        "Executive",
        "FreePage",
        "PageIn",
        "PoolAllocation",
        "DelayExecution",
        "Suspended",
        "UserRequest",
        "WrExecutive",
        "WrFreePage",
        "WrPageIn",
        "WrPoolAllocation",
        "WrDelayExecution",
        "WrSuspended",
        "WrUserRequest",
        "WrEventPair",
        "WrQueue",
        "WrLpcReceive",
        "WrLpcReply",
        "WrVirtualMemory",
        "WrPageOut",
        "WrRendezvous",
        "WrKeyedEvent",
        "WrTerminated",
        "WrProcessInSwap",
        "WrCpuRateControl",
        "WrCalloutStack",
        "WrKernel",
        "WrResource",
        "WrPushLock",
        "WrMutex",
        "WrQuantumEnd",
        "WrDispatchInt",
        "WrPreempted",
        "WrYieldExecution",
        "WrFastMutex",
        "WrGuardedMutex",
        "WrRundown",
        "WrAlertByThreadId",
    ];
    NAMES.get(reason as usize).copied().unwrap_or("Unknown")
}

#[derive(Debug, Clone, Default)]
pub struct ReadyThreadTable {
    pub time: Vec<i64>,
    pub cpu: Vec<u16>,
    /// The thread made ready.
    pub thread: Vec<u32>,
    /// The thread that readied it (the event's own thread).
    pub readying_thread: Vec<u32>,
    pub adjust_reason: Vec<i8>,
    pub adjust_increment: Vec<i8>,
    pub flags: Vec<i8>,
    /// Stack of the readying thread, `images::NONE` if none.
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
