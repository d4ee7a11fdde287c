//! GPU Utilization and Frame Times from the DxgKrnl rows of Generic Events
//! (see `crate::gpu` for the layouts and the model). Payloads too short
//! for their fields are skipped; the state kept per device, context and
//! engine is bounded by the events that created it, and each engine's queue
//! by `MAX_QUEUED`.

use super::joiner::Joiner;
use crate::generic::GenericEventTable;
use crate::gpu::*;
use crate::NONE;
use rustc_hash::FxHashMap;
use std::collections::VecDeque;

/// Packets queued on one engine without a completion beyond this many are
/// dropped oldest first (a queue whose completions were lost).
const MAX_QUEUED: usize = 1024;

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

/// A pointer field of `ps` bytes (4 or 8).
fn ptr_at(b: &[u8], at: usize, ps: usize) -> Option<u64> {
    match ps {
        4 => u32_at(b, at).map(u64::from),
        _ => Some(u64::from_le_bytes(b.get(at..at + 8)?.try_into().ok()?)),
    }
}

/// UTF-16 up to its NUL or the payload's end, at most 64 characters.
fn utf16_at(b: &[u8], at: usize) -> String {
    let units: Vec<u16> = (b.get(at..).unwrap_or(&[]).chunks_exact(2))
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .take_while(|&u| u != 0)
        .take(64)
        .collect();
    String::from_utf16_lossy(&units)
}

struct Context {
    engine: u32,
    /// From Context Start's header, else the first QueuePacket Start's.
    pid: Option<u32>,
}

struct Queued {
    context: u64,
    sequence: u32,
    time: i64,
    pid: Option<u32>,
    packet_type: u32,
}

#[derive(Default)]
struct State {
    devices: FxHashMap<u64, u64>,
    contexts: FxHashMap<u64, Context>,
    adapters: Vec<u64>,
    engine_of: FxHashMap<(u64, u32), u32>,
    engines: Vec<Engine>,
    /// Per engine: queued packets and the last completion.
    queues: Vec<(VecDeque<Queued>, Option<i64>)>,
}

impl State {
    fn engine(&mut self, adapter: u64, node: u32) -> u32 {
        if let Some(&e) = self.engine_of.get(&(adapter, node)) {
            return e;
        }
        let gpu = match self.adapters.iter().position(|&a| a == adapter) {
            Some(i) => i,
            None => {
                self.adapters.push(adapter);
                self.adapters.len() - 1
            }
        };
        let e = self.engines.len() as u32;
        self.engines.push(Engine {
            gpu: gpu as u32,
            node,
            name: format!("Node {node}"),
        });
        self.queues.push((VecDeque::new(), None));
        self.engine_of.insert((adapter, node), e);
        e
    }
}

/// `g`'s thread and process rows already joined.
pub(super) fn build_gpu(g: &GenericEventTable, j: &mut Joiner) -> (GpuTable, FrameTimeTable) {
    let ours: Vec<bool> = (g.providers.guid.iter())
        .map(|p| *p == Some(DXGKRNL))
        .collect();
    let mut s = State::default();
    let mut gpu = GpuTable::default();
    let mut frames = FrameTimeTable::default();
    let mut last_present: FxHashMap<(u32, u64), i64> = FxHashMap::default();
    for i in 0..g.len() {
        if g.provider.get(i).and_then(|&p| ours.get(p as usize)) != Some(&true) {
            continue;
        }
        let b = g.payload(i);
        let ps = usize::from(g.pointer_size.get(i).copied().unwrap_or(8));
        let time = g.time.get(i).copied().unwrap_or(0);
        let pid = g.pid.get(i).copied().unwrap_or(u32::MAX);
        match g.id.get(i).copied() {
            Some(DEVICE_START | DEVICE_DC_START) => {
                let (Some(adapter), Some(device)) = (ptr_at(b, ps, ps), ptr_at(b, 2 * ps + 4, ps))
                else {
                    continue;
                };
                s.devices.insert(device, adapter);
            }
            Some(DEVICE_STOP) => {
                if let Some(device) = ptr_at(b, 2 * ps + 4, ps) {
                    s.devices.remove(&device);
                }
            }
            Some(id @ (CONTEXT_START | CONTEXT_DC_START)) => {
                let (Some(device), Some(node), Some(context)) =
                    (ptr_at(b, 0, ps), u32_at(b, ps), ptr_at(b, ps + 32, ps))
                else {
                    continue;
                };
                // An unknown device (its Start before the trace, no rundown) is adapter 0.
                let adapter = s.devices.get(&device).copied().unwrap_or(0);
                let engine = s.engine(adapter, node);
                // DCStart is logged by the rundown, not the context's process.
                let pid = (id == CONTEXT_START).then_some(pid);
                s.contexts.insert(context, Context { engine, pid });
            }
            Some(CONTEXT_STOP) => {
                if let Some(context) = ptr_at(b, ps + 32, ps) {
                    s.contexts.remove(&context);
                }
            }
            Some(NODE_METADATA) => {
                let (Some(adapter), Some(node), Some(kind)) =
                    (ptr_at(b, 0, ps), u32_at(b, ps), u32_at(b, ps + 4))
                else {
                    continue;
                };
                let e = s.engine(adapter, node) as usize;
                let name = utf16_at(b, ps + 8);
                if let Some(x) = s.engines.get_mut(e) {
                    x.name = if name.trim().is_empty() {
                        engine_type_name(kind).to_string()
                    } else {
                        name
                    };
                }
            }
            Some(QUEUE_PACKET_START) => {
                let Some(context) = ptr_at(b, 0, ps) else {
                    continue;
                };
                if let Some(c) = s.contexts.get_mut(&context) {
                    c.pid.get_or_insert(pid);
                }
            }
            Some(DMA_PACKET_START) => {
                let (Some(context), Some(packet_type), Some(sequence)) =
                    (ptr_at(b, 0, ps), u32_at(b, 2 * ps), u32_at(b, 2 * ps + 12))
                else {
                    continue;
                };
                // Sequence 0: preemption and other packets that run no work (PresentMon).
                let Some(c) = s.contexts.get(&context).filter(|_| sequence != 0) else {
                    continue;
                };
                let Some((q, _)) = s.queues.get_mut(c.engine as usize) else {
                    continue;
                };
                if q.len() >= MAX_QUEUED {
                    q.pop_front();
                }
                q.push_back(Queued {
                    context,
                    sequence,
                    time,
                    pid: c.pid,
                    packet_type,
                });
            }
            Some(DMA_PACKET_INFO) => {
                let (Some(context), Some(sequence), Some(interrupt)) =
                    (ptr_at(b, 0, ps), u32_at(b, ps + 12), u32_at(b, ps + 16))
                else {
                    continue;
                };
                if interrupt != DMA_COMPLETED || sequence == 0 {
                    continue;
                }
                let Some(c) = s.contexts.get(&context) else {
                    continue;
                };
                let (engine, known) = (c.engine, c.pid);
                let Some((q, last)) = s.queues.get_mut(engine as usize) else {
                    continue;
                };
                let Some(k) =
                    (q.iter()).position(|p| p.context == context && p.sequence == sequence)
                else {
                    continue;
                };
                // Packets ahead of it whose completion was not seen are left out.
                q.drain(..k);
                let Some(p) = q.pop_front() else { continue };
                let start = last.map_or(p.time, |l| l.max(p.time)).min(time);
                *last = Some(time);
                let pid = p.pid.or(known);
                gpu.start.push(start);
                gpu.end.push(time);
                gpu.queued.push(p.time);
                gpu.process
                    .push(pid.map_or(NONE, |pid| j.process_at(pid, time)));
                gpu.pid.push(pid.unwrap_or(u32::MAX));
                gpu.engine.push(engine);
                gpu.context.push(context);
                gpu.sequence.push(sequence);
                gpu.packet_type.push(p.packet_type);
            }
            Some(PRESENT) => {
                let Some(window) = ptr_at(b, 4, ps) else {
                    continue;
                };
                if let Some(prev) = last_present.insert((pid, window), time) {
                    frames.start.push(prev);
                    frames.end.push(time);
                    frames
                        .process
                        .push(g.process.get(i).copied().unwrap_or(NONE));
                    frames.tid.push(g.tid.get(i).copied().unwrap_or(u32::MAX));
                    frames.window.push(window);
                }
            }
            _ => {}
        }
    }
    gpu.engines = s.engines;
    sort_by_start(&mut gpu);
    (gpu, frames)
}

/// Rows come out by completion; engines overlap, so starts are sorted here.
fn sort_by_start(t: &mut GpuTable) {
    let mut order: Vec<usize> = (0..t.len()).collect();
    order.sort_by_key(|&i| (t.start[i], t.end[i], t.engine[i]));
    fn pick<T: Copy>(v: &[T], order: &[usize]) -> Vec<T> {
        order.iter().map(|&i| v[i]).collect()
    }
    t.start = pick(&t.start, &order);
    t.end = pick(&t.end, &order);
    t.queued = pick(&t.queued, &order);
    t.process = pick(&t.process, &order);
    t.pid = pick(&t.pid, &order);
    t.engine = pick(&t.engine, &order);
    t.context = pick(&t.context, &order);
    t.sequence = pick(&t.sequence, &order);
    t.packet_type = pick(&t.packet_type, &order);
}
