//! Generic Events: every event no specialised table took, with its payload
//! copied into one arena and TraceLogging schemas kept once per distinct blob.

use super::records::{Batch, GenericRec};
use crate::generic::{GenericEventTable, NO_SCHEMA};
use crate::images::NONE;
use crate::strings::StringTable;
use etl::decode::schema::registry::{is_manifest_data, is_metadata_key, OPCODE_EVENT_INFO};
use etl::decode::schema::{SchemaKey, SchemaRegistry};
use etl::decode::{self, TlSchema};
use etl::extended::ext_type;
use etl::{Event, Guid};
use rustc_hash::FxHashMap;

/// Record `e` as a generic row of the batch (parallel pass).
pub fn collect_generic(e: &Event<'_>, b: &mut Batch, frames: &mut Vec<u64>) {
    let schema = e
        .extended_items()
        .find(|i| i.ext_type == ext_type::EVENT_SCHEMA_TL)
        .map(|i| b.schemas.intern(i.data));
    if schema.is_some() {
        if let Some(g) = e.provider {
            if let std::collections::hash_map::Entry::Vacant(v) = b.provider_names.entry(g) {
                if let Some(n) = decode::tracelogging::provider_name(e) {
                    v.insert(n);
                }
            }
        }
    }
    let ext_stack = match decode::event_stack(e) {
        Some(Ok(s)) => {
            frames.clear();
            frames.extend(s.frames.iter());
            Some(b.fragments.intern(frames))
        }
        _ => None,
    };
    if b.arenas.is_empty() {
        b.arenas.push(Vec::new());
    }
    let chunk = b.arenas.len().saturating_sub(1);
    let mut payload_start = 0;
    if let Some(arena) = b.arenas.last_mut() {
        payload_start = arena.len() as u32;
        arena.extend_from_slice(e.payload);
    }
    b.generic.push(GenericRec {
        ts: e.timestamp,
        provider: e.provider,
        kernel_group: if e.header_type.is_kernel() {
            e.group()
        } else {
            None
        },
        id: if e.header_type.is_kernel() {
            e.hook_id.unwrap_or(0)
        } else {
            e.event_id
        },
        opcode: e.opcode,
        task: e.task,
        level: e.level,
        version: e.version as u8,
        keyword: e.keyword,
        pid: e.pid,
        // Kernel network events say pid -1; their payload names the process.
        payload_pid: decode::schema::kernel::payload_pid(e),
        tid: e.tid,
        cpu: e.cpu,
        pointer_size: e.pointer_size,
        header_type: e.header_type.to_byte(),
        payload_chunk: chunk as u32,
        payload_start,
        payload_len: e.payload.len() as u32,
        schema,
        ext_stack,
        activity: activity_ids(e),
    });
}

/// The event's ActivityId and RelatedActivityId (a regions file matches
/// starts and stops by them), when it has either.
fn activity_ids(e: &Event<'_>) -> Option<(Option<Guid>, Option<Guid>)> {
    let zero = |g: &Guid| g.0 == [0; 16];
    let activity = e.activity_id.filter(|g| !zero(g));
    let related = e
        .extended_items()
        .find(|i| i.ext_type == ext_type::RELATED_ACTIVITYID)
        .and_then(|i| <[u8; 16]>::try_from(i.data.get(..16)?).ok())
        .map(Guid::from_bytes_le)
        .filter(|g| !zero(g));
    (activity.is_some() || related.is_some()).then_some((activity, related))
}

/// Names of kernel hook groups (the high byte of a kernel hook id).
pub fn kernel_group_name(group: u8) -> &'static str {
    match group {
        0x00 => "Windows Kernel/EventTrace",
        0x01 => "Windows Kernel/DiskIo",
        0x02 => "Windows Kernel/PageFault",
        0x03 => "Windows Kernel/Process",
        0x04 => "Windows Kernel/FileIo",
        0x05 => "Windows Kernel/Thread",
        0x06 => "Windows Kernel/TcpIp",
        0x07 => "Windows Kernel/Job",
        0x08 => "Windows Kernel/UdpIp",
        0x09 => "Windows Kernel/Registry",
        0x0B => "Windows Kernel/SysConfig",
        0x0F => "Windows Kernel/PerfInfo",
        0x10 => "Windows Kernel/PageFault",
        0x11 => "Windows Kernel/Power",
        0x14 => "Windows Kernel/Image",
        0x18 => "Windows Kernel/StackWalk",
        0x20 => "Windows Kernel/ALPC",
        0x21 => "Windows Kernel/SplitIo",
        _ => "Windows Kernel",
    }
}

/// Provider rows and the table's per-row columns (sequential pass). Thread,
/// process and stack columns are filled by the caller.
pub fn build_generic_rows(
    recs: &[GenericRec],
    arenas: Vec<Vec<u8>>,
    schemas: &[Box<[u8]>],
    provider_names: &FxHashMap<Guid, String>,
    clock: &crate::time::Clock,
    strings: &mut StringTable,
) -> GenericEventTable {
    let mut t = GenericEventTable {
        arenas,
        schemas: schemas.to_vec(),
        ..Default::default()
    };
    t.registry = trace_schemas(recs, &t);
    // Event name per schema: parsed once here, fields decoded on demand.
    let schema_names: Vec<_> = schemas
        .iter()
        .map(|s| {
            TlSchema::parse(s)
                .map(|p| strings.intern(&p.name))
                .unwrap_or_default()
        })
        .collect();
    let mut event_names: FxHashMap<u32, crate::strings::StrId> = FxHashMap::default();
    let mut rows: FxHashMap<(Option<Guid>, Option<u8>), u32> = FxHashMap::default();
    t.reserve(recs.len());
    for r in recs {
        let key = (r.provider, r.kernel_group);
        let provider = *rows.entry(key).or_insert_with(|| {
            let name = match (r.provider, r.kernel_group) {
                (Some(g), _) => provider_names
                    .get(&g)
                    .map(|s| s.as_str())
                    .or_else(|| decode::provider_name(g))
                    .or_else(|| t.registry.provider_name(g))
                    .map_or_else(|| g.to_string(), str::to_string),
                (None, Some(grp)) => kernel_group_name(grp).to_string(),
                (None, None) => "Unknown".to_string(),
            };
            t.providers.guid.push(r.provider);
            t.providers.kernel_group.push(r.kernel_group);
            t.providers.name.push(strings.intern(&name));
            t.providers.guid.len() as u32 - 1
        });
        t.time.push(clock.to_ns(r.ts));
        t.provider.push(provider);
        t.id.push(r.id);
        t.opcode.push(r.opcode);
        t.task.push(r.task);
        t.level.push(r.level);
        t.version.push(r.version);
        t.keyword.push(r.keyword);
        t.cpu.push(r.cpu);
        t.pointer_size.push(r.pointer_size);
        t.header_type.push(r.header_type);
        t.payload_chunk.push(r.payload_chunk);
        t.payload_start.push(r.payload_start);
        t.payload_len.push(r.payload_len);
        let schema = r.schema.unwrap_or(NO_SCHEMA);
        t.schema.push(schema);
        let event_schema = match (schema, key_of(r)) {
            (NO_SCHEMA, Some(k)) => t.registry.find(&k).unwrap_or(NO_SCHEMA),
            _ => NO_SCHEMA,
        };
        t.event_schema.push(event_schema);
        let name = match t.registry.schema(event_schema) {
            Some(s) => *event_names
                .entry(event_schema)
                .or_insert_with(|| strings.intern(&s.event_name)),
            None if schema == NO_SCHEMA => match schema_event_name(r) {
                Some(n) => strings.intern(n),
                None => Default::default(),
            },
            None => schema_names
                .get(schema as usize)
                .copied()
                .unwrap_or_default(),
        };
        t.name.push(name);
        let header_pid = r.pid.unwrap_or(u32::MAX);
        let payload_pid = r.payload_pid.or_else(|| {
            let s = t.registry.schema(event_schema)?;
            let row = t.time.len() - 1;
            etl::decode::schema::packs::payload_process(s, t.payload(row))
        });
        if let Some(pid) = payload_pid.filter(|&p| p != header_pid) {
            t.header_process
                .insert(t.time.len() as u32 - 1, (header_pid, NONE));
            t.pid.push(pid);
        } else {
            t.pid.push(header_pid);
        }
        t.tid.push(r.tid.unwrap_or(u32::MAX));
        if let Some(a) = &r.activity {
            t.activity.insert(t.time.len() as u32 - 1, *a);
        }
        t.thread.push(NONE);
        t.process.push(NONE);
        t.stack.push(NONE);
    }
    t
}

/// Names of events no schema names: those that carry schemas, and kernel
/// events we know by name only (PerfView's names).
fn schema_event_name(r: &GenericRec) -> Option<&'static str> {
    if is_metadata_key(r.provider, r.opcode) {
        return Some(if r.opcode == OPCODE_EVENT_INFO {
            "EventInfo"
        } else {
            "EventMapInfo"
        });
    }
    let h = etl::HeaderType::from_byte(r.header_type)?;
    if h.is_kernel() {
        return decode::schema::kernel::event_name(r.id);
    }
    is_manifest_data(h, r.id, r.opcode).then_some("ManifestData")
}

/// The schema key of a generic record, as `SchemaKey::of` gives it for the event.
fn key_of(r: &GenericRec) -> Option<SchemaKey> {
    let header = etl::HeaderType::from_byte(r.header_type)?;
    if header.is_kernel() {
        return Some(SchemaKey::Kernel {
            hook: r.id,
            version: r.version,
        });
    }
    let provider = r.provider?;
    Some(match header {
        etl::HeaderType::EventHeader32 | etl::HeaderType::EventHeader64 => SchemaKey::Manifest {
            provider,
            id: r.id,
            version: r.version,
        },
        _ => SchemaKey::Classic {
            guid: provider,
            opcode: r.opcode,
            version: r.version,
        },
    })
}

/// Our CLR schemas, those the trace's MetaData events carry and the
/// EventSource manifests of its ManifestData events (their payloads are
/// already in the table's arenas), then the schema packs.
fn trace_schemas(recs: &[GenericRec], t: &GenericEventTable) -> SchemaRegistry {
    let mut reg = SchemaRegistry::new();
    for r in recs {
        let payload = || {
            t.arenas
                .get(r.payload_chunk as usize)
                .and_then(|a| {
                    a.get(r.payload_start as usize..)?
                        .get(..r.payload_len as usize)
                })
                .unwrap_or(&[])
        };
        if is_metadata_key(r.provider, r.opcode) {
            reg.add_metadata_payload(r.opcode, payload());
        } else if let (Some(g), Some(h)) = (r.provider, etl::HeaderType::from_byte(r.header_type)) {
            if is_manifest_data(h, r.id, r.opcode) {
                reg.add_manifest_chunk(g, payload());
            }
        }
    }
    let providers: rustc_hash::FxHashSet<Guid> = recs.iter().filter_map(|r| r.provider).collect();
    reg.add_fallback_packs(&|g| providers.contains(&g));
    reg
}
