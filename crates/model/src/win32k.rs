//! Window in Focus and UI Delays, from Microsoft-Windows-Win32k's events
//! as its manifest gives them (our built-in schema pack, from the Windows
//! 10 manifests TDH reconstructs): FocusChange (event 2: UInt32
//! OldThreadId, UInt32 NewThreadId) and MessageCheckDelay (event 38:
//! UInt32 Flags, UInt32 DelayTimeMs, UInt32 TimeSinceInputRemoveMs, UInt32
//! TimeSinceOldestInputMs, then strings in newer builds). The events stay
//! in Generic Events as well.

use etl::Guid;

/// Microsoft-Windows-Win32k (Windows 10's and the older GUID the pack also names).
pub const WIN32K: [Guid; 2] = [
    Guid::from_u128(0x8c416c79_d49b_4f01_a467_e56d3aa8234c),
    Guid::from_u128(0xe7ef96be_969f_414f_97d7_3ddb7b558ccc),
];
pub const FOCUS_CHANGE: u16 = 2;
pub const MESSAGE_CHECK_DELAY: u16 = 38;

/// One row per time a thread had the focus: from its FocusChange to the
/// next; the last until the end of the trace (`close_focus`).
#[derive(Debug, Clone, Default)]
pub struct FocusTable {
    /// ns since trace start, sorted.
    pub start: Vec<i64>,
    pub end: Vec<i64>,
    pub tid: Vec<u32>,
    /// Thread and process rows of the focused thread (`NONE` when unknown).
    pub thread: Vec<u32>,
    pub process: Vec<u32>,
}

impl FocusTable {
    pub fn len(&self) -> usize {
        self.start.len()
    }
    pub fn is_empty(&self) -> bool {
        self.start.is_empty()
    }
}

/// One row per MessageCheckDelay: a thread that left its input waiting
/// `delay_ns` before it checked its messages (the event's time).
#[derive(Debug, Clone, Default)]
pub struct UiDelayTable {
    /// The event, ns since trace start, sorted.
    pub time: Vec<i64>,
    /// The event less the delay (when the input began to wait), not
    /// before the trace's start.
    pub start: Vec<i64>,
    pub delay_ns: Vec<i64>,
    pub oldest_input_ns: Vec<i64>,
    pub tid: Vec<u32>,
    pub thread: Vec<u32>,
    pub process: Vec<u32>,
}

impl UiDelayTable {
    pub fn len(&self) -> usize {
        self.time.len()
    }
    pub fn is_empty(&self) -> bool {
        self.time.is_empty()
    }
}

/// The last focus period, open while the events are read, ends with the trace.
pub fn close_focus(f: &mut FocusTable, end_of_trace: i64) {
    if let (Some(e), Some(&s)) = (f.end.last_mut(), f.start.last()) {
        if *e == crate::processes::OPEN {
            *e = end_of_trace.max(s);
        }
    }
}
