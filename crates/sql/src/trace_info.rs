//! `trace_info`: the trace's summary as (key, value) rows, the figures
//! `etlscope info` prints first.

use crate::lists::ListDef;
use model::Trace;
use rusqlite::types::Value;

pub static TRACE_INFO: ListDef = ListDef {
    name: "trace_info",
    columns: &[("key", "TEXT"), ("value", "ANY")],
    rows: |_| KEYS.len(),
    cell: info_cell,
    keyed: false,
};

const KEYS: [&str; 16] = [
    "cpus",
    "pointer_size",
    "os_version",
    "start_time",
    "timezone_bias_minutes",
    "duration_ns",
    "events_start_ns",
    "events",
    "buffers",
    "skipped_buffers",
    "lost_events",
    "lost_buffers",
    "samples",
    "samples_with_stack",
    "unattributed_samples",
    "decoding_errors",
];

fn info_cell(t: &Trace, row: usize, col: usize) -> Value {
    let Some(&key) = KEYS.get(row) else {
        return Value::Null;
    };
    if col == 0 {
        return Value::Text(key.into());
    }
    let i = &t.info;
    let n = |v: u64| Value::Integer(v.min(i64::MAX as u64) as i64);
    match key {
        "cpus" => n(i.cpus.into()),
        "pointer_size" => n(i.pointer_size.into()),
        "os_version" => Value::Text(i.os_version.clone()),
        "start_time" => Value::Text(i.start_time.clone()),
        "timezone_bias_minutes" => Value::Integer(i.timezone_bias_minutes.into()),
        "duration_ns" => Value::Integer(i.duration_ns),
        "events_start_ns" => Value::Integer(i.events_start_ns),
        "events" => n(i.events),
        "buffers" => n(i.buffers.into()),
        "skipped_buffers" => n(i.skipped_buffers.into()),
        "lost_events" => n(i.lost_events),
        "lost_buffers" => n(i.lost_buffers),
        "samples" => n(t.samples.len() as u64),
        "samples_with_stack" => n(i.samples_with_stack),
        "unattributed_samples" => n(i.unattributed_samples),
        "decoding_errors" => n(i.diagnostics.len() as u64),
        _ => Value::Null,
    }
}
