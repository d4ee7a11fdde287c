//! System configuration hardware rundown: physical disks (0x0B0B), network
//! adapters (0x0B0D), video adapters (0x0B0E) and power states (0x0B10).
//! Sources: TE-K `SystemConfigPhyDiskTraceData`, `SystemConfigNICTraceData`,
//! `SystemConfigVideoTraceData`, `SystemConfigPowerTraceData`; MOF classes
//! SystemConfig_PhyDisk, _NIC, _Video, _Power.

use super::reader::{Reader, Result};
use super::Decode;
use crate::Event;

/// 0x0B0B PhyDisk: 568 bytes in every version (fixed-size strings).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PhysicalDisk {
    pub disk_number: u32,
    pub bytes_per_sector: u32,
    pub sectors_per_track: u32,
    pub tracks_per_cylinder: u32,
    pub cylinders: u64,
    pub scsi_port: u32,
    pub scsi_path: u32,
    pub scsi_target: u32,
    pub scsi_lun: u32,
    /// e.g. `Virtual HD ATA Device` (256 units).
    pub manufacturer: String,
    pub partition_count: u32,
    pub write_cache_enabled: bool,
    /// e.g. `C` (3 units).
    pub boot_drive_letter: String,
}

impl PhysicalDisk {
    /// Capacity as the geometry gives it (what WPA shows as the disk size).
    pub fn size_bytes(&self) -> u64 {
        self.cylinders
            .saturating_mul(u64::from(self.tracks_per_cylinder))
            .saturating_mul(u64::from(self.sectors_per_track))
            .saturating_mul(u64::from(self.bytes_per_sector))
    }
}

impl<'a> Decode<'a> for PhysicalDisk {
    const NAME: &'static str = "PhysicalDisk";

    fn read(_ev: &Event<'a>, r: &mut Reader<'a>) -> Result<PhysicalDisk> {
        let d = PhysicalDisk {
            disk_number: r.u32()?,
            bytes_per_sector: r.u32()?,
            sectors_per_track: r.u32()?,
            tracks_per_cylinder: r.u32()?,
            cylinders: r.u64()?,
            scsi_port: r.u32()?,
            scsi_path: r.u32()?,
            scsi_target: r.u32()?,
            scsi_lun: r.u32()?,
            manufacturer: r.fixed_utf16(256)?,
            partition_count: r.u32()?,
            write_cache_enabled: r.u8()? != 0,
            boot_drive_letter: {
                r.skip(1)?; // Pad
                r.fixed_utf16(3)?
            },
        };
        r.skip(4)?; // Spare: 2 units
        Ok(d)
    }
}

/// 0x0B0D NIC. From v2: u64 PhysicalAddr, u32 PhysicalAddrLen, u32 Ipv4Index,
/// u32 Ipv6Index, then NUL-terminated description, IP addresses and DNS
/// servers (`;`-separated). Before v2: a 256-unit description, then u32
/// Ipv4Index and PhysicalAddrLen at 512 (later fields unread).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NetworkAdapter {
    /// The MAC address bytes, in order, as far as `physical_addr_len` says.
    pub physical_addr: Vec<u8>,
    pub ipv4_index: u32,
    pub ipv6_index: u32,
    pub description: String,
    pub ip_addresses: String,
    pub dns_server_addresses: String,
}

impl<'a> Decode<'a> for NetworkAdapter {
    const NAME: &'static str = "NetworkAdapter";

    fn read(ev: &Event<'a>, r: &mut Reader<'a>) -> Result<NetworkAdapter> {
        if ev.version < 2 {
            let description = r.fixed_utf16(256)?;
            let ipv4_index = r.u32()?;
            r.skip(4)?; // PhysicalAddrLen; the address itself is not in TE-K's v1
            return Ok(NetworkAdapter {
                physical_addr: Vec::new(),
                ipv4_index,
                ipv6_index: 0,
                description,
                ip_addresses: String::new(),
                dns_server_addresses: String::new(),
            });
        }
        let addr = r.bytes(8)?;
        let len = r.u32()?;
        let keep = addr.get(..len as usize).unwrap_or(addr);
        Ok(NetworkAdapter {
            physical_addr: keep.to_vec(),
            ipv4_index: r.u32()?,
            ipv6_index: r.u32()?,
            description: r.utf16z()?,
            ip_addresses: r.utf16z()?,
            dns_server_addresses: r.utf16z()?,
        })
    }
}

impl NetworkAdapter {
    /// The MAC address as WPA shows it, e.g. `00-15-5D-7C-58-28`.
    pub fn mac_text(&self) -> String {
        let parts: Vec<String> = self
            .physical_addr
            .iter()
            .map(|b| format!("{b:02X}"))
            .collect();
        parts.join("-")
    }
}

/// 0x0B0E Video: 2584 bytes in every version (five 256-unit strings).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VideoAdapter {
    pub memory_size: u32,
    pub x_resolution: u32,
    pub y_resolution: u32,
    pub bits_per_pixel: u32,
    pub v_refresh: u32,
    pub chip_type: String,
    pub dac_type: String,
    pub adapter_string: String,
    pub bios_string: String,
    pub device_id: String,
    pub state_flags: u32,
}

impl<'a> Decode<'a> for VideoAdapter {
    const NAME: &'static str = "VideoAdapter";

    fn read(_ev: &Event<'a>, r: &mut Reader<'a>) -> Result<VideoAdapter> {
        Ok(VideoAdapter {
            memory_size: r.u32()?,
            x_resolution: r.u32()?,
            y_resolution: r.u32()?,
            bits_per_pixel: r.u32()?,
            v_refresh: r.u32()?,
            chip_type: r.fixed_utf16(256)?,
            dac_type: r.fixed_utf16(256)?,
            adapter_string: r.fixed_utf16(256)?,
            bios_string: r.fixed_utf16(256)?,
            device_id: r.fixed_utf16(256)?,
            state_flags: r.u32()?,
        })
    }
}

/// 0x0B10 Power: whether sleep states S1..S5 are supported (one byte each,
/// then 3 pad bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PowerStates {
    pub s: [bool; 5],
}

impl<'a> Decode<'a> for PowerStates {
    const NAME: &'static str = "PowerStates";

    fn read(_ev: &Event<'a>, r: &mut Reader<'a>) -> Result<PowerStates> {
        let mut s = [false; 5];
        for v in &mut s {
            *v = r.u8()? != 0;
        }
        r.skip(3)?; // Pad1..Pad3
        Ok(PowerStates { s })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::test_util::kernel_event;

    fn fixed(s: &str, units: usize) -> Vec<u8> {
        let mut b: Vec<u8> = s.encode_utf16().flat_map(u16::to_le_bytes).collect();
        b.resize(units * 2, 0);
        b
    }

    /// No real trace here logs Video: TE-K's layout, 2584 bytes.
    #[test]
    fn video_layout() {
        let mut p = Vec::new();
        for v in [256u32 << 20, 1920, 1080, 32, 60] {
            p.extend(v.to_le_bytes());
        }
        for s in ["Chip", "DAC", "Adapter", "BIOS", r"PCI\VEN_1234"] {
            p.extend(fixed(s, 256));
        }
        p.extend(7u32.to_le_bytes());
        assert_eq!(p.len(), 2584);
        let ev = kernel_event(0x0B0E, 2, 8, &p);
        let mut r = Reader::new(&p, 8, "VideoAdapter");
        let v = VideoAdapter::read(&ev, &mut r).unwrap();
        assert!(r.at_end());
        assert_eq!(
            (v.x_resolution, v.y_resolution, v.v_refresh),
            (1920, 1080, 60)
        );
        assert_eq!(
            (v.adapter_string.as_str(), v.device_id.as_str()),
            ("Adapter", r"PCI\VEN_1234")
        );
        assert_eq!(v.state_flags, 7);
        // Truncated: an error, never a panic.
        assert!(VideoAdapter::decode(&kernel_event(0x0B0E, 2, 8, &p[..2000])).is_err());
    }
}
