//! File I/O, Disk I/O and Generic Events of the model against the real
//! traces in ETLSCOPE_REAL_TRACES.
//!
//! Expected values come from the project's independent stdlib-only Python
//! reader (tests/reference/etl_census.py: its walk_buffers / buffer_payload /
//! walk_events / event_fields), with payloads unpacked by hand at the
//! offsets of the Kernel-File manifest (Create v1: Q Irp, Q FileObject,
//! I IssuingThreadId, I CreateOptions, I CreateAttributes, I ShareAccess,
//! then the UTF-16 FileName) and of docs/etl-format.md:
//!
//! ```python
//! for i, off, h in c.walk_buffers(data):
//!     p = c.buffer_payload(data, off, h)
//!     for ev in c.walk_events(p):
//!         g = ev.get("guid")
//!         if g == "9b79ee91-b5fd-41c0-a243-4248e266e9d0" and ev["opcode"] == 35:
//!             pay = c.event_fields(p, ev)[-1]        # VolumeMapping: NT, DOS
//!             a, o = u16z(pay, 0); b, _ = u16z(pay, o); maps.append((a, b))
//!         if g == "edd08927-9cc4-4e65-b970-c2560fb5c289" and ev["id"] == 12:
//!             f = c.event_fields(p, ev)
//!             path, _ = u16z(f[-1], 8 + 8 + 4 * 4)
//!             creates.append(path); pids[f[0]] += 1
//!             # STACK_TRACE64 item: u16 reserved, u16 type, u16 link, u16 size,
//!             # then u64 MatchId and (size - 8) / 8 frames.
//! # dos(): replace the longest matching NT prefix of `maps` (case-insensitive)
//! cnt = collections.Counter(dos(x) for x in creates)
//! ```

use model::io::{DiskOp, FileOp};
use model::{Trace, NONE};
use std::collections::{BTreeMap, HashMap};
use std::sync::OnceLock;

use testdata::real_traces_dir as traces_dir;

fn build(name: &str) -> Option<Trace> {
    let path = traces_dir()?.join(name);
    let file = etl::EtlFile::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Some(model::build(&file))
}

/// The x64 trace is built once for every test here (seconds in debug).
fn x64() -> Option<&'static Trace> {
    static T: OnceLock<Option<Trace>> = OnceLock::new();
    T.get_or_init(|| build("perfview-net452-x64.etl")).as_ref()
}

#[test]
fn x64_file_creates_per_path() {
    let Some(t) = x64() else { return };
    let f = &t.file_io;
    let creates: Vec<usize> = (0..f.len())
        .filter(|&i| f.op[i] == FileOp::Create)
        .collect();
    // 562 Kernel-File id-12 events, each with a STACK_TRACE64 item; the trace
    // has no kernel FileIo Create (0x0440).
    assert_eq!(creates.len(), 562);
    assert!(creates.iter().all(|&i| f.from_kernel_file_provider[i]));
    assert!(creates.iter().all(|&i| f.stack[i] != NONE));
    let mut per_path: HashMap<&str, u64> = HashMap::new();
    for &i in &creates {
        *per_path.entry(t.strings.get(f.path[i])).or_default() += 1;
    }
    assert_eq!(per_path.len(), 102);
    assert_eq!(per_path.values().filter(|&&n| n == 1).count(), 50);
    let expected = [
        (69, r"C:\Windows\CSC\v2.0.6\namespace\clrmain"),
        (56, r"C:\Windows\system32\catroot"),
        (56, r"C:\Windows\system32\catroot2"),
        (
            49,
            r"C:\Windows\system32\CatRoot\{F750E6C3-38EE-11D1-85E5-00C04FC295EE}\Package_3_for_KB2901982~31bf3856ad364e35~amd64~~6.2.1.1.cat",
        ),
        (
            18,
            r"\\DfsClient\;Z:0000000000020d40\clrmain\public\PerfInvestigations\20-07-28.TestTraces\net.4.5.2.x64.etl",
        ),
        (
            18,
            r"\\DfsClient\;Z:0000000000020d40\clrmain\public\PerfInvestigations\20-07-28.TestTraces\net.4.5.2.x64.kernel.etl",
        ),
        (
            16,
            r"C:\Windows\Microsoft.Net\assembly\GAC_64\mscorlib\v4.0_4.0.0.0__b77a5c561934e089\mscorlib.dll",
        ),
        (
            14,
            r"C:\Windows\system32\CatRoot\{127D0A1D-4EF2-11D1-8608-00C04FC295EE}\",
        ),
        (
            14,
            r"C:\Windows\system32\CatRoot2\{127D0A1D-4EF2-11D1-8608-00C04FC295EE}\",
        ),
        (14, r"C:\Windows\system32\CatRoot2\"),
        (
            14,
            r"C:\Windows\system32\CatRoot\{F750E6C3-38EE-11D1-85E5-00C04FC295EE}\Microsoft-Windows-NetFx-Shared-Package~31bf3856ad364e35~amd64~~6.2.9200.16384.cat",
        ),
        (
            10,
            r"\\DfsClient\;Z:0000000000020d40\clrmain\public\PerfInvestigations\20-07-28.TestTraces\Test.x64.exe",
        ),
    ];
    for (n, path) in expected {
        assert_eq!(per_path.get(path), Some(&n), "{path}");
    }
    // Per process (header pid).
    let mut per_pid: BTreeMap<u32, u64> = BTreeMap::new();
    for &i in &creates {
        *per_pid
            .entry(t.processes.pid[f.process[i] as usize])
            .or_default() += 1;
    }
    let expect_pid: BTreeMap<u32, u64> = [
        (1632, 326),
        (3676, 130),
        (3988, 74),
        (3508, 16),
        (2876, 11),
        (712, 3),
        (1104, 2),
    ]
    .into();
    assert_eq!(per_pid, expect_pid);
    // Stack depths: (frames in the item, number of creates), from the Python walk.
    let expect_depths: BTreeMap<usize, u64> = [
        (19, 1),
        (21, 6),
        (22, 2),
        (23, 1),
        (24, 4),
        (25, 3),
        (26, 6),
        (27, 6),
        (28, 22),
        (29, 16),
        (30, 9),
        (31, 2),
        (32, 7),
        (33, 8),
        (34, 1),
        (35, 5),
        (36, 4),
        (37, 34),
        (38, 35),
        (39, 40),
        (40, 26),
        (41, 125),
        (42, 25),
        (43, 4),
        (44, 15),
        (45, 3),
        (46, 10),
        (47, 20),
        (48, 2),
        (49, 2),
        (50, 4),
        (52, 2),
        (54, 1),
        (57, 1),
        (58, 2),
        (59, 4),
        (60, 3),
        (61, 7),
        (62, 4),
        (64, 2),
        (65, 2),
        (66, 1),
        (67, 4),
        (68, 1),
        (69, 1),
        (71, 2),
        (72, 18),
        (73, 18),
        (79, 2),
        (100, 2),
        (105, 18),
        (106, 18),
        (114, 1),
    ]
    .into();
    let mut depths: BTreeMap<usize, u64> = BTreeMap::new();
    for &i in &creates {
        *depths
            .entry(t.stacks.frames_leaf_first(f.stack[i]).count())
            .or_default() += 1;
    }
    assert_eq!(depths, expect_depths);
}

#[test]
fn x64_disk_io_and_hard_faults() {
    let Some(t) = x64() else { return };
    let d = &t.disk_io;
    // 1208 reads (0x010A), 21 writes (0x010B), 2 flushes (0x010E).
    let count = |op| d.op.iter().filter(|&&o| o == op).count();
    assert_eq!(
        (
            count(DiskOp::Read),
            count(DiskOp::Write),
            count(DiskOp::Flush)
        ),
        (1208, 21, 2)
    );
    let bytes = |op| -> u64 {
        (0..d.len())
            .filter(|&i| d.op[i] == op)
            .map(|i| u64::from(d.size[i]))
            .sum()
    };
    // Python: sum of TransferSize @8.
    assert_eq!(
        (bytes(DiskOp::Read), bytes(DiskOp::Write)),
        (19_564_544, 286_720)
    );
    // Every read/write's FileKey (@24) is named by a FileIo name event.
    let named = (0..d.len())
        .filter(|&i| d.op[i] != DiskOp::Flush && !t.strings.get(d.path[i]).is_empty())
        .count();
    assert_eq!(named, 1229);
    // HighResResponseTime (@40) sums to 21,847,246 ticks over reads and writes.
    let tps = t.clock.ticks_per_second as f64;
    let total: i64 = (0..d.len())
        .filter(|&i| d.op[i] != DiskOp::Flush)
        .map(|i| d.duration_ns[i])
        .sum();
    let want = 21_847_246.0 * 1e9 / tps;
    assert!((total as f64 - want).abs() < 1229.0, "{total} vs {want}");
    // HardFault (0x0220): 153 events; every FileObject (@24) is a key some
    // FileIo name event names; ByteCount (@36) sums to 2,722,816.
    let h = &t.hard_faults;
    assert_eq!(h.len(), 153);
    assert!(h.path.iter().all(|&p| !t.strings.get(p).is_empty()));
    assert_eq!(h.size.iter().map(|&s| u64::from(s)).sum::<u64>(), 2_722_816);
}

#[test]
fn x64_generic_rows_are_the_unclaimed_events() {
    let Some(t) = x64() else { return };
    // Census total 179,474 events less those the specialised tables take:
    // process 68, image 3,596, thread 1,358, SampledProfile 79,528, interval 2
    // (both source 0), StackWalk 252, stack keys 12,028, KernelTraceControl
    // ops 0/36/64 7,829, FileIo names 3,084, DiskIo 2,462, HardFault 153,
    // Kernel-File creates 562.
    assert_eq!(t.generic.len(), 179_474 - 110_922);
    let g = &t.generic;
    eprintln!(
        "x64: {} generic rows ({} with a stack, {} schemas), {} file I/O, {} disk I/O, \
         {} hard faults, {} events with an unknown thread",
        g.len(),
        g.stack.iter().filter(|&&s| s != NONE).count(),
        g.schemas.len(),
        t.file_io.len(),
        t.disk_io.len(),
        t.hard_faults.len(),
        t.info.unattributed_events
    );
    let name = |i: usize| t.strings.get(g.providers.name[g.provider[i] as usize]);
    let n_clr_rundown = (0..g.len())
        .filter(|&i| name(i) == "Microsoft-Windows-DotNETRuntimeRundown")
        .count();
    assert_eq!(n_clr_rundown, 33_011);
    // MethodDCEndVerbose (rundown id 144, 16,702 in the census) decode on
    // demand by the schema the trace's MetaData carries: every one names its method.
    let dc_end: Vec<usize> = (0..g.len())
        .filter(|&i| name(i) == "Microsoft-Windows-DotNETRuntimeRundown" && g.id[i] == 144)
        .collect();
    assert_eq!(dc_end.len(), 16_702);
    for &i in dc_end.iter().step_by(997) {
        let f = t.generic_fields(i);
        let keys: Vec<&str> = f.iter().map(|(k, _)| k.as_str()).collect();
        assert!(
            keys.contains(&"MethodNamespace") && keys.contains(&"MethodName"),
            "{f:?}"
        );
        assert_eq!(f[0].0, "MethodID");
    }
    // Kernel events of groups no table takes keep their group as provider.
    let n_sysconfig = (0..g.len())
        .filter(|&i| name(i) == "Windows Kernel/SysConfig")
        .count();
    // Kernel hooks 0x0b0a..0x0b1c in the census (1+1+1+3+157+1+1+1+78+2+1+1
    // = 248) plus the 13 classic events of the SysConfig GUID 9b79ee91-...
    assert_eq!(n_sysconfig, 248 + 13);
    let n_sysconfig_hooks = (0..g.len())
        .filter(|&i| g.providers.kernel_group[g.provider[i] as usize] == Some(0x0B))
        .count();
    assert_eq!(n_sysconfig_hooks, 248);
    assert!(t.info.buffers_with_lost_events.is_empty());
}

#[test]
fn primitive_types_fields() {
    let Some(t) = build("perfview-primitive-types.etl") else {
        return;
    };
    let g = &t.generic;
    // 7 events (census): 2 system64 header events and 5 self-describing ones.
    assert_eq!(g.len(), 7);
    let rows: Vec<usize> = (0..g.len()).filter(|&i| g.schema[i] != u32::MAX).collect();
    assert_eq!(rows.len(), 5);
    // One schema blob for the five events.
    assert_eq!(g.schemas.len(), 1);
    let r = rows[0];
    assert_eq!(t.strings.get(g.name[r]), "PrimitiveTypesTest");
    let provider = g.providers.name[g.provider[r] as usize];
    assert_eq!(t.strings.get(provider), "solar_system");
    // Hand decode of the first payload (raw bytes, see decode_real.rs):
    // 4d65726375727900 | 00 | 4d | cdff | 9affffff | 3300 | 66000000 |
    // 34ffffffffffffff | cc00000000000000 | c414d60af40e25428013f44f37cb0397 |
    // 7010fa4d8ba5d701 | e5070900040009000e003b0023001f03
    // FILETIME 0x01d7a58b4dfa1070: Python datetime(1601,1,1) +
    // timedelta(microseconds=0x01d7a58b4dfa1070 // 10) = 2021-09-09 14:59:35.799000.
    let fields = t.generic_fields(r);
    let expected: Vec<(&str, String)> = vec![
        ("string_type", "Mercury".into()),
        ("boolean_type", "false".into()),
        ("char_type", "M".into()),
        ("int16_type", "-51".into()),
        ("int32_type", "-102".into()),
        ("uint16_type", "51".into()),
        ("uint32_type", "102".into()),
        // Declared UINT64 by the writer: -204 as a u64.
        ("int64_type", (u64::MAX - 203).to_string()),
        ("uint64_type", "204".into()),
        ("guid_type", "0ad614c4-0ef4-4225-8013-f44f37cb0397".into()),
    ];
    let got: HashMap<&str, &str> = fields
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    assert_eq!(fields.len(), 12, "{fields:?}");
    for (k, v) in &expected {
        assert_eq!(got.get(k), Some(&v.as_str()), "{k}");
    }
    assert!(
        got["file_time_type"].starts_with("2021-09-09T14:59:35.799"),
        "{}",
        got["file_time_type"]
    );
    // SYSTEMTIME e507 0900 0400 0900 0e00 3b00 2300 1f03: year 2021, month 9,
    // day of week 4, day 9, 14:59:35, 799 ms.
    assert_eq!(got["system_time_type"], "2021-09-09T14:59:35.799");
    // Second event: "Venus", boolean 1.
    let f2 = t.generic_fields(rows[1]);
    assert_eq!(f2[0], ("string_type".to_string(), "Venus".to_string()));
    assert_eq!(f2[1], ("boolean_type".to_string(), "true".to_string()));
}

#[test]
fn shutdown_generic_rows() {
    let Some(t) = build("shutdown-perfdiag-kernel.etl") else {
        return;
    };
    // Census: 17,078 events; the header-buffer hooks 0x0000/0x0005/0x0008/
    // 0x0020/0x0050 (1+3+2+2+1), 0x030B (60) and 0x1421/0x1422 (2) are the
    // only ones no table takes.
    let g = &t.generic;
    assert_eq!(g.len(), 9 + 60 + 2);
    assert_eq!(g.id.iter().filter(|&&h| h == 0x030B).count(), 60);
    assert!(t.file_io.is_empty() && t.disk_io.is_empty() && t.cswitches.is_empty());
}
