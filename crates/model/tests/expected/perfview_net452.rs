//! Expected figures of perfview-net452-x64.etl, literal output of
//!     python3 tests/reference/model_reference.py samples \
//!         ../shared/traces/perfview-net452-x64.etl
//! (the independent model reference; see acceptance_perfview.rs). Raw
//! timestamps are event timestamps; tests convert them with the trace clock.
//! `reference_script.rs` checks that the script still prints them.

pub const SAMPLES: usize = 79_528;
/// Samples whose (EventTimeStamp, tid) received a stack (inline 0x1820 or a
/// StackKeyKernel/User reference resolved to the next KeyDelete/KeyRundown).
pub const SAMPLES_WITH_STACK: u64 = 6_318;
/// Samples whose stack has a kernel half and a user half, the user half
/// logged for the sample itself or, when the sample was taken in the kernel,
/// on the thread's next exit from the kernel (etl-format.md C.5 rule 4).
pub const SAMPLES_WITH_KERNEL_AND_USER_HALVES: u64 = 538;
/// Frames over all samples: kernel half + user half for samples with a
/// stack, 1 (the instruction pointer) for the others.
pub const FRAMES_OVER_ALL_SAMPLES: u64 = 201_978;
/// Test.x64.exe samples whose instruction pointer lies in a CLR method's code
/// range (MethodLoadVerbose / rundown MethodDC*Verbose of pid 3676).
pub const TOP_SAMPLES_IN_CLR_METHODS: u64 = 4_456;
/// KernelTraceControl events with no load or rundown image event of the same
/// timestamp and base: the ImageID (32) and DbgID_RSDS (32) logged at the 32
/// image unloads, which describe images already described at their load.
pub const KTC_UNMATCHED: u32 = 64;
/// FileVersion events whose ImageSize differs from the only image event of
/// their timestamp, paired by the timestamp: (image path, file version).
pub const FILE_VERSIONS_BY_TIME_ONLY: &[(&str, &str)] = &[
    (
        r"\SystemRoot\System32\drivers\VMBusHID.sys",
        "6.2.9200.16384 (win8_rtm.120725-1247)",
    ),
    (
        r"\SystemRoot\System32\drivers\swenum.sys",
        "6.2.9200.16384 (win8_rtm.120725-1247)",
    ),
];

/// Process instances: (pid, name, raw start or None = alive at trace start,
/// raw end or None = alive at trace end). PerfView's baseline has the same 35
/// (32 DCStart, 1 Start, 2 Defunct) but calls the defunct 616 and 988
/// "Process(616)" / "Process(988)"; their Defunct payloads name them.
pub const PROCESSES: &[(u32, &str, Option<i64>, Option<i64>)] = &[
    (0, "Idle", None, None),
    (4, "System", None, None),
    (144, "svchost.exe", None, None),
    (456, "smss.exe", None, None),
    (576, "csrss.exe", None, None),
    (616, "smss.exe", None, Some(2042367919)),
    (624, "csrss.exe", None, None),
    (632, "wininit.exe", None, None),
    (664, "winlogon.exe", None, None),
    (712, "svchost.exe", None, None),
    (716, "services.exe", None, None),
    (724, "lsass.exe", None, None),
    (840, "svchost.exe", None, None),
    (880, "svchost.exe", None, None),
    (944, "svchost.exe", None, None),
    (980, "dwm.exe", None, None),
    (988, "LogonUI.exe", None, Some(2042382289)),
    (1104, "svchost.exe", None, None),
    (1188, "svchost.exe", None, None),
    (1360, "spoolsv.exe", None, None),
    (1408, "svchost.exe", None, None),
    (1632, "MsMpEng.exe", None, None),
    (1924, "dllhost.exe", None, None),
    (1956, "svchost.exe", None, None),
    (2108, "svchost.exe", None, None),
    (2296, "svchost.exe", None, None),
    (2868, "taskhostex.exe", None, None),
    (2876, "explorer.exe", None, None),
    (3020, "SearchIndexer.exe", None, None),
    (3504, "wmpnetwk.exe", None, None),
    (3508, "cmd.exe", None, None),
    (3516, "conhost.exe", None, None),
    (3552, "WmiPrvSE.exe", None, None),
    (3676, "Test.x64.exe", Some(1969940633), Some(2024631721)),
    (3988, "PerfView.exe", None, None),
];

pub const PER_PROCESS: &[(&str, u64)] = &[
    ("Idle (0)", 73313),
    ("MsMpEng.exe (1632)", 283),
    ("PerfView.exe (3988)", 356),
    ("System (4)", 103),
    ("Test.x64.exe (3676)", 5129),
    ("cmd.exe (3508)", 5),
    ("conhost.exe (3516)", 16),
    ("csrss.exe (624)", 26),
    ("dwm.exe (980)", 132),
    ("explorer.exe (2876)", 24),
    ("lsass.exe (724)", 9),
    ("svchost.exe (1104)", 104),
    ("svchost.exe (1188)", 6),
    ("svchost.exe (1408)", 8),
    ("svchost.exe (144)", 4),
    ("svchost.exe (2108)", 2),
    ("svchost.exe (712)", 3),
    ("svchost.exe (840)", 1),
    ("svchost.exe (944)", 3),
    ("taskhostex.exe (2868)", 1),
];

/// (process, tid, raw start timestamp or None when alive at trace start, samples).
pub const PER_THREAD: &[(&str, u32, Option<i64>, u64)] = &[
    ("Idle (0)", 0, None, 73313),
    ("MsMpEng.exe (1632)", 1644, None, 3),
    ("MsMpEng.exe (1632)", 2128, None, 1),
    ("MsMpEng.exe (1632)", 2540, None, 1),
    ("MsMpEng.exe (1632)", 2616, None, 4),
    ("MsMpEng.exe (1632)", 3472, None, 3),
    ("MsMpEng.exe (1632)", 3664, Some(1969174245), 1),
    ("MsMpEng.exe (1632)", 3960, None, 270),
    ("PerfView.exe (3988)", 1068, None, 22),
    ("PerfView.exe (3988)", 2764, None, 10),
    ("PerfView.exe (3988)", 2780, None, 16),
    ("PerfView.exe (3988)", 2964, None, 10),
    ("PerfView.exe (3988)", 3132, None, 8),
    ("PerfView.exe (3988)", 3136, None, 12),
    ("PerfView.exe (3988)", 3144, None, 3),
    ("PerfView.exe (3988)", 3172, None, 12),
    ("PerfView.exe (3988)", 3672, None, 3),
    ("PerfView.exe (3988)", 3696, None, 1),
    ("PerfView.exe (3988)", 3780, None, 27),
    ("PerfView.exe (3988)", 3784, None, 58),
    ("PerfView.exe (3988)", 3840, None, 1),
    ("PerfView.exe (3988)", 3848, None, 1),
    ("PerfView.exe (3988)", 3992, None, 104),
    ("PerfView.exe (3988)", 4076, None, 68),
    ("System (4)", 112, None, 2),
    ("System (4)", 128, None, 16),
    ("System (4)", 136, None, 1),
    ("System (4)", 148, None, 1),
    ("System (4)", 228, None, 1),
    ("System (4)", 32, None, 4),
    ("System (4)", 3580, None, 6),
    ("System (4)", 3668, Some(1943215202), 2),
    ("System (4)", 3684, None, 4),
    ("System (4)", 376, None, 1),
    ("System (4)", 388, None, 6),
    ("System (4)", 44, None, 4),
    ("System (4)", 544, None, 10),
    ("System (4)", 584, None, 20),
    ("System (4)", 588, None, 1),
    ("System (4)", 592, None, 8),
    ("System (4)", 8, None, 5),
    ("System (4)", 84, None, 11),
    ("Test.x64.exe (3676)", 3656, Some(1971326851), 1),
    ("Test.x64.exe (3676)", 3680, Some(1969941322), 5128),
    ("cmd.exe (3508)", 3512, None, 5),
    ("conhost.exe (3516)", 3524, None, 3),
    ("conhost.exe (3516)", 3528, None, 13),
    ("csrss.exe (624)", 640, None, 2),
    ("csrss.exe (624)", 700, None, 7),
    ("csrss.exe (624)", 708, None, 16),
    ("csrss.exe (624)", 996, None, 1),
    ("dwm.exe (980)", 1016, None, 4),
    ("dwm.exe (980)", 1020, None, 8),
    ("dwm.exe (980)", 1032, None, 9),
    ("dwm.exe (980)", 2696, None, 7),
    ("dwm.exe (980)", 3204, None, 12),
    ("dwm.exe (980)", 3348, None, 3),
    ("dwm.exe (980)", 3436, None, 6),
    ("dwm.exe (980)", 3596, None, 4),
    ("dwm.exe (980)", 3600, None, 5),
    ("dwm.exe (980)", 620, None, 64),
    ("dwm.exe (980)", 976, None, 10),
    ("explorer.exe (2876)", 1040, None, 2),
    ("explorer.exe (2876)", 2976, None, 11),
    ("explorer.exe (2876)", 3000, None, 4),
    ("explorer.exe (2876)", 3016, None, 6),
    ("explorer.exe (2876)", 3216, None, 1),
    ("lsass.exe (724)", 780, None, 9),
    ("svchost.exe (1104)", 1580, None, 104),
    ("svchost.exe (1188)", 2752, None, 6),
    ("svchost.exe (1408)", 1420, None, 7),
    ("svchost.exe (1408)", 1936, None, 1),
    ("svchost.exe (144)", 1716, None, 4),
    ("svchost.exe (2108)", 2648, None, 1),
    ("svchost.exe (2108)", 3532, None, 1),
    ("svchost.exe (712)", 1976, None, 3),
    ("svchost.exe (840)", 1092, None, 1),
    ("svchost.exe (944)", 1252, None, 2),
    ("svchost.exe (944)", 960, None, 1),
    ("taskhostex.exe (2868)", 1088, None, 1),
];

/// Raw timestamp and tid of the samples outside every lifetime of their tid.
pub const OUTSIDE_EVERY_LIFETIME: &[(i64, u32)] = &[
    (1957485335, 3848),
    (2024631164, 3680),
    (2024641449, 3680),
    (2024651163, 3680),
    (2030073291, 1088),
];

/// (base, size, path, file version, product name, PDB GUID, age, PDB name).
#[allow(clippy::type_complexity)]
pub const TOP_IMAGES: &[(u64, u64, &str, Option<&str>, Option<&str>, &str, u32, &str)] = &[
    (0x550000, 0x8000, "\\Device\\Mup\\DfsClient\\;Z:0000000000020d40\\clrmain\\public\\PerfInvestigations\\20-07-28.TestTraces\\Test.x64.exe", Some("1.0.0.0"), Some("Test"), "3304ffa1-d932-4925-a38d-fcaf4cafb624", 1, "C:\\Users\\brianrob\\source\\repos\\Test\\obj\\Release\\Test.pdb"),
    (0x1ae10000, 0x4fa000, "\\Windows\\Microsoft.NET\\assembly\\GAC_64\\mscorlib\\v4.0_4.0.0.0__b77a5c561934e089\\mscorlib.dll", Some("4.0.30319.34209 built by: FX452RTMGDR"), Some("Microsoft® .NET Framework"), "03ea52b2-54bd-4c79-b589-768d49ed6c2d", 1, "mscorlib.pdb"),
    (0x1ae10000, 0x4fa000, "\\Windows\\Microsoft.NET\\assembly\\GAC_64\\mscorlib\\v4.0_4.0.0.0__b77a5c561934e089\\mscorlib.dll", Some("4.0.30319.34209 built by: FX452RTMGDR"), Some("Microsoft® .NET Framework"), "03ea52b2-54bd-4c79-b589-768d49ed6c2d", 1, "mscorlib.pdb"),
    (0x1b310000, 0x4fa000, "\\Windows\\Microsoft.NET\\assembly\\GAC_64\\mscorlib\\v4.0_4.0.0.0__b77a5c561934e089\\mscorlib.dll", Some("4.0.30319.34209 built by: FX452RTMGDR"), Some("Microsoft® .NET Framework"), "03ea52b2-54bd-4c79-b589-768d49ed6c2d", 1, "mscorlib.pdb"),
    (0x1b310000, 0x4fa000, "\\Windows\\Microsoft.NET\\assembly\\GAC_64\\mscorlib\\v4.0_4.0.0.0__b77a5c561934e089\\mscorlib.dll", Some("4.0.30319.34209 built by: FX452RTMGDR"), Some("Microsoft® .NET Framework"), "03ea52b2-54bd-4c79-b589-768d49ed6c2d", 1, "mscorlib.pdb"),
    (0x1b810000, 0x4fa000, "\\Windows\\Microsoft.NET\\assembly\\GAC_64\\mscorlib\\v4.0_4.0.0.0__b77a5c561934e089\\mscorlib.dll", Some("4.0.30319.34209 built by: FX452RTMGDR"), Some("Microsoft® .NET Framework"), "03ea52b2-54bd-4c79-b589-768d49ed6c2d", 1, "mscorlib.pdb"),
    (0x7f9bde90000, 0x12e000, "\\Windows\\Microsoft.NET\\Framework64\\v4.0.30319\\clrjit.dll", Some("4.0.30319.34209 built by: FX452RTMGDR"), Some("Microsoft® .NET Framework"), "46df5c3b-a79c-4c13-bd60-965513d0a6f5", 2, "clrjit.pdb"),
    (0x7f9bdfc0000, 0xd6000, "\\Windows\\System32\\msvcr120_clr0400.dll", Some("12.00.51209.34209 built by: FX452RTMGDR"), Some("Microsoft® Visual Studio® 12 CTP"), "62761df8-ae54-4a0f-bf95-db81b44b0c20", 2, "msvcr120_clr0400.amd64.pdb"),
    (0x7f9be0a0000, 0x9a0000, "\\Windows\\Microsoft.NET\\Framework64\\v4.0.30319\\clr.dll", Some("4.0.30319.34209 built by: FX452RTMGDR"), Some("Microsoft® .NET Framework"), "e3e0c76a-7909-454f-b3c5-6b0c2ce5ffeb", 2, "clr.pdb"),
    (0x7f9bf6a0000, 0x9d000, "\\Windows\\Microsoft.NET\\Framework64\\v4.0.30319\\mscoreei.dll", Some("4.0.30319.34209 built by: FX452RTMGDR"), Some("Microsoft® .NET Framework"), "6d65f80a-ba3d-403d-8f6f-7214972b9bbf", 2, "mscoreei.pdb"),
    (0x7f9c06c0000, 0x6f000, "\\Windows\\System32\\mscoree.dll", Some("4.0.41209.0 (Main.041209-0000)"), Some("Microsoft® .NET Framework"), "f2825d2b-79d0-4216-a5f3-4a6f9b9f5a9e", 2, "mscoree.pdb"),
    (0x7f9ca220000, 0x9000, "\\Windows\\System32\\version.dll", None, None, "e707d894-1455-4dcd-a2f1-95b6cb76d1af", 2, "version.pdb"),
    (0x7f9cccf0000, 0x25000, "\\Windows\\System32\\bcrypt.dll", None, None, "71392b84-3b3e-4acc-a14a-dd3fc3fe436c", 2, "bcrypt.pdb"),
    (0x7f9cd000000, 0x5c000, "\\Windows\\System32\\bcryptprimitives.dll", None, None, "92215466-e0cd-496e-9b6d-10a1d17566d2", 2, "bcryptprimitives.pdb"),
    (0x7f9cd1b0000, 0xa000, "\\Windows\\System32\\cryptbase.dll", None, None, "69c64f4c-481f-4d8a-b018-497bd8e7c7dd", 2, "cryptbase.pdb"),
    (0x7f9cd3a0000, 0xf3000, "\\Windows\\System32\\KernelBase.dll", None, None, "65d07c2c-66b1-4dda-b503-4a5598125af1", 2, "kernelbase.pdb"),
    (0x7f9cd760000, 0x50000, "\\Windows\\System32\\shlwapi.dll", None, None, "0334af24-7ad0-4b2b-90a5-f460f7e5254a", 2, "shlwapi.pdb"),
    (0x7f9cd9e0000, 0x140000, "\\Windows\\System32\\rpcrt4.dll", None, None, "db3d533b-b40c-4e28-a503-c06acd0b8e9d", 2, "rpcrt4.pdb"),
    (0x7f9cf410000, 0x17e000, "\\Windows\\System32\\ole32.dll", None, None, "decdb48f-e372-47b8-a462-2deb7a712dab", 2, "ole32.pdb"),
    (0x7f9cf590000, 0x136000, "\\Windows\\System32\\kernel32.dll", None, None, "996c94db-18de-4368-8ca1-10d2ff25b854", 2, "kernel32.pdb"),
    (0x7f9cf6d0000, 0x114000, "\\Windows\\System32\\msctf.dll", None, None, "310d5de7-cd50-4aaf-ad86-537212450e06", 2, "msctf.pdb"),
    (0x7f9cf7f0000, 0xde000, "\\Windows\\System32\\advapi32.dll", None, None, "f572bfd6-4fa7-4028-a3b5-231f032ca974", 2, "advapi32.pdb"),
    (0x7f9cf9f0000, 0xc3000, "\\Windows\\System32\\oleaut32.dll", None, None, "03dec17e-88f3-4bcd-a6c7-10ecfc859510", 2, "oleaut32.pdb"),
    (0x7f9cfac0000, 0x1b0000, "\\Windows\\System32\\combase.dll", None, None, "6cec1f76-13ad-4d96-a2d0-3c7c13ec71be", 2, "combase.pdb"),
    (0x7f9cfac0000, 0x1b0000, "\\Windows\\System32\\combase.dll", None, None, "6cec1f76-13ad-4d96-a2d0-3c7c13ec71be", 2, "combase.pdb"),
    (0x7f9cfc70000, 0x14c000, "\\Windows\\System32\\user32.dll", None, None, "b1452c41-f767-4414-8f63-51f9504f01ba", 2, "user32.pdb"),
    (0x7f9cfdc0000, 0xa5000, "\\Windows\\System32\\msvcrt.dll", None, None, "31becc47-5674-4732-a05f-68e6f3958956", 2, "msvcrt.pdb"),
    (0x7f9cfe80000, 0x48000, "\\Windows\\System32\\sechost.dll", None, None, "2151ed17-47ab-4da7-8fd7-abfbcde49eda", 2, "sechost.pdb"),
    (0x7f9cff50000, 0x140000, "\\Windows\\System32\\gdi32.dll", None, None, "270d93a8-70c5-4604-a740-2e0ea90a44ba", 2, "gdi32.pdb"),
    (0x7f9d0090000, 0x39000, "\\Windows\\System32\\imm32.dll", None, None, "8053508e-0358-481d-8947-94025b850b15", 2, "imm32.pdb"),
    (0x7f9d02f0000, 0x1be000, "\\SystemRoot\\System32\\ntdll.dll", None, None, "6048fdb6-2dcd-41c1-8835-594844ce7143", 2, "ntdll.pdb"),
];
