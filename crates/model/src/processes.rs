//! Process instances: one row per (pid, lifetime). Pids are reused, so a
//! process is identified by its row index, or by pid + start time.

use crate::strings::StrId;

/// Start or end unknown: the process was alive before the trace (or after it).
pub const OPEN: i64 = i64::MIN;

#[derive(Debug, Clone, Default)]
pub struct ProcessTable {
    pub pid: Vec<u32>,
    pub parent_pid: Vec<u32>,
    pub session: Vec<u32>,
    /// Short image name, e.g. `explorer.exe`.
    pub name: Vec<StrId>,
    pub command_line: Vec<StrId>,
    /// ns since trace start; `OPEN` when the process already ran at trace start.
    pub start: Vec<i64>,
    /// ns since trace start; `OPEN` when it still ran at trace end.
    pub end: Vec<i64>,
    pub exit_status: Vec<i32>,
    /// EPROCESS address, unique while the process lives.
    pub unique_key: Vec<u64>,
}

impl ProcessTable {
    pub fn len(&self) -> usize {
        self.pid.len()
    }

    pub fn is_empty(&self) -> bool {
        self.pid.is_empty()
    }

    pub fn push(&mut self, pid: u32, name: StrId, start: i64) -> u32 {
        let i = self.pid.len() as u32;
        self.pid.push(pid);
        self.parent_pid.push(0);
        self.session.push(0);
        self.name.push(name);
        self.command_line.push(StrId::EMPTY);
        self.start.push(start);
        self.end.push(OPEN);
        self.exit_status.push(0);
        self.unique_key.push(0);
        i
    }

    /// Whether process `i` was alive at `t` (ns).
    pub fn alive_at(&self, i: usize, t: i64) -> bool {
        let s = self.start[i];
        let e = self.end[i];
        (s == OPEN || s <= t) && (e == OPEN || t <= e)
    }
}
