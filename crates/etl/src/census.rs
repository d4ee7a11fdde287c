//! A count of what a trace holds, computed in one parallel pass over buffers.

use crate::error::Diagnostic;
use crate::trace::EtlFile;
use crate::Guid;
use std::collections::BTreeMap;

#[derive(Debug, Clone, Default)]
pub struct Census {
    pub buffers: u32,
    pub compressed_buffers: u32,
    /// Buffers that could not be read at all (bad header, failed decompression).
    pub skipped_buffers: u32,
    pub events: u64,
    /// Events per file of a multi-file trace (`BufferInfo::member` order).
    pub events_per_member: Vec<u64>,
    /// Events lost per the log-file header, plus buffers flagged as having lost events.
    pub lost_events: u64,
    pub lost_buffers: u64,
    /// Events per kernel hook id (system, compact and perfinfo headers).
    pub kernel_hooks: BTreeMap<u16, u64>,
    /// Events per provider GUID (EventHeader, full and instance headers).
    pub providers: BTreeMap<Guid, u64>,
    /// Events per (provider, opcode) for classic (full/instance) headers and
    /// per (provider, event id) for EventHeader events.
    pub provider_ids: BTreeMap<(Guid, u16), u64>,
    /// Events per header type name.
    pub header_types: BTreeMap<&'static str, u64>,
    pub min_timestamp: Option<i64>,
    pub max_timestamp: Option<i64>,
    pub errors: Vec<Diagnostic>,
}

#[derive(Default)]
struct Partial {
    member: Option<u16>,
    events: u64,
    compressed: u32,
    skipped: u32,
    lost_flag: u64,
    kernel_hooks: BTreeMap<u16, u64>,
    providers: BTreeMap<Guid, u64>,
    provider_ids: BTreeMap<(Guid, u16), u64>,
    header_types: BTreeMap<&'static str, u64>,
    min_ts: Option<i64>,
    max_ts: Option<i64>,
    errors: Vec<Diagnostic>,
}

impl Census {
    pub fn of(file: &EtlFile) -> Census {
        let parts = file.par_map_buffers(|r| {
            let mut p = Partial::default();
            let buf = match r {
                Ok(b) => b,
                Err(d) => {
                    p.skipped = 1;
                    p.compressed = 1;
                    p.errors.push(d);
                    return p;
                }
            };
            p.member = Some(buf.info.member);
            if buf.info.header.is_compressed() {
                p.compressed = 1;
            }
            if buf.info.header.flags & crate::buffer::flags::EVENTS_LOST != 0 {
                p.lost_flag = 1;
            }
            for ev in buf.events() {
                let e = match ev {
                    Ok(e) => e,
                    Err(w) => {
                        p.errors.push(buf.info.walk_diagnostic(&w));
                        break;
                    }
                };
                p.events += 1;
                *p.header_types.entry(e.header_type.name()).or_default() += 1;
                if let Some(h) = e.hook_id {
                    *p.kernel_hooks.entry(h).or_default() += 1;
                } else if let Some(g) = e.provider {
                    *p.providers.entry(g).or_default() += 1;
                    let id = if e.header_type.is_kernel() || e.event_id == 0 && e.flags == 0 {
                        e.opcode as u16
                    } else {
                        e.event_id
                    };
                    let id = match e.header_type {
                        crate::HeaderType::EventHeader32 | crate::HeaderType::EventHeader64 => {
                            e.event_id
                        }
                        _ => id,
                    };
                    *p.provider_ids.entry((g, id)).or_default() += 1;
                }
                p.min_ts = Some(p.min_ts.map_or(e.timestamp, |m| m.min(e.timestamp)));
                p.max_ts = Some(p.max_ts.map_or(e.timestamp, |m| m.max(e.timestamp)));
            }
            p
        });
        let mut c = Census {
            buffers: file.buffers().len() as u32,
            skipped_buffers: file.skipped_buffers(),
            errors: file.diagnostics().to_vec(),
            ..Census::default()
        };
        c.events_per_member = vec![0; file.members().len()];
        for p in parts {
            c.events += p.events;
            if let Some(n) = p
                .member
                .and_then(|m| c.events_per_member.get_mut(usize::from(m)))
            {
                *n += p.events;
            }
            c.compressed_buffers += p.compressed;
            c.skipped_buffers += p.skipped;
            c.lost_buffers += p.lost_flag;
            for (k, v) in p.kernel_hooks {
                *c.kernel_hooks.entry(k).or_default() += v;
            }
            for (k, v) in p.providers {
                *c.providers.entry(k).or_default() += v;
            }
            for (k, v) in p.provider_ids {
                *c.provider_ids.entry(k).or_default() += v;
            }
            for (k, v) in p.header_types {
                *c.header_types.entry(k).or_default() += v;
            }
            c.min_timestamp = min_opt(c.min_timestamp, p.min_ts);
            c.max_timestamp = c.max_timestamp.max(p.max_ts);
            c.errors.extend(p.errors);
        }
        if let Some(l) = file.logfile() {
            c.lost_events = l.events_lost as u64;
            c.lost_buffers += l.buffers_lost as u64;
        }
        c
    }

    /// Seconds from the trace's time zero to its last event.
    pub fn duration_s(&self, file: &EtlFile) -> f64 {
        match self.max_timestamp {
            // Saturating: damaged timestamps can be anywhere in i64.
            Some(m) => m.saturating_sub(file.ts0()).max(0) as f64 / file.ticks_per_second(),
            None => 0.0,
        }
    }
}

fn min_opt(a: Option<i64>, b: Option<i64>) -> Option<i64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (x, None) | (None, x) => x,
    }
}
