//! The System Configuration tables from the SysConfig rundown records.

use crate::strings::StringTable;
use crate::system_config::SystemConfig;
use etl::decode::{
    self, kernel_classes, CpuConfig, Decoded, LogicalDisk, NetworkAdapter, PhysicalDisk, PnpDevice,
    PowerStates, Service, VideoAdapter,
};
use etl::{EtlFile, Event};

/// One SysConfig event, kept whole: a trace has a few hundred at most.
#[derive(Debug, Clone)]
pub enum SysConfigRec {
    Cpu(CpuConfig),
    PhysicalDisk(PhysicalDisk),
    LogicalDisk(LogicalDisk),
    Nic(NetworkAdapter),
    Video(VideoAdapter),
    Service(Service),
    Power(PowerStates),
    Pnp(PnpDevice),
}

/// Rows in the order the records come (time order). A trace with a rundown
/// at both start and end logs each device twice; the first rundown wins.
pub fn build(recs: &[(i64, SysConfigRec)], s: &mut StringTable) -> SystemConfig {
    let mut c = SystemConfig::default();
    let first_cpu = recs.iter().find_map(|(ts, r)| match r {
        SysConfigRec::Cpu(_) => Some(*ts),
        _ => None,
    });
    // Records before the second CPU event belong to the first rundown.
    let second_cpu = recs
        .iter()
        .filter(|(ts, r)| matches!(r, SysConfigRec::Cpu(_)) && Some(*ts) != first_cpu)
        .map(|(ts, _)| *ts)
        .next();
    for (_, r) in recs
        .iter()
        .filter(|(ts, _)| second_cpu.is_none_or(|t| *ts < t))
    {
        add(&mut c, r, s);
    }
    c
}

fn add(c: &mut SystemConfig, r: &SysConfigRec, s: &mut StringTable) {
    match r {
        SysConfigRec::Cpu(cpu) => {
            let g = &mut c.general;
            g.present = true;
            g.computer_name = cpu.computer_name.clone();
            g.domain_name = cpu.domain_name.clone();
            g.processors = cpu.number_of_processors;
            g.mhz = cpu.mhz;
            g.memory_mb = cpu.memory_mb;
            g.page_size = cpu.page_size;
            g.allocation_granularity = cpu.allocation_granularity;
        }
        SysConfigRec::Power(p) => c.general.sleep_states = Some(p.s),
        SysConfigRec::PhysicalDisk(d) => {
            let t = &mut c.disks;
            t.disk_number.push(d.disk_number);
            t.manufacturer.push(s.intern(&d.manufacturer));
            t.size_bytes.push(d.size_bytes());
            t.bytes_per_sector.push(d.bytes_per_sector);
            t.partition_count.push(d.partition_count);
            t.write_cache_enabled.push(d.write_cache_enabled);
            t.boot_drive_letter.push(s.intern(&d.boot_drive_letter));
        }
        SysConfigRec::LogicalDisk(d) => {
            let t = &mut c.volumes;
            let cluster = u64::from(d.sectors_per_cluster) * u64::from(d.bytes_per_sector);
            t.disk_number.push(d.disk_number);
            t.partition_number.push(d.partition_number);
            t.drive_letter.push(s.intern(&d.drive_letter));
            t.file_system.push(s.intern(&d.file_system));
            t.size_bytes.push(d.partition_size);
            t.free_bytes.push(d.free_clusters.saturating_mul(cluster));
        }
        SysConfigRec::Nic(n) => {
            let t = &mut c.nics;
            t.description.push(s.intern(&n.description));
            t.mac.push(s.intern(&n.mac_text()));
            t.ip_addresses.push(s.intern(&n.ip_addresses));
            t.dns_servers.push(s.intern(&n.dns_server_addresses));
        }
        SysConfigRec::Video(v) => {
            let t = &mut c.video;
            t.adapter.push(s.intern(&v.adapter_string));
            t.chip_type.push(s.intern(&v.chip_type));
            t.memory_bytes.push(v.memory_size);
            t.x_resolution.push(v.x_resolution);
            t.y_resolution.push(v.y_resolution);
            t.bits_per_pixel.push(v.bits_per_pixel);
            t.refresh_hz.push(v.v_refresh);
        }
        SysConfigRec::Service(v) => {
            let t = &mut c.services;
            t.name.push(s.intern(&v.name));
            t.display_name.push(s.intern(&v.display_name));
            t.process_name.push(s.intern(&v.process_name));
            t.pid.push(v.pid);
            t.state.push(v.state);
            let group = if v.load_order_group.is_empty() {
                &v.svchost_group
            } else {
                &v.load_order_group
            };
            t.group.push(s.intern(group));
        }
        SysConfigRec::Pnp(p) => {
            let t = &mut c.pnp;
            t.device_id.push(s.intern(&p.device_id));
            t.description.push(s.intern(&p.description));
            t.friendly_name.push(s.intern(&p.friendly_name));
            t.service_name.push(s.intern(&p.service_name));
        }
    }
}

/// The record of a decoded SysConfig event; anything else comes back as is.
#[allow(clippy::result_large_err)] // handed straight back to the caller's match
pub fn rec_of(d: Decoded<'_>) -> Result<SysConfigRec, Decoded<'_>> {
    Ok(match d {
        Decoded::CpuConfig(c) => SysConfigRec::Cpu(c),
        Decoded::PhysicalDisk(d) => SysConfigRec::PhysicalDisk(d),
        Decoded::LogicalDisk(d) => SysConfigRec::LogicalDisk(d),
        Decoded::NetworkAdapter(n) => SysConfigRec::Nic(n),
        Decoded::VideoAdapter(v) => SysConfigRec::Video(v),
        Decoded::Service(v) => SysConfigRec::Service(v),
        Decoded::PowerStates(p) => SysConfigRec::Power(p),
        Decoded::PnpDevice(p) => SysConfigRec::Pnp(p),
        other => return Err(other),
    })
}

/// Kernel hook group 0x0B, in a system header or a classic header with the
/// SystemConfig class GUID.
fn is_sysconfig(e: &Event<'_>) -> bool {
    let hook = e
        .hook_id
        .or_else(|| kernel_classes::hook_of(e.provider?, e.opcode));
    hook.is_some_and(|h| h >> 8 == 0x0B)
}

/// The System Configuration of `file` alone, without building the rest of
/// the model (for `etlscope info`): only SysConfig events are decoded.
pub fn read_system_config(file: &EtlFile) -> (SystemConfig, StringTable) {
    let per_buffer = file.par_map_buffers(|buf| {
        let mut out = Vec::new();
        let Ok(buf) = buf else { return out };
        for e in buf.events().map_while(Result::ok) {
            if !is_sysconfig(&e) {
                continue;
            }
            if let Some(Ok(d)) = decode::decode(&e) {
                if let Ok(r) = rec_of(d) {
                    out.push((e.timestamp, r));
                }
            }
        }
        out
    });
    let mut recs: Vec<(i64, SysConfigRec)> = per_buffer.into_iter().flatten().collect();
    recs.sort_by_key(|r| r.0);
    let mut strings = StringTable::default();
    let c = build(&recs, &mut strings);
    (c, strings)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cpu(name: &str) -> SysConfigRec {
        SysConfigRec::Cpu(CpuConfig {
            mhz: 1000,
            number_of_processors: 2,
            memory_mb: 512,
            page_size: 4096,
            allocation_granularity: 65536,
            computer_name: name.into(),
            domain_name: String::new(),
            hyper_threading_flag: 0,
        })
    }

    fn power(s5: bool) -> SysConfigRec {
        SysConfigRec::Power(PowerStates {
            s: [false, false, false, false, s5],
        })
    }

    /// A rundown at start and one at end describe the same machine: the
    /// second one's records must not add rows.
    #[test]
    fn first_rundown_wins() {
        let recs = vec![
            (10, power(true)),
            (11, cpu("FIRST")),
            (500, cpu("SECOND")),
            (501, power(false)),
        ];
        let mut s = StringTable::default();
        let c = build(&recs, &mut s);
        assert_eq!(c.general.computer_name, "FIRST");
        assert_eq!(
            c.general.sleep_states,
            Some([false, false, false, false, true])
        );
    }

    #[test]
    fn no_records_no_configuration() {
        let mut s = StringTable::default();
        let c = build(&[], &mut s);
        assert!(!c.general.present);
        assert!(c.services.name.is_empty());
    }
}
