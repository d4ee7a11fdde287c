//! CPU Usage (Precise), File I/O, Disk I/O and Generic Events built from
//! hand-made `.etl` bytes (no real trace has CSwitch / ReadyThread or kernel
//! FileIo operations). Expected values follow from the events written here:
//! the clock runs at 10^7 ticks per second, so one tick is 100 ns.

use etl::{EtlFile, Guid};
use model::cpu_precise::UNKNOWN;
use model::io::{DiskOp, FileOp};
use model::{Trace, NONE};

const KERNEL_FILE: Guid = Guid::from_u128(0xedd08927_9cc4_4e65_b970_c2560fb5c289);
const SYSCONFIG: Guid = Guid::from_u128(0x9b79ee91_b5fd_41c0_a243_4248e266e9d0);
const MY_PROVIDER: Guid = Guid::from_u128(0x11112222_3333_4444_5555_666677778888);
const TICK_NS: i64 = 100;
const T0: i64 = 1000;

fn utf16z(s: &str) -> Vec<u8> {
    let mut b: Vec<u8> = s.encode_utf16().flat_map(|u| u.to_le_bytes()).collect();
    b.extend([0, 0]);
    b
}

fn pad8(b: &mut Vec<u8>) {
    while b.len() & 7 != 0 {
        b.push(0);
    }
}

/// Events in one buffer of an `.etl` file, each 8-aligned.
#[derive(Default)]
struct Buf {
    cpu: u16,
    bytes: Vec<u8>,
}

impl Buf {
    /// System64 kernel header (0x20 bytes).
    fn system(&mut self, hook: u16, version: u16, tid: u32, pid: u32, ts: i64, payload: &[u8]) {
        let size = (0x20 + payload.len()) as u16;
        self.bytes.extend(version.to_le_bytes());
        self.bytes.extend([0x02, 0xC0]); // System64, header flags
        self.bytes.extend(size.to_le_bytes());
        self.bytes.extend(hook.to_le_bytes());
        self.bytes.extend(tid.to_le_bytes());
        self.bytes.extend(pid.to_le_bytes());
        self.bytes.extend(ts.to_le_bytes());
        self.bytes.extend(0u64.to_le_bytes()); // kernel / user time
        self.bytes.extend(payload);
        pad8(&mut self.bytes);
    }

    /// Full64 classic header (0x30 bytes) with a provider GUID and opcode.
    fn classic(&mut self, provider: Guid, opcode: u8, ts: i64, payload: &[u8]) {
        let size = (0x30 + payload.len()) as u16;
        self.bytes.extend(size.to_le_bytes());
        self.bytes.extend([0x14, 0xC0]); // Full64
        self.bytes.push(opcode);
        self.bytes.push(0); // level
        self.bytes.extend(0u16.to_le_bytes()); // version
        self.bytes.extend(0u32.to_le_bytes()); // tid
        self.bytes.extend(0u32.to_le_bytes()); // pid
        self.bytes.extend(ts.to_le_bytes());
        self.bytes.extend(provider.to_bytes_le());
        self.bytes.extend(0u64.to_le_bytes());
        self.bytes.extend(payload);
        pad8(&mut self.bytes);
    }

    /// EventHeader64 (0x50 bytes) with extended items.
    #[allow(clippy::too_many_arguments)]
    fn event_header(
        &mut self,
        provider: Guid,
        id: u16,
        version: u8,
        tid: u32,
        pid: u32,
        ts: i64,
        payload: &[u8],
        ext: &[(u16, Vec<u8>)],
    ) {
        let mut items = Vec::new();
        for (i, (t, d)) in ext.iter().enumerate() {
            let link: u16 = if i + 1 < ext.len() { 1 } else { 0 };
            items.extend(0u16.to_le_bytes());
            items.extend(t.to_le_bytes());
            items.extend(link.to_le_bytes());
            items.extend((d.len() as u16).to_le_bytes());
            items.extend(d);
            pad8(&mut items);
        }
        let flags: u16 = 0x0040 | if ext.is_empty() { 0 } else { 0x0001 };
        let size = (0x50 + items.len() + payload.len()) as u16;
        self.bytes.extend(size.to_le_bytes());
        self.bytes.extend([0x13, 0xC0]); // EventHeader64
        self.bytes.extend(flags.to_le_bytes());
        self.bytes.extend(0u16.to_le_bytes()); // event property
        self.bytes.extend(tid.to_le_bytes());
        self.bytes.extend(pid.to_le_bytes());
        self.bytes.extend(ts.to_le_bytes());
        self.bytes.extend(provider.to_bytes_le());
        self.bytes.extend(id.to_le_bytes());
        self.bytes.push(version);
        self.bytes.extend([0, 4, 0]); // channel, level, opcode
        self.bytes.extend(7u16.to_le_bytes()); // task
        self.bytes.extend(0x10u64.to_le_bytes()); // keyword
        self.bytes.extend(0u64.to_le_bytes()); // processor time
        self.bytes.extend([0u8; 16]); // activity id
        self.bytes.extend(items);
        self.bytes.extend(payload);
        pad8(&mut self.bytes);
    }
}

fn buffer(b: &Buf, buffer_type: u16) -> Vec<u8> {
    let saved = 0x48 + b.bytes.len();
    let size = (saved + 7) & !7;
    let mut h = vec![0u8; 0x48];
    h[0..4].copy_from_slice(&(size as u32).to_le_bytes());
    h[4..8].copy_from_slice(&(saved as u32).to_le_bytes());
    h[0x28..0x2A].copy_from_slice(&b.cpu.to_le_bytes());
    h[0x36..0x38].copy_from_slice(&buffer_type.to_le_bytes());
    h.extend(&b.bytes);
    h.resize(size, 0xFF);
    h
}

/// A file: the header buffer (log-file header at `T0`, 10^7 ticks/s, P = 8)
/// and then `bufs`.
fn etl(bufs: &[Buf]) -> Trace {
    let mut lf = vec![0u8; 0x120];
    lf[0x0C..0x10].copy_from_slice(&2u32.to_le_bytes()); // processors
    lf[0x2C..0x30].copy_from_slice(&8u32.to_le_bytes()); // pointer size
    let boot = 0x38 + 16 + 176;
    lf[boot + 8..boot + 16].copy_from_slice(&10_000_000i64.to_le_bytes()); // perf freq
    lf[boot + 24..boot + 28].copy_from_slice(&1u32.to_le_bytes()); // QPC
    let mut header = Buf::default();
    header.system(0x0000, 2, 0, 0, T0, &lf);
    let mut bytes = buffer(&header, 4);
    for b in bufs {
        bytes.extend(buffer(b, 0));
    }
    let file = EtlFile::from_bytes(bytes).unwrap();
    model::build(&file)
}

fn process_v0(pid: u32, name: &str) -> Vec<u8> {
    let mut p = Vec::new();
    p.extend(u64::from(pid).to_le_bytes());
    p.extend(0u64.to_le_bytes()); // parent
    p.extend(0u32.to_le_bytes()); // no SID
    p.extend(name.as_bytes());
    p.push(0);
    p
}

fn thread_v0(tid: u32, pid: u32) -> Vec<u8> {
    let mut p = tid.to_le_bytes().to_vec();
    p.extend(pid.to_le_bytes());
    p
}

/// Idle (pid 0, tid 0) and app.exe (pid 100, tids 11 and 12) from rundown.
fn rundown(b: &mut Buf) {
    b.system(0x0303, 0, 0, 0, T0, &process_v0(0, "Idle"));
    b.system(0x0303, 0, 0, 0, T0, &process_v0(100, "app.exe"));
    b.system(0x0503, 0, 0, 0, T0, &thread_v0(0, 0));
    b.system(0x0503, 0, 0, 0, T0, &thread_v0(11, 100));
    b.system(0x0503, 0, 0, 0, T0, &thread_v0(12, 100));
}

fn cswitch(new: u32, old: u32, old_state: i8, wait_reason: i8, raw_wait: u32) -> Vec<u8> {
    let mut p = new.to_le_bytes().to_vec();
    p.extend(old.to_le_bytes());
    p.extend([9u8, 8, 0, 0]); // priorities new 9 / old 8, C-state, spare
    p.extend([wait_reason as u8, 1, old_state as u8, 0]);
    p.extend(raw_wait.to_le_bytes());
    p.extend(0u32.to_le_bytes());
    p
}

fn stack_walk(event_ts: i64, pid: u32, tid: u32, frames: &[u64]) -> Vec<u8> {
    let mut p = event_ts.to_le_bytes().to_vec();
    p.extend(pid.to_le_bytes());
    p.extend(tid.to_le_bytes());
    for f in frames {
        p.extend(f.to_le_bytes());
    }
    p
}

fn stack_addresses(t: &Trace, stack: u32) -> Vec<u64> {
    t.stacks
        .frames_leaf_first(stack)
        .map(|f| t.frames.address[f as usize])
        .collect()
}

fn tid_of(t: &Trace, thread: u32) -> u32 {
    t.threads.tid[thread as usize]
}

#[test]
fn context_switches_and_ready_threads() {
    let mut b = Buf::default();
    rundown(&mut b);
    // CPU 0: idle -> 11 at 2000; 11 waits (UserRequest) at 3000; thread 12
    // readies 11 at 4500 (with a stack); 11 is switched in at 5000 (with a
    // stack); preempted by 12 at 6000 (state Ready); back in at 7000.
    b.system(0x0524, 2, 0, 0, 2000, &cswitch(11, 0, 2, 0, 0));
    b.system(0x0524, 2, 0, 0, 3000, &cswitch(0, 11, 5, 6, 0));
    let mut ready = 11u32.to_le_bytes().to_vec();
    ready.extend([1u8, 2, 0, 0]);
    b.system(0x0532, 2, 12, 100, 4500, &ready);
    let ready_frames = [0x7ff6_0000_2000u64, 0x7ff6_0000_1000];
    b.system(
        0x1820,
        2,
        12,
        100,
        4500,
        &stack_walk(4500, 100, 12, &ready_frames),
    );
    b.system(0x0524, 2, 0, 0, 5000, &cswitch(11, 0, 2, 0, 7));
    let switch_frames = [0xffff_f800_0000_1000u64, 0x7ff6_0000_3000];
    b.system(
        0x1820,
        2,
        11,
        100,
        5000,
        &stack_walk(5000, 100, 11, &switch_frames),
    );
    b.system(0x0524, 2, 0, 0, 6000, &cswitch(12, 11, 1, 32, 0));
    b.system(0x0524, 2, 0, 0, 7000, &cswitch(11, 12, 5, 6, 0));
    let t = etl(&[b]);

    let cs = &t.cswitches;
    assert_eq!(cs.len(), 5);
    assert_eq!(t.ready_threads.len(), 1);
    let tids: Vec<(u32, u32)> = (0..5)
        .map(|i| (tid_of(&t, cs.new_thread[i]), tid_of(&t, cs.old_thread[i])))
        .collect();
    assert_eq!(tids, [(11, 0), (0, 11), (11, 0), (12, 11), (11, 12)]);
    assert_eq!(cs.time[2], (5000 - T0) * TICK_NS);
    assert_eq!((cs.new_priority[2], cs.old_priority[2]), (9, 8));
    assert_eq!((cs.old_wait_reason[1], cs.old_state[1]), (6, 5));
    assert_eq!(cs.new_wait_time_raw[2], 7);
    // Switched out at 3000, readied at 4500, in at 5000.
    assert_eq!(cs.wait_ns[2], 1500 * TICK_NS);
    assert_eq!(cs.ready_ns[2], 500 * TICK_NS);
    assert_eq!(cs.ready_event[2], 0);
    // Preempted at 6000 (Ready), back at 7000 with no ReadyThread: all ready.
    assert_eq!((cs.wait_ns[4], cs.ready_ns[4]), (0, 1000 * TICK_NS));
    assert_eq!(cs.ready_event[4], NONE);
    // Thread 11's first switch-in: its earlier switch-out is not in the trace.
    assert_eq!((cs.wait_ns[0], cs.ready_ns[0]), (UNKNOWN, UNKNOWN));
    // Run time until the next switch on CPU 0.
    assert_eq!(
        cs.run_ns[..4],
        [
            1000 * TICK_NS,
            2000 * TICK_NS,
            1000 * TICK_NS,
            1000 * TICK_NS
        ]
    );
    assert_eq!(cs.run_ns[4], 0);
    // Switch-in stack by (time, new thread id); ready stack by (time, readying thread).
    assert_eq!(stack_addresses(&t, cs.stack[2]), switch_frames);
    assert_eq!(cs.stack[0], NONE);
    let rt = &t.ready_threads;
    assert_eq!(
        (tid_of(&t, rt.thread[0]), tid_of(&t, rt.readying_thread[0])),
        (11, 12)
    );
    assert_eq!((rt.adjust_reason[0], rt.adjust_increment[0]), (1, 2));
    assert_eq!(stack_addresses(&t, rt.stack[0]), ready_frames);
    // Neither CSwitch nor ReadyThread nor StackWalk shows up as a generic event.
    assert!(t
        .generic
        .id
        .iter()
        .all(|&h| !matches!(h, 0x0524 | 0x0532 | 0x1820)));
}

fn p64(b: &mut Vec<u8>, v: u64) {
    b.extend(v.to_le_bytes());
}

/// Kernel FileIo v3 create: IRP, FileObject, TTID, options, attributes, share, path.
fn create_v3(irp: u64, fo: u64, ttid: u32, path: &str) -> Vec<u8> {
    let mut b = Vec::new();
    p64(&mut b, irp);
    p64(&mut b, fo);
    b.extend(ttid.to_le_bytes());
    b.extend([0u8; 12]);
    b.extend(utf16z(path));
    b
}

/// Kernel FileIo v3 read / write.
fn read_write_v3(offset: u64, irp: u64, fo: u64, key: u64, ttid: u32, size: u32) -> Vec<u8> {
    let mut b = Vec::new();
    p64(&mut b, offset);
    p64(&mut b, irp);
    p64(&mut b, fo);
    p64(&mut b, key);
    b.extend(ttid.to_le_bytes());
    b.extend(size.to_le_bytes());
    b.extend(0u32.to_le_bytes());
    b
}

#[test]
fn file_and_disk_io() {
    let mut b = Buf::default();
    rundown(&mut b);
    let mut vm = utf16z("\\Device\\HarddiskVolume2");
    vm.extend(utf16z("C:"));
    b.classic(SYSCONFIG, 35, T0, &vm);
    let mut sp = utf16z("C:\\Windows\\system32");
    sp.extend(utf16z("C:\\Windows\\"));
    b.classic(SYSCONFIG, 33, T0, &sp);
    // Create of a.txt (file object 0xF0), completed 300 ticks later.
    b.system(
        0x0440,
        3,
        11,
        100,
        2000,
        &create_v3(0xA1, 0xF0, 11, "\\Device\\HarddiskVolume2\\data\\a.txt"),
    );
    let mut end = Vec::new();
    p64(&mut end, 0xA1);
    p64(&mut end, 0);
    end.extend(0u32.to_le_bytes());
    b.system(0x044C, 3, 11, 100, 2300, &end);
    // A read of b.log, named only by the rundown at the end (file key 0xB1).
    b.system(
        0x0443,
        3,
        11,
        100,
        3000,
        &read_write_v3(4096, 0xA2, 0xF1, 0xB1, 11, 512),
    );
    // A write through file object 0xF0, whose key no name event gives.
    b.system(
        0x0444,
        3,
        12,
        100,
        3500,
        &read_write_v3(0, 0xA3, 0xF0, 0xB9, 12, 100),
    );
    // Disk read of b.log: init at 3100 (with a stack), done at 3600 after 500 ticks.
    let mut init = Vec::new();
    p64(&mut init, 0xD1);
    init.extend(11u32.to_le_bytes());
    b.system(0x010C, 3, 11, 100, 3100, &init);
    let disk_frames = [0xffff_f800_0000_4000u64, 0x7ff6_0000_5000];
    b.system(
        0x1820,
        2,
        11,
        100,
        3100,
        &stack_walk(3100, 100, 11, &disk_frames),
    );
    let mut dio = Vec::new();
    dio.extend(0u32.to_le_bytes()); // disk
    dio.extend((2u32 << 17).to_le_bytes()); // IRP flags: priority 2
    dio.extend(4096u32.to_le_bytes());
    dio.extend(0u32.to_le_bytes());
    p64(&mut dio, 0x10_0000);
    p64(&mut dio, 0xB1);
    p64(&mut dio, 0xD1);
    p64(&mut dio, 500);
    dio.extend(11u32.to_le_bytes());
    b.system(0x010A, 3, 11, 100, 3600, &dio);
    // Microsoft-Windows-Kernel-File Create (id 12, v1) with its stack in extended data.
    let mut kf = Vec::new();
    p64(&mut kf, 0xA4);
    p64(&mut kf, 0xF4);
    kf.extend(12u32.to_le_bytes());
    kf.extend([0u8; 12]);
    kf.extend(utf16z("\\SystemRoot\\System32\\x.dll"));
    let kf_frames = [0x7ff6_0000_1234u64, 0x7ff6_0000_5678];
    let mut st = 42u64.to_le_bytes().to_vec(); // MatchId
    for f in kf_frames {
        st.extend(f.to_le_bytes());
    }
    b.event_header(KERNEL_FILE, 12, 1, 12, 100, 4000, &kf, &[(6, st)]);
    // Name rundown at the end of the trace.
    let mut name = Vec::new();
    p64(&mut name, 0xB1);
    name.extend(utf16z("\\Device\\HarddiskVolume2\\data\\b.log"));
    b.system(0x0424, 2, 0, 0, 9000, &name);
    let t = etl(&[b]);

    let f = &t.file_io;
    let ops: Vec<FileOp> = f.op.clone();
    assert_eq!(
        ops,
        [FileOp::Create, FileOp::Read, FileOp::Write, FileOp::Create]
    );
    let path = |i: usize| t.strings.get(f.path[i]).to_string();
    assert_eq!(path(0), "C:\\data\\a.txt");
    assert_eq!(path(1), "C:\\data\\b.log");
    assert_eq!(path(2), "C:\\data\\a.txt");
    assert_eq!(path(3), "C:\\Windows\\System32\\x.dll");
    assert_eq!(f.duration_ns[0], 300 * TICK_NS);
    assert_eq!(f.duration_ns[1], 0);
    assert_eq!((f.size[1], f.offset[1]), (512, 4096));
    assert_eq!(tid_of(&t, f.thread[2]), 12);
    assert_eq!(t.process_label(f.process[3]), "app.exe (100)");
    assert!(f.from_kernel_file_provider[3] && !f.from_kernel_file_provider[0]);
    assert_eq!(stack_addresses(&t, f.stack[3]), kf_frames);
    assert_eq!(f.stack[0], NONE);

    let d = &t.disk_io;
    assert_eq!(d.len(), 1);
    assert_eq!(d.op[0], DiskOp::Read);
    assert_eq!(d.duration_ns[0], 500 * TICK_NS);
    assert_eq!(d.time[0], (3100 - T0) * TICK_NS);
    assert_eq!(
        (d.size[0], d.offset[0], d.priority[0]),
        (4096, 0x10_0000, 2)
    );
    assert_eq!(t.strings.get(d.path[0]), "C:\\data\\b.log");
    assert_eq!(tid_of(&t, d.thread[0]), 11);
    assert_eq!(stack_addresses(&t, d.stack[0]), disk_frames);
}

#[test]
fn unclaimed_events_are_generic_rows() {
    let mut b = Buf::default();
    rundown(&mut b);
    let frames = [0x7ff6_0000_0100u64, 0x7ff6_0000_0200];
    let mut st = 1u64.to_le_bytes().to_vec();
    for f in frames {
        st.extend(f.to_le_bytes());
    }
    b.event_header(MY_PROVIDER, 77, 2, 11, 100, 2500, &[1, 2, 3], &[(6, st)]);
    b.event_header(MY_PROVIDER, 78, 0, 12, 100, 2600, &[], &[]);
    let t = etl(&[b]);
    let g = &t.generic;
    let rows: Vec<usize> = (0..g.len())
        .filter(|&i| g.id[i] >= 77 && g.pid[i] == 100)
        .collect();
    assert_eq!(rows.len(), 2);
    let r = rows[0];
    assert_eq!(
        (g.id[r], g.version[r], g.level[r], g.task[r], g.keyword[r]),
        (77, 2, 4, 7, 0x10)
    );
    assert_eq!(g.payload(r), [1, 2, 3]);
    assert_eq!(g.payload(rows[1]), [] as [u8; 0]);
    assert_eq!(tid_of(&t, g.thread[r]), 11);
    assert_eq!(t.process_label(g.process[r]), "app.exe (100)");
    assert_eq!(stack_addresses(&t, g.stack[r]), frames);
    assert_eq!(g.stack[rows[1]], NONE);
    let provider = g.provider[r] as usize;
    assert_eq!(g.providers.guid[provider], Some(MY_PROVIDER));
    assert_eq!(
        t.strings.get(g.providers.name[provider]),
        MY_PROVIDER.to_string()
    );
    assert_eq!(
        t.generic_fields(r),
        [("Payload".to_string(), "010203".to_string())]
    );
    // Process and thread rundown went to their own tables.
    assert!(g.id.iter().all(|&h| h != 0x0303 && h != 0x0503));
    // Event 77's payload has no schema: the one undecoded event, counted
    // beside the correlating pass, still reaches the trace's info.
    assert_eq!(t.info.hex_only_events, 1);
}

#[test]
fn file_names_follow_time_and_kernel_file_completions() {
    let mut b = Buf::default();
    rundown(&mut b);
    let name = |key: u64, path: &str| {
        let mut n = key.to_le_bytes().to_vec();
        n.extend(utf16z(path));
        n
    };
    // File key 0xB1 is x.txt from 2000, then (after its delete) y.txt from 5000.
    b.system(
        0x0420,
        2,
        11,
        100,
        2000,
        &name(0xB1, "\\Device\\HarddiskVolume9\\x.txt"),
    );
    b.system(
        0x0423,
        2,
        11,
        100,
        4000,
        &name(0xB1, "\\Device\\HarddiskVolume9\\x.txt"),
    );
    b.system(
        0x0420,
        2,
        11,
        100,
        5000,
        &name(0xB1, "\\Device\\HarddiskVolume9\\y.txt"),
    );
    // Kernel-File Read (id 15, v1: layout 3 plus ExtraFlags) at 3000 and
    // 6000; the first completes (OperationEnd, id 24) at 3400.
    let read = |irp: u64| {
        let mut r = read_write_v3(0, irp, 0xF1, 0xB1, 11, 64);
        r.extend(0u32.to_le_bytes());
        r
    };
    b.event_header(KERNEL_FILE, 15, 1, 11, 100, 3000, &read(0xA1), &[]);
    let mut end = Vec::new();
    p64(&mut end, 0xA1);
    p64(&mut end, 64);
    end.extend(0u32.to_le_bytes());
    b.event_header(KERNEL_FILE, 24, 1, 11, 100, 3400, &end, &[]);
    b.event_header(KERNEL_FILE, 15, 1, 11, 100, 6000, &read(0xA2), &[]);
    let t = etl(&[b]);
    let f = &t.file_io;
    assert_eq!(f.op, [FileOp::Read, FileOp::Read]);
    // No VolumeMapping in this trace: NT paths stay as they are.
    assert_eq!(t.strings.get(f.path[0]), "\\Device\\HarddiskVolume9\\x.txt");
    assert_eq!(t.strings.get(f.path[1]), "\\Device\\HarddiskVolume9\\y.txt");
    assert_eq!(f.duration_ns[0], 400 * TICK_NS);
    assert_eq!(f.duration_ns[1], 0);
    assert_eq!(f.size[0], 64);
    assert!(f.from_kernel_file_provider[0]);
    // Name events and OperationEnd are no generic rows; nothing else is left.
    assert!(t.generic.pid.iter().all(|&p| p != 100));
}
