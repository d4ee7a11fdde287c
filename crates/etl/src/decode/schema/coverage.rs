//! How many events of a trace stay undecoded hex: no typed decoder, no
//! TraceLogging schema, no schema in the trace, our tables or a pack; and
//! per provider, what decoded the others.

use super::packs::Source;
use super::registry::{is_manifest_data, is_metadata, SchemaRegistry};
use crate::decode;
use crate::extended::ext_type;
use crate::{EtlFile, Event};
use rayon::prelude::*;
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
    /// Per provider GUID (or `kernel 0xNN`): its events by what decoded
    /// them ([`Decoder::name`]), `hex` for those left as hex.
    pub by_provider: BTreeMap<String, BTreeMap<&'static str, u64>>,
    /// Provider names, where a schema or the reader knows them.
    pub provider_names: BTreeMap<String, String>,
}

/// What decoded an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decoder {
    /// Nothing to decode (an empty payload) or a schema-carrying event.
    Nothing,
    /// One of our typed decoders.
    Typed,
    /// A TraceLogging schema in the event.
    TraceLogging,
    /// A schema of the registry, from this source.
    Schema(Source),
}

impl Decoder {
    pub fn name(self) -> &'static str {
        match self {
            Decoder::Nothing => "no payload",
            Decoder::Typed => "decoder",
            Decoder::TraceLogging => "trace",
            Decoder::Schema(s) => s.name(),
        }
    }
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

/// What a trace's registry is made of: its schema-carrying events'
/// payloads (MetaData, ManifestData) in file order and the providers it has
/// events of (for the packs). Gathered by `trace_registry`'s own pass, or
/// by a reader that visits every event anyway (the model's build).
#[derive(Debug, Clone, Default)]
pub struct RegistrySources {
    /// (provider for ManifestData, None for MetaData; opcode; payload).
    blobs: Vec<(Option<crate::Guid>, u8, Vec<u8>)>,
    providers: std::collections::HashSet<crate::Guid>,
    /// The provider added last: runs of one provider's events cost one
    /// comparison each.
    last: Option<crate::Guid>,
}

impl RegistrySources {
    /// Note `ev` (every event of the trace, in file order).
    pub fn add(&mut self, ev: &Event<'_>) {
        if ev.provider.is_some() && ev.provider != self.last {
            self.last = ev.provider;
            self.providers.extend(ev.provider);
        }
        if is_metadata(ev) {
            self.blobs.push((None, ev.opcode, ev.payload.to_vec()));
        } else if is_manifest_data(ev.header_type, ev.event_id, ev.opcode) {
            self.blobs
                .push((ev.provider, ev.opcode, ev.payload.to_vec()));
        }
    }

    /// Append what a later part of the file holds.
    pub fn extend(&mut self, other: RegistrySources) {
        self.blobs.extend(other.blobs);
        self.providers.extend(other.providers);
    }

    /// The registry: the trace's schemas over our tables, then the packs.
    pub fn registry(&self) -> SchemaRegistry {
        let mut reg = SchemaRegistry::new();
        for (provider, op, p) in &self.blobs {
            match provider {
                Some(g) => {
                    reg.add_manifest_chunk(*g, p);
                }
                None => reg.add_metadata_payload(*op, p),
            }
        }
        reg.add_fallback_packs(&|g| self.providers.contains(&g));
        reg
    }
}

/// The schemas `file` carries, over our tables, then the packs.
pub fn trace_registry(file: &EtlFile) -> SchemaRegistry {
    let parts = file.par_map_buffers(|b| {
        let mut sources = RegistrySources::default();
        if let Ok(b) = b {
            for ev in b.events().flatten() {
                sources.add(&ev);
            }
        }
        sources
    });
    let mut all = RegistrySources::default();
    for p in parts {
        all.extend(p);
    }
    all.registry()
}

/// Whether anything decodes `ev` (empty payloads need nothing).
pub fn is_decoded(ev: &Event<'_>, reg: &SchemaRegistry) -> bool {
    decoder(ev, reg).is_some()
}

/// What decodes `ev`, `None` if it stays hex.
pub fn decoder(ev: &Event<'_>, reg: &SchemaRegistry) -> Option<Decoder> {
    if ev.payload.is_empty()
        || is_metadata(ev)
        || is_manifest_data(ev.header_type, ev.event_id, ev.opcode)
    {
        return Some(Decoder::Nothing);
    }
    if ev
        .extended_items()
        .any(|i| i.ext_type == ext_type::EVENT_SCHEMA_TL)
    {
        return Some(Decoder::TraceLogging);
    }
    let row = reg.find_event(ev);
    let source = row.and_then(|r| reg.source(r));
    // Our typed decoders come before the packs, as in the Generic Events table.
    let trusted = matches!(source, Some(Source::Trace | Source::Table));
    if !trusted && matches!(decode::decode(ev), Some(Ok(_))) {
        return Some(Decoder::Typed);
    }
    if let (Some(r), Some(s)) = (row, source) {
        if matches!(reg.decode(r, ev.payload, ev.pointer_size), Some(Ok(_))) {
            return Some(Decoder::Schema(s));
        }
    }
    matches!(decode::decode(ev), Some(Ok(_))).then_some(Decoder::Typed)
}

/// Whether saying if `ev` decodes needs the registry: false for what
/// `decoder` answers without one (no payload, a schema-carrying event, a
/// TraceLogging schema in the event). An event a typed decoder reads is
/// decoded either way, so the model's read, which runs those decoders,
/// leaves only the others to `hex_only_in`.
pub fn needs_registry(ev: &Event<'_>) -> bool {
    !(ev.payload.is_empty()
        || is_metadata(ev)
        || is_manifest_data(ev.header_type, ev.event_id, ev.opcode)
        || ev
            .extended_items()
            .any(|i| i.ext_type == ext_type::EVENT_SCHEMA_TL))
}

/// `coverage(file).hex_only`, counted in the buffers listed in `buffers`
/// (`BufferInfo::index`, sorted) alone: the caller found every event of the
/// others decoded without the registry, and gathered `sources` from every
/// event. With none listed nothing is read again.
pub fn hex_only_in(file: &EtlFile, buffers: &[u32], sources: &RegistrySources) -> u64 {
    if buffers.is_empty() {
        return 0;
    }
    let reg = sources.registry();
    file.buffers()
        .par_iter()
        .filter(|info| buffers.binary_search(&info.index).is_ok())
        .map_init(Vec::new, |scratch, info| {
            match file.buffer_data(info, scratch) {
                Ok(data) => crate::BufferData { info, data }
                    .events()
                    .flatten()
                    .filter(|ev| decoder(ev, &reg).is_none())
                    .count() as u64,
                Err(_) => 0,
            }
        })
        .sum()
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
                let who = match ev.provider {
                    Some(g) => g.to_string(),
                    None => format!("kernel {:#04x}", ev.hook_id.unwrap_or(0) >> 8),
                };
                let by = decoder(&ev, &reg);
                *c.by_provider
                    .entry(who.clone())
                    .or_default()
                    .entry(by.map_or("hex", Decoder::name))
                    .or_default() += 1;
                if by.is_none() {
                    c.hex_only += 1;
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
        for (k, m) in c.by_provider {
            let t = total.by_provider.entry(k).or_default();
            for (src, n) in m {
                *t.entry(src).or_default() += n;
            }
        }
    }
    for k in total.by_provider.keys() {
        let name = crate::Guid::parse(k).and_then(|g| {
            decode::provider_name(g)
                .map(str::to_string)
                .or_else(|| reg.provider_name(g).map(str::to_string))
        });
        if let Some(n) = name {
            total.provider_names.insert(k.clone(), n);
        }
    }
    total
}
