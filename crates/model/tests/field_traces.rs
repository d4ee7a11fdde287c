//! Lifetimes from the traces of the field that do not use the kernel
//! logger's system headers: a Windows 7 perfmon session of the
//! Microsoft-Windows-Kernel-Process manifest provider, and sawbuck's Windows 7
//! sessions of classic-header events with the kernel's Process and Image
//! class GUIDs. Expected values are hand decodes of the events' bytes
//! (`etlscope dump` prints header fields and payload hex; the layouts are in
//! crates/etl/src/decode/kernel_process.rs and process.rs), times computed
//! here from the raw timestamps and the log-file header's PerfFreq.

mod common;

use model::Trace;

const OPEN: i64 = i64::MIN;

/// Nanoseconds from time zero (the header event) of a raw QPC timestamp.
fn ns(ts: i64, ts0: i64, freq: i64) -> i64 {
    ((ts - ts0) as i128 * 1_000_000_000 / freq as i128) as i64
}

fn near(a: i64, b: i64) -> bool {
    (a - b).abs() <= 1
}

fn process_rows(t: &Trace, pid: u32) -> Vec<usize> {
    (0..t.processes.len())
        .filter(|&i| t.processes.pid[i] == pid)
        .collect()
}

#[test]
fn perfmon_kernel_process_lifetimes() {
    let Some(t) = common::model_of("perfmon-win7-kernel-process.etl") else {
        return;
    };
    // Header event timestamp 178048845225; PerfFreq 2,109,960 (real_traces.rs).
    let (ts0, freq) = (178_048_845_225, 2_109_960);
    // id 1 at 178072199305: e8160000 (pid 5864) 90eae29a9c77cb01 (CreateTime)
    //   fc0c0000 (parent 3324) 01000000 (session 1) "\Device\...\devenv.exe"
    // id 2 at 178345434783: e8160000 ... 00000000 (ExitCode 0) ... "devenv.exe"
    let rows = process_rows(&t, 5864);
    assert_eq!(rows.len(), 1, "one devenv.exe instance");
    let i = rows[0];
    assert_eq!(t.strings.get(t.processes.name[i]), "devenv.exe");
    assert_eq!(t.processes.parent_pid[i], 3324);
    assert!(near(t.processes.start[i], ns(178_072_199_305, ts0, freq)));
    assert!(near(t.processes.end[i], ns(178_345_434_783, ts0, freq)));
    assert_eq!(t.processes.exit_status[i], 0);

    // Starts and stops: 4 + 4 events, of which OUTLOOK.EXE (2880) and
    // devenv.exe both start and stop inside the trace.
    let both = (0..t.processes.len())
        .filter(|&i| t.processes.start[i] != OPEN && t.processes.end[i] != OPEN)
        .count();
    assert_eq!(both, 2);

    // Every Kernel-Process thread event (287 starts, 264 stops) lands in a
    // thread row; images (1,115 loads, 1,153 unloads) likewise, and an image
    // of a process the trace never describes is in an "Unknown" row of its
    // pid, not in Idle: CCMAuthMessageHook.dll, loaded by pid 2800
    // (payload 00009f7400000000 00900100... f00a0000).
    let image = (0..t.images.len())
        .find(|&i| {
            t.strings
                .get(t.images.path[i])
                .ends_with("CCMAuthMessageHook.dll")
        })
        .expect("CCMAuthMessageHook.dll");
    assert_eq!(t.images.base[image], 0x749f_0000);
    assert_eq!(t.images.size[image], 0x19000);
    let p = t.images.process[image] as usize;
    assert_eq!(t.processes.pid[p], 2800);
    assert_eq!(t.strings.get(t.processes.name[p]), "Unknown");
    assert!(t.threads.len() >= 287);

    // CPUs are 0 and 1 (the buffers' u8 ProcessorNumber), not 2048+.
    assert!(
        t.generic.cpu.iter().all(|&c| c < 2),
        "CPU of a generic event"
    );
    assert!(t.generic.cpu.contains(&1));
}

#[test]
fn sawbuck_classic_kernel_events() {
    let Some(t) = common::model_of("sawbuck-win7-process-32bit.etl") else {
        return;
    };
    // Process class opcode 1 (start), version 3, 32-bit pointers:
    //   00000000 (key) f0060000 (pid 1776) dc030000 (parent 988) 01000000
    //   (session 1) 03010000 (exit 259) 00000000 (DTB) 0000000000000000
    //   (TOKEN_USER with a zero Sid pointer) 0105000000000005 15000000 ...
    //   (SID) "notepad.exe\0" "\"C:\Windows\system32\notepad.exe\" \0".
    // Opcode 2 (end) follows at 1.0031 s.
    let rows = process_rows(&t, 1776);
    assert_eq!(rows.len(), 1);
    let i = rows[0];
    assert_eq!(t.strings.get(t.processes.name[i]), "notepad.exe");
    assert_eq!(t.processes.parent_pid[i], 988);
    assert_eq!(t.processes.session[i], 1);
    assert_eq!(
        t.strings.get(t.processes.command_line[i]),
        "\"C:\\Windows\\system32\\notepad.exe\" "
    );
    assert!(t.processes.start[i] != OPEN && t.processes.end[i] != OPEN);
    assert!(t.processes.start[i] < t.processes.end[i]);
    let smss = process_rows(&t, 264);
    assert_eq!(t.strings.get(t.processes.name[smss[0]]), "smss.exe");

    let Some(t) = common::model_of("sawbuck-win7-image-64bit.etl") else {
        return;
    };
    // Image class, FULL_HEADER32 but 64-bit payloads: opcode 3 (rundown)
    //   0000160100000000 (base 0x1160000) 00e0190000000000 (size 0x19e000)
    //   dc1d0000 (pid 7644) ... "C:\code\sawbuck\...\test_program.exe".
    let image = (0..t.images.len())
        .find(|&i| {
            t.strings
                .get(t.images.path[i])
                .ends_with("test_program.exe")
        })
        .expect("test_program.exe");
    assert_eq!(t.images.base[image], 0x0116_0000);
    assert_eq!(t.images.size[image], 0x19_e000);
    assert_eq!(t.processes.pid[t.images.process[image] as usize], 7644);
    // 24 rundown + 1 load + 1 unload events describe 25 images.
    assert_eq!(t.images.len(), 25);
}

/// Visual Studio's .diagsession: the kernel session, the relogged
/// KernelTraceControl session and two CLR sessions are one trace. Figures
/// from ../shared/traces/README.md (250 processes, 15,103 image loads): the
/// images of the kernel member carry the file versions and PDB identities
/// of the KernelTraceControl member.
#[test]
fn diagsession_members_are_one_model() {
    let Some(t) = common::model_of("vs-dotnetcore31.diagsession") else {
        return;
    };
    assert_eq!(t.processes.len(), 250);
    assert_eq!(t.images.len(), 15_103);
    let module = |i: usize| t.images.module[i] as usize;
    let versioned = (0..t.images.len())
        .filter(|&i| t.modules.has_version_info[module(i)])
        .count();
    let with_pdb = (0..t.images.len())
        .filter(|&i| t.modules.pdb_guid[module(i)].is_some())
        .count();
    // Most images are described by the other member; none would be without the merge.
    assert!(versioned > 13_000, "{versioned} images with version info");
    assert!(with_pdb > 14_000, "{with_pdb} images with a PDB identity");
    // CLR runtime events (the user_paged member) belong to a process that
    // the kernel member describes, not to Unknown or Idle.
    let clr = etl::Guid::parse("e13c0d23-ccbc-4e12-931b-d9cc2eee27e4").unwrap();
    let providers = &t.generic.providers;
    let clr_row = (0..providers.guid.len())
        .find(|&i| providers.guid[i] == Some(clr))
        .expect("CLR runtime provider") as u32;
    let rows: Vec<usize> = (0..t.generic.len())
        .filter(|&i| t.generic.provider[i] == clr_row)
        .collect();
    assert!(!rows.is_empty());
    let named = rows
        .iter()
        .filter(|&&i| {
            let p = t.generic.process[i] as usize;
            p < t.processes.len()
                && !matches!(t.strings.get(t.processes.name[p]), "Unknown" | "Idle")
        })
        .count();
    assert_eq!(named, rows.len());
}
