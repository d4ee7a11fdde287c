//! The System Configuration tables as JSON, for `etlscope info` and the API.

use model::strings::{StrId, StringTable};
use model::system_config::{service_state_name, SystemConfig};
use serde_json::{json, Value};

/// Everything but the service and PnP lists, which are only counted: what
/// `etlscope info` shows. `null` when the trace has no SysConfig rundown.
pub fn summary(c: &SystemConfig, s: &StringTable) -> Value {
    let g = &c.general;
    let empty = !g.present
        && c.disks.disk_number.is_empty()
        && c.volumes.drive_letter.is_empty()
        && c.nics.description.is_empty()
        && c.video.adapter.is_empty()
        && c.services.name.is_empty()
        && c.pnp.device_id.is_empty();
    if empty {
        return Value::Null;
    }
    let t = |id: StrId| s.get(id).to_string();
    let sleep: Option<Vec<String>> = g.sleep_states.map(|st| {
        (1..=5)
            .zip(st)
            .filter(|(_, on)| *on)
            .map(|(i, _)| format!("S{i}"))
            .collect()
    });
    let d = &c.disks;
    let disks: Vec<Value> = (0..d.disk_number.len())
        .map(|i| {
            json!({
                "disk_number": d.disk_number[i],
                "manufacturer": t(d.manufacturer[i]),
                "size_bytes": d.size_bytes[i],
                "bytes_per_sector": d.bytes_per_sector[i],
                "partition_count": d.partition_count[i],
                "write_cache_enabled": d.write_cache_enabled[i],
                "boot_drive_letter": t(d.boot_drive_letter[i]),
            })
        })
        .collect();
    let v = &c.volumes;
    let volumes: Vec<Value> = (0..v.drive_letter.len())
        .map(|i| {
            json!({
                "drive_letter": t(v.drive_letter[i]),
                "file_system": t(v.file_system[i]),
                "disk_number": v.disk_number[i],
                "partition_number": v.partition_number[i],
                "size_bytes": v.size_bytes[i],
                "free_bytes": v.free_bytes[i],
            })
        })
        .collect();
    let n = &c.nics;
    let nics: Vec<Value> = (0..n.description.len())
        .map(|i| {
            json!({
                "description": t(n.description[i]),
                "mac": t(n.mac[i]),
                "ip_addresses": t(n.ip_addresses[i]),
                "dns_servers": t(n.dns_servers[i]),
            })
        })
        .collect();
    let vd = &c.video;
    let video: Vec<Value> = (0..vd.adapter.len())
        .map(|i| {
            json!({
                "adapter": t(vd.adapter[i]),
                "chip_type": t(vd.chip_type[i]),
                "memory_bytes": vd.memory_bytes[i],
                "x_resolution": vd.x_resolution[i],
                "y_resolution": vd.y_resolution[i],
                "bits_per_pixel": vd.bits_per_pixel[i],
                "refresh_hz": vd.refresh_hz[i],
            })
        })
        .collect();
    json!({
        "computer_name": g.present.then(|| g.computer_name.clone()),
        "domain_name": g.present.then(|| g.domain_name.clone()),
        "processors": g.present.then_some(g.processors),
        "mhz": g.present.then_some(g.mhz),
        "memory_mb": g.present.then_some(g.memory_mb),
        "page_size": g.present.then_some(g.page_size),
        "allocation_granularity": g.present.then_some(g.allocation_granularity),
        "sleep_states": sleep,
        "disks": disks,
        "volumes": volumes,
        "nics": nics,
        "video": video,
        "services": c.services.name.len(),
        "running_services": c.running_services(),
        "pnp_devices": c.pnp.device_id.len(),
    })
}

/// `summary` plus the service and PnP device lists (the API's view).
pub fn full(c: &SystemConfig, s: &StringTable) -> Value {
    let mut v = summary(c, s);
    let Some(obj) = v.as_object_mut() else {
        return v;
    };
    let t = |id: StrId| s.get(id).to_string();
    let sv = &c.services;
    let services: Vec<Value> = (0..sv.name.len())
        .map(|i| {
            json!({
                "name": t(sv.name[i]),
                "display_name": t(sv.display_name[i]),
                "process_name": t(sv.process_name[i]),
                "pid": sv.pid[i],
                "state": service_state_name(sv.state[i]),
                "group": t(sv.group[i]),
            })
        })
        .collect();
    let p = &c.pnp;
    let pnp: Vec<Value> = (0..p.device_id.len())
        .map(|i| {
            json!({
                "device_id": t(p.device_id[i]),
                "description": t(p.description[i]),
                "friendly_name": t(p.friendly_name[i]),
                "service_name": t(p.service_name[i]),
            })
        })
        .collect();
    obj.insert("service_list".into(), Value::Array(services));
    obj.insert("pnp_list".into(), Value::Array(pnp));
    v
}
