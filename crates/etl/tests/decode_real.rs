//! `etl::decode` against the real traces in ETLSCOPE_REAL_TRACES.
//!
//! How the expected values were derived (independently of the decoders):
//! - Counts: the reference decoder's census (`expected/mod.rs`, written by
//!   tests/reference/etl_census.py from the bytes, re-checked against
//!   dissect.etl and etl-parser by scripts/check-peers.py), by the hook ids
//!   and provider opcodes / event ids each decoder takes.
//! - Field values: hand decodes of the payload hex of `etlscope dump` with
//!   Python `struct.unpack_from` at the offsets of docs/etl-format.md (the
//!   snippet is quoted next to each value). Where the same event appears in
//!   PerfView's own decode of this trace (TraceEvent.Tests/inputs/
//!   net.4.5.2.x64.baseline.txt in microsoft/perfview: same 360 buffers,
//!   same PerfView pid 3988), the values agree; noted as "PerfView baseline".
//! - TraceLogging: the metadata bytes were read straight from the uncompressed
//!   .etl files with a Python walker (buffer -> event -> extended items).

use etl::decode::{
    self, tracelogging, Decode, DecodeError, Decoded, ImageKind, ProcessKind, TlValue,
};
use etl::{EtlFile, Event, Guid};
use std::collections::BTreeMap;
use std::sync::{Mutex, OnceLock};

use testdata::real_traces_dir as traces_dir;

mod expected;

fn open(name: &str) -> Option<EtlFile> {
    let path = traces_dir()?.join(name);
    match EtlFile::open(&path) {
        Ok(f) => Some(f),
        Err(e) => panic!("{}: {e}", path.display()),
    }
}

/// An event copied out of its buffer, so that one pass over a file serves
/// every test (walking the x64 trace takes seconds in a debug build).
struct OwnedEvent {
    header: Event<'static>,
    payload: Vec<u8>,
    extended: Vec<u8>,
}

impl OwnedEvent {
    fn view(&self) -> Event<'_> {
        let mut e: Event<'_> = self.header;
        e.payload = &self.payload;
        e.extended = &self.extended;
        e
    }
}

/// Events of a file in timestamp order (the order of `etlscope dump`, whose
/// output the expected "first" events were taken from), read once per file.
fn events_of(file: &EtlFile) -> std::sync::Arc<Vec<OwnedEvent>> {
    type Cache = Mutex<BTreeMap<String, std::sync::Arc<Vec<OwnedEvent>>>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let key = format!("{}:{}", file.file_len(), file.ts0());
    let cache = CACHE.get_or_init(Default::default);
    if let Some(v) = cache.lock().unwrap().get(&key) {
        return v.clone();
    }
    let mut out = Vec::new();
    let diags = file.for_each_event_in_order(|ev| {
        let header: Event<'static> = Event {
            payload: &[],
            extended: &[],
            ..*ev
        };
        out.push(OwnedEvent {
            header,
            payload: ev.payload.to_vec(),
            extended: ev.extended.to_vec(),
        });
    });
    assert!(diags.is_empty(), "reader diagnostics: {diags:?}");
    let v = std::sync::Arc::new(out);
    cache.lock().unwrap().insert(key, v.clone());
    v
}

fn each_event(file: &EtlFile, mut f: impl FnMut(&Event<'_>)) {
    for e in events_of(file).iter() {
        f(&e.view());
    }
}

/// Decoded values of type T among events matching `pred`.
fn all<T: for<'a> Decode<'a>>(file: &EtlFile, pred: impl Fn(&Event<'_>) -> bool) -> Vec<T> {
    let mut out = Vec::new();
    each_event(file, |ev| {
        if pred(ev) {
            out.push(T::decode(ev).expect("decodes"));
        }
    });
    out
}

fn hook(h: u16) -> impl Fn(&Event<'_>) -> bool {
    move |ev| ev.hook_id == Some(h)
}

fn provider_op(p: Guid, opcode: u8) -> impl Fn(&Event<'_>) -> bool {
    move |ev| ev.provider == Some(p) && ev.opcode == opcode && ev.hook_id.is_none()
}

fn provider_id(p: Guid, id: u16) -> impl Fn(&Event<'_>) -> bool {
    move |ev| ev.provider == Some(p) && ev.event_id == id
}

fn variant(d: &Decoded<'_>) -> String {
    let s = format!("{d:?}");
    s.split('(').next().unwrap_or("").to_string()
}

const FILES: &[&str] = &[
    "perfview-net452-x64.etl",
    "shutdown-perfdiag-kernel.etl",
    "amsi-manifest.etl",
    "lxcore-manifest.etl",
    "perfview-gcevents.etl",
    "perfview-primitive-types.etl",
    "perfview-selfdescribing-single.etl",
    "perfmon-win7-kernel-process.etl",
    "sawbuck-win7-image-64bit.etl",
    "sawbuck-win7-process-32bit.etl",
];

/// Every event of a decoded kind decodes without error and its decoder reads
/// exactly the payload, except the documented leftovers checked below.
#[test]
fn every_known_event_decodes_and_consumes_its_payload() {
    if traces_dir().is_none() {
        return;
    }
    let mut per_file: BTreeMap<&str, BTreeMap<String, u64>> = BTreeMap::new();
    for &name in FILES {
        let Some(file) = open(name) else { return };
        let counts = per_file.entry(name).or_default();
        let mut errors: Vec<DecodeError> = Vec::new();
        let mut leftovers: BTreeMap<(String, u16, usize), u64> = BTreeMap::new();
        each_event(&file, |ev| {
            let Some(r) = decode::decode_measured(ev) else {
                return;
            };
            match r {
                Ok((d, used)) => {
                    let v = variant(&d);
                    if used != ev.payload.len() {
                        *leftovers
                            .entry((v.clone(), ev.version, ev.payload.len() - used))
                            .or_default() += 1;
                    }
                    *counts.entry(v).or_default() += 1;
                }
                Err(e) => errors.push(e),
            }
        });
        assert!(
            errors.is_empty(),
            "{name}: {} errors, first {}",
            errors.len(),
            errors[0]
        );
        // The CPU config event v3 is 20 bytes longer than TE-K's v2 layout
        // (828 vs 808 bytes, from the census); those trailing fields are unread.
        let allowed: BTreeMap<(String, u16, usize), u64> = if name == "perfview-net452-x64.etl" {
            [(("CpuConfig".to_string(), 3, 20), 1)].into()
        } else {
            BTreeMap::new()
        };
        assert_eq!(leftovers, allowed, "{name}: payload bytes left unread");
        eprintln!("{name}: {counts:?}");
    }

    // Expected counts: the reference decoder's census (expected/mod.rs, from
    // tests/reference/etl_census.py), by the hook ids, (provider, opcode) and
    // (provider, event id) each decoder takes.
    let ktc = "b3e675d7-2554-4f18-830b-2762732560de";
    let kfile = "edd08927-9cc4-4e65-b970-c2560fb5c289";
    let kproc = "22fb2cd6-0e7b-422b-a0c7-2fad1fd0e716";
    let clr = "e13c0d23-ccbc-4e12-931b-d9cc2eee27e4";
    let rundown = "a669021c-c450-4609-a035-5af59af4df18";
    let sysconfig = "9b79ee91-b5fd-41c0-a243-4248e266e9d0";
    let x64 = "perfview-net452-x64.etl";
    let expect_x64: Vec<(&str, u64)> = vec![
        ("SampledProfile", hooks(x64, &[0x0F2E])),
        ("StackWalk", hooks(x64, &[0x1820])),
        ("StackKeyDefinition", hooks(x64, &[0x1822, 0x1823, 0x1824])),
        ("StackKeyReference", hooks(x64, &[0x1825, 0x1826])),
        ("ImageId", ops(x64, ktc, &[0])),
        ("DbgId", ops(x64, ktc, &[36, 37])),
        ("FileVersion", ops(x64, ktc, &[64])),
        (
            "Process",
            hooks(x64, &[0x0301, 0x0302, 0x0303, 0x0304, 0x0327]) + ids(x64, kproc, &[1, 2]),
        ),
        ("Thread", hooks(x64, &[0x0501, 0x0502, 0x0503, 0x0504])),
        (
            "Image",
            hooks(x64, &[0x140A, 0x030A, 0x1402, 0x1403, 0x1404]),
        ),
        ("KernelAddress", hooks(x64, &[0x1421, 0x1422])),
        (
            "FileIoName",
            hooks(x64, &[0x0400, 0x0420, 0x0423, 0x0424]) + ids(x64, kfile, &[10, 11]),
        ),
        (
            "FileIoCreate",
            hooks(x64, &[0x0440]) + ids(x64, kfile, &[12]),
        ),
        ("DiskIo", hooks(x64, &[0x010A, 0x010B])),
        ("DiskIoInit", hooks(x64, &[0x010C, 0x010D, 0x010F])),
        ("DiskFlush", hooks(x64, &[0x010E])),
        ("HardFault", hooks(x64, &[0x0220])),
        (
            "ClrMethod",
            ids(x64, clr, &[141, 142, 143, 144]) + ids(x64, rundown, &[141, 142, 143, 144]),
        ),
        (
            "ClrModule",
            ids(x64, clr, &[152, 153]) + ids(x64, rundown, &[153, 154]),
        ),
        ("ProfileInterval", hooks(x64, &[0x0F48, 0x0F49, 0x0F4A])),
        ("CpuConfig", hooks(x64, &[0x0B0A])),
        ("LogicalDisk", hooks(x64, &[0x0B0C])),
        ("PhysicalDisk", hooks(x64, &[0x0B0B])),
        ("NetworkAdapter", hooks(x64, &[0x0B0D])),
        ("VideoAdapter", hooks(x64, &[0x0B0E])),
        ("Service", hooks(x64, &[0x0B0F])),
        ("PowerStates", hooks(x64, &[0x0B10])),
        ("PnpDevice", hooks(x64, &[0x0B16])),
        ("VolumeMapping", ops(x64, sysconfig, &[35])),
        ("SystemPaths", ops(x64, sysconfig, &[33])),
    ];
    let got = &per_file[x64];
    for (k, n) in expect_x64 {
        assert_eq!(got.get(k).copied().unwrap_or(0), n, "x64 {k}");
    }
    let shut = "shutdown-perfdiag-kernel.etl";
    let got = &per_file[shut];
    assert_eq!(
        got["Process"],
        hooks(shut, &[0x0301, 0x0302, 0x0303, 0x0304, 0x0327])
    );
    assert_eq!(
        got["Thread"],
        hooks(shut, &[0x0501, 0x0502, 0x0503, 0x0504])
    );
    assert_eq!(
        got["Image"],
        hooks(shut, &[0x140A, 0x030A, 0x1402, 0x1403, 0x1404])
    );
    let perfmon = "perfmon-win7-kernel-process.etl";
    let got = &per_file[perfmon];
    assert_eq!(got["Process"], ids(perfmon, kproc, &[1, 2, 15]));
    assert_eq!(got["Thread"], ids(perfmon, kproc, &[3, 4]));
    assert_eq!(got["Image"], ids(perfmon, kproc, &[5, 6]));
    // Classic headers with the kernel's Image and Process class GUIDs.
    let image_class = "2cb15d1d-5fc1-11d2-abe1-00a0c911f518";
    let process_class = "3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c";
    let f = "sawbuck-win7-image-64bit.etl";
    assert_eq!(per_file[f]["Image"], ops(f, image_class, &[2, 3, 4, 10]));
    let f = "sawbuck-win7-process-32bit.etl";
    assert_eq!(
        per_file[f]["Process"],
        ops(f, process_class, &[1, 2, 3, 4, 39])
    );
    // TraceLogging: every EventHeader event of these files carries a schema
    // (the traces' README); the census counts their EventHeader events.
    for f in [
        "amsi-manifest.etl",
        "lxcore-manifest.etl",
        "perfview-primitive-types.etl",
        "perfview-selfdescribing-single.etl",
    ] {
        assert_eq!(
            per_file[f]["TraceLogging"],
            header_type(f, "eventheader64"),
            "{f}"
        );
    }
}

fn census(file: &str) -> &'static expected::Expected {
    expected::TRACES
        .iter()
        .find(|e| e.file == file)
        .unwrap_or_else(|| panic!("{file} not in the census"))
}

/// Events with these kernel hook ids in the reference census.
fn hooks(file: &str, hook_ids: &[u16]) -> u64 {
    census(file)
        .kernel_hooks
        .iter()
        .filter(|(_, h, _)| hook_ids.contains(h))
        .map(|(_, _, n)| n)
        .sum()
}

/// Classic-header events of `provider` with these opcodes.
fn ops(file: &str, provider: &str, opcodes: &[u16]) -> u64 {
    census(file)
        .provider_opcodes
        .iter()
        .filter(|(g, o, _)| *g == provider && opcodes.contains(o))
        .map(|(_, _, n)| n)
        .sum()
}

/// EventHeader events of `provider` with these event ids.
fn ids(file: &str, provider: &str, event_ids: &[u16]) -> u64 {
    census(file)
        .provider_event_ids
        .iter()
        .filter(|(g, i, _)| *g == provider && event_ids.contains(i))
        .map(|(_, _, n)| n)
        .sum()
}

fn header_type(file: &str, ty: &str) -> u64 {
    census(file)
        .header_types
        .iter()
        .filter(|(t, _)| *t == ty)
        .map(|(_, n)| n)
        .sum()
}

#[test]
fn x64_image_information() {
    let Some(f) = open("perfview-net452-x64.etl") else {
        return;
    };
    let ktc = decode::KERNEL_TRACE_CONTROL;
    // First ImageID: base, size, pid, stamp = unpack('<QQII', p, 0); name utf16 @24.
    // PerfView baseline: ImageBase=0x77710000 ImageSize=1,404,928 TimeDateStamp=1,343,270,522.
    // The payload pid (4) equals the header's.
    let ids: Vec<decode::ImageId> = all(&f, provider_op(ktc, 0));
    let i = &ids[0];
    assert_eq!(
        (i.image_base, i.image_size, i.pid),
        (0x7771_0000, 0x15_7000, 4)
    );
    assert_eq!(i.time_date_stamp, 1_343_270_522);
    assert_eq!(i.original_file_name, "ntdll.dll");

    // First DbgID_RSDS: unpack('<QI', p, 0), uuid(bytes_le=p[12:28]), age @28, name @32.
    let rsds: Vec<decode::DbgId> = all(&f, provider_op(ktc, 36));
    let d = &rsds[0];
    assert!(!d.il);
    assert_eq!((d.image_base, d.pid, d.age), (0x7771_0000, 4, 2));
    assert_eq!(
        d.guid,
        Guid::parse("ec83d8df-5559-46e0-b630-133ebd979266").unwrap()
    );
    assert_eq!(d.pdb_file_name, "wntdll.pdb");

    // First DbgID_ILRSDS (same layout).
    let il: Vec<decode::DbgId> = all(&f, provider_op(ktc, 37));
    assert!(il[0].il);
    assert_eq!(
        (il[0].image_base, il[0].pid, il[0].age),
        (0x5DF_0000, 3988, 1)
    );
    assert_eq!(
        il[0].guid,
        Guid::parse("a4e92cd6-b916-471f-b0aa-ac54eb10af9f").unwrap()
    );
    assert!(il[0]
        .pdb_file_name
        .ends_with(r"\Microsoft.Diagnostics.FastSerialization.pdb"));

    // First FileVersion: unpack('<II', p, 0) then ten utf16z strings; PerfView
    // baseline agrees on ImageSize 1,404,928, OrigFileName, FileDescription.
    let fv: Vec<decode::FileVersion> = all(&f, provider_op(ktc, 64));
    let v = &fv[0];
    assert_eq!(
        (v.image_size, v.time_date_stamp),
        (1_404_928, 1_343_270_522)
    );
    let strings = [
        &v.original_file_name,
        &v.file_description,
        &v.file_version,
        &v.bin_file_version,
        &v.ver_language,
        &v.product_name,
        &v.company_name,
        &v.product_version,
        &v.file_id,
        &v.program_id,
    ];
    assert_eq!(
        strings,
        [
            "ntdll.dll",
            "NT Layer DLL",
            "6.2.9200.16384 (win8_rtm.120725-1247)",
            "6.2.9200.16384",
            "1033",
            "Microsoft\u{ae} Windows\u{ae} Operating System",
            "Microsoft Corporation",
            "6.2.9200.16384",
            "",
            "",
        ]
    );

    // First 0x030A load: unpack('<QQIII', p, 0), name utf16z @56.
    let loads: Vec<decode::Image> = all(&f, hook(0x030A));
    let l = &loads[0];
    assert_eq!(l.kind, ImageKind::Load);
    assert_eq!(
        (l.image_base, l.image_size, l.pid),
        (0x2_d336_0000, 0x8000, 0xdb4)
    );
    assert_eq!(l.time_date_stamp, 0x9916_fc82);
    assert!(l
        .file_name
        .ends_with(r"\PerfInvestigations\20-07-28.TestTraces\Test.x64.exe"));
}

#[test]
fn x64_processes_threads_and_config() {
    let Some(f) = open("perfview-net452-x64.etl") else {
        return;
    };
    // v4: unpack('<QIIIiQI', p, 0); SID @36 (u32 0 -> 4 bytes, else 16 + 8 + 4n);
    // ANSI name; UTF-16 command line. PerfView baseline: System has
    // UniqueProcessKey 0xfffffa830007e4c0, ExitStatus 259, Flags=Protected.
    let procs: Vec<decode::Process> =
        all(&f, |e| matches!(e.hook_id, Some(0x0301..=0x0304 | 0x0327)));
    let find = |pid: u32, kind: ProcessKind| {
        procs
            .iter()
            .find(|p| p.pid == pid && p.kind == kind)
            .unwrap_or_else(|| panic!("process {pid} {kind:?}"))
    };
    let idle = find(0, ProcessKind::DcStart);
    assert_eq!(
        (idle.image_file_name.as_str(), idle.unique_process_key),
        ("Idle", 0xffff_f800_217d_9200)
    );
    let system = find(4, ProcessKind::DcStart);
    assert_eq!(system.image_file_name, "System");
    assert_eq!((system.exit_status, system.flags), (259, 4));
    assert_eq!(system.unique_process_key, 0xffff_fa83_0007_e4c0);
    assert_eq!(system.session_id, u32::MAX);
    let perfview = find(3988, ProcessKind::DcStart);
    assert_eq!((perfview.parent_pid, perfview.session_id), (3952, 1));
    assert_eq!(
        perfview.command_line,
        r#""C:\Users\brianrob\AppData\Roaming\PerfView\VER.2020-07-02.23.01.22.000\PerfView.exe" "#
    );
    let csrss = find(576, ProcessKind::DcStart);
    assert!(csrss
        .command_line
        .starts_with(r"%SystemRoot%\system32\csrss.exe ObjectDirectory=\Windows"));
    let test = find(3676, ProcessKind::Start);
    assert_eq!(
        (test.image_file_name.as_str(), test.command_line.as_str()),
        ("Test.x64.exe", "Test.x64.exe")
    );
    assert_eq!(test.parent_pid, 3508); // cmd.exe
    let svchost = find(840, ProcessKind::DcStart);
    assert_eq!(svchost.user_sid.as_deref(), Some("S-1-5-18"));

    // Every thread event names a thread of a known process.
    let threads: Vec<decode::Thread> = all(&f, |e| matches!(e.hook_id, Some(0x0501..=0x0504)));
    assert!(threads.iter().all(|t| procs.iter().any(|p| p.pid == t.pid)));

    // 0x0F49/0x0F4A: unpack('<III', p, 0) = (0, 10000, 10000), then "Timer": 1 ms.
    let iv: Vec<decode::ProfileInterval> = all(&f, |e| matches!(e.hook_id, Some(0x0F48..=0x0F4A)));
    assert_eq!(iv.len(), 2);
    for i in &iv {
        assert_eq!(
            (i.source, i.new_interval, i.old_interval),
            (0, 10_000, 10_000)
        );
        assert_eq!(i.source_name, "Timer");
    }

    // CPU: unpack('<IIIII', p, 0), ComputerName utf16 @20; the first two agree
    // with the log-file header (3592 MHz, 8 processors).
    let cpu: Vec<decode::CpuConfig> = all(&f, hook(0x0B0A));
    assert_eq!(
        (cpu[0].mhz, cpu[0].number_of_processors, cpu[0].memory_mb),
        (3592, 8, 4096)
    );
    assert_eq!(
        (cpu[0].page_size, cpu[0].allocation_granularity),
        (4096, 65536)
    );
    assert_eq!(cpu[0].computer_name, "BRIANROB-W8");
    // LogDisk: drive letter utf16 @28, file system @72.
    let ld: Vec<decode::LogicalDisk> = all(&f, hook(0x0B0C));
    assert_eq!(
        (ld[0].drive_letter.as_str(), ld[0].file_system.as_str()),
        ("C:", "NTFS")
    );
    assert_eq!(
        (ld[0].start_offset, ld[0].partition_size),
        (368_050_176, 135_996_112_896)
    );

    // PhyDisk (568 bytes): unpack('<IIIIqIIII', p, 0) = (0, 512, 63, 255,
    // 16578, 0, 0, 0, 0); Manufacturer utf16 @40; unpack('<IB', p, 552) =
    // (2, 1); BootDriveLetter utf16 @558 = "C".
    let pd: Vec<decode::PhysicalDisk> = all(&f, hook(0x0B0B));
    assert_eq!(pd.len(), 1);
    let d = &pd[0];
    assert_eq!(
        (d.disk_number, d.bytes_per_sector, d.sectors_per_track),
        (0, 512, 63)
    );
    assert_eq!((d.tracks_per_cylinder, d.cylinders), (255, 16578));
    assert_eq!(d.manufacturer, "Virtual HD ATA Device");
    assert_eq!((d.partition_count, d.write_cache_enabled), (2, true));
    assert_eq!(d.boot_drive_letter, "C");
    assert_eq!(d.size_bytes(), 16578 * 255 * 63 * 512);

    // NIC v2: unpack('<QIII', p, 0): address bytes p[:6] = 00155d7c5828,
    // len 6, indexes (12, 12); then three utf16z strings from @20 ending
    // exactly at len(p) = 434.
    let nic: Vec<decode::NetworkAdapter> = all(&f, hook(0x0B0D));
    assert_eq!(nic.len(), 3);
    assert_eq!(nic[0].mac_text(), "00-15-5D-7C-58-28");
    assert_eq!((nic[0].ipv4_index, nic[0].ipv6_index), (12, 12));
    assert_eq!(nic[0].description, "Microsoft Hyper-V Network Adapter");
    assert!(nic[0].ip_addresses.ends_with(";10.128.0.55"));
    assert_eq!(
        nic[0].dns_server_addresses,
        "2001:4898::1050:1050;2001:4898::1050:5050;10.50.10.50;10.50.50.50"
    );
    assert_eq!(nic[1].description, "Software Loopback Interface 1");
    assert_eq!(nic[1].ip_addresses, "::1;127.0.0.1");
    assert_eq!(nic[1].mac_text(), "");
    assert_eq!(nic[2].description, "Microsoft ISATAP Adapter");
    assert_eq!(nic[2].mac_text(), "00-00-00-00-00-00-00-E0");

    // Services v3: unpack('<III', p, 0) then five utf16z strings (the last
    // ends at len(p)). #0 = (0, 1, 1) AeLookupSvc / Application Experience /
    // "" / "" / netsvcs; 67 of 157 have state 4 (running).
    let sv: Vec<decode::Service> = all(&f, hook(0x0B0F));
    assert_eq!(sv.len(), 157);
    assert_eq!((sv[0].pid, sv[0].state, sv[0].sub_process_tag), (0, 1, 1));
    assert_eq!(
        (sv[0].name.as_str(), sv[0].display_name.as_str()),
        ("AeLookupSvc", "Application Experience")
    );
    assert_eq!(sv[0].svchost_group, "netsvcs");
    assert_eq!(sv.iter().filter(|s| s.state == 4).count(), 67);
    let dhcp = sv.iter().find(|s| s.name == "Dhcp").expect("Dhcp");
    assert_eq!((dhcp.pid, dhcp.state, dhcp.sub_process_tag), (944, 4, 24));
    assert_eq!(
        (dhcp.process_name.as_str(), dhcp.load_order_group.as_str()),
        ("svchost.exe", "TDI")
    );

    // Power: bytes 00 00 00 00 01 00 00 00: only S5 (soft off).
    let pw: Vec<decode::PowerStates> = all(&f, hook(0x0B10));
    assert_eq!(pw[0].s, [false, false, false, false, true]);

    // PnP v4: ClassGuid @0, unpack('<II', p, 16) = filter counts, then
    // utf16z strings from @24 (5 + counts, the last ends at len(p)).
    let pnp: Vec<decode::PnpDevice> = all(&f, hook(0x0B16));
    assert_eq!(pnp.len(), 78);
    let system_class = Guid::from_u128(0x4d36e97d_e325_11ce_bfc1_08002be10318);
    assert_eq!(pnp[0].class_guid, Some(system_class));
    assert_eq!(
        pnp[0].device_id,
        r"PCI\VEN_1414&DEV_5353&SUBSYS_00000000&REV_00\3&267A616A&1&40"
    );
    assert_eq!(pnp[0].description, "Microsoft Hyper-V S3 Cap");
    assert_eq!(pnp[0].friendly_name, "");
    assert_eq!(pnp[0].pdo_name, r"\Device\NTPNP_PCI0004");
    assert_eq!(pnp[0].service_name, "s3cap");
    let com1 = &pnp[23];
    assert_eq!(com1.friendly_name, "Communications Port (COM1)");
    assert_eq!(com1.service_name, "Serial");
    assert_eq!(
        (com1.upper_filters.as_slice(), com1.lower_filters.len()),
        (&["serenum".to_string()][..], 0)
    );
    assert_eq!(pnp[15].lower_filters, ["NdisTapi"]);

    // Volume mapping (PerfView baseline: \SystemRoot\ -> C:\Windows\, \??\ -> "").
    let vm: Vec<decode::VolumeMapping> = all(&f, provider_op(decode::SYSCONFIG, 35));
    let map: BTreeMap<_, _> = vm
        .iter()
        .map(|m| (m.nt_path.as_str(), m.dos_path.as_str()))
        .collect();
    assert_eq!(map[r"\Device\HarddiskVolume2\"], r"C:\");
    assert_eq!(map[r"\SystemRoot\"], r"C:\Windows\");
    assert_eq!(map[r"\Device\CdRom0\"], r"D:\");
    assert_eq!(map[r"\??\"], "");
    let sp: Vec<decode::SystemPaths> = all(&f, provider_op(decode::SYSCONFIG, 33));
    assert_eq!(sp[0].system_directory, r"C:\Windows\system32");
    assert_eq!(sp[0].windows_directory, r"C:\Windows\");
}

#[test]
fn x64_samples_and_stacks() {
    let Some(f) = open("perfview-net452-x64.etl") else {
        return;
    };
    // First sample: unpack('<QIHH', p, 0) = (0xffffffffffd03003, 584, 1, 0x70).
    let s: Vec<decode::SampledProfile> = all(&f, hook(0x0F2E));
    assert_eq!(s.len(), 79_528);
    assert_eq!(
        (s[0].instruction_pointer, s[0].tid),
        (0xffff_ffff_ffd0_3003, 584)
    );
    assert_eq!((s[0].count, s[0].flags, s[0].priority()), (1, 0x70, 14));

    // First inline stack: unpack('<qII', p, 0) = (1942903333, 4, 584) -- the
    // first sample's time and thread -- then 2 frames, leaf first.
    let mut first_walk = None;
    let mut first_def = None;
    let mut first_user_ref = None;
    each_event(&f, |ev| match decode::decode(ev) {
        Some(Ok(Decoded::StackWalk(w))) if first_walk.is_none() => {
            first_walk = Some((
                w.event_timestamp,
                w.pid,
                w.tid,
                w.frames.iter().collect::<Vec<_>>(),
            ))
        }
        Some(Ok(Decoded::StackKeyDefinition(d))) if first_def.is_none() => {
            first_def = Some((d.key, d.frames.len(), d.frames.get(0)))
        }
        Some(Ok(Decoded::StackKeyReference(r))) if r.user && first_user_ref.is_none() => {
            first_user_ref = Some(r)
        }
        _ => {}
    });
    assert_eq!(
        first_walk,
        Some((
            1_942_903_333,
            4,
            584,
            vec![0xffff_ffff_ffd0_3003, 0xffff_f880_00dc_e191]
        ))
    );
    // First KeyDelete: key = unpack('<Q', p, 0), 16 frames, leaf 0xfffff800215bf65c.
    assert_eq!(
        first_def,
        Some((0xffff_fa83_0345_2c50, 16, Some(0xffff_f800_215b_f65c)))
    );
    // First StackKeyUser: unpack('<qIIQ', p, 0).
    let r = first_user_ref.unwrap();
    assert_eq!(
        (r.event_timestamp, r.pid, r.tid),
        (1_943_003_318, 3988, 3992)
    );
    assert_eq!(r.key, 18_446_738_039_335_282_512);
}

#[test]
fn x64_file_disk_and_clr() {
    let Some(f) = open("perfview-net452-x64.etl") else {
        return;
    };
    // First Kernel-File Create (id 12): unpack('<QQIIII', p, 0), name utf16z @32.
    let kf = decode::KERNEL_FILE;
    let mut creates = Vec::new();
    let mut stacks = 0;
    each_event(&f, |ev| {
        if ev.provider == Some(kf) && ev.event_id == 12 {
            if let Some(Ok(Decoded::FileIoCreate(c))) = decode::decode(ev) {
                creates.push((ev.pid, ev.tid, c));
            }
            let st = decode::event_stack(ev)
                .expect("stack item")
                .expect("stack decodes");
            assert_eq!(st.match_id, 0);
            assert!(!st.frames.is_empty());
            stacks += 1;
        }
    });
    assert_eq!((creates.len(), stacks), (562, 562));
    let (pid, tid, c) = &creates[0];
    assert_eq!((*pid, *tid), (Some(3988), Some(3780)));
    assert_eq!(
        (c.irp, c.file_object),
        (0xffff_fa83_0393_a3e8, 0xffff_fa83_004b_da90)
    );
    assert_eq!(
        (c.ttid, c.create_options, c.file_attributes, c.share_access),
        (0xec4, 0x0120_0000, 0, 7)
    );
    assert_eq!(
        c.open_path,
        r"\Device\HarddiskVolume2\Windows\SysWOW64\inetsrv\iiscore.dll"
    );

    // First FileRundown name: key unpack('<Q', p, 0), name @8.
    let names: Vec<decode::FileIoName> = all(&f, hook(0x0424));
    assert_eq!(names[0].file_key, 0xffff_fa83_0160_7da0);
    assert_eq!(names[0].file_name, r"\Device\HarddiskVolume2\$Mft");

    // First disk read: unpack('<IIIIQQQQI', p, 0).
    let dr: Vec<decode::DiskIo> = all(&f, hook(0x010A));
    let d = &dr[0];
    assert_eq!(
        (d.disk_number, d.irp_flags, d.transfer_size),
        (0, 131_074, 16_384)
    );
    assert_eq!(
        (d.byte_offset, d.high_res_response_time, d.issuing_tid),
        (849_788_928, Some(258_208), Some(44))
    );
    assert_eq!(
        (d.file_key, d.irp),
        (18_446_735_964_854_157_632, 18_446_738_039_324_662_880)
    );

    // First hard fault: unpack('<qQQQII', p, 0).
    let hf: Vec<decode::HardFault> = all(&f, hook(0x0220));
    let h = &hf[0];
    assert_eq!(
        (h.initial_time, h.read_offset, h.virtual_address),
        (0x74ac_e3d5, 0x45400, 0x7f9_c7a8_91f0)
    );
    assert_eq!(
        (h.file_object, h.tid, h.byte_count),
        (0xffff_f8a0_0130_0c50, 0x6b4, 0x2200)
    );

    // First MethodLoadVerbose: unpack('<QQQIII', p, 0), three utf16z, u16.
    let m: Vec<decode::ClrMethod> = all(&f, provider_id(decode::CLR_RUNTIME, 143));
    let m = &m[0];
    assert_eq!(
        (m.method_id, m.module_id, m.start_address),
        (0x7f9_5eb0_a230, 0x7f9_5e93_3020, 0x7f9_5eb1_0090)
    );
    assert_eq!(
        (m.size, m.token, m.flags, m.clr_instance_id),
        (633, 0x0600_06d9, 8, Some(9))
    );
    assert_eq!(
        (m.namespace.as_str(), m.name.as_str()),
        ("System.AppDomain", "SetupDomain")
    );
    assert!(m
        .signature
        .starts_with("instance void  (bool,class System.String"));
    // Rundown method names are all non-empty (verbose events).
    let dc: Vec<decode::ClrMethod> = all(&f, provider_id(decode::CLR_RUNDOWN, 144));
    assert_eq!(dc.len(), 16_702);
    assert!(dc
        .iter()
        .all(|m| !m.name.is_empty() && m.kind == decode::MethodEventKind::DcEnd));
}

#[test]
fn shutdown_threads_images_and_defunct() {
    let Some(f) = open("shutdown-perfdiag-kernel.etl") else {
        return;
    };
    // Thread v3 with names: unpack('<II', p, 0), priorities p[68:72], name utf16z @72.
    let th: Vec<decode::Thread> = all(&f, hook(0x0503));
    let raw_input = th.iter().find(|t| t.tid == 560).unwrap();
    assert_eq!(raw_input.pid, 428);
    assert_eq!(raw_input.priorities, Some([0x10, 0x05, 0x02, 0x00]));
    assert_eq!(raw_input.name.as_deref(), Some("Win32k Raw Input Thread"));
    let desk = th.iter().find(|t| t.tid == 564).unwrap();
    assert_eq!(desk.name.as_deref(), Some("Win32k Desktop Thread (IO_DT)"));

    // Defunct v5: pid 496, parent 600, SID S-1-5-20, "svchost.exe", then the
    // 8 bytes 67fc25ba5aeed501 = FILETIME 2020-02-28 17:15:51.48 UTC.
    let de: Vec<decode::Process> = all(&f, hook(0x0327));
    let p = &de[0];
    assert_eq!(
        (p.kind, p.pid, p.parent_pid),
        (ProcessKind::Defunct, 496, 600)
    );
    assert_eq!(p.user_sid.as_deref(), Some("S-1-5-20"));
    assert_eq!(p.image_file_name, "svchost.exe");
    assert_eq!(p.exit_time, Some(0x01d5_ee5a_ba25_fc67));
    let start = f.logfile().unwrap().start_time;
    assert!(de.iter().all(|p| p.exit_time.unwrap() >= start));

    // First v3 image rundown: unpack('<QQIIIBBHQ', p, 0), name @56.
    let im: Vec<decode::Image> = all(&f, |e| e.hook_id == Some(0x1403) && e.version == 3);
    let i = &im[0];
    assert_eq!(
        (i.image_base, i.image_size, i.pid, i.checksum),
        (0x7762_0000, 0x19_a000, 4, 0x19_ff10)
    );
    assert_eq!(
        (i.signature_level, i.signature_type, i.default_base),
        (12, 2, 0x7762_0000)
    );
    assert_eq!(
        i.file_name,
        r"\Device\HarddiskVolume3\Windows\SysWOW64\ntdll.dll"
    );
}

fn tl_events(name: &str) -> Option<Vec<decode::TlEvent>> {
    let f = open(name)?;
    let mut out = Vec::new();
    each_event(&f, |ev| {
        if let Some(Ok(Decoded::TraceLogging(t))) = decode::decode(ev) {
            out.push(t);
        }
    });
    Some(out)
}

#[test]
fn tracelogging_primitive_types() {
    let Some(evs) = tl_events("perfview-primitive-types.etl") else {
        return;
    };
    // Metadata (raw bytes): "PrimitiveTypesTest", string_type 0x02, boolean_type
    // 0x84/0x03, char_type 0x84/0x02, int16 0x05, int32 0x07, uint16 0x06,
    // uint32 0x08, int64 0x0a (sic: UINT64), uint64 0x0a, guid 0x0f,
    // file_time 0x11, system_time 0x12. First payload (hex):
    // 4d65726375727900 00 4d cdff 9affffff 3300 66000000 34ffffffffffffff
    // cc00000000000000 c414d60af40e25428013f44f37cb0397 7010fa4d8ba5d701
    // e5070900040009000e003b0023001f03
    assert_eq!(evs.len(), 5);
    let e = &evs[0];
    assert_eq!(e.name, "PrimitiveTypesTest");
    let names: Vec<&str> = e.fields.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "string_type",
            "boolean_type",
            "char_type",
            "int16_type",
            "int32_type",
            "uint16_type",
            "uint32_type",
            "int64_type",
            "uint64_type",
            "guid_type",
            "file_time_type",
            "system_time_type"
        ]
    );
    assert_eq!(
        e.field("string_type"),
        Some(&TlValue::String("Mercury".into()))
    );
    assert_eq!(e.field("boolean_type"), Some(&TlValue::U8(0)));
    assert_eq!(e.field("char_type"), Some(&TlValue::U8(b'M')));
    assert_eq!(e.field("int16_type"), Some(&TlValue::I16(-51)));
    assert_eq!(e.field("int32_type"), Some(&TlValue::I32(-102)));
    assert_eq!(e.field("uint16_type"), Some(&TlValue::U16(51)));
    assert_eq!(e.field("uint32_type"), Some(&TlValue::U32(102)));
    // Declared UINT64 by the writer: -204 as a u64.
    assert_eq!(e.field("int64_type"), Some(&TlValue::U64((-204i64) as u64)));
    assert_eq!(e.field("uint64_type"), Some(&TlValue::U64(204)));
    let g = Guid::parse("0ad614c4-0ef4-4225-8013-f44f37cb0397").unwrap();
    assert_eq!(e.field("guid_type"), Some(&TlValue::Guid(g)));
    assert_eq!(
        e.field("file_time_type"),
        Some(&TlValue::FileTime(0x01d7_a58b_4dfa_1070))
    );
    assert_eq!(
        e.field("system_time_type"),
        Some(&TlValue::SystemTime([2021, 9, 4, 9, 14, 59, 35, 799]))
    );
    // Second event ("Venus"): boolean 1.
    assert_eq!(
        evs[1].field("string_type"),
        Some(&TlValue::String("Venus".into()))
    );
    assert_eq!(evs[1].field("boolean_type"), Some(&TlValue::U8(1)));
}

#[test]
fn tracelogging_selfdescribing_lxcore_and_amsi() {
    // perfview-selfdescribing-single: "TestEvent", a = struct { b "Hello", c "World!" }
    // (payload hex 480065006c006c006f000000 57006f0072006c0064002100 0000).
    let Some(evs) = tl_events("perfview-selfdescribing-single.etl") else {
        return;
    };
    assert_eq!(evs.len(), 1);
    assert_eq!(evs[0].name, "TestEvent");
    let a = evs[0].field("a").unwrap();
    assert_eq!(a.to_string(), "{b: Hello, c: World!}");

    // lxcore: tags 80 00, "BreakPoint"; payload 02 | 16 x 00 | ffffffff | ffffffff
    // | 00000000 | 0000 | "LxpInstanceStart\0" | 630a0000 | "[0xc0000034] ...\n\0".
    let Some(evs) = tl_events("lxcore-manifest.etl") else {
        return;
    };
    let e = evs
        .iter()
        .find(|e| e.field("Function") == Some(&TlValue::String("LxpInstanceStart".into())))
        .unwrap();
    assert_eq!(e.name, "BreakPoint");
    assert_eq!(e.field("ErrorLevel"), Some(&TlValue::U8(2)));
    assert_eq!(e.field("instanceId"), Some(&TlValue::Guid(Guid::default())));
    assert_eq!(e.field("LxPid"), Some(&TlValue::I32(-1)));
    assert_eq!(e.field("LxTid"), Some(&TlValue::I32(-1)));
    assert_eq!(e.field("LxNs"), Some(&TlValue::I32(0)));
    assert_eq!(
        e.field("ExecutablePath"),
        Some(&TlValue::String(String::new()))
    );
    assert_eq!(e.field("Line"), Some(&TlValue::U32(0x0a63)));
    assert_eq!(
        e.field("Message"),
        Some(&TlValue::String(
            "[0xc0000034] LxpInstanceInitialize\n".into()
        ))
    );

    // amsi: "AmsiScript", Engine/Script UTF-16, "Raw Script" InType 0xc6 =
    // variable-count u16 array (OutType 2); first event's count is 0x015e = 350.
    let Some(evs) = tl_events("amsi-manifest.etl") else {
        return;
    };
    assert!(evs.iter().all(|e| e.name == "AmsiScript"));
    // The event at file offset 0x10048 has count 0x015e = 350, starting "if (".
    let arrays: Vec<&Vec<TlValue>> = evs
        .iter()
        .filter_map(|e| match e.field("Raw Script") {
            Some(TlValue::Array(a)) => Some(a),
            _ => None,
        })
        .collect();
    assert_eq!(arrays.len(), 19);
    let raw = arrays
        .iter()
        .find(|a| a.len() == 350)
        .expect("the 350-element script");
    assert_eq!(
        raw[..3],
        [TlValue::U16(0x69), TlValue::U16(0x66), TlValue::U16(0x20)]
    );
    // First event's Engine (hex of its payload): PowerShell_C:\Windows\...\powershell.exe_10.0.18362.1
    let engine =
        r"PowerShell_C:\Windows\System32\WindowsPowerShell\v1.0\powershell.exe_10.0.18362.1";
    assert!(evs
        .iter()
        .any(|e| e.field("Engine") == Some(&TlValue::String(engine.into()))));

    // The provider name comes from the PROV_TRAITS item ("solar_system", raw bytes).
    let Some(f) = open("perfview-primitive-types.etl") else {
        return;
    };
    let mut names = Vec::new();
    each_event(&f, |ev| {
        if let Some(n) = tracelogging::provider_name(ev) {
            names.push(n);
        }
    });
    assert_eq!(names.len(), 5);
    assert!(names.iter().all(|n| n == "solar_system"));
}
