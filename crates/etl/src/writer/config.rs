//! What the writer needs to know about the trace it produces.

use std::io;

/// Trace-wide settings; they end up in the TRACE_LOGFILE_HEADER and the
/// buffer headers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriterConfig {
    /// 4 or 8: picks the 32/64-bit header types and the log-file header layout.
    pub pointer_size: u8,
    /// Number of processors; events are written to CPUs `0..cpus`.
    pub cpus: u16,
    /// Session buffer size in bytes (header included); a multiple of 8.
    pub buffer_size: u32,
    /// Compress data buffers with MS-XCA plain LZ77.
    pub compress: bool,
    /// QPC value of the log-file header event: the trace's time zero.
    pub ts0: i64,
    /// QPC ticks per second.
    pub perf_freq: i64,
    /// FILETIME of `ts0`.
    pub start_time: i64,
    /// FILETIME of the machine's boot.
    pub boot_time: i64,
    pub cpu_speed_mhz: u32,
    /// 100-ns units.
    pub timer_resolution: u32,
    /// Minutes west of UTC.
    pub timezone_bias: i32,
    /// OS version written to the log-file header (major, minor, build).
    pub os_version: (u8, u8, u32),
    pub logger_id: u16,
    pub logger_name: String,
    pub log_file_name: String,
    /// Recorded as EventsLost / BuffersLost in the log-file header.
    pub events_lost: u32,
    pub buffers_lost: u32,
}

impl Default for WriterConfig {
    fn default() -> Self {
        WriterConfig {
            pointer_size: 8,
            cpus: 1,
            buffer_size: 64 * 1024,
            compress: false,
            ts0: 1_000_000_000,
            perf_freq: 10_000_000,
            // 2024-01-01T00:00:00Z
            start_time: 133_485_408_000_000_000,
            boot_time: 133_485_372_000_000_000,
            cpu_speed_mhz: 3000,
            timer_resolution: 156_250,
            timezone_bias: 0,
            os_version: (10, 0, 19045),
            logger_id: 1,
            logger_name: "etlscope writer".into(),
            log_file_name: "synthetic.etl".into(),
            events_lost: 0,
            buffers_lost: 0,
        }
    }
}

/// Smallest accepted buffer size: room for the log-file header event.
pub const MIN_BUFFER_SIZE: u32 = 1024;
/// ETW's own maximum buffer size.
pub const MAX_BUFFER_SIZE: u32 = 16 << 20;

impl WriterConfig {
    pub fn validate(&self) -> io::Result<()> {
        let bad = |m: String| Err(io::Error::new(io::ErrorKind::InvalidInput, m));
        if self.pointer_size != 4 && self.pointer_size != 8 {
            return bad(format!("pointer size {} is not 4 or 8", self.pointer_size));
        }
        if self.cpus == 0 {
            return bad("a trace needs at least one CPU".into());
        }
        if !(MIN_BUFFER_SIZE..=MAX_BUFFER_SIZE).contains(&self.buffer_size)
            || self.buffer_size & 7 != 0
        {
            return bad(format!(
                "buffer size {} must be a multiple of 8 in {MIN_BUFFER_SIZE}..={MAX_BUFFER_SIZE}",
                self.buffer_size
            ));
        }
        if self.perf_freq <= 0 {
            return bad("perf_freq must be positive".into());
        }
        Ok(())
    }

    /// FILETIME of a QPC timestamp.
    pub fn filetime_of(&self, ts: i64) -> i64 {
        let delta = (ts as i128 - self.ts0 as i128) * 10_000_000 / self.perf_freq.max(1) as i128;
        (self.start_time as i128 + delta).clamp(i64::MIN as i128, i64::MAX as i128) as i64
    }
}
