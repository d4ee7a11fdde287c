//! TRACE_EVENT_INFO and EVENT_MAP_INFO blobs (tdh.h), as the
//! KernelTraceControl MetaData provider {bbccf6c1-6cd1-48c4-80ff-839482e37671}
//! logs them into merged traces: opcode 32 EventInfo is one TRACE_EVENT_INFO;
//! opcode 33 EventMapInfo is the provider GUID, then one EVENT_MAP_INFO.
//! Offsets inside a blob are from the start of its structure.
//!
//! TRACE_EVENT_INFO: @0 ProviderGuid, @16 EventGuid, @32 EVENT_DESCRIPTOR
//! (u16 Id, u8 Version, Channel, Level, Opcode, u16 Task, u64 Keyword),
//! @48 DecodingSource, then u32 offsets of ProviderName @52, LevelName @56,
//! ChannelName @60, KeywordsName @64 (a list of strings), TaskName @68,
//! OpcodeName @72, EventMessage @76, ProviderMessage @80, BinaryXml @84
//! (+ size @88), EventName @92, EventAttributes @96; PropertyCount @100,
//! TopLevelPropertyCount @104, Flags @108; then 24-byte EVENT_PROPERTY_INFO
//! from @112: u32 Flags, u32 NameOffset, u16 InType (struct: start index),
//! u16 OutType (struct: member count), u32 MapNameOffset, u16 count (or
//! its property index), u16 length (or its property index), u32 tags.

use super::{EventSchema, Extent, Field, ValueMap};
use crate::decode::reader::{Reader, Result};
use crate::Guid;

/// EVENT_PROPERTY_INFO flags.
const PROPERTY_STRUCT: u32 = 0x1;
const PROPERTY_PARAM_LENGTH: u32 = 0x2;
const PROPERTY_PARAM_COUNT: u32 = 0x4;
const PROPERTY_PARAM_FIXED_COUNT: u32 = 0x20;
/// DECODING_SOURCE of MOF (classic) events: keyed by event GUID + opcode.
pub const DECODING_SOURCE_WBEM: u32 = 1;
/// EVENT_MAP_INFO flags.
const MAP_BITMAP: u32 = 0x2;
const MAP_WBEM_BITMAP: u32 = 0x10;
/// Deepest struct nesting accepted.
const MAX_DEPTH: usize = 8;
/// Most fields one schema may expand to: struct members are indexes into
/// the property array, so a crafted blob could otherwise fan out without end.
const MAX_FIELDS: usize = 4096;

/// A parsed TRACE_EVENT_INFO: the schema plus the descriptor that keys it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventInfo {
    pub event_guid: Guid,
    pub id: u16,
    pub version: u8,
    pub level: u8,
    pub opcode: u8,
    pub task: u16,
    pub keyword: u64,
    pub decoding_source: u32,
    pub schema: EventSchema,
}

/// A NUL-terminated UTF-16 string at `off` of `blob`; empty for offset 0.
fn string_at(blob: &[u8], off: u32) -> String {
    if off == 0 {
        return String::new();
    }
    let mut r = Reader::new(blob, 8, "TraceEventInfo");
    match r.seek(off as usize).and_then(|_| r.utf16z()) {
        Ok(s) => s.trim_end().to_string(),
        Err(_) => String::new(),
    }
}

/// The list of keyword names at `off`: strings until an empty one.
fn strings_at(blob: &[u8], off: u32) -> Vec<String> {
    let mut out = Vec::new();
    if off == 0 {
        return out;
    }
    let mut r = Reader::new(blob, 8, "TraceEventInfo");
    if r.seek(off as usize).is_err() {
        return out;
    }
    while let Ok(s) = r.utf16z() {
        if s.is_empty() || out.len() >= 64 {
            break;
        }
        out.push(s.trim_end().to_string());
    }
    out
}

struct RawProperty {
    flags: u32,
    name: String,
    a: u16,
    b: u16,
    map: u32,
    count: u16,
    length: u16,
}

/// Parse a TRACE_EVENT_INFO blob.
pub fn parse_event_info(blob: &[u8]) -> Result<EventInfo> {
    let mut r = Reader::new(blob, 8, "TraceEventInfo");
    let provider = r.guid()?;
    let event_guid = r.guid()?;
    let id = r.u16()?;
    let version = r.u8()?;
    let _channel = r.u8()?;
    let level = r.u8()?;
    let opcode = r.u8()?;
    let task = r.u16()?;
    let keyword = r.u64()?;
    let decoding_source = r.u32()?;
    let mut off = [0u32; 12];
    for o in off.iter_mut() {
        *o = r.u32()?;
    }
    let [provider_name, level_name, _channel_name, keywords_name, task_name, opcode_name, _msg, _pmsg, _xml, _xml_size, event_name, _attrs] =
        off;
    let property_count = r.u32()? as usize;
    let top_level = r.u32()? as usize;
    let _flags = r.u32()?;
    if property_count > r.remaining() / 24 || top_level > property_count {
        return Err(r.malformed("property count does not fit the blob"));
    }
    let mut props = Vec::with_capacity(property_count);
    for _ in 0..property_count {
        let flags = r.u32()?;
        let name = string_at(blob, r.u32()?);
        let a = r.u16()?;
        let b = r.u16()?;
        let map = r.u32()?;
        let count = r.u16()?;
        let length = r.u16()?;
        r.skip(4)?;
        props.push(RawProperty {
            flags,
            name,
            a,
            b,
            map,
            count,
            length,
        });
    }
    let mut fields = Vec::with_capacity(top_level);
    let mut budget = MAX_FIELDS;
    for i in 0..top_level {
        fields.push(field(blob, &props, i, 0, &mut budget)?);
    }
    let task_name = string_at(blob, task_name);
    let opcode_name = string_at(blob, opcode_name);
    let own_name = string_at(blob, event_name);
    let schema = EventSchema {
        provider,
        provider_name: string_at(blob, provider_name),
        event_name: if own_name.is_empty() {
            task_opcode_name(&task_name, &opcode_name, id)
        } else {
            own_name
        },
        task_name,
        opcode_name,
        level_name: string_at(blob, level_name),
        keywords_name: strings_at(blob, keywords_name).join(", "),
        fields,
    };
    Ok(EventInfo {
        event_guid,
        id,
        version,
        level,
        opcode,
        task,
        keyword,
        decoding_source,
        schema,
    })
}

/// WPA's event name for manifest events: `Task/Opcode`, the task alone for
/// the default opcode (win:Info), `EventID(n)` with neither.
pub fn task_opcode_name(task: &str, opcode: &str, id: u16) -> String {
    let opcode = opcode.strip_prefix("win:").unwrap_or(opcode);
    match (task.is_empty(), opcode.is_empty() || opcode == "Info") {
        (true, true) => format!("EventID({id})"),
        (true, false) => opcode.to_string(),
        (false, true) => task.to_string(),
        (false, false) => format!("{task}/{opcode}"),
    }
}

fn field(
    blob: &[u8],
    props: &[RawProperty],
    i: usize,
    depth: usize,
    budget: &mut usize,
) -> Result<Field> {
    let bad = |why| crate::decode::reader::DecodeError {
        event: "TraceEventInfo",
        offset: 112 + 24 * i,
        kind: crate::decode::reader::DecodeErrorKind::Malformed(why),
    };
    let p = props.get(i).ok_or(bad("property index out of range"))?;
    *budget = budget.checked_sub(1).ok_or(bad("too many fields"))?;
    let count = if p.flags & PROPERTY_PARAM_COUNT != 0 {
        Extent::Field(p.count)
    } else if p.flags & PROPERTY_PARAM_FIXED_COUNT != 0 || p.count > 1 {
        Extent::Fixed(p.count)
    } else {
        Extent::Default
    };
    let length = if p.flags & PROPERTY_PARAM_LENGTH != 0 {
        Extent::Field(p.length)
    } else if p.length > 0 {
        Extent::Fixed(p.length)
    } else {
        Extent::Default
    };
    let mut f = Field::new(&p.name, p.a);
    f.count = count;
    f.length = length;
    if p.flags & PROPERTY_STRUCT != 0 {
        if depth >= MAX_DEPTH {
            return Err(bad("structs nested too deeply"));
        }
        f.in_type = super::in_type::STRUCT;
        let start = usize::from(p.a);
        for k in start..start + usize::from(p.b) {
            if k == i {
                return Err(bad("struct contains itself"));
            }
            f.members.push(field(blob, props, k, depth + 1, budget)?);
        }
    } else {
        f.out_type = p.b;
        let map = string_at(blob, p.map);
        f.map = (!map.is_empty()).then_some(map);
    }
    Ok(f)
}

/// Parse an EventMapInfo payload: provider GUID, then EVENT_MAP_INFO
/// (@0 NameOffset, @4 Flag, @8 EntryCount, @12 value type, entries of
/// u32 OutputOffset + u32 Value from @16).
pub fn parse_map_info(payload: &[u8]) -> Result<(Guid, ValueMap)> {
    let mut r = Reader::new(payload, 8, "EventMapInfo");
    let provider = r.guid()?;
    let blob = r.rest();
    let mut r = Reader::new(blob, 8, "EventMapInfo");
    let name = string_at(blob, r.u32()?);
    let flag = r.u32()?;
    let n = r.u32()? as usize;
    let value_type = r.u32()?;
    if n > r.remaining() / 8 {
        return Err(r.malformed("map entry count does not fit the blob"));
    }
    let mut entries = Vec::with_capacity(n);
    // Entries keyed by strings (pattern maps) name nothing WPA shows by value.
    if value_type == 0 {
        for _ in 0..n {
            let out = r.u32()?;
            let value = r.u32()?;
            entries.push((u64::from(value), string_at(blob, out)));
        }
    }
    Ok((
        provider,
        ValueMap {
            name,
            bitmap: flag & (MAP_BITMAP | MAP_WBEM_BITMAP) != 0,
            entries,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A TRACE_EVENT_INFO of `props` (flags, a, b) with no names.
    fn blob(props: &[(u32, u16, u16)], top: u32) -> Vec<u8> {
        let mut b = vec![0u8; 100];
        b.extend((props.len() as u32).to_le_bytes());
        b.extend(top.to_le_bytes());
        b.extend(0u32.to_le_bytes());
        for &(flags, a, c) in props {
            b.extend(flags.to_le_bytes());
            b.extend(0u32.to_le_bytes());
            b.extend(a.to_le_bytes());
            b.extend(c.to_le_bytes());
            b.extend([0u8; 12]);
        }
        b
    }

    #[test]
    fn crafted_structs_cannot_fan_out_or_recurse() {
        // Struct k has members k+1..k+9: nested 8 deep that is 8^8 fields.
        let props: Vec<(u32, u16, u16)> = (0..24u16)
            .map(|k| (PROPERTY_STRUCT, k + 1, 8))
            .chain((0..16).map(|_| (0, super::super::in_type::UINT8, 0)))
            .collect();
        assert!(parse_event_info(&blob(&props, 1)).is_err());
        // A struct that contains itself.
        assert!(parse_event_info(&blob(&[(PROPERTY_STRUCT, 0, 1)], 1)).is_err());
        // Members past the array.
        assert!(parse_event_info(&blob(&[(PROPERTY_STRUCT, 5, 9)], 1)).is_err());
        // Fine: one u8.
        let ok = parse_event_info(&blob(&[(0, 4, 0)], 1)).unwrap();
        assert_eq!(ok.schema.fields.len(), 1);
    }
}
