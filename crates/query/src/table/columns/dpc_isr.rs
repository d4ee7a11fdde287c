//! DPC/ISR: one row per DPC or ISR run, with WPA's column names (its
//! "CPU Analysis" guide): the routine's Module and Function (the address
//! through the image map and symbols, as a sampled stack's frame), CPU,
//! DPC/ISR Enter and Exit Time, Inclusive Duration (entry to exit) and
//! Exclusive Duration (less what ran nested inside it on that CPU: the sum
//! of its fragments, so sums per CPU count each instant once). WPA lists
//! one row per fragment; here a run is one row, so Count is WPA's Count
//! (DPCs/ISRs), and a group's Exclusive Duration equals its Duration
//! (Fragmented) (also accepted by that name).

use super::{
    address, duration, end_time, get, id, keyed, start_time, text, Numbers, PercentOf, TableDef,
};
use model::{Trace, NONE};

pub(super) fn table(t: &Trace) -> TableDef<'_> {
    let d = &t.dpc_isr;
    let frame = move |i: usize| d.frame.get(i).copied().unwrap_or(NONE);
    let module = move |i: usize| {
        t.frames
            .module
            .get(frame(i) as usize)
            .copied()
            .unwrap_or(NONE)
    };
    TableDef {
        name: "dpc-isr",
        rows: d.len(),
        columns: vec![
            text("Type", move |i| {
                d.kind.get(i).map_or("", |k| k.name()).to_string()
            }),
            keyed("Module", module, move |m| {
                t.modules
                    .name
                    .get(m as usize)
                    .map_or_else(String::new, |&s| t.strings.get(s).to_string())
            }),
            keyed("Function", frame, move |f| match f {
                NONE => String::new(),
                f => t.frame_label(f),
            }),
            id("CPU", move |i| i64::from(get(&d.cpu, i))),
            start_time("DPC/ISR Enter Time", Numbers::I64(&d.enter)).alias(&[
                "DPC/ISR Enter Time (s)",
                "Enter Time",
                "Time",
            ]),
            end_time("DPC/ISR Exit Time", move |i| {
                get(&d.enter, i).saturating_add(get(&d.inclusive_ns, i))
            })
            .alias(&["DPC/ISR Exit Time (s)", "Exit Time"]),
            duration("Exclusive Duration", Numbers::I64(&d.fragmented_ns)).alias(&[
                "Exclusive Duration (ms)",
                "Duration (Fragmented)",
                "Duration (Fragmented) (ms)",
                "Duration",
            ]),
            duration("Inclusive Duration", Numbers::I64(&d.inclusive_ns))
                .alias(&["Inclusive Duration (ms)", "Duration (Inclusive)"]),
            address("Address", move |i| get(&d.routine, i) as i64).alias(&["Routine"]),
            id("Vector", move |i| i64::from(get(&d.vector, i))),
        ],
        start: Numbers::I64(&d.enter),
        end: Numbers::I64(&d.enter),
        timed: true,
        weight: Some("Exclusive Duration"),
        percent_of: PercentOf::TotalWeight,
        default_keys: &[],
        default_values: &["Count", "Exclusive Duration", "Inclusive Duration"],
        ui_weight: Some("Exclusive Duration (ms)"),
        ui_sums: &[],
    }
}
