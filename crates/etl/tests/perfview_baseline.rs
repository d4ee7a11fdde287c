//! Event counts of `perfview-net452-x64.etl` against PerfView's own decode of
//! the same trace: the COUNT lines of PerfView's published baseline
//! `src/TraceEvent/TraceEvent.Tests/inputs/net.4.5.2.x64.baseline.txt`
//! (microsoft/perfview, read, not copied; its first event is this trace's
//! header: BuffersWritten=360, PerfView pid 3988). Each figure below is
//! transcribed by hand with the baseline line it comes from.
//!
//! The baseline names events, we count kernel hooks (group << 8 | opcode):
//! the name-to-hook pairs are TraceEvent's KernelTraceEventParser templates
//! (task and opcode of each name) and etl-format.md section C.

use etl::census::Census;
use etl::{EtlFile, Guid};

/// (baseline line, PerfView's event name, kernel hook, count).
const KERNEL_COUNTS: &[(u32, &str, u16, u64)] = &[
    (586, "DiskIO/FlushBuffers", 0x010e, 2),
    (587, "DiskIO/FlushInit", 0x010f, 2),
    (588, "DiskIO/Read", 0x010a, 1_208),
    (589, "DiskIO/ReadInit", 0x010c, 1_208),
    (590, "DiskIO/Write", 0x010b, 21),
    (591, "DiskIO/WriteInit", 0x010d, 21),
    (592, "EventTrace", 0x0000, 1),
    (593, "EventTrace/EndExtension", 0x0020, 2),
    (594, "EventTrace/Extension", 0x0005, 3),
    (595, "EventTrace/RundownComplete", 0x0008, 2),
    (596, "Image/DCStart", 0x1403, 1_763),
    (597, "Image/DCStop", 0x1404, 1_766),
    // Image loads of this trace are logged under the process group (fmt C.3).
    (598, "Image/Load", 0x030a, 35),
    (599, "Image/Unload", 0x1402, 32),
    (600, "Memory/HardFault", 0x0220, 153),
    (601, "PerfInfo/CollectionEnd", 0x0f4a, 1),
    (602, "PerfInfo/CollectionStart", 0x0f49, 1),
    (604, "Process/DCStart", 0x0303, 32),
    (605, "Process/DCStop", 0x0304, 32),
    (606, "Process/Defunct", 0x0327, 2),
    (607, "Process/PerfCtr", 0x0320, 1),
    (608, "Process/PerfCtrRundown", 0x0321, 32),
    (609, "Process/Start", 0x0301, 1),
    (610, "Process/Stop", 0x0302, 1),
    (625, "TcpIp/RecvIPV6", 0x061b, 250),
    (626, "TcpIp/SendIPV6", 0x061a, 240),
    (627, "Thread/Start", 0x0501, 9),
    (628, "Thread/Stop", 0x0502, 15),
    (629, "UdpIp/Recv", 0x080b, 19),
    (630, "UdpIp/RecvIPV6", 0x081b, 10),
    (631, "UdpIp/Send", 0x080a, 1),
    (632, "UdpIp/SendIPV6", 0x081a, 6),
    // Line 488: MSNT_SystemTrace/Image/KernelBase:1.
    (488, "Image/KernelBase", 0x1421, 1),
];

fn census() -> Option<Census> {
    let path = testdata::real_traces_dir()?.join("perfview-net452-x64.etl");
    let file = EtlFile::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Some(Census::of(&file))
}

#[test]
fn kernel_event_counts_equal_perfviews() {
    let Some(c) = census() else { return };
    let mut wrong = Vec::new();
    for &(line, name, hook, want) in KERNEL_COUNTS {
        let got = c.kernel_hooks.get(&hook).copied().unwrap_or(0);
        if got != want {
            wrong.push(format!(
                "baseline line {line} {name}: PerfView {want}, ours {got} (hook {hook:#06x})"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Manifest events PerfView counts by name, keyed here by provider and id.
#[test]
fn manifest_event_counts_equal_perfviews() {
    let Some(c) = census() else { return };
    let id = |g: &str, e: u16| {
        let g = Guid::parse(g).expect("guid");
        c.provider_ids.get(&(g, e)).copied().unwrap_or(0)
    };
    // Line 562: Microsoft-Windows-Kernel-File/Create:562 (event id 12, fmt C.6).
    assert_eq!(id("edd08927-9cc4-4e65-b970-c2560fb5c289", 12), 562);
    // Line 563-564: Microsoft-Windows-Kernel-Process/ProcessStart/Start:1 and
    // ProcessStop/Stop:1 (ids 1 and 2 of the provider's manifest).
    assert_eq!(id("22fb2cd6-0e7b-422b-a0c7-2fad1fd0e716", 1), 1);
    assert_eq!(id("22fb2cd6-0e7b-422b-a0c7-2fad1fd0e716", 2), 1);
}
