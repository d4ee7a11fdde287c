//! Soft page faults, registry, VirtualAlloc and heap events written from
//! a list: a test
//! writes what it chooses and computes what the tables must show from
//! the same list. Layouts: PageFault_TypeGroup1 (ptr VirtualAddress, ptr
//! ProgramCounter) and Registry_TypeGroup1 v2 (s64 InitialTime, u32
//! Status, u32 Index, ptr KeyHandle, UTF-16 KeyName) of Microsoft's
//! MSNT_SystemTrace classes, as TraceEvent's KernelTraceEventParser reads
//! them (`PageFaultTraceData`, `RegistryTraceData`). Times are in 100 ns
//! ticks after the writer's `ts0`; every event may carry a StackWalk.

use crate::kernel::{self, hooks, versions, ImageFields, ProcessFields, ThreadFields};
use crate::prng::Rng;
use etl::writer::{EtlWriter, KernelHeader, Record, WriterConfig};
use std::io::{self, Cursor};

const P: u8 = 8;
/// Where every process's exe is mapped (stack frames point into it).
pub const EXE_BASE: u64 = 0x7FF6_0000_0000;
const IMAGE_SIZE: u64 = 0x10_0000;

/// A process and its threads, in the rundown.
#[derive(Debug, Clone)]
pub struct Proc {
    pub pid: u32,
    pub exe: String,
    pub tids: Vec<u32>,
}

/// A soft fault: hook 0x020A..=0x020F (opcode 10 Transition ... 15
/// AccessViolation).
#[derive(Debug, Clone)]
pub struct Fault {
    pub at: i64,
    pub pid: u32,
    pub tid: u32,
    pub opcode: u8,
    pub virtual_address: u64,
    pub program_counter: u64,
    /// Frames leaf first (empty: no StackWalk).
    pub stack: Vec<u64>,
}

/// A registry event (an operation, opcodes 10..=21, 26, 27, or a KCB
/// event, 22..=25), logged at `at`.
#[derive(Debug, Clone)]
pub struct RegEvent {
    pub at: i64,
    /// InitialTime, in ticks after `ts0` (0 writes 0: unknown).
    pub started: i64,
    pub pid: u32,
    pub tid: u32,
    pub opcode: u8,
    pub status: u32,
    pub key_handle: u64,
    pub key_name: String,
    pub stack: Vec<u64>,
}

/// VirtualAlloc (0x0262) or VirtualFree (0x0263): ptr BaseAddress, ptr
/// RegionSize, u32 ProcessId, u32 Flags (MSNT_SystemTrace
/// `PageFault_VirtualAlloc`, TraceEvent `VirtualAllocTraceData`).
#[derive(Debug, Clone)]
pub struct VirtualEvent {
    pub at: i64,
    pub pid: u32,
    pub tid: u32,
    pub free: bool,
    pub base: u64,
    pub size: u64,
    pub flags: u32,
    pub stack: Vec<u64>,
}

/// A heap event (hook 0x1021 Alloc, 0x1022 ReAlloc, 0x1023 Destroy,
/// 0x1024 Free): HeapHandle, then `words` as its layout orders them
/// (Alloc: size, address; ReAlloc: new address, old address, new size,
/// old size; Free: address; Destroy: none), then SourceId 0 (TraceEvent's
/// HeapTraceProviderTraceEventParser).
#[derive(Debug, Clone)]
pub struct HeapEv {
    pub at: i64,
    pub pid: u32,
    pub tid: u32,
    pub hook: u16,
    pub handle: u64,
    pub words: Vec<u64>,
    pub stack: Vec<u64>,
}

/// Any kernel event with a system header, its payload as given (a test
/// lays it out itself).
#[derive(Debug, Clone)]
pub struct RawEvent {
    pub at: i64,
    pub hook: u16,
    pub pid: u32,
    pub tid: u32,
    pub payload: Vec<u8>,
}

#[derive(Debug, Clone, Default)]
pub struct MemoryEvents {
    pub raw: Vec<RawEvent>,
    pub processes: Vec<Proc>,
    pub faults: Vec<Fault>,
    pub registry: Vec<RegEvent>,
    pub virtual_allocs: Vec<VirtualEvent>,
    pub heap: Vec<HeapEv>,
}

fn registry_payload(e: &RegEvent, ts0: i64) -> Vec<u8> {
    let mut b = if e.started == 0 {
        0i64
    } else {
        ts0 + e.started
    }
    .to_le_bytes()
    .to_vec();
    b.extend(e.status.to_le_bytes());
    b.extend(0u32.to_le_bytes()); // Index
    b.extend(e.key_handle.to_le_bytes());
    for u in e.key_name.encode_utf16().chain([0]) {
        b.extend(u.to_le_bytes());
    }
    b
}

/// Process, thread and image rundown of `processes` (each maps its exe at
/// `EXE_BASE`), at the trace's start.
pub(crate) fn rundown<W: io::Write + io::Seek>(
    w: &mut EtlWriter<W>,
    ts0: i64,
    processes: &[Proc],
) -> io::Result<()> {
    for p in processes {
        let f = ProcessFields {
            unique_process_key: 0xFFFF_8000_0000_0000 + u64::from(p.pid),
            pid: p.pid,
            parent_pid: 4,
            session_id: 1,
            directory_table_base: 0x1AD000,
            image_file_name: &p.exe,
            command_line: &p.exe,
        };
        let pl = kernel::process(P, &f);
        let rec = Record::perfinfo(ts0 + 1, hooks::PROCESS_DC_START, versions::PROCESS, &pl);
        w.write(0, &rec)?;
        for &tid in &p.tids {
            let f = ThreadFields {
                pid: p.pid,
                tid,
                stack_base: 0xFFFF_9000_0000_6000,
                stack_limit: 0xFFFF_9000_0000_0000,
                start_addr: EXE_BASE,
                win32_start_addr: EXE_BASE,
                teb_base: 0x7FFD_0000,
                base_priority: 8,
            };
            let h = KernelHeader {
                hook_id: hooks::THREAD_DC_START,
                version: versions::THREAD,
                pid: p.pid,
                tid,
            };
            w.write(0, &Record::system(ts0 + 2, h, &kernel::thread(P, &f)))?;
        }
        let f = ImageFields {
            base: EXE_BASE,
            size: IMAGE_SIZE,
            pid: p.pid,
            checksum: 0,
            time_date_stamp: 0,
            file_name: &format!("C:\\app\\{}", p.exe),
        };
        let pl = kernel::image(P, &f);
        let rec = Record::perfinfo(ts0 + 3, hooks::IMAGE_DC_START, versions::IMAGE, &pl);
        w.write(0, &rec)?;
    }
    Ok(())
}

/// The trace of `m`: process, thread and image rundown, then every event
/// in time order, each followed by its stack walk.
pub fn write_memory_events(m: &MemoryEvents) -> io::Result<Vec<u8>> {
    let config = WriterConfig {
        pointer_size: P,
        cpus: 1,
        logger_name: "etlscope synth memory".into(),
        log_file_name: "memory.etl".into(),
        ..WriterConfig::default()
    };
    let ts0 = config.ts0;
    let mut w = EtlWriter::new(Cursor::new(Vec::new()), config)?;
    rundown(&mut w, ts0, &m.processes)?;
    // (time, event): faults and registry events merged in time order.
    enum Ev<'a> {
        Fault(&'a Fault),
        Reg(&'a RegEvent),
        Virtual(&'a VirtualEvent),
        Heap(&'a HeapEv),
        Raw(&'a RawEvent),
    }
    let mut all: Vec<(i64, Ev<'_>)> = m.faults.iter().map(|f| (f.at, Ev::Fault(f))).collect();
    all.extend(m.registry.iter().map(|r| (r.at, Ev::Reg(r))));
    all.extend(m.virtual_allocs.iter().map(|v| (v.at, Ev::Virtual(v))));
    all.extend(m.heap.iter().map(|h| (h.at, Ev::Heap(h))));
    all.extend(m.raw.iter().map(|r| (r.at, Ev::Raw(r))));
    let none = Vec::new();
    all.sort_by_key(|e| e.0);
    for (at, ev) in all {
        let ts = ts0 + at;
        let (hook, pid, tid, payload, stack) = match ev {
            Ev::Fault(f) => {
                let mut b = f.virtual_address.to_le_bytes().to_vec();
                b.extend(f.program_counter.to_le_bytes());
                (0x0200 | u16::from(f.opcode), f.pid, f.tid, b, &f.stack)
            }
            Ev::Reg(r) => (
                0x0900 | u16::from(r.opcode),
                r.pid,
                r.tid,
                registry_payload(r, ts0),
                &r.stack,
            ),
            Ev::Virtual(v) => {
                let mut b = v.base.to_le_bytes().to_vec();
                b.extend(v.size.to_le_bytes());
                b.extend(v.pid.to_le_bytes());
                b.extend(v.flags.to_le_bytes());
                let hook = if v.free { 0x0263 } else { 0x0262 };
                (hook, v.pid, v.tid, b, &v.stack)
            }
            Ev::Heap(h) => {
                let mut b = h.handle.to_le_bytes().to_vec();
                for w in &h.words {
                    b.extend(w.to_le_bytes());
                }
                if h.hook != 0x1023 {
                    b.extend(0u32.to_le_bytes()); // SourceId
                }
                (h.hook, h.pid, h.tid, b, &h.stack)
            }
            Ev::Raw(r) => (r.hook, r.pid, r.tid, r.payload.clone(), &none),
        };
        let h = KernelHeader {
            hook_id: hook,
            version: 2,
            pid,
            tid,
        };
        w.write(0, &Record::system(ts, h, &payload))?;
        if !stack.is_empty() {
            let pl = kernel::stack_walk(P, ts, pid, tid, stack);
            let rec = Record::perfinfo(ts + 1, hooks::STACK_WALK, versions::STACK_WALK, &pl);
            w.write(0, &rec)?;
        }
    }
    let (cursor, _) = w.finish()?;
    Ok(cursor.into_inner())
}

/// A small scenario (`etlscope synth memory`): two processes, faults of
/// every kind and registry operations on keys named by KCB rundown.
pub fn demo_memory_events(seed: u64, faults: usize) -> MemoryEvents {
    let mut rng = Rng::new(seed);
    let processes = vec![
        Proc {
            pid: 100,
            exe: "a.exe".into(),
            tids: vec![101, 102],
        },
        Proc {
            pid: 200,
            exe: "b.exe".into(),
            tids: vec![201],
        },
    ];
    let frames = |rng: &mut Rng| -> Vec<u64> {
        (0..1 + rng.below(4))
            .map(|_| EXE_BASE + 0x1000 * (1 + rng.below(8)))
            .collect()
    };
    let mut m = MemoryEvents {
        processes,
        ..MemoryEvents::default()
    };
    for i in 0..faults {
        let p = &m.processes[rng.below(2) as usize];
        let tid = p.tids[rng.below(p.tids.len() as u64) as usize];
        let stack = frames(&mut rng);
        m.faults.push(Fault {
            at: 10_000 + 1_000 * i as i64,
            pid: p.pid,
            tid,
            opcode: 10 + rng.below(6) as u8,
            virtual_address: 0x2000_0000 + 0x1000 * rng.below(64),
            program_counter: EXE_BASE + 0x1000,
            stack,
        });
    }
    // Commit that grows (two regions in three stay committed) and heap
    // blocks, half of them freed.
    for i in 0..faults / 10 {
        let at = 10_000 + 10_000 * i as i64;
        let (pid, tid) = if i % 4 == 3 { (200, 201) } else { (100, 101) };
        let base = 0x4000_0000 + 0x10_0000 * i as u64;
        let stack = frames(&mut rng);
        m.virtual_allocs.push(VirtualEvent {
            at,
            pid,
            tid,
            free: false,
            base,
            size: 0x1_0000,
            flags: 0x3000,
            stack: stack.clone(),
        });
        if i % 3 == 0 {
            m.virtual_allocs.push(VirtualEvent {
                at: at + 5_000,
                pid,
                tid,
                free: true,
                base,
                size: 0x1_0000,
                flags: 0x8000,
                stack: stack.clone(),
            });
        }
        let address = 0x5000_0000 + 0x100 * i as u64;
        m.heap.push(HeapEv {
            at: at + 100,
            pid,
            tid,
            hook: 0x1021,
            handle: 0x500,
            words: vec![32 + 8 * rng.below(16), address],
            stack: stack.clone(),
        });
        if i % 2 == 0 {
            m.heap.push(HeapEv {
                at: at + 2_000,
                pid,
                tid,
                hook: 0x1024,
                handle: 0x500,
                words: vec![address],
                stack,
            });
        }
    }
    let kcb = |at: i64, opcode: u8, handle: u64, name: &str| RegEvent {
        at,
        started: 0,
        pid: 4,
        tid: 0,
        opcode,
        status: 0,
        key_handle: handle,
        key_name: name.into(),
        stack: Vec::new(),
    };
    m.registry
        .push(kcb(5, 24, 0x10, r"\REGISTRY\MACHINE\SOFTWARE"));
    let ops: [(u8, u64, &str); 4] = [
        (11, 0x10, r"Microsoft\Windows"),
        (16, 0x10, "Theme"),
        (14, 0x10, "Theme"),
        (13, 0x10, ""),
    ];
    for (i, (opcode, handle, name)) in ops.into_iter().enumerate() {
        let at = 20_000 + 5_000 * i as i64;
        m.registry.push(RegEvent {
            at,
            started: at - 300,
            pid: 100,
            tid: 101,
            opcode,
            status: 0,
            key_handle: handle,
            key_name: name.into(),
            stack: frames(&mut rng),
        });
    }
    m
}

/// An `xperf -m` / `wpr -marker` mark: PerfInfo hook 0x0F22
/// (PERFINFO_LOG_TYPE_MARK in ntwmi.h) whose payload is the label as a
/// NUL-terminated UTF-16LE string (`WmiSetMark`, Windows Research Kernel
/// base/ntos/wmi), written with a system header (process and thread).
pub fn mark(at: i64, pid: u32, tid: u32, label: &str) -> RawEvent {
    let payload = label
        .encode_utf16()
        .chain([0])
        .flat_map(u16::to_le_bytes)
        .collect();
    RawEvent {
        at,
        hook: 0x0F22,
        pid,
        tid,
        payload,
    }
}
