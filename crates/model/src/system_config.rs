//! System Configuration: what the kernel's SysConfig rundown says about the
//! machine that recorded the trace (WPA's System Configuration view). One
//! small table per kind of device; strings are `StrId`s like other tables.

use crate::strings::StrId;

/// WPA's "General" page: one CPU event's worth, plus the power states.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct General {
    /// False when the trace has no CPU event (nothing below is known).
    pub present: bool,
    pub computer_name: String,
    pub domain_name: String,
    pub processors: u32,
    pub mhz: u32,
    pub memory_mb: u32,
    pub page_size: u32,
    pub allocation_granularity: u32,
    /// Supported sleep states S1..S5, when the Power event was logged.
    pub sleep_states: Option<[bool; 5]>,
}

/// Physical disks (PhyDisk events).
#[derive(Debug, Clone, Default)]
pub struct DiskTable {
    pub disk_number: Vec<u32>,
    pub manufacturer: Vec<StrId>,
    /// Cylinders x tracks x sectors x bytes per sector.
    pub size_bytes: Vec<u64>,
    pub bytes_per_sector: Vec<u32>,
    pub partition_count: Vec<u32>,
    pub write_cache_enabled: Vec<bool>,
    pub boot_drive_letter: Vec<StrId>,
}

/// Volumes (LogDisk events): partitions with a drive letter and file system.
#[derive(Debug, Clone, Default)]
pub struct VolumeTable {
    pub disk_number: Vec<u32>,
    pub partition_number: Vec<u32>,
    pub drive_letter: Vec<StrId>,
    pub file_system: Vec<StrId>,
    pub size_bytes: Vec<u64>,
    pub free_bytes: Vec<u64>,
}

/// Network adapters (NIC events).
#[derive(Debug, Clone, Default)]
pub struct NicTable {
    pub description: Vec<StrId>,
    /// e.g. `00-15-5D-7C-58-28`; empty when the adapter has none.
    pub mac: Vec<StrId>,
    /// `;`-separated, as logged.
    pub ip_addresses: Vec<StrId>,
    pub dns_servers: Vec<StrId>,
}

/// Video adapters (Video events).
#[derive(Debug, Clone, Default)]
pub struct VideoTable {
    pub adapter: Vec<StrId>,
    pub chip_type: Vec<StrId>,
    pub memory_bytes: Vec<u32>,
    pub x_resolution: Vec<u32>,
    pub y_resolution: Vec<u32>,
    pub bits_per_pixel: Vec<u32>,
    pub refresh_hz: Vec<u32>,
}

/// Services (Services events).
#[derive(Debug, Clone, Default)]
pub struct ServiceTable {
    pub name: Vec<StrId>,
    pub display_name: Vec<StrId>,
    pub process_name: Vec<StrId>,
    /// 0 when the service is not running.
    pub pid: Vec<u32>,
    /// SERVICE_STATUS dwCurrentState (4 = running).
    pub state: Vec<u32>,
    pub group: Vec<StrId>,
}

/// PnP devices (PnP events).
#[derive(Debug, Clone, Default)]
pub struct PnpTable {
    pub device_id: Vec<StrId>,
    pub description: Vec<StrId>,
    pub friendly_name: Vec<StrId>,
    pub service_name: Vec<StrId>,
}

#[derive(Debug, Clone, Default)]
pub struct SystemConfig {
    pub general: General,
    pub disks: DiskTable,
    pub volumes: VolumeTable,
    pub nics: NicTable,
    pub video: VideoTable,
    pub services: ServiceTable,
    pub pnp: PnpTable,
}

/// SERVICE_STATUS dwCurrentState as the Services control panel names it.
pub fn service_state_name(state: u32) -> &'static str {
    match state {
        1 => "Stopped",
        2 => "Start Pending",
        3 => "Stop Pending",
        4 => "Running",
        5 => "Continue Pending",
        6 => "Pause Pending",
        7 => "Paused",
        _ => "Unknown",
    }
}

impl SystemConfig {
    pub fn running_services(&self) -> usize {
        self.services.state.iter().filter(|&&s| s == 4).count()
    }
}
