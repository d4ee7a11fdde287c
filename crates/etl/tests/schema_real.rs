//! Manifest schemas against the real traces: the TRACE_EVENT_INFO parser on
//! a real MetaData EventInfo blob (hand decode below), and our CLR table
//! (written from the runtime manifest) accounting for every byte of every
//! CLR event it covers in three traces.

use etl::decode::providers::{
    CLR_PRIVATE, CLR_RUNDOWN, CLR_RUNTIME, KERNEL_PROCESS, KERNEL_TRACE_CONTROL,
    KERNEL_TRACE_CONTROL_METADATA, SYSCONFIG,
};
use etl::decode::schema::registry::SchemaKey;
use etl::decode::schema::{in_type, tdh, SchemaRegistry};
use etl::EtlFile;
use std::collections::BTreeMap;
use testdata::real_traces_dir;

fn open(name: &str) -> Option<EtlFile> {
    let path = real_traces_dir()?.join(name);
    Some(EtlFile::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

/// One event's header fields and payload.
struct Ev {
    header: etl::HeaderType,
    provider: Option<etl::Guid>,
    id: u16,
    version: u16,
    opcode: u8,
    pointer_size: u8,
    payload: Vec<u8>,
}

/// Every event of `file`.
fn events(file: &EtlFile) -> Vec<Ev> {
    file.par_map_buffers(|b| {
        let mut out = Vec::new();
        if let Ok(b) = b {
            for e in b.events().flatten() {
                out.push(Ev {
                    header: e.header_type,
                    provider: e.provider,
                    id: e.event_id,
                    version: e.version,
                    opcode: e.opcode,
                    pointer_size: e.pointer_size,
                    payload: e.payload.to_vec(),
                });
            }
        }
        out
    })
    .into_iter()
    .flatten()
    .collect()
}

#[test]
fn event_info_blob_of_gc_suspend_ee_begin() {
    let Some(file) = open("perfview-net452-x64.etl") else {
        return;
    };
    // The MetaData EventInfo (opcode 32) for DotNETRuntime event 9: 870 bytes.
    let blob = events(&file)
        .into_iter()
        .filter(|e| e.provider == Some(KERNEL_TRACE_CONTROL_METADATA) && e.opcode == 32)
        .map(|e| e.payload)
        .find(|p| {
            p.get(..16) == Some(&CLR_RUNTIME.to_bytes_le()[..])
                && p.get(32..34) == Some(&[9, 0][..])
        })
        .expect("EventInfo of DotNETRuntime event 9");
    assert_eq!(blob.len(), 870);
    // Hand decode (Python struct.unpack_from on the blob):
    // @16 EventGuid cd734904-... wait: bytes cd7349041f25ff4da3e99d6307286b05 =
    //   044973cd-251f-4dff-a3e9-9d6307286b05 (the GarbageCollection task GUID);
    // @32 Id 9, Version 1, Channel 0, Level 4, Opcode 10, Task 1, Keyword 0x1;
    // @48 DecodingSource 0 (manifest); @52 ProviderName at 280
    //   "Microsoft-Windows-DotNETRuntime"; LevelName at 344 "win:Informational";
    //   KeywordsName at 380 "GCKeyword"; TaskName at 402 "GarbageCollection";
    //   OpcodeName at 438 "GCSuspendEEBegin"; EventName offset 0;
    // @100 PropertyCount 3, TopLevelPropertyCount 3;
    // properties @112 (24 bytes each): "Reason" InType 8 OutType 8 map
    //   "GCSuspendEEReasonMap"; "Count" 8/8; "ClrInstanceID" 6/6.
    let info = tdh::parse_event_info(&blob).unwrap();
    assert_eq!(
        info.event_guid.to_string(),
        "044973cd-251f-4dff-a3e9-9d6307286b05"
    );
    assert_eq!(
        (
            info.id,
            info.version,
            info.level,
            info.opcode,
            info.task,
            info.keyword
        ),
        (9, 1, 4, 10, 1, 1)
    );
    assert_eq!(info.decoding_source, 0);
    let s = &info.schema;
    assert_eq!(s.provider, CLR_RUNTIME);
    assert_eq!(s.provider_name, "Microsoft-Windows-DotNETRuntime");
    assert_eq!(s.level_name, "win:Informational");
    assert_eq!(s.keywords_name, "GCKeyword");
    assert_eq!(
        (s.task_name.as_str(), s.opcode_name.as_str()),
        ("GarbageCollection", "GCSuspendEEBegin")
    );
    let f: Vec<(&str, u16, u16, Option<&str>)> = s
        .fields
        .iter()
        .map(|f| (f.name.as_str(), f.in_type, f.out_type, f.map.as_deref()))
        .collect();
    assert_eq!(
        f,
        [
            ("Reason", in_type::UINT32, 8, Some("GCSuspendEEReasonMap")),
            ("Count", in_type::UINT32, 8, None),
            ("ClrInstanceID", in_type::UINT16, 6, None),
        ]
    );
    // A damaged blob is an error or another schema, never a panic; what it
    // parses to decodes any payload without panicking either.
    for cut in [0, 50, 111, 130, 500] {
        let _ = tdh::parse_event_info(&blob[..cut]);
    }
    let payload = [4u8, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 13, 0];
    let mut x = 0x9E37_79B9u32;
    for _ in 0..3000 {
        let mut b = blob.clone();
        for _ in 0..3 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            let at = x as usize % b.len();
            b[at] ^= (x >> 24) as u8 | 1;
        }
        if let Ok(info) = tdh::parse_event_info(&b) {
            let none = |_: &str| None;
            let _ = etl::decode::schema::payload::decode_fields(
                &info.schema.fields,
                &payload,
                8,
                &none,
            );
        }
    }
}

/// Our CLR table (without the trace's schemas) decodes every CLR event it
/// has a line for, using exactly the payload's bytes.
fn clr_table_fits(name: &str) -> BTreeMap<String, u64> {
    let Some(file) = open(name) else {
        return BTreeMap::new();
    };
    let ours = SchemaRegistry::new();
    let mut uncovered = BTreeMap::new();
    let mut misfits: BTreeMap<String, u64> = BTreeMap::new();
    for e in events(&file) {
        let (ht, provider, id, version, ptr, payload) = (
            e.header,
            e.provider,
            e.id,
            e.version,
            e.pointer_size,
            e.payload,
        );
        let Some(p) =
            provider.filter(|&p| p == CLR_RUNTIME || p == CLR_RUNDOWN || p == CLR_PRIVATE)
        else {
            continue;
        };
        assert!(matches!(
            ht,
            etl::HeaderType::EventHeader32 | etl::HeaderType::EventHeader64
        ));
        let key = SchemaKey::Manifest {
            provider: p,
            id,
            version: version as u8,
        };
        match ours.find(&key) {
            Some(row) => {
                let r = ours.decode_measured(row, &payload, ptr);
                let used = r.and_then(|r| r.ok()).map(|(_, n)| n);
                if used != Some(payload.len()) {
                    let k = format!("{key:?} ptr {ptr}: {used:?} of {}", payload.len());
                    *misfits.entry(k).or_default() += 1;
                }
            }
            None => *uncovered.entry(format!("{p}/{id}/v{version}")).or_default() += 1,
        }
    }
    assert!(misfits.is_empty(), "{name}: {misfits:#?}");
    uncovered
}

#[test]
fn clr_table_fits_every_covered_event() {
    // net452: every CLR event (private binding and GCPerHeapHistory too).
    let u = clr_table_fits("perfview-net452-x64.etl");
    assert!(u.is_empty(), "{u:?}");
    // gcevents: GCGlobalHeapHistory v4, GCLOHCompact and GCFitBucketInfo too.
    let u = clr_table_fits("perfview-gcevents.etl");
    assert!(u.is_empty(), "{u:?}");
    let u = clr_table_fits("vs-dotnetcore31.diagsession");
    assert!(u.is_empty(), "{u:?}");
}

/// Our kernel table decodes every kernel event it has a line for in `name`
/// using exactly the payload's bytes; returns how many it decoded.
fn kernel_table_fits(name: &str) -> u64 {
    let Some(file) = open(name) else { return 0 };
    let ours = SchemaRegistry::new();
    let mut misfits: BTreeMap<String, u64> = BTreeMap::new();
    let mut n = 0;
    let hooks: Vec<(SchemaKey, u8, Vec<u8>)> = file
        .par_map_buffers(|b| {
            let mut out = Vec::new();
            if let Ok(b) = b {
                for e in b.events().flatten() {
                    let key = match (e.header_type.is_kernel(), e.hook_id, e.provider) {
                        (true, Some(hook), _) => SchemaKey::Kernel {
                            hook,
                            version: e.version as u8,
                        },
                        (false, _, Some(g)) if g == KERNEL_PROCESS => SchemaKey::Manifest {
                            provider: g,
                            id: e.event_id,
                            version: e.version as u8,
                        },
                        (false, _, Some(g)) if g == KERNEL_TRACE_CONTROL || g == SYSCONFIG => {
                            SchemaKey::Classic {
                                guid: g,
                                opcode: e.opcode,
                                version: e.version as u8,
                            }
                        }
                        _ => continue,
                    };
                    out.push((key, e.pointer_size, e.payload.to_vec()));
                }
            }
            out
        })
        .into_iter()
        .flatten()
        .collect();
    for (key, ptr, payload) in hooks {
        if let Some(row) = ours.find(&key) {
            n += 1;
            let used = ours
                .decode_measured(row, &payload, ptr)
                .and_then(|r| r.ok())
                .map(|(_, u)| u);
            if used != Some(payload.len()) {
                *misfits
                    .entry(format!("{key:?}: {used:?} of {}", payload.len()))
                    .or_default() += 1;
            }
        }
    }
    assert!(misfits.is_empty(), "{name}: {misfits:#?}");
    n
}

#[test]
fn kernel_table_fits_every_covered_event() {
    // x64: TcpIp 0x061A (240) + 0x061B (250), UdpIp 0x080A (1) + 0x080B (19)
    // + 0x081A (6) + 0x081B (10), SystemConfig Network 0x0B11 (1) and DPI
    // 0x0B1C (1) in the census. Then, counts from PerfView's baseline
    // net.4.5.2.x64.baseline.txt (microsoft/perfview, TraceEvent.Tests/inputs,
    // COUNT lines): EventTrace 1, EventTrace/Extension 3, /EndExtension 2,
    // Process/PerfCtr 1, /PerfCtrRundown 32, SystemConfig/IDEChannel 2,
    // /Platform 1; KernelTraceControl/ImageID/None 12, SysConfig/BuildInfo 1,
    // /UnknownVolume 1.
    assert_eq!(
        kernel_table_fits("perfview-net452-x64.etl"),
        240 + 250 + 1 + 19 + 6 + 10 + 2 + (1 + 3 + 2 + 1 + 32 + 2 + 1) + (12 + 1 + 1)
    );
    // diagsession: KernelTraceControl's 13,054 DbgDeterm (opcode 40, version
    // 1) and 347 None (32) events of diaghub.etl, as dissect.etl 3.x counts
    // them (EventTraceHeader provider_id b3e675d7, Class.Type 40 / 32); then
    // 30 kernel-side events of the new lines as our hex-only census listed
    // them before (4 Header, 4 Extension, 4 EndExtension, 13 IRQ v3, 2
    // IDEChannel, Platform, SysConfig BuildInfo and UnknownVolume) and the
    // DPI event (0x0B1C, `etlscope dump --hook 0x0b1c`: 1), and the 3
    // Process Terminate events (0x030B), one per Process Stop (0x0302: 3).
    assert_eq!(
        kernel_table_fits("vs-dotnetcore31.diagsession"),
        13_054 + 347 + 30 + 1 + 3
    );
    kernel_table_fits("shutdown-perfdiag-kernel.etl");
    // Windows 7's Kernel-Process priority changes, ids 7-10 (810 + 5,088 +
    // 838 + 780 events, as our census counted them left hex before these
    // lines), and the log-file header event.
    assert_eq!(
        kernel_table_fits("perfmon-win7-kernel-process.etl"),
        810 + 5_088 + 838 + 780 + 1
    );
}
