//! The System Configuration tables of perfview-net452-x64.etl. Expected
//! values are hand decodes of `etlscope dump --hook 0x0b0X` payload hex with
//! Python `struct.unpack_from` (offsets from TE-K's SystemConfig*TraceData,
//! quoted next to each value); counts are the census's (etl/tests/expected).

mod common;

use model::system_config::service_state_name;

#[test]
fn x64_system_configuration() {
    let Some(t) = common::model_of("perfview-net452-x64.etl") else {
        return;
    };
    let c = &t.system_config;
    let s = |id| t.strings.get(id).to_string();

    // CPU: unpack('<IIIII', p, 0) = (3592, 8, 4096, 4096, 65536);
    // ComputerName utf16 @20, DomainName @532 empty.
    let g = &c.general;
    assert!(g.present);
    assert_eq!((g.mhz, g.processors, g.memory_mb), (3592, 8, 4096));
    assert_eq!((g.page_size, g.allocation_granularity), (4096, 65536));
    assert_eq!(g.computer_name, "BRIANROB-W8");
    assert_eq!(g.domain_name, "");
    // Power: 00 00 00 00 01 (S5 only).
    assert_eq!(g.sleep_states, Some([false, false, false, false, true]));

    // PhyDisk: unpack('<IIIIq', p, 0) = (0, 512, 63, 255, 16578).
    assert_eq!(c.disks.disk_number, [0]);
    assert_eq!(s(c.disks.manufacturer[0]), "Virtual HD ATA Device");
    assert_eq!(c.disks.size_bytes, [16578 * 255 * 63 * 512]);
    assert_eq!(c.disks.partition_count, [2]);
    assert_eq!(s(c.disks.boot_drive_letter[0]), "C");

    // LogDisk: unpack('<QQ', p, 0) = (368050176, 135996112896); drive @28
    // "C:"; unpack('<III', p, 40) = (2, 8, 512); unpack('<QQ', p, 56) =
    // (29898381 free, 33202175 total clusters); "NTFS" @72.
    assert_eq!(s(c.volumes.drive_letter[0]), "C:");
    assert_eq!(s(c.volumes.file_system[0]), "NTFS");
    assert_eq!(c.volumes.partition_number, [2]);
    assert_eq!(c.volumes.size_bytes, [135_996_112_896]);
    assert_eq!(c.volumes.free_bytes, [29_898_381 * 8 * 512]);

    // NIC v2: three adapters; MAC p[:6] of the first.
    let nics: Vec<String> = c.nics.description.iter().map(|&i| s(i)).collect();
    assert_eq!(
        nics,
        [
            "Microsoft Hyper-V Network Adapter",
            "Software Loopback Interface 1",
            "Microsoft ISATAP Adapter"
        ]
    );
    assert_eq!(s(c.nics.mac[0]), "00-15-5D-7C-58-28");
    assert_eq!(s(c.nics.ip_addresses[1]), "::1;127.0.0.1");

    // No Video event in this trace (the census has no 0x0B0E).
    assert!(c.video.adapter.is_empty());

    // Services: 157 events, 67 with state 4; Dhcp = (944, 4, 24), svchost.exe, "TDI".
    assert_eq!(c.services.name.len(), 157);
    assert_eq!(c.running_services(), 67);
    let dhcp = (0..c.services.name.len())
        .find(|&i| s(c.services.name[i]) == "Dhcp")
        .expect("Dhcp");
    assert_eq!(c.services.pid[dhcp], 944);
    assert_eq!(service_state_name(c.services.state[dhcp]), "Running");
    assert_eq!(s(c.services.process_name[dhcp]), "svchost.exe");
    assert_eq!(s(c.services.group[dhcp]), "TDI");
    assert_eq!(s(c.services.group[0]), "netsvcs"); // AeLookupSvc's svchost group

    // PnP: 78 events; #23 is COM1 (FriendlyName, ServiceName "Serial").
    assert_eq!(c.pnp.device_id.len(), 78);
    assert_eq!(
        s(c.pnp.device_id[0]),
        r"PCI\VEN_1414&DEV_5353&SUBSYS_00000000&REV_00\3&267A616A&1&40"
    );
    assert_eq!(s(c.pnp.friendly_name[23]), "Communications Port (COM1)");
    assert_eq!(s(c.pnp.service_name[23]), "Serial");
}

/// The diagsession's kernel member logs PnP v5 (DevStatus and DevProblem
/// after the filter counts) and Services v3; counts from `etlscope info`'s
/// census (0x0b0f 269, 0x0b16 101), values hand-decoded from `etlscope dump`.
#[test]
fn diagsession_system_configuration() {
    let Some(t) = common::model_of("vs-dotnetcore31.diagsession") else {
        return;
    };
    let c = &t.system_config;
    let s = |id| t.strings.get(id).to_string();
    // CPU: unpack('<IIIII', p, 0) = (2295, 4, 16384, 4096, 65536); name @20,
    // domain @532.
    let g = &c.general;
    assert_eq!((g.mhz, g.processors, g.memory_mb), (2295, 4, 16384));
    assert_eq!(g.computer_name, "liha-test");
    assert_eq!(g.domain_name, "redmond.corp.microsoft.com");
    assert_eq!(c.services.name.len(), 269);
    // PnP v5: unpack('<IIII', p, 16) = (0, 0, 0x180200a, 0), strings from @32.
    assert_eq!(c.pnp.device_id.len(), 101);
    assert_eq!(
        s(c.pnp.description[1]),
        "Freedom Scientific Accessibility Display Driver"
    );
    assert_eq!(s(c.pnp.service_name[1]), "fsvidacc_service");
    let sysconfig_errors: Vec<_> = t
        .info
        .diagnostics
        .iter()
        .filter(|d| {
            ["PnpDevice", "Service", "NetworkAdapter", "PhysicalDisk"]
                .iter()
                .any(|k| d.message.contains(k))
        })
        .collect();
    assert!(sysconfig_errors.is_empty(), "{sysconfig_errors:?}");
}
