//! How many events of a trace stay undecoded hex: no typed decoder, no
//! TraceLogging schema, no schema in the trace or in our CLR table.

use super::registry::{is_manifest_data, is_metadata, SchemaRegistry};
use crate::decode;
use crate::extended::ext_type;
use crate::{EtlFile, Event};
use std::collections::BTreeMap;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Coverage {
    pub events: u64,
    /// Events with a payload that nothing decodes.
    pub hex_only: u64,
    /// `hex_only` per provider GUID (or `kernel 0xNN` hook group).
    pub hex_only_by_provider: BTreeMap<String, u64>,
    /// Schemas the trace carries (MetaData EventInfo events).
    pub trace_schemas: u64,
}

impl Coverage {
    /// Share of events left as hex, 0..1.
    pub fn hex_share(&self) -> f64 {
        if self.events == 0 {
            0.0
        } else {
            self.hex_only as f64 / self.events as f64
        }
    }
}

/// The schemas `file` carries, with our CLR table.
pub fn trace_registry(file: &EtlFile) -> SchemaRegistry {
    let blobs = file.par_map_buffers(|b| {
        let mut out = Vec::new();
        if let Ok(b) = b {
            for ev in b.events().flatten() {
                if is_metadata(&ev) {
                    out.push((None, ev.opcode, ev.payload.to_vec()));
                } else if is_manifest_data(ev.header_type, ev.event_id, ev.opcode) {
                    out.push((ev.provider, ev.opcode, ev.payload.to_vec()));
                }
            }
        }
        out
    });
    let mut reg = SchemaRegistry::new();
    for (provider, op, p) in blobs.iter().flatten() {
        match provider {
            Some(g) => {
                reg.add_manifest_chunk(*g, p);
            }
            None => reg.add_metadata_payload(*op, p),
        }
    }
    reg
}

/// Whether anything decodes `ev` (empty payloads need nothing).
pub fn is_decoded(ev: &Event<'_>, reg: &SchemaRegistry) -> bool {
    ev.payload.is_empty()
        || is_metadata(ev)
        || is_manifest_data(ev.header_type, ev.event_id, ev.opcode)
        || matches!(decode::decode(ev), Some(Ok(_)))
        || ev
            .extended_items()
            .any(|i| i.ext_type == ext_type::EVENT_SCHEMA_TL)
        || reg
            .find_event(ev)
            .and_then(|s| reg.decode(s, ev.payload, ev.pointer_size))
            .is_some_and(|r| r.is_ok())
}

/// Count the hex-only events of `file`.
pub fn coverage(file: &EtlFile) -> Coverage {
    let reg = trace_registry(file);
    let parts = file.par_map_buffers(|b| {
        let mut c = Coverage::default();
        if let Ok(b) = b {
            for ev in b.events().flatten() {
                c.events += 1;
                c.trace_schemas += u64::from(is_metadata(&ev) && ev.opcode == 32);
                if !is_decoded(&ev, &reg) {
                    c.hex_only += 1;
                    let who = match ev.provider {
                        Some(g) => g.to_string(),
                        None => format!("kernel {:#04x}", ev.hook_id.unwrap_or(0) >> 8),
                    };
                    *c.hex_only_by_provider.entry(who).or_default() += 1;
                }
            }
        }
        c
    });
    let mut total = Coverage::default();
    for c in parts {
        total.events += c.events;
        total.hex_only += c.hex_only;
        total.trace_schemas += c.trace_schemas;
        for (k, n) in c.hex_only_by_provider {
            *total.hex_only_by_provider.entry(k).or_default() += n;
        }
    }
    total
}
