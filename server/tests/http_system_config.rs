//! GET /api/traces/{id}/system-config on perfview-net452-x64.etl: values
//! from hand decodes of the SysConfig payloads (offsets of TE-K's
//! SystemConfig*TraceData; see crates/etl/tests/decode_real.rs).

mod common;

use common::{real_traces_dir, temp_dir, Server};
use serde_json::Value;

#[test]
fn system_config_endpoint() {
    let Some(dir) = real_traces_dir() else { return };
    let data = temp_dir("system-config");
    let file = dir.join("perfview-net452-x64.etl");
    let server = Server::start(&data, &[]);
    let (s, b) = server.post("/api/traces?name=x64.etl", &std::fs::read(&file).unwrap());
    assert_eq!(s, 201, "{b}");
    let id = serde_json::from_str::<Value>(&b).unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    server.wait_ready(&id, 120);
    let (s, c) = server.json("GET", &format!("/api/traces/{id}/system-config"), "");
    assert_eq!(s, 200, "{c}");
    // CPU @0: (3592 MHz, 8 processors, 4096 MB), ComputerName @20.
    assert_eq!(c["computer_name"], "BRIANROB-W8");
    assert_eq!(c["mhz"], 3592);
    assert_eq!(c["volumes"][0]["drive_letter"], "C:");
    // Services v3: 157 events; #0 AeLookupSvc, state 1, svchost group netsvcs.
    let services = c["service_list"].as_array().unwrap();
    assert_eq!(services.len(), 157);
    assert_eq!(services[0]["name"], "AeLookupSvc");
    assert_eq!(services[0]["state"], "Stopped");
    assert_eq!(services[0]["group"], "netsvcs");
    let dhcp = services.iter().find(|s| s["name"] == "Dhcp").unwrap();
    assert_eq!(
        (dhcp["pid"].as_u64(), dhcp["state"].as_str()),
        (Some(944), Some("Running"))
    );
    // PnP v4: 78 events; #23 COM1 with service Serial.
    let pnp = c["pnp_list"].as_array().unwrap();
    assert_eq!(pnp.len(), 78);
    assert_eq!(pnp[23]["friendly_name"], "Communications Port (COM1)");
    assert_eq!(pnp[23]["service_name"], "Serial");

    let (s, _) = server.get("/api/traces/0123456789abcdef0123456789abcdef/system-config");
    assert_eq!(s, 404);
}
