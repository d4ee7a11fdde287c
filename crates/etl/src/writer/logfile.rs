//! TRACE_LOGFILE_HEADER: the payload of the header buffer's first event.

use super::config::WriterConfig;
use crate::logfile::LOG_FILE_MODE_COMPRESSED;

/// EVENT_TRACE_FILE_MODE_SEQUENTIAL.
const LOG_FILE_MODE_SEQUENTIAL: u32 = 0x0000_0001;

/// Offsets within the payload of the fields `EtlWriter::finish` rewrites.
pub const END_TIME_OFFSET: usize = 0x10;
pub const BUFFERS_WRITTEN_OFFSET: usize = 0x24;

/// TIME_ZONE_INFORMATION (172 bytes) plus the 4 bytes that align BootTime.
const TIME_ZONE_BLOCK: usize = 176;

/// Encode the header with `end_time` and `buffers_written` as given (the
/// writer patches them at the end).
pub fn encode(c: &WriterConfig, end_time: i64, buffers_written: u32) -> Vec<u8> {
    let p = c.pointer_size as usize;
    let mode = LOG_FILE_MODE_SEQUENTIAL
        | if c.compress {
            LOG_FILE_MODE_COMPRESSED
        } else {
            0
        };
    let mut o = Vec::with_capacity(0x118 + 2 * (c.logger_name.len() + c.log_file_name.len() + 2));
    o.extend_from_slice(&c.buffer_size.to_le_bytes());
    o.extend_from_slice(&[c.os_version.0, c.os_version.1, 0, 0]);
    o.extend_from_slice(&c.os_version.2.to_le_bytes());
    o.extend_from_slice(&u32::from(c.cpus).to_le_bytes());
    o.extend_from_slice(&end_time.to_le_bytes());
    o.extend_from_slice(&c.timer_resolution.to_le_bytes());
    // MaximumFileSize (MB): none.
    o.extend_from_slice(&0u32.to_le_bytes());
    o.extend_from_slice(&mode.to_le_bytes());
    o.extend_from_slice(&buffers_written.to_le_bytes());
    // StartBuffers.
    o.extend_from_slice(&1u32.to_le_bytes());
    o.extend_from_slice(&u32::from(c.pointer_size).to_le_bytes());
    o.extend_from_slice(&c.events_lost.to_le_bytes());
    o.extend_from_slice(&c.cpu_speed_mhz.to_le_bytes());
    // LoggerName and LogFileName pointers: meaningless in a file, zero.
    o.resize(o.len() + 2 * p, 0);
    let tz = o.len();
    o.resize(tz + TIME_ZONE_BLOCK, 0);
    o[tz..tz + 4].copy_from_slice(&c.timezone_bias.to_le_bytes());
    o.extend_from_slice(&c.boot_time.to_le_bytes());
    o.extend_from_slice(&c.perf_freq.to_le_bytes());
    o.extend_from_slice(&c.start_time.to_le_bytes());
    // ReservedFlags = clock type 1 (QPC).
    o.extend_from_slice(&1u32.to_le_bytes());
    o.extend_from_slice(&c.buffers_lost.to_le_bytes());
    for s in [&c.logger_name, &c.log_file_name] {
        for u in s.encode_utf16().chain([0]) {
            o.extend_from_slice(&u.to_le_bytes());
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::LogfileHeader;

    #[test]
    fn reader_parses_both_layouts() {
        for ps in [4u8, 8] {
            let c = WriterConfig {
                pointer_size: ps,
                cpus: 3,
                compress: ps == 4,
                ..WriterConfig::default()
            };
            let b = encode(&c, 42, 7);
            // Fixed part: 0x118 bytes for P = 8, 0x110 for P = 4 (format notes A.5).
            let fixed = if ps == 8 { 0x118 } else { 0x110 };
            assert_eq!(
                b.len(),
                fixed + 2 * (c.logger_name.len() + c.log_file_name.len() + 2)
            );
            let l = LogfileHeader::parse(&b).unwrap();
            assert_eq!(l.pointer_size, ps as u32);
            assert_eq!(l.number_of_processors, 3);
            assert_eq!(l.end_time, 42);
            assert_eq!(l.buffers_written, 7);
            assert_eq!(l.perf_freq, c.perf_freq);
            assert_eq!(l.start_time, c.start_time);
            assert_eq!(l.boot_time, c.boot_time);
            assert_eq!(l.clock_type, 1);
            assert_eq!(l.logger_name, c.logger_name);
            assert_eq!(l.log_file_name, c.log_file_name);
            assert_eq!(l.is_compressed_mode(), c.compress);
        }
    }
}
