//! Findings: what in a trace deserves a look, each with its figure and the
//! view (a link, and the `etlscope export` command) that shows that figure.
//! One rule per file, each with its threshold; every rule asks the query
//! engine (`Engine::table`, `Engine::butterfly`, `table::flat::group`).

mod commit_growth;
mod cpu_share;
mod disk_io;
mod dpc_isr;
mod file_opens;
mod file_polling;
mod hard_faults;
mod health;
mod heap_churn;
mod hot_api;
mod per_process;
mod retransmits;
mod third_party;
mod view;
mod waits;

pub use view::{FindingView, ViewKind};

use crate::Engine;
use std::time::{Duration, Instant};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Category {
    Cpu,
    Io,
    Memory,
    Health,
}

impl Category {
    pub fn name(self) -> &'static str {
        match self {
            Category::Cpu => "cpu",
            Category::Io => "io",
            Category::Memory => "memory",
            Category::Health => "health",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    /// The rule's name (its file), e.g. `third-party-module`.
    pub rule: &'static str,
    pub category: Category,
    /// One sentence with the figures; trace strings in it are untrusted.
    pub title: String,
    /// The number the view shows (in `unit`).
    pub figure: f64,
    pub unit: &'static str,
    pub view: FindingView,
}

/// Every rule's findings, in rule order (CPU, I/O, memory, health).
pub fn run(engine: &Engine) -> Vec<Finding> {
    run_timed(engine, |_, _| {})
}

/// `run`, telling `timed` each step's name and how long it took (the
/// profile example prints them).
pub fn run_timed(engine: &Engine, mut timed: impl FnMut(&str, Duration)) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut step = |name: &str, f: &dyn Fn() -> Vec<Finding>| {
        let t = Instant::now();
        out.extend(f());
        timed(name, t.elapsed());
    };
    let procs = cpu_share::process_rows(engine);
    step("cpu-process", &|| cpu_share::processes(engine, &procs));
    step("cpu-module", &|| cpu_share::modules(engine));
    step("third-party", &|| third_party::run(engine, &procs));
    step("hot-api", &|| hot_api::run(engine));
    step("long-dpc-isr", &|| dpc_isr::long(engine));
    step("dpc-isr-drivers", &|| dpc_isr::drivers(engine));
    step("file-opens", &|| file_opens::run(engine));
    step("file-polling", &|| file_polling::run(engine));
    step("disk-io", &|| disk_io::run(engine));
    step("hard-faults", &|| hard_faults::run(engine));
    step("retransmits", &|| retransmits::run(engine));
    step("commit-growth", &|| commit_growth::run(engine));
    step("heap-churn", &|| heap_churn::run(engine));
    step("waits", &|| waits::run(engine));
    step("health", &|| health::run(engine));
    out
}

/// Idle: the process rows of PID 0 ("Idle", a Windows 7 trace's "System
/// Idle Process"). Its samples are a CPU with nothing to run, never a
/// culprit: the CPU findings count without them, numerator and base.
pub(crate) fn idle_rows(engine: &Engine) -> Vec<u32> {
    let pids = &engine.trace().processes.pid;
    (0..pids.len() as u32)
        .filter(|&p| pids.get(p as usize) == Some(&0))
        .collect()
}

/// Filters that leave Idle's samples out.
pub(crate) fn non_idle(engine: &Engine) -> crate::Filters {
    crate::Filters {
        columns: vec![crate::scan::filter::ColumnFilter {
            column: crate::Column::Process,
            values: idle_rows(engine),
            exclude: true,
        }],
        ..Default::default()
    }
}

/// `view` without Idle's samples (`x=Process=Idle (0)` in the link,
/// `--filter 'Process!=Idle (0)'` in the export).
pub(crate) fn without_idle(engine: &Engine, mut view: FindingView) -> FindingView {
    for p in idle_rows(engine) {
        view.excludes.push((
            "Process".to_string(),
            engine.label(crate::Column::Process, p),
        ));
    }
    view
}

/// A count cell of a grouped table (Count sums a column of ones).
pub(crate) fn count_of(c: Option<&crate::CellValue>) -> Option<u64> {
    match c? {
        crate::CellValue::Count(n) => Some(*n),
        crate::CellValue::Number(n) => u64::try_from(*n).ok(),
        _ => None,
    }
}

/// `n` with thousands separators, as the UI shows counts.
pub(crate) fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn thousands_groups_by_three() {
        assert_eq!(super::thousands(0), "0");
        assert_eq!(super::thousands(999), "999");
        assert_eq!(super::thousands(4663), "4,663");
        assert_eq!(super::thousands(1_234_567), "1,234,567");
    }
}
