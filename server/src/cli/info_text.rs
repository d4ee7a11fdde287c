//! The "system configuration" section of `etlscope info`'s text output,
//! from the `system_config` value of its JSON.

use serde_json::Value;

fn gib(v: &Value) -> String {
    format!("{:.1} GiB", v.as_f64().unwrap_or(0.0) / (1u64 << 30) as f64)
}

fn text(v: &Value) -> &str {
    v.as_str().unwrap_or("")
}

fn list<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    v[key].as_array().map_or(&[], Vec::as_slice)
}

pub fn print_system_config(out: &mut String, v: &Value) {
    if v.is_null() {
        return;
    }
    say!(out, "  system configuration:");
    if !v["computer_name"].is_null() {
        let domain = text(&v["domain_name"]);
        let name = text(&v["computer_name"]);
        if domain.is_empty() {
            say!(out, "    {:<20} {name}", "computer");
        } else {
            say!(out, "    {:<20} {name} ({domain})", "computer");
        }
        say!(
            out,
            "    {:<20} {} x {} MHz",
            "cpus",
            v["processors"],
            v["mhz"]
        );
        say!(out, "    {:<20} {} MB", "memory", v["memory_mb"]);
    }
    for d in list(v, "disks") {
        say!(
            out,
            "    {:<20} {}, {}, {} partitions",
            format!("disk {}", d["disk_number"]),
            text(&d["manufacturer"]),
            gib(&d["size_bytes"]),
            d["partition_count"]
        );
    }
    for d in list(v, "volumes") {
        say!(
            out,
            "    {:<20} {}, {}, {} free (disk {})",
            format!("volume {}", text(&d["drive_letter"])),
            text(&d["file_system"]),
            gib(&d["size_bytes"]),
            gib(&d["free_bytes"]),
            d["disk_number"]
        );
    }
    for n in list(v, "nics") {
        say!(
            out,
            "    {:<20} {} [{}] {}",
            "nic",
            text(&n["description"]),
            text(&n["mac"]),
            text(&n["ip_addresses"])
        );
    }
    for d in list(v, "video") {
        say!(
            out,
            "    {:<20} {} ({}), {}x{} {} bpp {} Hz",
            "video",
            text(&d["adapter"]),
            text(&d["chip_type"]),
            d["x_resolution"],
            d["y_resolution"],
            d["bits_per_pixel"],
            d["refresh_hz"]
        );
    }
    say!(
        out,
        "    {:<20} {} ({} running)",
        "services",
        v["services"],
        v["running_services"]
    );
    say!(out, "    {:<20} {}", "pnp devices", v["pnp_devices"]);
}
