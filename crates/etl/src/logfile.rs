//! TRACE_LOGFILE_HEADER: the payload of the first event of the header buffer.

use crate::le::{i64_at, u32_at, u8_at, utf16z_at};

/// EVENT_TRACE_COMPRESSED_MODE in LogFileMode.
pub const LOG_FILE_MODE_COMPRESSED: u32 = 0x0400_0000;

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LogfileHeader {
    pub buffer_size: u32,
    pub major_version: u8,
    pub minor_version: u8,
    pub provider_version: u32,
    pub number_of_processors: u32,
    /// FILETIME (100 ns since 1601-01-01 UTC).
    pub end_time: i64,
    /// 100-ns units.
    pub timer_resolution: u32,
    pub log_file_mode: u32,
    pub buffers_written: u32,
    /// Pointer size of the kernel that wrote the trace (not of user providers).
    pub pointer_size: u32,
    pub events_lost: u32,
    pub cpu_speed_mhz: u32,
    /// Minutes west of UTC.
    pub timezone_bias: i32,
    pub boot_time: i64,
    pub perf_freq: i64,
    pub start_time: i64,
    /// 1 = QPC, 2 = system time, 3 = CPU cycle counter.
    pub clock_type: u32,
    pub buffers_lost: u32,
    pub logger_name: String,
    pub log_file_name: String,
}

impl LogfileHeader {
    /// Parse from the header event's payload.
    pub fn parse(p: &[u8]) -> Option<LogfileHeader> {
        let pointer_size = u32_at(p, 0x2C)?;
        let ps = match pointer_size {
            4 => 4usize,
            8 => 8,
            _ => return None,
        };
        let tz = 0x38 + 2 * ps;
        let boot = tz + 176;
        let names = boot + 32;
        let (logger_name, n) = utf16z_at(p, names).unwrap_or_default();
        let (log_file_name, _) = utf16z_at(p, names + n).unwrap_or_default();
        Some(LogfileHeader {
            buffer_size: u32_at(p, 0)?,
            major_version: u8_at(p, 4)?,
            minor_version: u8_at(p, 5)?,
            provider_version: u32_at(p, 8)?,
            number_of_processors: u32_at(p, 0x0C)?,
            end_time: i64_at(p, 0x10)?,
            timer_resolution: u32_at(p, 0x18)?,
            log_file_mode: u32_at(p, 0x20)?,
            buffers_written: u32_at(p, 0x24)?,
            pointer_size,
            events_lost: u32_at(p, 0x30)?,
            cpu_speed_mhz: u32_at(p, 0x34)?,
            timezone_bias: u32_at(p, tz)? as i32,
            boot_time: i64_at(p, boot)?,
            perf_freq: i64_at(p, boot + 8)?,
            start_time: i64_at(p, boot + 16)?,
            clock_type: u32_at(p, boot + 24)?,
            buffers_lost: u32_at(p, boot + 28)?,
            logger_name,
            log_file_name,
        })
    }

    /// Ticks per second of event timestamps, from the clock type.
    pub fn ticks_per_second(&self) -> f64 {
        match self.clock_type {
            2 => 1e7,
            3 if self.cpu_speed_mhz > 0 => self.cpu_speed_mhz as f64 * 1e6,
            _ if self.perf_freq > 0 => self.perf_freq as f64,
            _ => 1e7,
        }
    }

    pub fn is_compressed_mode(&self) -> bool {
        self.log_file_mode & LOG_FILE_MODE_COMPRESSED != 0
    }
}

/// Convert a FILETIME to an ISO 8601 UTC string with microseconds.
pub fn filetime_to_iso8601(ft: i64) -> String {
    // 1601-01-01 to 1970-01-01 in 100-ns units.
    const EPOCH_DIFF: i128 = 116_444_736_000_000_000;
    // In i128: a damaged header can hold any i64, and the shift must not overflow.
    let unix_100ns = ft as i128 - EPOCH_DIFF;
    // |unix_100ns| < 2^64, so whole seconds fit an i64.
    let secs = unix_100ns.div_euclid(10_000_000) as i64;
    let frac = unix_100ns.rem_euclid(10_000_000) / 10;
    let days = secs.div_euclid(86_400);
    let sod = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{frac:06}Z",
        sod / 3600,
        (sod / 60) % 60,
        sod % 60
    )
}

/// Howard Hinnant's days-to-civil algorithm.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filetime_iso() {
        assert_eq!(
            filetime_to_iso8601(116_444_736_000_000_000),
            "1970-01-01T00:00:00.000000Z"
        );
        // 2020-02-29T12:34:56.789Z
        let ft = 116_444_736_000_000_000 + 1_582_979_696_789 * 10_000;
        assert_eq!(filetime_to_iso8601(ft), "2020-02-29T12:34:56.789000Z");
    }

    #[test]
    fn filetime_extremes_do_not_overflow() {
        // Found by the etl_file fuzz target: a damaged header's start time.
        assert!(filetime_to_iso8601(i64::MIN).ends_with('Z'));
        assert!(filetime_to_iso8601(i64::MAX).ends_with('Z'));
    }
}
