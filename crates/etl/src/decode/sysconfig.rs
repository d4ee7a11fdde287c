//! System configuration: the CPU event (0x0B0A), logical disks (0x0B0C), and
//! the SysConfig rundown {9b79ee91-b5fd-41c0-a243-4248e266e9d0} that maps NT
//! device paths to drive letters (VolumeMapping, opcode 35) and names the
//! system directories (SystemPaths, opcode 33). Sources: TE-K
//! `SystemConfigCPUTraceData`, `SystemConfigLogDiskTraceData`,
//! `VolumeMappingTraceData`, `SystemPathsTraceData`.

use super::reader::{Reader, Result};
use super::Decode;
use crate::Event;

/// 0x0B0A CPU: u32 MHz, u32 NumberOfProcessors, u32 MemSize (MB), u32 PageSize,
/// u32 AllocationGranularity, 256 UTF-16 units ComputerName, DomainName
/// (134 units from v2, 132 before), P HyperThreadingFlag. Later fields unread.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CpuConfig {
    pub mhz: u32,
    pub number_of_processors: u32,
    pub memory_mb: u32,
    pub page_size: u32,
    pub allocation_granularity: u32,
    pub computer_name: String,
    pub domain_name: String,
    pub hyper_threading_flag: u64,
}

impl<'a> Decode<'a> for CpuConfig {
    const NAME: &'static str = "CpuConfig";

    fn read(ev: &Event<'a>, r: &mut Reader<'a>) -> Result<CpuConfig> {
        Ok(CpuConfig {
            mhz: r.u32()?,
            number_of_processors: r.u32()?,
            memory_mb: r.u32()?,
            page_size: r.u32()?,
            allocation_granularity: r.u32()?,
            computer_name: r.fixed_utf16(256)?,
            domain_name: r.fixed_utf16(if ev.version >= 2 { 134 } else { 132 })?,
            hyper_threading_flag: r.ptr()?,
        })
    }
}

/// 0x0B0C LogDisk: one partition / volume with its drive letter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogicalDisk {
    pub start_offset: u64,
    pub partition_size: u64,
    pub disk_number: u32,
    pub drive_type: u32,
    /// e.g. `C:`.
    pub drive_letter: String,
    pub partition_number: u32,
    pub sectors_per_cluster: u32,
    pub bytes_per_sector: u32,
    pub free_clusters: u64,
    pub total_clusters: u64,
    pub file_system: String,
    pub volume_ext: u32,
}

impl<'a> Decode<'a> for LogicalDisk {
    const NAME: &'static str = "LogicalDisk";

    fn read(_ev: &Event<'a>, r: &mut Reader<'a>) -> Result<LogicalDisk> {
        let start_offset = r.u64()?;
        let partition_size = r.u64()?;
        let disk_number = r.u32()?;
        r.skip(4)?; // Size (of the structure)
        let drive_type = r.u32()?;
        let drive_letter = r.fixed_utf16(4)?;
        r.skip(4)?; // Pad1
        let partition_number = r.u32()?;
        let sectors_per_cluster = r.u32()?;
        let bytes_per_sector = r.u32()?;
        r.skip(4)?; // Pad2
        let d = LogicalDisk {
            start_offset,
            partition_size,
            disk_number,
            drive_type,
            drive_letter,
            partition_number,
            sectors_per_cluster,
            bytes_per_sector,
            free_clusters: r.u64()?,
            total_clusters: r.u64()?,
            file_system: r.fixed_utf16(16)?,
            volume_ext: r.u32()?,
        };
        r.skip(4)?; // Pad3
        Ok(d)
    }
}

/// SysConfig opcode 35: an NT path prefix and the DOS path it stands for,
/// e.g. `\Device\HarddiskVolume2\` -> `C:\`, `\SystemRoot\` -> `C:\Windows\`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VolumeMapping {
    pub nt_path: String,
    pub dos_path: String,
}

impl<'a> Decode<'a> for VolumeMapping {
    const NAME: &'static str = "VolumeMapping";

    fn read(_ev: &Event<'a>, r: &mut Reader<'a>) -> Result<VolumeMapping> {
        Ok(VolumeMapping {
            nt_path: r.utf16z()?,
            dos_path: r.utf16z()?,
        })
    }
}

/// SysConfig opcode 33: e.g. `C:\Windows\system32`, `C:\Windows\`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SystemPaths {
    pub system_directory: String,
    pub windows_directory: String,
}

impl<'a> Decode<'a> for SystemPaths {
    const NAME: &'static str = "SystemPaths";

    fn read(_ev: &Event<'a>, r: &mut Reader<'a>) -> Result<SystemPaths> {
        Ok(SystemPaths {
            system_directory: r.utf16z()?,
            windows_directory: r.utf16z()?,
        })
    }
}
