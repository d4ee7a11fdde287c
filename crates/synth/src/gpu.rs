//! GPU work and presents written from a list: a test writes what it chooses
//! and computes what GPU Utilization and Frame Times must show from the
//! same list. Microsoft-Windows-DxgKrnl's events with its manifest's
//! layouts (our built-in schema pack, from the Windows 10 manifests TDH
//! reconstructs; no schema in the trace, as WPR writes them), ids, versions,
//! opcodes, tasks and keywords as PresentMon's
//! `PresentData/ETW/Microsoft_Windows_DxgKrnl.h` lists them: NodeMetadata
//! (250), Device DCStart (29 v1), Context Start/DCStart (30/32), QueuePacket
//! Start (178 v1), DmaPacket Start (175 v1) and Info (177 v1), Present (184
//! v1). 64-bit pointers. The processes and threads are in the kernel's
//! rundown, so the rows name them.

use crate::kernel::{self, hooks, versions, ProcessFields, ThreadFields};
use etl::writer::{EtlWriter, EventHeaderFields, KernelHeader, Record, WriterConfig};
use etl::Guid;
use std::io::{self, Cursor};

/// Microsoft-Windows-DxgKrnl.
pub const DXGKRNL: Guid = Guid::from_u128(0x802ec45a_1e99_4b83_9920_87c98277ba9d);
/// Where the kernel logs what no process submits (scheduler, rundown).
const SYSTEM: u32 = 4;

/// A process and its threads in the rundown.
#[derive(Debug, Clone)]
pub struct GpuProcess {
    pub pid: u32,
    pub exe: String,
    pub tids: Vec<u32>,
}

/// An engine (node) of an adapter, named by NodeMetadata.
#[derive(Debug, Clone)]
pub struct GpuEngine {
    pub adapter: u64,
    pub node: u32,
    /// DXGK_ENGINE: 1 3D, 2 Video Decode, 6 Copy...
    pub engine_type: u32,
    pub name: String,
}

/// A device of process `pid` on `adapter` (Device DCStart).
#[derive(Debug, Clone)]
pub struct GpuDevice {
    pub handle: u64,
    pub adapter: u64,
    pub pid: u32,
}

/// A context of `device` on `node`. `rundown`: only its DCStart (logged by
/// the rundown, so its process comes from its QueuePacket Starts); else a
/// Context Start logged by `pid`.
#[derive(Debug, Clone)]
pub struct GpuContext {
    pub handle: u64,
    pub device: u64,
    pub node: u32,
    pub pid: u32,
    pub rundown: bool,
}

/// A DMA packet of `context`: queued (QueuePacket Start 1 tick before, then
/// DmaPacket Start) at `queued`, completed (DmaPacket Info, DMA_COMPLETED)
/// at `completed`, in 100 ns ticks after `ts0`.
#[derive(Debug, Clone)]
pub struct Packet {
    pub context: u64,
    pub sequence: u32,
    pub packet_type: u32,
    pub queued: i64,
    pub completed: i64,
}

/// A DxgKrnl Present of `window` by thread `tid` of `pid` at `time` (ticks).
#[derive(Debug, Clone)]
pub struct Present {
    pub time: i64,
    pub pid: u32,
    pub tid: u32,
    pub window: u64,
}

#[derive(Debug, Clone, Default)]
pub struct GpuEvents {
    pub processes: Vec<GpuProcess>,
    pub engines: Vec<GpuEngine>,
    pub devices: Vec<GpuDevice>,
    pub contexts: Vec<GpuContext>,
    pub packets: Vec<Packet>,
    pub presents: Vec<Present>,
    /// Events written as given (a robustness test's bad payloads).
    pub raw: Vec<RawEvent>,
}

/// A DxgKrnl event `id` (version `version`) at `time` (ticks) by `pid`,
/// with `payload` as it is.
#[derive(Debug, Clone)]
pub struct RawEvent {
    pub time: i64,
    pub id: u16,
    pub version: u8,
    pub pid: u32,
    pub payload: Vec<u8>,
}

/// (id, version, opcode, task, keyword) of each event, from PresentMon's list.
const NODE_METADATA: (u16, u8, u8, u16, u64) = (250, 0, 0, 0x8d, 0x1);
const DEVICE_DC_START: (u16, u8, u8, u16, u64) = (29, 1, 3, 0x13, 0x840);
const CONTEXT_START: (u16, u8, u8, u16, u64) = (30, 0, 1, 0x14, 0x840);
const CONTEXT_DC_START: (u16, u8, u8, u16, u64) = (32, 0, 3, 0x14, 0x840);
const QUEUE_PACKET_START: (u16, u8, u8, u16, u64) = (178, 1, 1, 9, 0x1);
const DMA_PACKET_START: (u16, u8, u8, u16, u64) = (175, 1, 1, 8, 0x1);
const DMA_PACKET_INFO: (u16, u8, u8, u16, u64) = (177, 1, 0, 8, 0x1);
const PRESENT: (u16, u8, u8, u16, u64) = (184, 1, 0, 0x6b, 0x1);

fn header(e: (u16, u8, u8, u16, u64), pid: u32, tid: u32) -> EventHeaderFields<'static> {
    EventHeaderFields {
        provider: DXGKRNL,
        id: e.0,
        version: e.1,
        opcode: e.2,
        task: e.3,
        keyword: e.4 | 0x4000_0000_0000_0000,
        level: 0,
        channel: 0x11,
        pid,
        tid,
        ..EventHeaderFields::default()
    }
}

/// Little-endian fields of a payload.
#[derive(Default)]
struct Payload(Vec<u8>);

impl Payload {
    fn u32(mut self, v: u32) -> Self {
        self.0.extend(v.to_le_bytes());
        self
    }
    fn u64(mut self, v: u64) -> Self {
        self.0.extend(v.to_le_bytes());
        self
    }
    fn utf16z(mut self, s: &str) -> Self {
        for u in s.encode_utf16().chain([0]) {
            self.0.extend(u.to_le_bytes());
        }
        self
    }
}

/// The trace of `m`: the rundown, then the events in time order.
pub fn write_gpu(m: &GpuEvents) -> io::Result<Vec<u8>> {
    let config = WriterConfig {
        pointer_size: 8,
        cpus: 1,
        logger_name: "etlscope synth gpu".into(),
        log_file_name: "gpu.etl".into(),
        ..WriterConfig::default()
    };
    let ts0 = config.ts0;
    let mut w = EtlWriter::new(Cursor::new(Vec::new()), config)?;
    for g in &m.processes {
        let f = ProcessFields {
            unique_process_key: 0xFFFF_8000_0000_0000 + u64::from(g.pid),
            pid: g.pid,
            parent_pid: 4,
            session_id: 1,
            directory_table_base: 0x1AD000,
            image_file_name: &g.exe,
            command_line: &g.exe,
        };
        let pl = kernel::process(8, &f);
        w.write(
            0,
            &Record::perfinfo(ts0 + 10, hooks::PROCESS_DC_START, versions::PROCESS, &pl),
        )?;
        for &tid in &g.tids {
            let f = ThreadFields {
                pid: g.pid,
                tid,
                stack_base: 0xFFFF_9000_0000_6000,
                stack_limit: 0xFFFF_9000_0000_0000,
                start_addr: 0x7FF6_0000_0000,
                win32_start_addr: 0x7FF6_0000_0000,
                teb_base: 0x7FFD_0000,
                base_priority: 8,
            };
            let h = KernelHeader {
                hook_id: hooks::THREAD_DC_START,
                version: versions::THREAD,
                pid: g.pid,
                tid,
            };
            w.write(0, &Record::system(ts0 + 20, h, &kernel::thread(8, &f)))?;
        }
    }
    // (time, payload, header); the sort is stable, so set-up events written
    // at one time keep their order.
    let mut events: Vec<(i64, Vec<u8>, EventHeaderFields<'static>)> = Vec::new();
    for e in &m.engines {
        let p = Payload::default()
            .u64(e.adapter)
            .u32(e.node)
            .u32(e.engine_type)
            .utf16z(&e.name);
        events.push((1, p.0, header(NODE_METADATA, SYSTEM, 0)));
    }
    for d in &m.devices {
        let p = Payload::default()
            .u64(u64::from(d.pid)) // hProcessId
            .u64(d.adapter)
            .u32(1) // ClientType: DXGDEVICECLIENT_USER
            .u64(d.handle)
            .u32(0) // RequestVSync
            .u32(0) // DisableGpuTimeout
            .u32(0); // hThunkHandle
        events.push((2, p.0, header(DEVICE_DC_START, SYSTEM, 0)));
    }
    for c in &m.contexts {
        let mut p = Payload::default().u64(c.device).u32(c.node);
        // EngineAffinity, DmaBufferSize, DmaBufferSegmentSet,
        // DmaBufferPrivateDataSize, AllocationListSize,
        // PatchLocationListSize, Flags.
        for _ in 0..7 {
            p = p.u32(0);
        }
        let p = p.u64(c.handle).u64(c.handle | 0x10).u64(0);
        let h = if c.rundown {
            header(CONTEXT_DC_START, SYSTEM, 0)
        } else {
            header(CONTEXT_START, c.pid, 0)
        };
        events.push((3, p.0, h));
    }
    for k in &m.packets {
        let pid = (m.contexts.iter())
            .find(|c| c.handle == k.context)
            .map_or(0, |c| c.pid);
        let q = Payload::default()
            .u64(k.context)
            .u32(0) // PacketType: render command buffer
            .u32(k.sequence)
            .u64(0x1_0000) // DmaBufferSize
            .u32(16)
            .u32(0)
            .u32(0) // bPresent
            .u64(0xFFFF_A000_0000_0000 | u64::from(k.sequence))
            .u64(0xFFFF_B000_0000_0000 | u64::from(k.sequence))
            .u64(u64::from(k.sequence));
        events.push((k.queued - 1, q.0, header(QUEUE_PACKET_START, pid, 0)));
        let s = Payload::default()
            .u64(k.context)
            .u64(k.context | 0x20) // hQueuePacketContext
            .u32(k.packet_type)
            .u64(u64::from(k.sequence)) // uliSubmissionId
            .u32(k.sequence)
            .u64(0xFFFF_A000_0000_0000 | u64::from(k.sequence))
            .u32(0); // QuantumStatus
        events.push((k.queued, s.0, header(DMA_PACKET_START, SYSTEM, 0)));
        let i = Payload::default()
            .u64(k.context)
            .u32(k.packet_type)
            .u64(u64::from(k.sequence)) // uliCompletionId
            .u32(k.sequence)
            .u32(1) // InterruptType: DXGK_INTERRUPT_DMA_COMPLETED
            .u32(0)
            .u64(0)
            .u32(0)
            .u64(0);
        events.push((k.completed, i.0, header(DMA_PACKET_INFO, SYSTEM, 0)));
    }
    for p in &m.presents {
        let b = Payload::default()
            .u32(0x10) // hContext
            .u64(p.window)
            .u32(0) // VidPnSourceId
            .u32(1) // FlipInterval
            .u32(4) // Flags: Flip
            .u32(0) // ReturnStatus
            .u64(0)
            .u64(0);
        events.push((p.time, b.0, header(PRESENT, p.pid, p.tid)));
    }
    for r in &m.raw {
        let h = EventHeaderFields {
            id: r.id,
            version: r.version,
            ..header(PRESENT, r.pid, 0)
        };
        events.push((r.time, r.payload.clone(), h));
    }
    events.sort_by_key(|e| e.0);
    for (time, pl, h) in &events {
        w.write(0, &Record::event(ts0 + time, *h, pl))?;
    }
    let (cursor, _) = w.finish()?;
    Ok(cursor.into_inner())
}

/// Packets on each engine in turn among its contexts, `per_engine` each:
/// queued every `gap` ticks (jittered), running `run` ticks (jittered), each
/// after the previous completion on its engine.
pub fn schedule(contexts: &[GpuContext], per_engine: usize, gap: i64, run: i64) -> Vec<Packet> {
    let mut nodes: Vec<u32> = contexts.iter().map(|c| c.node).collect();
    nodes.sort_unstable();
    nodes.dedup();
    let mut out = Vec::new();
    for (n, &node) in nodes.iter().enumerate() {
        let on: Vec<&GpuContext> = contexts.iter().filter(|c| c.node == node).collect();
        let mut done = 0i64;
        for k in 0..per_engine {
            let c = on[(k * 5 + k / 3) % on.len()];
            let ki = k as i64;
            // Multiples of primes modulo: jitter that rises and falls.
            let queued = 1_000 + ki * gap + (ki * 7_919 + n as i64 * 11) % (gap / 2).max(1);
            let dur = run / 2 + (ki * 104_729 + n as i64 * 7) % run.max(1);
            let start = queued.max(done);
            done = start + dur;
            out.push(Packet {
                context: c.handle,
                sequence: 1 + k as u32,
                packet_type: 0,
                queued,
                completed: done,
            });
        }
    }
    out
}

/// A small scenario (`etlscope synth gpu`): a game, a browser and the
/// desktop compositor on one adapter's 3D, Copy and Video Decode engines,
/// `packets` DMA packets per engine and `frames` presents per process.
pub fn demo_gpu(packets: usize, frames: usize) -> GpuEvents {
    const ADAPTER: u64 = 0xFFFF_C000_0000_1000;
    let processes = vec![
        GpuProcess {
            pid: 4100,
            exe: "game.exe".into(),
            tids: vec![4104],
        },
        GpuProcess {
            pid: 5200,
            exe: "browser.exe".into(),
            tids: vec![5204],
        },
        GpuProcess {
            pid: 900,
            exe: "dwm.exe".into(),
            tids: vec![904],
        },
    ];
    let engines = [(0, 1, "3D"), (1, 6, "Copy"), (2, 2, "Video Decode")]
        .iter()
        .map(|&(node, engine_type, name)| GpuEngine {
            adapter: ADAPTER,
            node,
            engine_type,
            name: name.into(),
        })
        .collect();
    let devices: Vec<GpuDevice> = (processes.iter().enumerate())
        .map(|(i, p)| GpuDevice {
            handle: 0xFFFF_D000_0000_0000 + 0x100 * i as u64,
            adapter: ADAPTER,
            pid: p.pid,
        })
        .collect();
    // (process index, node, rundown)
    let plan = [
        (0, 0, false),
        (0, 1, false),
        (1, 0, true),
        (1, 2, false),
        (2, 0, true),
        (2, 1, false),
    ];
    let contexts: Vec<GpuContext> = (plan.iter().enumerate())
        .map(|(i, &(p, node, rundown))| GpuContext {
            handle: 0xFFFF_E000_0000_0000 + 0x1000 * i as u64,
            device: devices[p].handle,
            node,
            pid: processes[p].pid,
            rundown,
        })
        .collect();
    let packets = schedule(&contexts, packets, 20_000, 16_000);
    let mut presents = Vec::new();
    for (i, p) in processes.iter().enumerate() {
        let interval = [166_667i64, 333_333, 166_667][i];
        for k in 0..frames as i64 {
            presents.push(Present {
                time: 5_000 + k * interval + (k * 7_919 + i as i64 * 13) % 20_000,
                pid: p.pid,
                tid: p.tids[0],
                window: 0x10_0000 + 0x10 * i as u64,
            });
        }
    }
    GpuEvents {
        processes,
        engines,
        devices,
        contexts,
        packets,
        presents,
        raw: Vec::new(),
    }
}
