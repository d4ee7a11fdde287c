//! The `hostile-names` scenario: a small trace in which every string the
//! web UI shows is HTML (elements with inline handlers, `</script>`,
//! quotes, entities), for the test that the UI renders trace text as text.
//! Each string sets `window.__pwned` to its own number if it ever runs, so
//! a failure names its source.
//!
//! Two processes (names, command lines), a named thread, three images at
//! recorded paths, one JIT-compiled method (CLR MethodLoadVerbose), file
//! creates of two paths, a TraceLogging event (provider and event names),
//! and 1 kHz samples with stack walks through all of it, so that the
//! sampled-CPU table, flame graph, butterfly and timeline show the names.
//! Deterministic: no seed, same bytes every time.

use crate::events::{self, hooks as ev_hooks, sysconfig_opcodes, SYSCONFIG};
use crate::kernel::{self, hooks, versions, ImageFields, Payload, ProcessFields, ThreadFields};
use etl::extended::ext_type;
use etl::writer::{
    ClassicHeader, EtlWriter, EventHeaderFields, ExtendedData, KernelHeader, Record, WriteSummary,
    WriterConfig,
};
use etl::Guid;
use std::io::{self, Seek, Write};

pub const PID: u32 = 6_660;
pub const TID: u32 = 6_672;
/// Process ImageFileName (ANSI in the event).
pub const PROCESS_NAME: &str = r#"<img src=x onerror="window.__pwned=1">.exe"#;
pub const COMMAND_LINE: &str = r#""C:\evil\<img src=x onerror="window.__pwned=1">.exe" </script><script>window.__pwned=2</script> &amp; &lt;b&gt;"#;
pub const OTHER_PID: u32 = 6_664;
pub const OTHER_TID: u32 = 6_676;
pub const OTHER_PROCESS_NAME: &str = r#""'><svg onload=window.__pwned=3>&amp;.exe"#;
pub const OTHER_COMMAND_LINE: &str = r#"'"><svg onload=window.__pwned=3> --x="&quot;&#x3c;""#;
pub const THREAD_NAME: &str = r#"<b onmouseover="window.__pwned=8">worker</b>"#;

/// The images, as the image events record them (an NT path for the last,
/// as rundown writes most).
pub const EXE_PATH: &str = r#"C:\evil\<img src=x onerror="window.__pwned=1">.exe"#;
pub const MODULE_PATH: &str = r"C:\evil\<img src=x onerror=window.__pwned=4>.dll";
pub const MODULE_NAME: &str = "<img src=x onerror=window.__pwned=4>.dll";
pub const OTHER_MODULE_PATH: &str =
    r#"\Device\HarddiskVolume3\evil\"'><svg onload=window.__pwned=5>&amp;.dll"#;
pub const OTHER_MODULE_NAME: &str = r#""'><svg onload=window.__pwned=5>&amp;.dll"#;

/// A JIT-compiled method: its frames are labelled `namespace::name`.
pub const JIT_NAMESPACE: &str = "<script>window.__pwned=9</script>";
pub const JIT_METHOD: &str = r#"<img src=x onerror="window.__pwned=10">"#;

/// File creates: the NT path recorded, and the path shown once SysConfig's
/// VolumeMapping (`\Device\HarddiskVolume3` = `C:`) is applied.
pub const FILE_NT_PATH: &str =
    r#"\Device\HarddiskVolume3\evil\<img src=x onerror="window.__pwned=11">&amp;.txt"#;
pub const FILE_PATH: &str = r#"C:\evil\<img src=x onerror="window.__pwned=11">&amp;.txt"#;
pub const OTHER_FILE_NT_PATH: &str =
    r"\Device\HarddiskVolume3\evil\</textarea><svg onload=window.__pwned=12>.ini";
pub const OTHER_FILE_PATH: &str = r"C:\evil\</textarea><svg onload=window.__pwned=12>.ini";

/// A TraceLogging event: provider name (ProviderTraits) and event name.
pub const TL_PROVIDER: &str = "<svg onload=window.__pwned=13>";
pub const TL_EVENT: &str = r#"<img src=x onerror="window.__pwned=14">"#;
const TL_PROVIDER_GUID: Guid = Guid::from_u128(0x3c3c3c3c_6576_696c_0000_0000000000e1);
const CLR_RUNTIME: Guid = Guid::from_u128(0xe13c0d23_ccbc_4e12_931b_d9cc2eee27e4);

/// Samples: SAMPLES of them, 1 ms apart; the other process takes one in four.
pub const SAMPLES: u32 = 400;
const TICKS_PER_MS: i64 = 10_000;

const EXE_BASE: u64 = 0x7FF6_1000_0000;
const MODULE_BASE: u64 = 0x7FF8_2000_0000;
const OTHER_MODULE_BASE: u64 = 0x7FF8_3000_0000;
const IMAGE_SIZE: u64 = 0x10_0000;
/// Outside every image: the JIT method's code.
const JIT_START: u64 = 0x1_F000_1000;
const JIT_SIZE: u32 = 0x200;

fn writer_config() -> WriterConfig {
    WriterConfig {
        pointer_size: 8,
        cpus: 1,
        logger_name: "<img src=x onerror=window.__pwned=15>".into(),
        log_file_name: "<img src=x onerror=window.__pwned=16>.etl".into(),
        ..WriterConfig::default()
    }
}

/// Stacks root first: the main process alternates through both DLLs and
/// the JIT method; the other process stays in its DLL.
fn stack(n: u32) -> (u32, u32, Vec<u64>) {
    let exe = EXE_BASE + 0x1_040;
    match n % 4 {
        0 => (
            PID,
            TID,
            vec![exe, MODULE_BASE + 0x2_010, OTHER_MODULE_BASE + 0x3_020],
        ),
        1 => (PID, TID, vec![exe, MODULE_BASE + 0x2_110, JIT_START + 0x10]),
        2 => (PID, TID, vec![exe, MODULE_BASE + 0x2_010]),
        _ => (
            OTHER_PID,
            OTHER_TID,
            vec![OTHER_MODULE_BASE + 0x1_000, OTHER_MODULE_BASE + 0x1_500],
        ),
    }
}

/// Write the scenario to `sink`.
pub fn write_hostile_names<W: Write + Seek>(sink: W) -> io::Result<(W, WriteSummary)> {
    let config = writer_config();
    let ts0 = config.ts0;
    let mut w = EtlWriter::new(sink, config)?;
    let mut ts = ts0 + 10;
    rundown(&mut w, &mut ts)?;
    for n in 0..SAMPLES {
        let at = ts0 + TICKS_PER_MS * (i64::from(n) + 1);
        let (pid, tid, root_first) = stack(n);
        sample(&mut w, at, pid, tid, &root_first)?;
        // A file create every 20 ms, with the stack of the sample before it.
        if n % 20 == 5 {
            let path = if n % 40 == 5 {
                FILE_NT_PATH
            } else {
                OTHER_FILE_NT_PATH
            };
            file_create(&mut w, at + 5_000, u64::from(n), path, &root_first)?;
        }
        if n % 100 == 50 {
            tracelogging(&mut w, at + 6_000)?;
        }
    }
    ts = ts0 + TICKS_PER_MS * (i64::from(SAMPLES) + 2);
    let pl = events::volume_mapping(r"\Device\HarddiskVolume3", "C:");
    let h = ClassicHeader {
        guid: SYSCONFIG,
        opcode: sysconfig_opcodes::VOLUME_MAPPING,
        version: 2,
        pid: 4,
        ..ClassicHeader::default()
    };
    w.write(0, &Record::full(ts, h, &pl))?;
    w.finish()
}

fn rundown<W: Write + Seek>(w: &mut EtlWriter<W>, ts: &mut i64) -> io::Result<()> {
    for (i, (pid, name, command_line)) in [
        (PID, PROCESS_NAME, COMMAND_LINE),
        (OTHER_PID, OTHER_PROCESS_NAME, OTHER_COMMAND_LINE),
    ]
    .into_iter()
    .enumerate()
    {
        *ts += 1;
        let pl = kernel::process(
            8,
            &ProcessFields {
                unique_process_key: 0xFFFF_A08C_0000_0000 + 0x1_0000 * i as u64,
                pid,
                parent_pid: 1_032,
                session_id: 1,
                directory_table_base: 0x1AD000 + 0x10_0000 * i as u64,
                image_file_name: name,
                command_line,
            },
        );
        let rec = Record::perfinfo(*ts, hooks::PROCESS_DC_START, versions::PROCESS, &pl);
        w.write(0, &rec)?;
    }
    for (i, (pid, tid)) in [(PID, TID), (OTHER_PID, OTHER_TID)].into_iter().enumerate() {
        *ts += 1;
        let stack_base = 0xFFFF_8A0D_0000_6000 + 0x6000 * i as u64;
        let pl = kernel::thread(
            8,
            &ThreadFields {
                pid,
                tid,
                stack_base,
                stack_limit: stack_base - 0x6000,
                start_addr: EXE_BASE + 0x1_000,
                win32_start_addr: EXE_BASE + 0x1_000,
                teb_base: 0x9A_0000_0000 + 0x2000 * i as u64,
                base_priority: 8,
            },
        );
        let h = KernelHeader {
            hook_id: hooks::THREAD_DC_START,
            version: versions::THREAD,
            pid,
            tid,
        };
        w.write(0, &Record::system(*ts, h, &pl))?;
    }
    *ts += 1;
    let mut p = Payload::new(8);
    p.u32(PID).u32(TID).utf16z(THREAD_NAME);
    let h = KernelHeader {
        hook_id: THREAD_SET_NAME,
        version: 2,
        pid: PID,
        tid: TID,
    };
    w.write(0, &Record::system(*ts, h, &p.done()))?;
    for (pid, base, path) in [
        (PID, EXE_BASE, EXE_PATH),
        (PID, MODULE_BASE, MODULE_PATH),
        (PID, OTHER_MODULE_BASE, OTHER_MODULE_PATH),
        (OTHER_PID, OTHER_MODULE_BASE, OTHER_MODULE_PATH),
    ] {
        *ts += 1;
        let pl = kernel::image(
            8,
            &ImageFields {
                base,
                size: IMAGE_SIZE,
                pid,
                checksum: 0x1234,
                time_date_stamp: 0x6000_0000,
                file_name: path,
            },
        );
        let rec = Record::perfinfo(*ts, hooks::IMAGE_DC_START, versions::IMAGE, &pl);
        w.write(0, &rec)?;
    }
    *ts += 1;
    jit_method(w, *ts)
}

const THREAD_SET_NAME: u16 = 0x0548;

/// CLR MethodLoadVerbose (runtime provider, id 143, v1): MethodID,
/// ModuleID, start, size, token, flags, namespace, name, signature,
/// ClrInstanceID (TE-CLR `MethodLoadUnloadVerboseTraceData`).
fn jit_method<W: Write + Seek>(w: &mut EtlWriter<W>, ts: i64) -> io::Result<()> {
    let mut p = Payload::new(8);
    p.u64(0x7FF8_4000_0001)
        .u64(0x7FF8_4000_1000)
        .u64(JIT_START)
        .u32(JIT_SIZE)
        .u32(0x0600_0001)
        .u32(8) // jitted
        .utf16z(JIT_NAMESPACE)
        .utf16z(JIT_METHOD)
        .utf16z("void  (class <svg onload=window.__pwned=17>)")
        .u16(7);
    let h = EventHeaderFields {
        provider: CLR_RUNTIME,
        id: 143,
        version: 1,
        level: 5,
        opcode: 37,
        task: 9,
        keyword: 0x18,
        pid: PID,
        tid: TID,
        ..EventHeaderFields::default()
    };
    w.write(0, &Record::event(ts, h, &p.done()))
}

/// One SampledProfile at `ts` and its StackWalk (frames leaf first).
fn sample<W: Write + Seek>(
    w: &mut EtlWriter<W>,
    ts: i64,
    pid: u32,
    tid: u32,
    root_first: &[u64],
) -> io::Result<()> {
    let leaf_first: Vec<u64> = root_first.iter().rev().copied().collect();
    let ip = leaf_first.first().copied().unwrap_or(0);
    let pl = kernel::sampled_profile(8, ip, tid, 0);
    let rec = Record::perfinfo(ts, hooks::SAMPLED_PROFILE, versions::SAMPLED_PROFILE, &pl);
    w.write(0, &rec)?;
    stack_walk(w, ts, pid, tid, &leaf_first)
}

fn stack_walk<W: Write + Seek>(
    w: &mut EtlWriter<W>,
    event_ts: i64,
    pid: u32,
    tid: u32,
    leaf_first: &[u64],
) -> io::Result<()> {
    let pl = kernel::stack_walk(8, event_ts, pid, tid, leaf_first);
    let rec = Record::perfinfo(event_ts + 2, hooks::STACK_WALK, versions::STACK_WALK, &pl);
    w.write(0, &rec)
}

/// FileIo Create (v3) by the main thread, then its stack walk.
fn file_create<W: Write + Seek>(
    w: &mut EtlWriter<W>,
    ts: i64,
    n: u64,
    path: &str,
    root_first: &[u64],
) -> io::Result<()> {
    let pl = events::file_create(
        8,
        0xFFFF_B20C_1000_0000 + n * 0x1A0,
        0xFFFF_B20C_8000_0000 + n * 0x150,
        TID,
        path,
    );
    let h = KernelHeader {
        hook_id: ev_hooks::FILEIO_CREATE,
        version: 3,
        pid: PID,
        tid: TID,
    };
    w.write(0, &Record::system(ts, h, &pl))?;
    let leaf_first: Vec<u64> = root_first.iter().rev().copied().collect();
    stack_walk(w, ts, PID, TID, &leaf_first)
}

/// A TraceLogging event with one string field: ProviderTraits item
/// (u16 size, provider name) and schema (u16 size, no tags, event name,
/// field name, InType UNICODE_STRING), etl-format F.4.
fn tracelogging<W: Write + Seek>(w: &mut EtlWriter<W>, ts: i64) -> io::Result<()> {
    let sized = |body: &[u8]| {
        let mut b = ((body.len() + 2) as u16).to_le_bytes().to_vec();
        b.extend_from_slice(body);
        b
    };
    let mut traits = TL_PROVIDER.as_bytes().to_vec();
    traits.push(0);
    let traits = sized(&traits);
    let mut schema = vec![0u8];
    schema.extend_from_slice(TL_EVENT.as_bytes());
    schema.push(0);
    schema.extend_from_slice(b"<i onclick=window.__pwned=18>\0");
    schema.push(1); // UNICODE_STRING
    let schema = sized(&schema);
    let items = [
        ExtendedData::SchemaTl(&schema),
        ExtendedData::Raw {
            ext_type: ext_type::PROV_TRAITS,
            data: &traits,
        },
    ];
    let h = EventHeaderFields {
        provider: TL_PROVIDER_GUID,
        id: 0,
        level: 4,
        pid: PID,
        tid: TID,
        extended: &items,
        ..EventHeaderFields::default()
    };
    let mut p = Payload::new(8);
    p.utf16z("<img src=x onerror=window.__pwned=19>");
    w.write(0, &Record::event(ts, h, &p.done()))
}
