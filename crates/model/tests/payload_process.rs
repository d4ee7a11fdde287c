//! Microsoft-Windows-Kernel-Network events are logged from the DPC that
//! sent or received the data: the header names whatever thread ran (often
//! Idle's), the payload's PID the process the data belongs to. The Generic
//! Events Process column takes the payload's process, as WPA does; Header
//! Process keeps the header's. On main the row shows `Idle (0)` and no name.

use etl::writer::{EtlWriter, EventHeaderFields, KernelHeader, Record, WriterConfig};
use etl::{EtlFile, Guid};
use std::io::Cursor;
use synth::kernel::{self, hooks, versions, ProcessFields, ThreadFields};

const APP_PID: u32 = 1234;
const APP_TID: u32 = 1240;

fn trace() -> Vec<u8> {
    let config = WriterConfig {
        pointer_size: 8,
        cpus: 1,
        ..WriterConfig::default()
    };
    let ts0 = config.ts0;
    let mut w = EtlWriter::new(Cursor::new(Vec::new()), config).unwrap();
    for (i, (pid, name)) in [(0, "Idle"), (APP_PID, "app.exe")].into_iter().enumerate() {
        let pl = kernel::process(
            8,
            &ProcessFields {
                unique_process_key: 0xFFFF_8000_0000_1000 + 0x1000 * i as u64,
                pid,
                parent_pid: 4,
                session_id: 1,
                directory_table_base: 0x1AD000,
                image_file_name: name,
                command_line: name,
            },
        );
        let rec = Record::perfinfo(ts0 + 10, hooks::PROCESS_DC_START, versions::PROCESS, &pl);
        w.write(0, &rec).unwrap();
    }
    for (pid, tid) in [(0, 0), (APP_PID, APP_TID)] {
        let pl = kernel::thread(
            8,
            &ThreadFields {
                pid,
                tid,
                stack_base: 0xFFFF_8000_0080_0000,
                stack_limit: 0xFFFF_8000_007F_0000,
                start_addr: 0xFFFF_8000_0000_1840,
                win32_start_addr: 0x7FF6_0000_1000,
                teb_base: 0x7FFD_0000,
                base_priority: 8,
            },
        );
        let h = KernelHeader {
            hook_id: hooks::THREAD_DC_START,
            version: versions::THREAD,
            pid,
            tid,
        };
        w.write(0, &Record::system(ts0 + 20, h, &pl)).unwrap();
    }
    // TcpIp Datareceived (id 11, v0): PID, size, daddr, saddr, dport,
    // sport, seqnum, connid (Windows 10's manifest), logged in Idle's DPC.
    let mut pl = Vec::new();
    pl.extend(APP_PID.to_le_bytes());
    pl.extend(1460u32.to_le_bytes());
    pl.extend([10, 0, 0, 2]);
    pl.extend([10, 0, 0, 1]);
    pl.extend(443u16.to_be_bytes());
    pl.extend(50000u16.to_be_bytes());
    pl.extend(7u32.to_le_bytes());
    pl.extend(0u64.to_le_bytes());
    let h = EventHeaderFields {
        provider: Guid::parse("7dd42a49-5329-4832-8dfd-43d979153a88").unwrap(),
        id: 11,
        version: 0,
        level: 4,
        opcode: 11,
        task: 10,
        keyword: 0x10,
        pid: 0,
        tid: 0,
        ..Default::default()
    };
    w.write(0, &Record::event(ts0 + 1000, h, &pl)).unwrap();
    let (cursor, _) = w.finish().unwrap();
    cursor.into_inner()
}

#[test]
fn kernel_network_events_belong_to_the_process_their_payload_names() {
    let file = EtlFile::from_bytes(trace()).unwrap();
    let t = model::build(&file);
    let g = &t.generic;
    let row = (0..g.len())
        .find(|&i| t.generic_provider_text(i) == "Microsoft-Windows-Kernel-Network")
        .expect("the Kernel-Network row");
    assert_eq!(
        t.strings.get(g.name[row]),
        "KERNEL_NETWORK_TASK_TCPIP/Datareceived."
    );
    assert_eq!(t.generic_process_text(row), "app.exe (1234)");
    assert_eq!(t.generic_header_process_text(row), "Idle (0)");
    let fields = g.fields(row);
    assert_eq!(fields[0], ("PID".to_string(), "1234".to_string()));
    assert_eq!(fields[1], ("size".to_string(), "1460".to_string()));
    // Other rows: Header Process is the Process column.
    for i in (0..g.len()).filter(|&i| i != row) {
        assert_eq!(t.generic_header_process_text(i), t.generic_process_text(i));
    }
}
