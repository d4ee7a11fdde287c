//! System configuration software rundown: services (0x0B0F) and PnP devices
//! (0x0B16). Sources: TE-K `SystemConfigServicesTraceData`,
//! `SystemConfigPnPTraceData` (WMI_PNP_RECORD_V3..V5 of ntwmi.h); MOF
//! classes SystemConfig_Services, SystemConfig_PnP.

use super::reader::{Reader, Result};
use super::Decode;
use crate::{Event, Guid};

/// 0x0B0F Services. From v2: u32 ProcessId, u32 ServiceState, u32
/// SubProcessTag, then NUL-terminated ServiceName, DisplayName, ProcessName;
/// v3 appends two more: the load-order group (`TDI`, `Event Log`) and the
/// svchost group (`netsvcs`), as the real v3 bytes show (TE-K reads only
/// the first three). Before v2: fixed strings of 34, 256 and 34 units, then
/// u32 ProcessId (652 bytes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Service {
    pub pid: u32,
    /// SERVICE_STATUS dwCurrentState: 1 stopped, 4 running, ...
    pub state: u32,
    pub sub_process_tag: u32,
    pub name: String,
    pub display_name: String,
    pub process_name: String,
    pub load_order_group: String,
    pub svchost_group: String,
}

impl<'a> Decode<'a> for Service {
    const NAME: &'static str = "Service";

    fn read(ev: &Event<'a>, r: &mut Reader<'a>) -> Result<Service> {
        if ev.version < 2 {
            let name = r.fixed_utf16(34)?;
            let display_name = r.fixed_utf16(256)?;
            let process_name = r.fixed_utf16(34)?;
            return Ok(Service {
                pid: r.u32()?,
                state: 0,
                sub_process_tag: 0,
                name,
                display_name,
                process_name,
                load_order_group: String::new(),
                svchost_group: String::new(),
            });
        }
        Ok(Service {
            pid: r.u32()?,
            state: r.u32()?,
            sub_process_tag: r.u32()?,
            name: r.utf16z()?,
            display_name: r.utf16z()?,
            process_name: r.utf16z()?,
            load_order_group: v3_string(ev, r)?,
            svchost_group: v3_string(ev, r)?,
        })
    }
}

/// 0x0B16 PnP. Up to v3: three u32 lengths, then DeviceID, Description and
/// FriendlyName. v4: ClassGuid, u32 UpperFilterCount, u32 LowerFilterCount;
/// v5 adds u32 DevStatus and DevProblem; from v4 the strings go on with
/// PdoName, ServiceName, then the upper and lower filter names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PnpDevice {
    pub class_guid: Option<Guid>,
    pub dev_status: u32,
    pub dev_problem: u32,
    pub device_id: String,
    pub description: String,
    pub friendly_name: String,
    pub pdo_name: String,
    pub service_name: String,
    pub upper_filters: Vec<String>,
    pub lower_filters: Vec<String>,
}

impl<'a> Decode<'a> for PnpDevice {
    const NAME: &'static str = "PnpDevice";

    fn read(ev: &Event<'a>, r: &mut Reader<'a>) -> Result<PnpDevice> {
        let (mut class_guid, mut upper, mut lower) = (None, 0, 0);
        let (mut dev_status, mut dev_problem) = (0, 0);
        if ev.version <= 3 {
            r.skip(12)?; // string lengths, redundant with the NULs
        } else {
            class_guid = Some(r.guid()?);
            upper = r.u32()?;
            lower = r.u32()?;
            if ev.version >= 5 {
                dev_status = r.u32()?;
                dev_problem = r.u32()?;
            }
        }
        let device_id = r.utf16z()?;
        let description = r.utf16z()?;
        let friendly_name = r.utf16z()?;
        let (mut pdo_name, mut service_name) = (String::new(), String::new());
        if ev.version >= 4 {
            pdo_name = r.utf16z()?;
            service_name = r.utf16z()?;
        }
        Ok(PnpDevice {
            class_guid,
            dev_status,
            dev_problem,
            device_id,
            description,
            friendly_name,
            pdo_name,
            service_name,
            upper_filters: strings(r, upper)?,
            lower_filters: strings(r, lower)?,
        })
    }
}

fn v3_string(ev: &Event<'_>, r: &mut Reader<'_>) -> Result<String> {
    if ev.version >= 3 {
        r.utf16z()
    } else {
        Ok(String::new())
    }
}

/// `n` NUL-terminated strings; each needs at least its NUL, so a corrupt
/// count fails at the payload's end instead of allocating for it.
fn strings(r: &mut Reader<'_>, n: u32) -> Result<Vec<String>> {
    let mut out = Vec::new();
    for _ in 0..n {
        out.push(r.utf16z()?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::test_util::{kernel_event, utf16z};

    /// PnP before v4 (Vista/7): three lengths, then three strings.
    #[test]
    fn pnp_v3_layout() {
        let mut p = Vec::new();
        for n in [5u32, 4, 0] {
            p.extend(n.to_le_bytes());
        }
        for s in [r"ACPI\1", "Port", ""] {
            p.extend(utf16z(s));
        }
        let ev = kernel_event(0x0B16, 3, 4, &p);
        let mut r = Reader::new(&p, 4, "PnpDevice");
        let d = PnpDevice::read(&ev, &mut r).unwrap();
        assert!(r.at_end());
        assert_eq!(
            (d.device_id.as_str(), d.description.as_str()),
            (r"ACPI\1", "Port")
        );
        assert_eq!((d.class_guid, d.service_name.as_str()), (None, ""));
    }

    /// A filter count far beyond the payload fails at its end.
    #[test]
    fn pnp_v4_bad_filter_count_is_an_error() {
        let mut p = vec![0u8; 16];
        p.extend(u32::MAX.to_le_bytes());
        p.extend(0u32.to_le_bytes());
        for s in ["id", "d", "", "pdo", "svc"] {
            p.extend(utf16z(s));
        }
        assert!(PnpDevice::decode(&kernel_event(0x0B16, 4, 8, &p)).is_err());
    }

    /// Services before v2: fixed strings of 34, 256 and 34 units, then the pid.
    #[test]
    fn services_v1_layout() {
        let fixed = |s: &str, units: usize| {
            let mut b: Vec<u8> = s.encode_utf16().flat_map(u16::to_le_bytes).collect();
            b.resize(units * 2, 0);
            b
        };
        let mut p = fixed("Dhcp", 34);
        p.extend(fixed("DHCP Client", 256));
        p.extend(fixed("svchost.exe", 34));
        p.extend(944u32.to_le_bytes());
        assert_eq!(p.len(), 652);
        let ev = kernel_event(0x0B0F, 1, 4, &p);
        let mut r = Reader::new(&p, 4, "Service");
        let s = Service::read(&ev, &mut r).unwrap();
        assert!(r.at_end());
        assert_eq!(
            (s.name.as_str(), s.process_name.as_str(), s.pid),
            ("Dhcp", "svchost.exe", 944)
        );
    }
}
