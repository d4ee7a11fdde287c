//! The schemas of one trace: our CLR table, overridden by the MetaData
//! events the trace carries (what the recording machine's TDH said), and
//! the value maps both refer to.

use super::pack::Pack;
use super::packs::{self, Source};
use super::payload::{self, Fields};
use super::tdh::{parse_event_info, parse_map_info, DECODING_SOURCE_WBEM};
use super::{clr, kernel, manifest, EventSchema, ValueMap};
use crate::decode::providers::KERNEL_TRACE_CONTROL_METADATA;
use crate::decode::reader::Result;
use crate::event::{Event, HeaderType};
use crate::Guid;
use std::collections::HashMap;

/// MetaData opcodes: a TRACE_EVENT_INFO, an EVENT_MAP_INFO.
pub const OPCODE_EVENT_INFO: u8 = 32;
pub const OPCODE_EVENT_MAP_INFO: u8 = 33;

/// What identifies an event kind's layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SchemaKey {
    /// EventHeader events: provider, event id, version.
    Manifest {
        provider: Guid,
        id: u16,
        version: u8,
    },
    /// Classic (MOF) events: event class GUID, opcode, version.
    Classic { guid: Guid, opcode: u8, version: u8 },
    /// Kernel system-header events: hook id (group << 8 | opcode), version.
    Kernel { hook: u16, version: u8 },
}

impl SchemaKey {
    /// The key of an event.
    pub fn of(ev: &Event<'_>) -> Option<SchemaKey> {
        let version = ev.version as u8;
        if ev.header_type.is_kernel() {
            return Some(SchemaKey::Kernel {
                hook: ev.hook_id?,
                version,
            });
        }
        let provider = ev.provider?;
        Some(match ev.header_type {
            HeaderType::EventHeader32 | HeaderType::EventHeader64 => SchemaKey::Manifest {
                provider,
                id: ev.event_id,
                version,
            },
            _ => SchemaKey::Classic {
                guid: provider,
                opcode: ev.opcode,
                version,
            },
        })
    }
}

/// Whether `ev` is a KernelTraceControl MetaData event (a schema, not data).
pub fn is_metadata(ev: &Event<'_>) -> bool {
    is_metadata_key(ev.provider, ev.opcode)
}

/// Whether an event is an EventSource ManifestData chunk.
pub fn is_manifest_data(header: HeaderType, id: u16, opcode: u8) -> bool {
    matches!(
        header,
        HeaderType::EventHeader32 | HeaderType::EventHeader64
    ) && id == manifest::MANIFEST_EVENT_ID
        && opcode == manifest::MANIFEST_OPCODE
}

/// As [`is_metadata`], from the provider and opcode.
pub fn is_metadata_key(provider: Option<Guid>, opcode: u8) -> bool {
    provider == Some(KERNEL_TRACE_CONTROL_METADATA)
        && matches!(opcode, OPCODE_EVENT_INFO | OPCODE_EVENT_MAP_INFO)
}

#[derive(Debug, Clone)]
pub struct SchemaRegistry {
    schemas: Vec<EventSchema>,
    /// Where each schema came from.
    sources: Vec<Source>,
    /// Other layouts of a row's event (same id and version, another Windows
    /// build), tried in order when the row's own does not read the payload.
    alternatives: HashMap<u32, Vec<u32>>,
    index: HashMap<SchemaKey, u32>,
    maps: HashMap<(Guid, String), ValueMap>,
    providers: HashMap<Guid, String>,
    /// ManifestData chunks per provider until all have arrived.
    chunks: HashMap<Guid, Vec<Option<Vec<u8>>>>,
    /// MetaData blobs that did not parse.
    pub bad_metadata: u32,
}

impl Default for SchemaRegistry {
    fn default() -> Self {
        Self::new()
    }
}

impl SchemaRegistry {
    /// A registry of our CLR schemas only.
    pub fn new() -> SchemaRegistry {
        let mut r = SchemaRegistry {
            schemas: Vec::new(),
            sources: Vec::new(),
            alternatives: HashMap::new(),
            index: HashMap::new(),
            maps: HashMap::new(),
            providers: HashMap::new(),
            chunks: HashMap::new(),
            bad_metadata: 0,
        };
        for (key, schema) in clr::schemas().into_iter().chain(kernel::schemas()) {
            r.insert(key, schema, Source::Table);
        }
        for (provider, map) in clr::maps() {
            r.maps.insert((provider, map.name.clone()), map);
        }
        r
    }

    fn insert(&mut self, key: SchemaKey, schema: EventSchema, source: Source) {
        if !schema.provider_name.is_empty() && !matches!(key, SchemaKey::Kernel { .. }) {
            self.providers
                .entry(schema.provider)
                .or_insert_with(|| schema.provider_name.clone());
        }
        self.schemas.push(schema);
        self.sources.push(source);
        self.index.insert(key, self.schemas.len() as u32 - 1);
    }

    /// Take a pack's schemas, maps and provider names where nothing before
    /// gave them: the trace's own metadata and earlier packs stay as they are.
    pub fn add_pack(&mut self, pack: &Pack, source: Source) {
        self.add_pack_for(pack, source, &|_| true);
    }

    /// As [`Self::add_pack`], for the providers `wanted` says yes to (those
    /// of the trace: a registry keeps no schema its trace cannot use).
    pub fn add_pack_for(&mut self, pack: &Pack, source: Source, wanted: &dyn Fn(Guid) -> bool) {
        for p in pack.providers.iter().filter(|p| wanted(p.guid)) {
            let first = self.schemas.len() as u32;
            for (key, schema, _) in p.schemas() {
                match self.index.get(&key).copied() {
                    None => self.insert(key, schema, source),
                    // A second layout of this pack's own event.
                    Some(row) if row >= first => {
                        self.schemas.push(schema);
                        self.sources.push(source);
                        let alt = self.schemas.len() as u32 - 1;
                        self.alternatives.entry(row).or_default().push(alt);
                    }
                    Some(_) => {}
                }
            }
            for m in &p.maps {
                self.maps
                    .entry((p.guid, m.name.clone()))
                    .or_insert_with(|| m.clone());
            }
            if !p.name.is_empty() {
                self.providers
                    .entry(p.guid)
                    .or_insert_with(|| p.name.clone());
            }
        }
    }

    /// After the trace's own schemas: the user's packs, then the built-in
    /// one, for the providers `wanted` says yes to.
    pub fn add_fallback_packs(&mut self, wanted: &dyn Fn(Guid) -> bool) {
        for p in packs::user_packs() {
            self.add_pack_for(&p, Source::User, wanted);
        }
        if packs::builtin_providers().iter().any(|&g| wanted(g)) {
            self.add_pack_for(packs::builtin(), Source::BuiltIn, wanted);
        }
    }

    /// Where schema `row` came from.
    pub fn source(&self, row: u32) -> Option<Source> {
        self.sources.get(row as usize).copied()
    }

    /// Take a MetaData event's schema or map; false if `ev` is none.
    pub fn add_metadata(&mut self, ev: &Event<'_>) -> bool {
        if !is_metadata(ev) {
            return false;
        }
        self.add_metadata_payload(ev.opcode, ev.payload);
        true
    }

    /// As [`Self::add_metadata`], from the opcode and payload alone.
    pub fn add_metadata_payload(&mut self, opcode: u8, payload: &[u8]) {
        match opcode {
            OPCODE_EVENT_INFO => match parse_event_info(payload) {
                Ok(info) => {
                    let key = if info.decoding_source == DECODING_SOURCE_WBEM {
                        SchemaKey::Classic {
                            guid: info.event_guid,
                            opcode: info.opcode,
                            version: info.version,
                        }
                    } else {
                        SchemaKey::Manifest {
                            provider: info.schema.provider,
                            id: info.id,
                            version: info.version,
                        }
                    };
                    let mut schema = info.schema;
                    if clr::is_clr(schema.provider) {
                        schema.event_name = clr::event_name(&schema.task_name, &schema.opcode_name);
                    }
                    self.insert(key, schema, Source::Trace);
                }
                Err(_) => self.bad_metadata += 1,
            },
            OPCODE_EVENT_MAP_INFO => match parse_map_info(payload) {
                Ok((provider, map)) => {
                    self.maps.insert((provider, map.name.clone()), map);
                }
                Err(_) => self.bad_metadata += 1,
            },
            _ => {}
        }
    }

    /// Take one ManifestData chunk of an EventSource `provider`; with the
    /// last one, the manifest's schemas. False if `payload` is no chunk.
    pub fn add_manifest_chunk(&mut self, provider: Guid, payload: &[u8]) -> bool {
        let Some((total, number, data)) = manifest::chunk(payload) else {
            return false;
        };
        let parts = self.chunks.entry(provider).or_default();
        if parts.len() != usize::from(total) {
            *parts = vec![None; usize::from(total)];
        }
        if let Some(slot) = parts.get_mut(usize::from(number)) {
            *slot = Some(data.to_vec());
        }
        if parts.iter().all(Option::is_some) {
            let doc: Vec<u8> = parts.drain(..).flatten().flatten().collect();
            let parsed = manifest::parse(&String::from_utf8_lossy(&doc));
            for (key, schema) in parsed.schemas {
                self.insert(key, schema, Source::Trace);
            }
            for (g, m) in parsed.maps {
                self.maps.insert((g, m.name.clone()), m);
            }
        }
        true
    }

    /// Row of the schema for `key`.
    pub fn find(&self, key: &SchemaKey) -> Option<u32> {
        self.index.get(key).copied()
    }

    /// Row of the schema of `ev`.
    pub fn find_event(&self, ev: &Event<'_>) -> Option<u32> {
        self.find(&SchemaKey::of(ev)?)
    }

    pub fn schema(&self, row: u32) -> Option<&EventSchema> {
        self.schemas.get(row as usize)
    }

    pub fn len(&self) -> usize {
        self.schemas.len()
    }

    pub fn is_empty(&self) -> bool {
        self.schemas.is_empty()
    }

    /// A provider's name as a schema gave it.
    pub fn provider_name(&self, guid: Guid) -> Option<&str> {
        self.providers.get(&guid).map(String::as_str)
    }

    /// As [`Self::decode`], with the payload bytes the fields took.
    pub fn decode_measured(
        &self,
        row: u32,
        payload: &[u8],
        pointer_size: u8,
    ) -> Option<Result<(Fields, usize)>> {
        let one = |row: u32| {
            let s = self.schema(row)?;
            let maps = |name: &str| self.maps.get(&(s.provider, name.to_string()));
            Some(payload::decode_measured(
                &s.fields,
                payload,
                pointer_size,
                &maps,
            ))
        };
        let first = one(row)?;
        let Some(alts) = self.alternatives.get(&row) else {
            return Some(first);
        };
        if matches!(&first, Ok((_, n)) if *n == payload.len()) {
            return Some(first);
        }
        // The layout that reads the whole payload, else the first that reads.
        let mut fallback = first.is_ok().then_some(first);
        let mut first_err = None;
        for &a in alts {
            match one(a) {
                Some(Ok((f, n))) if n == payload.len() => return Some(Ok((f, n))),
                Some(Ok(r)) if fallback.is_none() => fallback = Some(Ok(r)),
                Some(Err(e)) if first_err.is_none() => first_err = Some(e),
                _ => {}
            }
        }
        fallback.or(first_err.map(Err))
    }

    /// Decode a payload with schema `row`.
    pub fn decode(&self, row: u32, payload: &[u8], pointer_size: u8) -> Option<Result<Fields>> {
        if self.alternatives.contains_key(&row) {
            return self
                .decode_measured(row, payload, pointer_size)
                .map(|r| r.map(|(f, _)| f));
        }
        let s = self.schema(row)?;
        let maps = |name: &str| self.maps.get(&(s.provider, name.to_string()));
        Some(payload::decode_fields(
            &s.fields,
            payload,
            pointer_size,
            &maps,
        ))
    }
}
