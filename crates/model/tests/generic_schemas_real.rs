//! Generic Events named and decoded by manifest schemas, on the real traces.
//!
//! Event names are PerfView's: the literal names below are from PerfView's
//! published baseline `src/TraceEvent/TraceEvent.Tests/inputs/
//! net.4.5.2.x64.baseline.txt` (microsoft/perfview), whose COUNT lines list
//! one name per event kind (e.g. `COUNT Microsoft-Windows-DotNETRuntime/
//! GC/AllocationTick:10382`). The baseline's current version is of this very
//! file (same md5; `perfview_baseline.rs` compares counts and field values
//! with it); field values here are hand decodes of the payload bytes (Python
//! `struct.unpack_from`, UTF-16 strings read to their NUL) laid out per the
//! runtime manifest's templates.

use model::Trace;
use std::collections::BTreeMap;
use std::sync::OnceLock;
use testdata::real_traces_dir;

const RUNTIME: &str = "Microsoft-Windows-DotNETRuntime";
const RUNDOWN: &str = "Microsoft-Windows-DotNETRuntimeRundown";
const PRIVATE: &str = "Microsoft-Windows-DotNETRuntimePrivate";

fn build(name: &str) -> Option<Trace> {
    let path = real_traces_dir()?.join(name);
    let refs = [path.as_path()];
    let file = etl::EtlFile::open_many(&refs).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Some(model::build(&file))
}

fn x64() -> Option<&'static Trace> {
    static T: OnceLock<Option<Trace>> = OnceLock::new();
    T.get_or_init(|| build("perfview-net452-x64.etl")).as_ref()
}

fn rows<'t>(t: &'t Trace, provider: &'t str, id: u16) -> impl Iterator<Item = usize> + 't {
    let g = &t.generic;
    (0..g.len()).filter(move |&i| g.id[i] == id && t.generic_provider_text(i) == provider)
}

fn name(t: &Trace, i: usize) -> &str {
    t.strings.get(t.generic.name[i])
}

fn fields(t: &Trace, i: usize) -> BTreeMap<String, String> {
    t.generic_fields(i).into_iter().collect()
}

/// (provider, event id, PerfView's name from the baseline's COUNT lines).
const BASELINE_NAMES: &[(&str, u16, &str)] = &[
    (RUNTIME, 1, "GC/Start"),
    (RUNTIME, 2, "GC/Stop"),
    (RUNTIME, 3, "GC/RestartEEStop"),
    (RUNTIME, 4, "GC/HeapStats"),
    (RUNTIME, 5, "GC/CreateSegment"),
    (RUNTIME, 7, "GC/RestartEEStart"),
    (RUNTIME, 8, "GC/SuspendEEStop"),
    (RUNTIME, 9, "GC/SuspendEEStart"),
    (RUNTIME, 10, "GC/AllocationTick"),
    (RUNTIME, 13, "GC/FinalizersStop"),
    (RUNTIME, 14, "GC/FinalizersStart"),
    (RUNTIME, 15, "Type/BulkType"),
    (RUNTIME, 21, "GC/BulkSurvivingObjectRanges"),
    (RUNTIME, 23, "GC/GenerationRange"),
    (RUNTIME, 25, "GC/MarkStackRoots"),
    (RUNTIME, 26, "GC/MarkFinalizeQueueRoots"),
    (RUNTIME, 27, "GC/MarkHandles"),
    (RUNTIME, 29, "GC/FinalizeObject"),
    (RUNTIME, 33, "GC/PinObjectAtGCTime"),
    (RUNTIME, 35, "GC/Triggered"),
    (RUNTIME, 85, "AppDomainResourceManagement/ThreadCreated"),
    (RUNTIME, 143, "Method/LoadVerbose"),
    (RUNTIME, 144, "Method/UnloadVerbose"),
    (RUNTIME, 145, "Method/JittingStarted"),
    (RUNTIME, 151, "Loader/DomainModuleLoad"),
    (RUNTIME, 152, "Loader/ModuleLoad"),
    (RUNTIME, 153, "Loader/ModuleUnload"),
    (RUNTIME, 154, "Loader/AssemblyLoad"),
    (RUNTIME, 155, "Loader/AssemblyUnload"),
    (RUNTIME, 156, "Loader/AppDomainLoad"),
    (RUNTIME, 157, "Loader/AppDomainUnload"),
    (RUNTIME, 187, "Runtime/Start"),
    (RUNTIME, 200, "GC/IncreaseMemoryPressure"),
    (RUNDOWN, 146, "Method/DCStopComplete"),
    (RUNDOWN, 148, "Method/DCStopInit"),
    (RUNDOWN, 152, "Loader/DomainModuleDCStop"),
    (RUNDOWN, 154, "Loader/ModuleDCStop"),
    (RUNDOWN, 156, "Loader/AssemblyDCStop"),
    (RUNDOWN, 158, "Loader/AppDomainDCStop"),
    (RUNDOWN, 187, "Runtime/Start"),
    (PRIVATE, 2, "GC/Settings"),
    (PRIVATE, 5, "GC/GlobalHeapHistory"),
    (PRIVATE, 7, "GC/MarkStackRoots"),
    (PRIVATE, 8, "GC/MarkFinalizeQueueRoots"),
    (PRIVATE, 9, "GC/MarkHandles"),
    (PRIVATE, 10, "GC/MarkCards"),
];

#[test]
fn x64_clr_events_have_perfview_names() {
    let Some(t) = x64() else { return };
    for &(provider, id, want) in BASELINE_NAMES {
        let r: Vec<usize> = rows(t, provider, id).collect();
        assert!(!r.is_empty(), "{provider}/{id}");
        for i in r {
            assert_eq!(name(t, i), want, "{provider}/{id}");
        }
    }
}

#[test]
fn x64_every_runtime_and_rundown_event_is_decoded() {
    let Some(t) = x64() else { return };
    let g = &t.generic;
    let mut n = 0;
    for i in 0..g.len() {
        let p = t.generic_provider_text(i);
        if p != RUNTIME && p != RUNDOWN {
            continue;
        }
        n += 1;
        assert!(!g.is_hex_only(i), "{p}/{} row {i}", g.id[i]);
        assert!(!name(t, i).is_empty(), "{p}/{}", g.id[i]);
        // A schema with the task and opcode names the manifest gives.
        assert!(!t.generic_task_text(i).chars().all(|c| c.is_ascii_digit()));
    }
    // Census: 33,011 rundown events, and the runtime's on top.
    assert!(n > 33_011, "{n}");
}

#[test]
fn x64_fields_are_hand_decoded_values() {
    let Some(t) = x64() else { return };
    // First GC/Start (Runtime id 1 v1, pid 3676), 18 bytes:
    // 01000000 00000000 00000000 00000000 0900: Count 1, Depth 0,
    // Reason 0 (GCReasonMap: AllocSmall), Type 0 (GCTypeMap: NonConcurrentGC),
    // ClrInstanceID 9.
    let i = rows(t, RUNTIME, 1)
        .find(|&i| t.generic.version[i] == 1)
        .unwrap();
    let f = fields(t, i);
    assert_eq!(f["Count"], "1");
    assert_eq!(f["Depth"], "0");
    assert_eq!(f["Reason"], "AllocSmall");
    assert_eq!(f["Type"], "NonConcurrentGC");
    assert_eq!(f["ClrInstanceID"], "9");
    // First Method/LoadVerbose (id 143 v1, 64-bit, 308 bytes):
    // 30a2b05ef9070000 | 2030935ef9070000 | 9000b15ef9070000 | 79020000 |
    // d9060006 | 08000000 | "System.AppDomain" | "SetupDomain" | ...
    let i = rows(t, RUNTIME, 143)
        .find(|&i| t.generic.pointer_size[i] == 8)
        .unwrap();
    let f = fields(t, i);
    assert_eq!(f["MethodID"], "0x7f95eb0a230");
    assert_eq!(f["ModuleID"], "0x7f95e933020");
    assert_eq!(f["MethodStartAddress"], "0x7f95eb10090");
    assert_eq!(f["MethodSize"], "0x279");
    assert_eq!(f["MethodToken"], "0x60006d9");
    assert_eq!(f["MethodFlags"], "Jitted");
    assert_eq!(f["MethodNamespace"], "System.AppDomain");
    assert_eq!(f["MethodName"], "SetupDomain");
    assert_eq!(f["ClrInstanceID"], "9");
    // First 64-bit GC/AllocationTick (id 10 v3, 66 bytes):
    // 68910100 | 00000000 | 0900 | 6891010000000000 | 8860ab5ef9070000 |
    // "System.Object" | 00000000 | c87f560200000000.
    let i = rows(t, RUNTIME, 10)
        .find(|&i| t.generic.pointer_size[i] == 8)
        .unwrap();
    let f = fields(t, i);
    assert_eq!(f["AllocationAmount"], "0x19168");
    assert_eq!(f["AllocationKind"], "Small");
    assert_eq!(f["AllocationAmount64"], "0x19168");
    assert_eq!(f["TypeID"], "0x7f95eab6088");
    assert_eq!(f["TypeName"], "System.Object");
    assert_eq!(f["HeapIndex"], "0");
    assert_eq!(f["Address"], "0x2567fc8");
    // First Method/DCStopVerbose (Rundown id 144 v1, 32-bit header, 104 bytes):
    // 149f350a00000000 | f495350a00000000 | 700b0e0900000000 | 01000000 |
    // 57000006 | 08000000 | "Commands" | ".ctor" | "instance void  ()" | 0b00.
    let i = rows(t, RUNDOWN, 144).next().unwrap();
    assert_eq!(name(t, i), "Method/DCStopVerbose");
    let f = fields(t, i);
    assert_eq!(f["MethodID"], "0xa359f14");
    assert_eq!(f["MethodStartAddress"], "0x90e0b70");
    assert_eq!(f["MethodSize"], "0x1");
    assert_eq!(f["MethodToken"], "0x6000057");
    assert_eq!(f["MethodNamespace"], "Commands");
    assert_eq!(f["MethodName"], ".ctor");
    assert_eq!(f["MethodSignature"], "instance void  ()");
    assert_eq!(f["ClrInstanceID"], "11");
    // First Loader/ModuleDCStop (Rundown id 154 v2): dc2e870100000000 |
    // 58e3930100000000 | 08000000 | 00000000 | ModuleILPath | "" | 0b00 |
    // d16731b85b3d0d48914d4605dfbb6add | 01000000 | ...
    let i = rows(t, RUNDOWN, 154).next().unwrap();
    let f = fields(t, i);
    assert_eq!(f["ModuleID"], "0x1872edc");
    assert_eq!(f["AssemblyID"], "0x193e358");
    assert_eq!(f["ModuleFlags"], "Manifest");
    assert_eq!(
        f["ModuleILPath"],
        r"C:\Users\brianrob\AppData\Roaming\PerfView\VER.2020-07-02.23.01.22.000\PerfView.exe"
    );
    assert_eq!(f["ModuleNativePath"], "");
    assert_eq!(
        f["ManagedPdbSignature"],
        "b83167d1-3d5b-480d-914d-4605dfbb6add"
    );
    assert_eq!(f["ManagedPdbAge"], "1");
    // Private GC/Settings (id 2 v1, 22 bytes, from our CLR table: the trace
    // carries no schema for the private provider):
    // 0000000100000000 | 0000000100000000 | 00000000 | 0b00.
    let i = rows(t, PRIVATE, 2)
        .find(|&i| t.generic.pointer_size[i] == 4)
        .unwrap();
    let f = fields(t, i);
    assert_eq!(f["SegmentSize"], "16777216");
    assert_eq!(f["LargeObjectSegmentSize"], "16777216");
    assert_eq!(f["ServerGC"], "false");
    assert_eq!(f["ClrInstanceID"], "11");
}

#[test]
fn x64_no_field_shows_debug_text() {
    let Some(t) = x64() else { return };
    let g = &t.generic;
    for i in (0..g.len()).step_by(7) {
        for (k, v) in t.generic_fields(i) {
            assert!(
                !v.contains("Some(")
                    && !v.split(|c: char| !c.is_alphanumeric()).any(|w| w == "None")
                    && !v.starts_with('"')
                    && !k.contains(' '),
                "row {i}: {k}={v}"
            );
            assert!(
                !v.contains("ClrPdb") && !v.contains("Load {"),
                "row {i}: {k}={v}"
            );
        }
    }
}

#[test]
fn gcevents_and_diagsession_clr_events_are_decoded() {
    // gcevents carries no MetaData: every CLR event comes from our table,
    // GCGlobalHeapHistory v4 (id 205), GCLOHCompact (208) and
    // GCFitBucketInfo (209) too.
    if let Some(t) = build("perfview-gcevents.etl") {
        let g = &t.generic;
        let mut hex = BTreeMap::new();
        for i in 0..g.len() {
            if t.generic_provider_text(i) == RUNTIME && g.is_hex_only(i) {
                *hex.entry(g.id[i]).or_insert(0) += 1;
            }
        }
        assert_eq!(hex, BTreeMap::<u16, u32>::new());
        // FitBucketInfo, 158 bytes by hand: 0800 | 0100 | 40be040000000000 |
        // 0900 | then 9 x (Index u32, Count u32, Size u64), the first
        // 00000000 d7000000 2067000000000000.
        let i = rows(&t, RUNTIME, 209).next().unwrap();
        assert_eq!(name(&t, i), "GC/FitBucketInfo");
        let f = fields(&t, i);
        assert_eq!(f["ClrInstanceID"], "8");
        assert_eq!(f["BucketKind"], "1");
        assert_eq!(f["TotalSize"], "310848");
        assert_eq!(f["Count"], "9");
        assert!(
            f["Values"].starts_with("[{Index: 0, Count: 215, Size: "),
            "{}",
            f["Values"]
        );
        let i = rows(&t, RUNTIME, 10).next().unwrap();
        assert_eq!(name(&t, i), "GC/AllocationTick");
    }
    let Some(path) = real_traces_dir().map(|d| d.join("vs-dotnetcore31.diagsession")) else {
        return;
    };
    let file = etl::EtlFile::open(&path).unwrap();
    let t = model::build(&file);
    let g = &t.generic;
    let clr: Vec<usize> = (0..g.len())
        .filter(|&i| t.generic_provider_text(i) == RUNTIME)
        .collect();
    assert!(!clr.is_empty());
    assert!(clr.iter().all(|&i| !g.is_hex_only(i)));
}

#[test]
fn x64_event_source_manifests_name_and_decode_their_events() {
    let Some(t) = x64() else { return };
    // PerfView's own EventSource carries its manifest (ManifestData). Names
    // from the baseline's COUNT lines (`COUNT PerfView/Tracing/Start:1`,
    // `COUNT PerfView/SessionParameters:2`, `COUNT PerfView/ManifestData:3`);
    // field names from its EVENT lines (`PerfView/SessionParameters ...
    // sessionName=...; sessionFileName=...; bufferSizeMB=64;
    // circularBuffSizeMB=0;`).
    let g = &t.generic;
    let perfview: Vec<usize> = (0..g.len())
        .filter(|&i| t.generic_provider_text(i) == "PerfView")
        .collect();
    let named = |n: &str| {
        perfview
            .iter()
            .copied()
            .filter(|&i| name(t, i) == n)
            .count()
    };
    assert_eq!(named("Tracing/Start"), 1);
    assert_eq!(named("Tracing/Stop"), 1);
    assert_eq!(named("Rundown/Start"), 1);
    assert_eq!(named("SessionParameters"), 2);
    assert_eq!(named("ManifestData"), 2);
    assert!(perfview.iter().all(|&i| !g.is_hex_only(i)));
    // First SessionParameters (id 11), hand decode of its 96 bytes:
    // UTF-16z "NT Kernel Logger" | UTF-16z "net.4.5.2.x64.kernel.etl" |
    // 00010000 (256) | f4010000 (500).
    let i = perfview.iter().copied().find(|&i| g.id[i] == 11).unwrap();
    let f = fields(t, i);
    assert_eq!(f["sessionName"], "NT Kernel Logger");
    assert_eq!(f["sessionFileName"], "net.4.5.2.x64.kernel.etl");
    assert_eq!(f["bufferSizeMB"], "256");
    assert_eq!(f["circularBuffSizeMB"], "500");
    // TplEventSource's manifest: TaskExecute/Stop v1 (id 9), 16 bytes
    // 01000000 05000000 08000000 00000000.
    let i = (0..g.len())
        .find(|&i| {
            t.generic_provider_text(i) == "System.Threading.Tasks.TplEventSource" && g.id[i] == 9
        })
        .unwrap();
    assert_eq!(name(t, i), "TaskExecute/Stop");
    let f = fields(t, i);
    assert_eq!(f["OriginatingTaskSchedulerID"], "1");
    assert_eq!(f["OriginatingTaskID"], "5");
    assert_eq!(f["TaskID"], "8");
    assert_eq!(f["IsExceptional"], "false");
}

#[test]
fn msbuild_event_source_events_are_decoded() {
    // The Microsoft-Build EventSource's manifest travels in the trace.
    let Some(t) = build("perfview-msbuild-32bit.etl.zip") else {
        return;
    };
    let g = &t.generic;
    let rows: Vec<usize> = (0..g.len())
        .filter(|&i| t.generic_provider_text(i) == "Microsoft-Build")
        .collect();
    assert!(rows.len() > 5000, "{}", rows.len());
    assert!(rows
        .iter()
        .all(|&i| !g.is_hex_only(i) && !name(&t, i).is_empty()));
    let i = rows
        .iter()
        .copied()
        .find(|&i| name(&t, i) == "Build/Start")
        .unwrap();
    assert_eq!(t.generic_task_text(i), "Build");
    assert_eq!(t.generic_opcode_text(i), "win:Start");
}

#[test]
fn x64_kernel_network_events_are_decoded_and_attributed_by_payload_pid() {
    let Some(t) = x64() else { return };
    let g = &t.generic;
    let udp_recv: Vec<usize> = (0..g.len())
        .filter(|&i| {
            g.providers.kernel_group[g.provider[i] as usize] == Some(0x08) && g.id[i] == 0x080B
        })
        .collect();
    assert_eq!(udp_recv.len(), 19);
    // First UdpIp/Recv (hook 0x080B v2), hand decode of its 32 bytes:
    // 3c080000 (PID 2108) | ad000000 (173) | effffffa (239.255.255.250) |
    // 0a800075 (10.128.0.117) | 076c (port 1900, network order) | ec19
    // (60441) | 00000000 | 0000000000000000.
    let i = udp_recv[0];
    assert_eq!(name(t, i), "UdpIp/Recv");
    let f = fields(t, i);
    assert_eq!(f["PID"], "2108");
    assert_eq!(f["size"], "173");
    assert_eq!(f["daddr"], "239.255.255.250");
    assert_eq!(f["saddr"], "10.128.0.117");
    assert_eq!(f["dport"], "1900");
    assert_eq!(f["sport"], "60441");
    // The header says pid -1; the row belongs to the payload's process.
    assert_eq!(g.pid[i], 2108);
    assert!(
        t.generic_process_text(i).ends_with("(2108)"),
        "{}",
        t.generic_process_text(i)
    );
    // Every TcpIp/UdpIp row is decoded and has a process.
    let net: Vec<usize> = (0..g.len())
        .filter(|&i| {
            matches!(
                g.providers.kernel_group[g.provider[i] as usize],
                Some(0x06 | 0x08)
            )
        })
        .collect();
    assert_eq!(net.len(), 240 + 250 + 1 + 19 + 6 + 10);
    assert!(net
        .iter()
        .all(|&i| !g.is_hex_only(i) && g.pid[i] != u32::MAX));
}

#[test]
fn x64_system_config_network_matches_perfview() {
    let Some(t) = x64() else { return };
    let g = &t.generic;
    // Baseline EVENT line: `Windows Kernel/SystemConfig/Network ... DataLen=16;
    // TcbTablePartitions=32; MaxHashTableSize=-1; MaxUserPort=65,536;
    // TcpTimedWaitDelay=120;` This trace's 16 bytes (hook 0x0B11 v2),
    // 20000000 ffffffff 00000100 78000000, hold the same values.
    let i = (0..g.len())
        .find(|&i| t.generic_id_text(i) == "0x0b11")
        .unwrap();
    assert_eq!(name(t, i), "SystemConfig/Network");
    let f = fields(t, i);
    assert_eq!(f["TcbTablePartitions"], "32");
    assert_eq!(f["MaxHashTableSize"], "-1");
    assert_eq!(f["MaxUserPort"], "65536");
    assert_eq!(f["TcpTimedWaitDelay"], "120");
    // Services (0x0B0F) are decoded by the SysConfig decoders
    // (decode/sysconfig_sw.rs), so they are no longer hex.
    let j = (0..g.len())
        .find(|&i| t.generic_id_text(i) == "0x0b0f")
        .unwrap();
    assert_eq!(name(t, j), "SystemConfig/Services");
    assert!(!g.is_hex_only(j));
}
