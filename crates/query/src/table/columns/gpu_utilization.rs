//! GPU Utilization: one row per DMA packet the GPU ran (DxgKrnl DmaPacket
//! Start and Info, see `model::gpu`), with WPA's names where its GPU
//! Utilization table has them: Process (of the packet's context), GPU (the
//! adapter, by first appearance), Engine (NodeMetadata's name) and Node
//! (its ordinal), Context, Packet Type, Submit Sequence, Queued Time (the
//! DmaPacket Start), Start Time (the head of the engine's queue), End Time
//! (the completion), Duration (the GPU time) and Queue Wait. The weight is
//! Duration; the graph is each key's share of its bins (Utilization (%)).

use super::{
    address, duration, end_time, get, id, keyed, start_time, text, Numbers, PercentOf, TableDef,
};
use model::gpu::dma_packet_type_name;
use model::Trace;

pub(super) fn table(t: &Trace) -> TableDef<'_> {
    let g = &t.gpu;
    let engine = move |i: usize| g.engines.get(get(&g.engine, i) as usize);
    TableDef {
        name: "gpu-utilization",
        rows: g.len(),
        columns: vec![
            keyed(
                "Process",
                move |i| get(&g.process, i),
                move |k| t.process_text(k),
            ),
            keyed(
                "GPU",
                move |i| engine(i).map_or(u32::MAX, |e| e.gpu),
                |k| match k {
                    u32::MAX => String::new(),
                    k => format!("GPU {k}"),
                },
            )
            .alias(&["Adapter"]),
            keyed(
                "Engine",
                move |i| get(&g.engine, i),
                move |k| {
                    g.engines
                        .get(k as usize)
                        .map_or_else(String::new, |e| e.name.clone())
                },
            )
            .alias(&["Engine Type", "Node Name"]),
            id("Node", move |i| engine(i).map_or(-1, |e| i64::from(e.node)))
                .alias(&["Node Ordinal", "NodeOrdinal"]),
            address("Context", move |i| get(&g.context, i) as i64).alias(&["hContext"]),
            text("Packet Type", move |i| {
                dma_packet_type_name(get(&g.packet_type, i)).to_string()
            })
            .alias(&["DMA Packet Type"]),
            id("Submit Sequence", move |i| i64::from(get(&g.sequence, i)))
                .alias(&["ulQueueSubmitSequence", "Sequence"]),
            start_time("Queued Time", Numbers::I64(&g.queued)).alias(&["Queued Time (s)"]),
            start_time("Start Time", Numbers::I64(&g.start)).alias(&["Start Time (s)"]),
            end_time("End Time", Numbers::I64(&g.end)).alias(&["End Time (s)"]),
            duration("Duration", move |i| {
                (get(&g.end, i) - get(&g.start, i)).max(0)
            })
            .alias(&["Duration (ms)", "GPU Duration", "Running Time"]),
            duration("Queue Wait", move |i| {
                (get(&g.start, i) - get(&g.queued, i)).max(0)
            })
            .alias(&["Queue Wait (ms)", "Wait Time"]),
        ],
        start: Numbers::I64(&g.start),
        end: Numbers::I64(&g.end),
        timed: false,
        weight: Some("Duration"),
        percent_of: PercentOf::TotalWeight,
        default_keys: &[],
        default_values: &["Count", "Duration"],
        ui_weight: Some("Duration (ms)"),
        ui_sums: &[],
    }
}
