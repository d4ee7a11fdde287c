//! EventSource providers' manifests: the ManifestData event (id 0xFFFE,
//! opcode 254) carries the provider's instrumentation manifest in chunks,
//! each with an 8-byte envelope (u8 Format, u8 MajorVersion, u8
//! MinorVersion, u8 Magic 0x5B, u16 TotalChunks, u16 ChunkNumber) before
//! its UTF-8 bytes. The manifest XML gives tasks, opcodes, keywords, maps,
//! templates and events; [`parse`] turns it into schemas.

use super::registry::SchemaKey;
use super::tdh::task_opcode_name;
use super::xml::{tags, Tag};
use super::{in_type as t, out_type as o, EventSchema, Extent, Field, ValueMap};
use crate::Guid;
use std::collections::HashMap;

/// ManifestData event id and opcode.
pub const MANIFEST_EVENT_ID: u16 = 0xFFFE;
pub const MANIFEST_OPCODE: u8 = 254;
/// Envelope magic byte.
const MAGIC: u8 = 0x5B;

/// A chunk's place and bytes: (total, number, data), `None` if not a chunk.
pub fn chunk(payload: &[u8]) -> Option<(u16, u16, &[u8])> {
    let h = payload.get(..8)?;
    if h[3] != MAGIC {
        return None;
    }
    let total = u16::from_le_bytes([h[4], h[5]]);
    let number = u16::from_le_bytes([h[6], h[7]]);
    (number < total).then_some((total, number, payload.get(8..)?))
}

/// The envelope as named fields, as PerfView shows a ManifestData event.
pub fn envelope_fields(payload: &[u8]) -> Option<Vec<(String, String)>> {
    let h = payload.get(..8)?;
    let names = ["Format", "MajorVersion", "MinorVersion", "Magic"];
    let mut out: Vec<(String, String)> = names
        .iter()
        .zip(h)
        .map(|(n, v)| (n.to_string(), v.to_string()))
        .collect();
    out.push((
        "TotalChunks".into(),
        u16::from_le_bytes([h[4], h[5]]).to_string(),
    ));
    out.push((
        "ChunkNumber".into(),
        u16::from_le_bytes([h[6], h[7]]).to_string(),
    ));
    Some(out)
}

pub(super) fn in_type_of(s: &str) -> Option<u16> {
    Some(match s.strip_prefix("win:").unwrap_or(s) {
        "UnicodeString" => t::UNICODE_STRING,
        "AnsiString" => t::ANSI_STRING,
        "Int8" => t::INT8,
        "UInt8" => t::UINT8,
        "Int16" => t::INT16,
        "UInt16" => t::UINT16,
        "Int32" => t::INT32,
        "UInt32" => t::UINT32,
        "Int64" => t::INT64,
        "UInt64" => t::UINT64,
        "Float" => t::FLOAT,
        "Double" => t::DOUBLE,
        "Boolean" => t::BOOLEAN,
        "Binary" => t::BINARY,
        "GUID" => t::GUID,
        "Pointer" => t::POINTER,
        "FILETIME" => t::FILETIME,
        "SYSTEMTIME" => t::SYSTEMTIME,
        "SID" => t::SID,
        "HexInt32" => t::HEXINT32,
        "HexInt64" => t::HEXINT64,
        _ => return None,
    })
}

fn out_type_of(s: &str) -> u16 {
    match s {
        "win:HexInt8" => o::HEXINT8,
        "win:HexInt16" => o::HEXINT16,
        "win:HexInt32" => o::HEXINT32,
        "win:HexInt64" => o::HEXINT64,
        "win:Win32Error" => o::WIN32ERROR,
        "win:HResult" => o::HRESULT,
        "win:NTStatus" => o::NTSTATUS,
        "win:IPv4" => o::IPV4,
        "win:IPv6" => o::IPV6,
        "win:Port" => o::PORT,
        "win:SocketAddress" => o::SOCKETADDRESS,
        _ => 0,
    }
}

fn number(s: &str) -> Option<u64> {
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => s.parse().ok(),
    }
}

/// `$(string.X)` message references resolved through the string table.
fn message(s: &str, strings: &HashMap<String, String>) -> String {
    match s
        .strip_prefix("$(string.")
        .and_then(|r| r.strip_suffix(')'))
    {
        Some(id) => strings.get(id).cloned().unwrap_or_else(|| id.to_string()),
        None => s.to_string(),
    }
}

/// Everything one manifest defines.
#[derive(Debug, Default)]
pub struct Parsed {
    pub schemas: Vec<(SchemaKey, EventSchema)>,
    pub maps: Vec<(Guid, ValueMap)>,
}

/// A field of a template from a `<data>` element; `earlier` are the
/// template's fields so far (for count and length references).
fn data_field(tag: &Tag, earlier: &[Field]) -> Option<Field> {
    let name = tag.attr("name")?;
    let mut f = Field::new(name, in_type_of(tag.attr("inType")?)?);
    f.out_type = tag.attr("outType").map_or(0, out_type_of);
    f.map = tag.attr("map").map(str::to_string);
    let extent = |v: &str| match v.parse::<u16>() {
        Ok(n) => Some(Extent::Fixed(n)),
        Err(_) => earlier
            .iter()
            .position(|e| e.name == v)
            .map(|i| Extent::Field(i as u16)),
    };
    if let Some(c) = tag.attr("count") {
        f.count = extent(c)?;
    }
    if let Some(l) = tag.attr("length") {
        f.length = extent(l)?;
    }
    Some(f)
}

/// Parse one provider's manifest (its first `<provider>`).
pub fn parse(doc: &str) -> Parsed {
    let tags = tags(doc);
    let mut strings = HashMap::new();
    for tag in &tags {
        if let (Tag::Start { name, .. }, Some(id), Some(v)) =
            (tag, tag.attr("id"), tag.attr("value"))
        {
            if name == "string" {
                strings.insert(id.to_string(), v.to_string());
            }
        }
    }
    let mut provider = None;
    let mut provider_name = String::new();
    let mut templates: HashMap<String, Vec<Field>> = HashMap::new();
    let mut maps = Vec::new();
    let mut events = Vec::new();
    let mut template: Option<(String, Vec<Field>)> = None;
    let mut map: Option<ValueMap> = None;
    for tag in &tags {
        match tag {
            Tag::Start { name, empty, .. } => match name.as_str() {
                "provider" if provider.is_none() => {
                    provider = tag
                        .attr("guid")
                        .and_then(|g| Guid::parse(g.trim_start_matches('{').trim_end_matches('}')));
                    provider_name = tag.attr("name").unwrap_or("").to_string();
                }
                "template" if !empty => {
                    template = tag.attr("tid").map(|t| (t.to_string(), Vec::new()));
                }
                "data" => {
                    if let Some((_, fields)) = template.as_mut() {
                        match data_field(tag, fields) {
                            Some(f) => fields.push(f),
                            // A field we cannot read makes the template unusable.
                            None => template = None,
                        }
                    }
                }
                "valueMap" | "bitMap" if !empty => {
                    map = tag.attr("name").map(|n| ValueMap {
                        name: n.to_string(),
                        bitmap: name == "bitMap",
                        entries: Vec::new(),
                    });
                }
                "map" => {
                    if let (Some(m), Some(v)) = (map.as_mut(), tag.attr("value").and_then(number)) {
                        let text = message(tag.attr("message").unwrap_or(""), &strings);
                        m.entries.push((v, text));
                    }
                }
                "event" => events.push(tag.clone()),
                // Structs are not read yet: their members are no top-level fields.
                "struct" => template = None,
                _ => {}
            },
            Tag::End(name) => match name.as_str() {
                "template" => {
                    if let Some((tid, fields)) = template.take() {
                        templates.insert(tid, fields);
                    }
                }
                "valueMap" | "bitMap" => maps.extend(map.take()),
                _ => {}
            },
        }
    }
    let Some(provider) = provider else {
        return Parsed::default();
    };
    let mut out = Parsed {
        maps: maps.into_iter().map(|m| (provider, m)).collect(),
        ..Default::default()
    };
    for ev in &events {
        let (Some(id), version) = (
            ev.attr("value").and_then(number),
            ev.attr("version").and_then(number).unwrap_or(0),
        ) else {
            continue;
        };
        let fields = match ev.attr("template") {
            Some(tid) => match templates.get(tid) {
                Some(f) => f.clone(),
                None => continue,
            },
            None => Vec::new(),
        };
        let task_name = ev.attr("task").unwrap_or("").to_string();
        let opcode_name = ev.attr("opcode").unwrap_or("").to_string();
        out.schemas.push((
            SchemaKey::Manifest {
                provider,
                id: id as u16,
                version: version as u8,
            },
            EventSchema {
                provider,
                provider_name: provider_name.clone(),
                event_name: task_opcode_name(&task_name, &opcode_name, id as u16),
                task_name,
                opcode_name,
                level_name: ev.attr("level").unwrap_or("").to_string(),
                keywords_name: ev.attr("keywords").unwrap_or("").replace(' ', ", "),
                fields,
            },
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = r#"<instrumentationManifest><instrumentation><events>
<provider name="Demo" guid="{a8a71ac1-040f-54a2-07ca-00a89b5ab761}" symbol="Demo">
<tasks><task name="Work" message="$(string.task_Work)" value="65533"/></tasks>
<maps><valueMap name="KindMap"><map value="0" message="$(string.map_KindMap.A)"/><map value="1" message="$(string.map_KindMap.B)"/></valueMap></maps>
<events><event value="7" version="1" level="win:Informational" task="Work" opcode="win:Start" keywords="Kw1 Kw2" template="WorkArgs"/>
<event value="8" version="0" level="win:Verbose" task="Work" opcode="win:Stop"/></events>
<templates><template tid="WorkArgs"><data name="n" inType="win:UInt32"/><data name="blob" inType="win:Binary" length="n"/><data name="kind" inType="win:Int32" map="KindMap"/><data name="who" inType="win:UnicodeString"/></template></templates>
</provider></events></instrumentation>
<localization><resources culture="en-US"><stringTable><string id="map_KindMap.A" value="Alpha"/><string id="map_KindMap.B" value="Beta"/></stringTable></resources></localization>
</instrumentationManifest>"#;

    #[test]
    fn parses_an_event_source_manifest() {
        let p = parse(DOC);
        assert_eq!(p.schemas.len(), 2);
        let (key, s) = &p.schemas[0];
        let g = Guid::parse("a8a71ac1-040f-54a2-07ca-00a89b5ab761").unwrap();
        assert_eq!(
            *key,
            SchemaKey::Manifest {
                provider: g,
                id: 7,
                version: 1
            }
        );
        assert_eq!(s.event_name, "Work/Start");
        assert_eq!(s.keywords_name, "Kw1, Kw2");
        assert_eq!(s.fields[1].length, Extent::Field(0));
        assert_eq!(p.schemas[1].1.event_name, "Work/Stop");
        assert_eq!(p.maps[0].1.show(1).as_deref(), Some("Beta"));
        let maps = |n: &str| p.maps.iter().find(|(_, m)| m.name == n).map(|(_, m)| m);
        let mut payload = 2u32.to_le_bytes().to_vec();
        payload.extend([0xAB, 0xCD, 1, 0, 0, 0, b'x', 0, 0, 0]);
        let f = super::super::payload::decode_fields(&s.fields, &payload, 8, &maps).unwrap();
        let want = [("n", "2"), ("blob", "abcd"), ("kind", "Beta"), ("who", "x")];
        assert_eq!(f, want.map(|(a, b)| (a.to_string(), b.to_string())));
        // A chunk envelope: format 1, version 1.0, magic 0x5B, 1 chunk, #0.
        let c = [1, 1, 0, 0x5B, 1, 0, 0, 0, b'<'];
        assert_eq!(chunk(&c), Some((1, 0, &b"<"[..])));
        assert_eq!(chunk(&c[..7]), None);
        assert!(parse("<provider").schemas.is_empty());
    }
}
