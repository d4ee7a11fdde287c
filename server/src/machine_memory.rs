//! The machine's physical memory, for the default `--memory-budget-mb`: a
//! desktop user opening a 20 GB trace expects the machine's memory to be
//! used, not a fixed 8 GiB.

/// Budget when the flag is not given: three quarters of physical memory
/// (the rest for the OS, the browser and the page cache), else 8 GiB.
pub fn default_budget() -> u64 {
    physical_bytes().map_or(8 << 30, |b| b / 4 * 3)
}

/// Total physical memory, when the OS says.
pub fn physical_bytes() -> Option<u64> {
    imp::physical_bytes()
}

#[cfg(target_os = "linux")]
mod imp {
    /// `MemTotal` of /proc/meminfo (kB).
    pub fn physical_bytes() -> Option<u64> {
        let text = std::fs::read_to_string("/proc/meminfo").ok()?;
        parse_mem_total(&text)
    }

    pub fn parse_mem_total(text: &str) -> Option<u64> {
        let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
        let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        kb.checked_mul(1024)
    }
}

#[cfg(windows)]
mod imp {
    use windows::Win32::System::SystemInformation::{GlobalMemoryStatusEx, MEMORYSTATUSEX};

    pub fn physical_bytes() -> Option<u64> {
        let mut s = MEMORYSTATUSEX {
            dwLength: std::mem::size_of::<MEMORYSTATUSEX>() as u32,
            ..Default::default()
        };
        // SAFETY: `s` is a valid MEMORYSTATUSEX with dwLength set, as the call requires.
        unsafe { GlobalMemoryStatusEx(&mut s) }.ok()?;
        Some(s.ullTotalPhys)
    }
}

#[cfg(not(any(target_os = "linux", windows)))]
mod imp {
    pub fn physical_bytes() -> Option<u64> {
        None
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::imp::parse_mem_total;

    #[test]
    fn reads_mem_total() {
        let t = "MemTotal:       24576000 kB\nMemFree:  100 kB\n";
        assert_eq!(parse_mem_total(t), Some(24_576_000 * 1024));
        assert_eq!(parse_mem_total("MemFree: 1 kB\n"), None);
        assert!(super::physical_bytes().is_some_and(|b| b > 0));
        assert!(super::default_budget() > 0);
    }
}
