//! Generic Events: one row per event of any provider the other tables do
//! not take.

use super::{address, get, id, stack, start_time, string, text, Numbers, PercentOf, TableDef};
use model::Trace;

/// Longest Fields text kept per event: enough to read, bounded so that a
/// table of millions of events with large payloads stays small.
const FIELDS_MAX_CHARS: usize = 256;

/// Field columns, one per payload field position.
const FIELD_COLUMNS: [&str; 8] = [
    "Field 1", "Field 2", "Field 3", "Field 4", "Field 5", "Field 6", "Field 7", "Field 8",
];

pub(super) fn table<'a>(t: &'a Trace, regions: &'a model::regions::RegionTable) -> TableDef<'a> {
    let g = &t.generic;
    TableDef {
        name: "generic",
        rows: g.len(),
        columns: vec![
            start_time("Time", move |i| get(&g.time, i)).alias(&["Time (s)"]),
            text("Provider", move |i| t.generic_provider_text(i)),
            id("Task", move |i| i64::from(get(&g.task, i))),
            id("Opcode", move |i| i64::from(get(&g.opcode, i))),
            text("Task Name", move |i| t.generic_task_text(i)),
            text("Opcode Name", move |i| t.generic_opcode_text(i)),
            // Text: kernel events show their hook id in hex.
            text("Id", move |i| t.generic_id_text(i)),
            id("Level", move |i| i64::from(get(&g.level, i))),
            address("Keyword", move |i| get(&g.keyword, i) as i64),
            text("Process", move |i| t.generic_process_text(i)),
            text("Thread", move |i| t.generic_thread_text(i)),
            id("CPU", move |i| i64::from(get(&g.cpu, i))),
            string(t, "Event Name", move |i| get(&g.name, i)),
            // The payload as WPA's Field columns show it, in one column
            // (`name=value; ...`).
            text("Fields", move |i| fields_text(t, i)),
        ]
        .into_iter()
        // WPA's Field 1..n: the n-th decoded value of each event.
        .chain(
            FIELD_COLUMNS
                .iter()
                .enumerate()
                .map(|(k, &name)| text(name, move |i| cap(t.generic_field_value(i, k)))),
        )
        .chain([
            stack("Stack", move |i| {
                g.stack.get(i).copied().unwrap_or(model::NONE)
            }),
            // The header's process where the payload names another (the
            // Process column shows Kernel-Network's PID, as WPA's does).
            text("Header Process", move |i| t.generic_header_process_text(i)),
        ])
        .chain(super::regions::region_column(regions, move |i| {
            get(&g.time, i)
        }))
        .collect(),
        start: Numbers::I64(&g.time),
        end: Numbers::I64(&g.time),
        timed: true,
        weight: None,
        percent_of: PercentOf::TotalWeight,
        default_keys: &[],
        default_values: &["Count", "Time:min", "Time:max"],
        ui_weight: None,
        ui_sums: &[],
    }
}

fn fields_text(t: &Trace, row: usize) -> String {
    cap(t.generic_fields_text(row))
}

/// `s` cut to `FIELDS_MAX_CHARS` (at a character boundary) with an ellipsis.
fn cap(mut s: String) -> String {
    if s.len() > FIELDS_MAX_CHARS {
        let cut = (0..=FIELDS_MAX_CHARS)
            .rev()
            .find(|&i| s.is_char_boundary(i))
            .unwrap_or(0);
        s.truncate(cut);
        s.push('…');
    }
    s
}
