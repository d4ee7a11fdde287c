//! CPU: hot API patterns, functions that mean a loop over the system's
//! state: process/thread enumeration (the blog's
//! `CreateToolhelp32Snapshot`/`Process32NextW`), registry polling, file
//! polling. Each function on the stack of enough samples is named with
//! the module that calls it most and the distinct stacks it is seen on.

use super::{thousands, Category, Finding, FindingView};
use crate::tree::butterfly::ROOT_CALLER;
use crate::{ButterflyRequest, ButterflyTarget, Engine, Filters, NeighborBy};

/// A function is named from this share of all samples on its stack.
pub const MIN_SHARE: f64 = 0.005;

/// (pattern, function names).
pub const PATTERNS: [(&str, &[&str]); 3] = [
    (
        "process/thread enumeration",
        &[
            "CreateToolhelp32Snapshot",
            "Process32First",
            "Process32FirstW",
            "Process32Next",
            "Process32NextW",
            "Thread32First",
            "Thread32Next",
            "Module32FirstW",
            "Module32NextW",
            "EnumProcesses",
            "EnumProcessModules",
            "NtQuerySystemInformation",
        ],
    ),
    (
        "registry polling",
        &[
            "RegOpenKeyExW",
            "RegOpenKeyExA",
            "RegQueryValueExW",
            "RegQueryValueExA",
            "RegGetValueW",
            "RegEnumKeyExW",
            "RegEnumValueW",
            "NtOpenKey",
            "NtOpenKeyEx",
            "NtQueryValueKey",
        ],
    ),
    (
        "file polling",
        &[
            "GetFileAttributesW",
            "GetFileAttributesExW",
            "FindFirstFileW",
            "FindFirstFileExW",
            "FindNextFileW",
            "NtQueryAttributesFile",
            "NtQueryFullAttributesFile",
            "NtQueryDirectoryFile",
        ],
    ),
];

/// The pattern a `module!function` label belongs to.
pub(crate) fn pattern_of(label: &str) -> Option<&'static str> {
    let name = label.rsplit('!').next()?;
    PATTERNS
        .iter()
        .find(|(_, names)| names.contains(&name))
        .map(|(p, _)| *p)
}

pub(crate) fn run(engine: &Engine) -> Vec<Finding> {
    let tree = engine.call_tree();
    let mut out = Vec::new();
    for f in 0..engine.funcs().len() as u32 {
        let label = engine.func_label(f);
        let Some(pattern) = pattern_of(&label) else {
            continue;
        };
        let req = ButterflyRequest {
            target: ButterflyTarget::Function(f),
            by: NeighborBy::Module,
            filters: Filters::default(),
        };
        let Ok(b) = engine.butterfly(&req) else {
            continue;
        };
        let n = b.inclusive.count;
        if n == 0 || (n as f64) < MIN_SHARE * b.total.count as f64 {
            continue;
        }
        let stacks = tree.func.iter().filter(|&&x| x == f).count();
        let caller = b
            .callers
            .iter()
            .find(|c| c.key != ROOT_CALLER)
            .map(|c| format!(", mostly called from {} ({})", c.label, thousands(c.count)))
            .unwrap_or_default();
        out.push(Finding {
            rule: "hot-api",
            category: Category::Cpu,
            title: format!(
                "{pattern}: {label} is on the stack of {} samples, on {} distinct call path{}{caller}",
                thousands(n),
                thousands(stacks as u64),
                if stacks == 1 { "" } else { "s" }
            ),
            figure: n as f64,
            unit: "samples",
            view: FindingView::butterfly(label, true),
        });
    }
    out.sort_by(|a, b| b.figure.total_cmp(&a.figure));
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn patterns_match_the_function_name_only() {
        assert_eq!(
            super::pattern_of("kernel32.dll!Process32NextW"),
            Some("process/thread enumeration")
        );
        assert_eq!(
            super::pattern_of("advapi32.dll!RegQueryValueExW"),
            Some("registry polling")
        );
        assert_eq!(super::pattern_of("x.dll!Process32NextWrapper"), None);
        assert_eq!(super::pattern_of("kernel32.dll!?"), None);
    }
}
