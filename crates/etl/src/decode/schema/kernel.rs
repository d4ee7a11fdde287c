//! Schemas of classic kernel events from our table ([`super::kernel_table`]),
//! and the process a network event belongs to: the kernel logs TcpIp and
//! UdpIp events with no process in the header (pid -1), the PID is the
//! payload's first field (PerfView attributes them the same way).

use super::kernel_table::{NAMES, TABLE};
use super::registry::SchemaKey;
use super::table::parse_line;
use super::EventSchema;
use crate::Event;

/// Every kernel schema of the table (parsed per registry, as the CLR one).
pub fn schemas() -> Vec<(SchemaKey, EventSchema)> {
    TABLE
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter_map(parse_line)
        .collect()
}

/// The name of a kernel event without a schema line, if we know it.
pub fn event_name(hook: u16) -> Option<&'static str> {
    NAMES.iter().find(|(h, _)| *h == hook).map(|(_, n)| *n)
}

/// Kernel groups whose events carry their process as a leading u32 PID.
const PID_FIRST_GROUPS: [u8; 2] = [0x06, 0x08];

/// The process of a kernel network event whose header has none.
pub fn payload_pid(ev: &Event<'_>) -> Option<u32> {
    if !ev.header_type.is_kernel() || ev.pid.is_some_and(|p| p != u32::MAX) {
        return None;
    }
    if !PID_FIRST_GROUPS.contains(&ev.group()?) {
        return None;
    }
    let b = ev.payload.get(..4)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kernel_line_parses() {
        let n = TABLE
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .count();
        let all = schemas();
        assert_eq!(all.len(), n);
        let (key, s) = &all[0];
        assert_eq!(
            *key,
            SchemaKey::Kernel {
                hook: 0x060A,
                version: 2
            }
        );
        assert_eq!(s.event_name, "TcpIp/Send");
    }

    #[test]
    fn names_windows_10_config_rundown() {
        // evntrace.h: EVENT_TRACE_TYPE_CONFIG_FLIGHTID 0x22, _BOOT 0x25,
        // _OPTICALMEDIA 18 in the SystemConfig group 0x0B.
        assert_eq!(event_name(0x0B22), Some("SystemConfig/FlightIds"));
        assert_eq!(event_name(0x0B25), Some("SystemConfig/Boot"));
        assert_eq!(event_name(0x0B12), Some("SystemConfig/OpticalMedia"));
    }
}
