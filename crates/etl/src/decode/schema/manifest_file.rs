//! Instrumentation manifests given by the user (`.man`/`.xml`: what
//! `wevtutil gp PROVIDER /ge /gm:true` and the Windows SDK write, and the
//! reconstructed manifests of etw-providers-docs) turned into a [`Pack`].
//! Names are the ones TDH shows: task, opcode and keyword messages from the
//! string table, Windows' own level and opcode names. A malformed document
//! is an error naming its line; a template we cannot read (an unknown
//! type) only leaves its events out, with a warning.

use super::pack::{Pack, PackEvent, PackProvider};
use super::xml::{tags_checked, Tag};
use super::{in_type as t, out_type as o, Extent, Field, ValueMap};
use crate::Guid;
use std::collections::HashMap;

/// A manifest that cannot be read, with the 1-based line of the fault.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManifestError {
    pub line: usize,
    pub message: String,
}

impl std::fmt::Display for ManifestError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for ManifestError {}

/// A manifest's providers, and what was left out of them.
#[derive(Debug, Default)]
pub struct Converted {
    pub pack: Pack,
    pub warnings: Vec<String>,
}

/// TDH in-type of a manifest `inType` (`win:UInt32`, or `win:29` as
/// reconstructed manifests write types they have no name for).
pub fn in_type_of(s: &str) -> Option<u16> {
    // EventSource manifests' names first (one table for both readers), then
    // the counted types only Windows' own manifests use.
    super::manifest::in_type_of(s).or_else(|| {
        Some(match s.strip_prefix("win:").unwrap_or(s) {
            "CountedUnicodeString" | "CountedUtf16String" => t::MANIFEST_COUNTED_STRING,
            "CountedAnsiString" | "CountedMbcsString" => t::MANIFEST_COUNTED_ANSI_STRING,
            "CountedBinary" => t::MANIFEST_COUNTED_BINARY,
            _ => return None,
        })
    })
}

/// TDH out-type of a manifest `outType`, 0 when only display differs.
pub fn out_type_of(s: &str) -> u16 {
    match s.strip_prefix("win:").unwrap_or(s) {
        "HexInt8" => o::HEXINT8,
        "HexInt16" => o::HEXINT16,
        "HexInt32" => o::HEXINT32,
        "HexInt64" => o::HEXINT64,
        "HexBinary" => o::HEXBINARY,
        "Win32Error" => o::WIN32ERROR,
        "HResult" => o::HRESULT,
        "NTStatus" => o::NTSTATUS,
        "IPv4" => o::IPV4,
        "IPv6" => o::IPV6,
        "Port" => o::PORT,
        "SocketAddress" => o::SOCKETADDRESS,
        "Boolean" => o::BOOLEAN,
        _ => 0,
    }
}

/// The names Windows gives its standard levels (winmeta.xml messages).
fn level_name(s: &str) -> String {
    match s {
        "win:LogAlways" | "win:Always" => "Log Always".into(),
        "win:Critical" => "Critical".into(),
        "win:Error" => "Error".into(),
        "win:Warning" => "Warning".into(),
        "win:Informational" => "Information".into(),
        "win:Verbose" => "Verbose".into(),
        other => other.strip_prefix("win:").unwrap_or(other).to_string(),
    }
}

/// Standard opcodes as TDH names them.
fn std_opcode(s: &str) -> Option<&'static str> {
    Some(match s {
        "win:Info" => "Info",
        "win:Start" => "Start",
        "win:Stop" => "Stop",
        "win:DC_Start" => "DCStart",
        "win:DC_Stop" => "DCStop",
        "win:Extension" => "Extension",
        "win:Reply" => "Reply",
        "win:Resume" => "Resume",
        "win:Suspend" => "Suspend",
        "win:Send" => "Send",
        "win:Receive" => "Receive",
        _ => return None,
    })
}

fn number(s: &str) -> Option<u64> {
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => s.parse().ok(),
    }
}

/// `$(string.X)` through the string table; other text as it is.
fn message(s: &str, strings: &HashMap<String, String>) -> Option<String> {
    match s
        .strip_prefix("$(string.")
        .and_then(|r| r.strip_suffix(')'))
    {
        Some(id) => strings.get(id).cloned(),
        None => Some(s.to_string()),
    }
}

/// A provider being read: its names by symbol, templates, and events with
/// the line each was on (their templates may come after them).
#[derive(Default)]
struct Open {
    p: PackProvider,
    tasks: HashMap<String, String>,
    /// Opcodes by (task or "", name).
    opcodes: HashMap<(String, String), String>,
    keywords: HashMap<String, String>,
    events: Vec<(usize, PackEvent)>,
    bad_templates: HashMap<String, String>,
}

/// A `<data>` element of a template or struct.
fn data_field(tag: &Tag, top: &[Field]) -> Result<Field, String> {
    let name = tag.attr("name").ok_or("data without a name")?;
    let ty = tag.attr("inType").ok_or("data without an inType")?;
    let in_type = in_type_of(ty).ok_or_else(|| format!("{name}: type {ty} is not read"))?;
    let mut f = Field::new(name, in_type);
    f.out_type = tag.attr("outType").map_or(0, out_type_of);
    f.map = tag.attr("map").map(str::to_string);
    let extent = |v: &str| match v.parse::<u16>() {
        Ok(n) => Ok(Extent::Fixed(n)),
        Err(_) => top
            .iter()
            .position(|e| e.name == v)
            .map(|i| Extent::Field(i as u16))
            .ok_or_else(|| format!("{name}: {v} is no earlier field")),
    };
    if let Some(c) = tag.attr("count") {
        f.count = extent(c)?;
    }
    if let Some(l) = tag.attr("length") {
        f.length = extent(l)?;
    }
    Ok(f)
}

/// Convert one manifest document (`what` names it in warnings).
pub fn convert(doc: &str, what: &str) -> Result<Converted, ManifestError> {
    let tags = tags_checked(doc).map_err(|e| ManifestError {
        line: e.line,
        message: e.message,
    })?;
    let mut strings = HashMap::new();
    let mut in_string_table = false;
    for (_, tag) in &tags {
        match tag {
            Tag::Start { name, .. } if name == "resources" => {
                // The first culture's strings win (en-US comes first in
                // what wevtutil writes).
                in_string_table = strings.is_empty();
            }
            Tag::Start { name, .. } if name == "string" && in_string_table => {
                if let (Some(id), Some(v)) = (tag.attr("id"), tag.attr("value")) {
                    strings.insert(id.to_string(), v.to_string());
                }
            }
            Tag::End(name) if name == "resources" => in_string_table = false,
            _ => {}
        }
    }
    let msg = |tag: &Tag| tag.attr("message").and_then(|m| message(m, &strings));
    let mut out = Converted::default();
    let mut open: Option<Open> = None;
    let mut task: Option<String> = None;
    let mut template: Option<(String, Vec<Field>)> = None;
    let mut in_struct = false;
    let mut map: Option<ValueMap> = None;
    let mut provider_line = 0;
    for (line, tag) in &tags {
        let line = *line;
        let err = |message: String| ManifestError { line, message };
        match tag {
            Tag::Start { name, empty, .. } => match name.as_str() {
                "provider" => {
                    if open.is_some() {
                        return Err(err("a provider inside a provider".into()));
                    }
                    let g = tag.attr("guid").unwrap_or("");
                    let guid = Guid::parse(g.trim_start_matches('{').trim_end_matches('}'))
                        .ok_or_else(|| err(format!("provider without a valid guid ({g:?})")))?;
                    let name = tag
                        .attr("name")
                        .ok_or_else(|| err("provider without a name".into()))?;
                    provider_line = line;
                    open = Some(Open {
                        p: PackProvider {
                            guid,
                            name: name.to_string(),
                            ..Default::default()
                        },
                        ..Default::default()
                    });
                    if *empty {
                        let o = open.take().unwrap_or_default();
                        finish(o, &mut out, what, provider_line)?;
                    }
                }
                _ if open.is_none() => {}
                "task" => {
                    let o = open.as_mut().ok_or_else(|| err("no provider".into()))?;
                    let n = tag
                        .attr("name")
                        .ok_or_else(|| err("task without a name".into()))?;
                    o.tasks
                        .insert(n.to_string(), msg(tag).unwrap_or_else(|| n.to_string()));
                    task = (!empty).then(|| n.to_string());
                }
                "opcode" => {
                    let o = open.as_mut().ok_or_else(|| err("no provider".into()))?;
                    let n = tag
                        .attr("name")
                        .ok_or_else(|| err("opcode without a name".into()))?;
                    let scope = task.clone().unwrap_or_default();
                    let shown = msg(tag).unwrap_or_else(|| n.to_string());
                    o.opcodes.insert((scope, n.to_string()), shown);
                }
                "keyword" => {
                    let o = open.as_mut().ok_or_else(|| err("no provider".into()))?;
                    if let Some(n) = tag.attr("name") {
                        o.keywords
                            .insert(n.to_string(), msg(tag).unwrap_or_else(|| n.to_string()));
                    }
                }
                "valueMap" | "bitMap" if !empty => {
                    let n = tag
                        .attr("name")
                        .ok_or_else(|| err("map without a name".into()))?;
                    map = Some(ValueMap {
                        name: n.to_string(),
                        bitmap: name == "bitMap",
                        entries: Vec::new(),
                    });
                }
                "map" => {
                    let m = map
                        .as_mut()
                        .ok_or_else(|| err("map entry outside a map".into()))?;
                    let v = tag
                        .attr("value")
                        .and_then(number)
                        .ok_or_else(|| err("map entry without a numeric value".into()))?;
                    m.entries.push((v, msg(tag).unwrap_or_default()));
                }
                "template" if !empty => {
                    let tid = tag
                        .attr("tid")
                        .ok_or_else(|| err("template without a tid".into()))?;
                    template = Some((tid.to_string(), Vec::new()));
                }
                "template" => {
                    let o = open.as_mut().ok_or_else(|| err("no provider".into()))?;
                    if let Some(tid) = tag.attr("tid") {
                        o.p.templates.insert(tid.to_string(), Vec::new());
                    }
                }
                "struct" | "data" => {
                    let o = open.as_mut().ok_or_else(|| err("no provider".into()))?;
                    let Some((tid, fields)) = template.as_mut() else {
                        continue;
                    };
                    if o.bad_templates.contains_key(tid.as_str()) {
                        continue;
                    }
                    let f = if name == "struct" {
                        let n = tag.attr("name").unwrap_or("");
                        let mut s = Field::new(n, t::STRUCT);
                        let c = tag.attr("count").map(|c| {
                            c.parse::<u16>().map(Extent::Fixed).or_else(|_| {
                                fields
                                    .iter()
                                    .position(|e| e.name == c)
                                    .map(|i| Extent::Field(i as u16))
                                    .ok_or_else(|| format!("{n}: {c} is no earlier field"))
                            })
                        });
                        match c {
                            Some(Err(e)) => Err(e),
                            Some(Ok(c)) => {
                                s.count = c;
                                Ok(s)
                            }
                            None => Ok(s),
                        }
                    } else {
                        data_field(tag, fields)
                    };
                    match f {
                        Ok(f) if in_struct => match fields.last_mut() {
                            Some(s) if f.in_type != t::STRUCT => s.members.push(f),
                            _ => {
                                o.bad_templates
                                    .insert(tid.clone(), "nested structs are not read".into());
                            }
                        },
                        Ok(f) => {
                            in_struct = f.in_type == t::STRUCT && !empty;
                            fields.push(f);
                        }
                        Err(why) => {
                            o.bad_templates.insert(tid.clone(), why);
                        }
                    }
                }
                "event" => {
                    let o = open.as_mut().ok_or_else(|| err("no provider".into()))?;
                    let id = tag
                        .attr("value")
                        .and_then(number)
                        .and_then(|v| u16::try_from(v).ok())
                        .ok_or_else(|| err("event without a valid value".into()))?;
                    let version = match tag.attr("version") {
                        None => 0,
                        Some(v) => number(v)
                            .and_then(|v| u8::try_from(v).ok())
                            .ok_or_else(|| err(format!("event {id}: bad version {v:?}")))?,
                    };
                    let task_sym = tag.attr("task").unwrap_or("");
                    let task_name = o
                        .tasks
                        .get(task_sym)
                        .cloned()
                        .unwrap_or_else(|| task_sym.to_string());
                    let op_sym = tag.attr("opcode").unwrap_or("");
                    let opcode = std_opcode(op_sym)
                        .map(str::to_string)
                        .or_else(|| {
                            o.opcodes
                                .get(&(task_sym.to_string(), op_sym.to_string()))
                                .cloned()
                        })
                        .or_else(|| o.opcodes.get(&(String::new(), op_sym.to_string())).cloned())
                        .unwrap_or_else(|| op_sym.to_string());
                    let keywords = tag
                        .attr("keywords")
                        .unwrap_or("")
                        .split_whitespace()
                        .map(|k| o.keywords.get(k).cloned().unwrap_or_else(|| k.to_string()))
                        .collect::<Vec<_>>()
                        .join(", ");
                    let ev = PackEvent {
                        id,
                        version,
                        task: task_name,
                        opcode,
                        level: tag.attr("level").map(level_name).unwrap_or_default(),
                        keywords,
                        template: tag.attr("template").map(str::to_string),
                        message: msg(tag).unwrap_or_default(),
                    };
                    o.events.push((line, ev));
                }
                _ => {}
            },
            Tag::End(name) => match name.as_str() {
                "provider" => {
                    let o = open
                        .take()
                        .ok_or_else(|| err("</provider> outside a provider".into()))?;
                    finish(o, &mut out, what, provider_line)?;
                }
                "task" => task = None,
                "struct" => in_struct = false,
                "template" => {
                    if let (Some(o), Some((tid, fields))) = (open.as_mut(), template.take()) {
                        if !o.bad_templates.contains_key(&tid) {
                            o.p.templates.insert(tid, fields);
                        }
                    }
                    in_struct = false;
                }
                "valueMap" | "bitMap" => {
                    if let (Some(o), Some(m)) = (open.as_mut(), map.take()) {
                        o.p.maps.push(m);
                    }
                }
                _ => {}
            },
        }
    }
    if out.pack.providers.is_empty() {
        return Err(ManifestError {
            line: 1,
            message: "no <provider> with events in this document".into(),
        });
    }
    Ok(out)
}

/// Close a provider: check its events' templates, drop those we cannot read.
fn finish(o: Open, out: &mut Converted, what: &str, line: usize) -> Result<(), ManifestError> {
    let mut p = o.p;
    let mut left_out = 0;
    for (eline, ev) in o.events {
        if let Some(tid) = &ev.template {
            if let Some(why) = o.bad_templates.get(tid) {
                left_out += 1;
                if left_out <= 3 {
                    out.warnings.push(format!(
                        "{what}:{eline}: {} event {} v{} left out: {why}",
                        p.name, ev.id, ev.version
                    ));
                }
                continue;
            }
            if !p.templates.contains_key(tid) {
                return Err(ManifestError {
                    line: eline,
                    message: format!(
                        "event {} refers to template {tid:?}, which is not defined",
                        ev.id
                    ),
                });
            }
        }
        // Reconstructed manifests list an event once per channel: the first wins.
        if p.events
            .iter()
            .any(|e| e.id == ev.id && e.version == ev.version)
        {
            out.warnings.push(format!(
                "{what}:{eline}: {} event {} version {} defined twice; the first is kept",
                p.name, ev.id, ev.version
            ));
            continue;
        }
        p.events.push(ev);
    }
    if left_out > 3 {
        out.warnings.push(format!(
            "{what}:{line}: {} {} more events left out",
            p.name,
            left_out - 3
        ));
    }
    // Templates no event uses are dead weight in a pack.
    let used: std::collections::HashSet<String> =
        p.events.iter().filter_map(|e| e.template.clone()).collect();
    p.templates.retain(|k, _| used.contains(k));
    p.events.sort_by_key(|e| (e.id, e.version));
    out.pack.providers.push(p);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::schema::{pack, payload};

    /// A manifest written for this test, in wevtutil's /ge /gm:true form.
    pub const DEMO: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events">
 <instrumentation>
  <events>
   <provider name="Contoso-Demo" guid="{1f2e3d4c-5b6a-4978-8695-a4b3c2d1e0f9}" symbol="Demo">
    <keywords><keyword name="Net" message="$(string.kw.Net)" mask="0x1"/></keywords>
    <tasks>
     <task name="Xfer" message="$(string.task.Xfer)" value="1">
>
      <opcodes><opcode name="Sent" message="$(string.op.Sent)" value="10"/></opcodes>
     </task>
    </tasks>
    <maps><valueMap name="Dir"><map value="0x0" message="$(string.map.In)"/><map value="0x1" message="$(string.map.Out)"/></valueMap></maps>
    <events>
     <event value="10" version="2" task="Xfer" opcode="Sent" level="win:Informational" keywords="Net" template="T" message="$(string.ev.10)"/>
     <event value="11" version="0" task="Xfer" opcode="win:Stop" level="win:Verbose"/>
     <event value="12" version="0" task="Xfer" opcode="win:Start" level="win:Error" template="Odd"/>
    </events>
    <templates>
     <template tid="T">
      <data name="PID" inType="win:UInt32"/>
      <data name="size" inType="win:UInt32"/>
      <data name="dir" inType="win:UInt8" map="Dir"/>
      <data name="pairs" inType="win:UInt16"/>
      <struct name="Pair" count="pairs"><data name="a" inType="win:UInt8"/><data name="b" inType="win:UInt8"/></struct>
      <data name="who" inType="win:UnicodeString"/>
     </template>
     <template tid="Odd"><data name="x" inType="win:Mystery"/></template>
    </templates>
   </provider>
  </events>
 </instrumentation>
 <localization><resources culture="en-US"><stringTable>
  <string id="kw.Net" value="Network"/><string id="task.Xfer" value="Transfer"/>
  <string id="op.Sent" value="Data sent"/><string id="map.In" value="In"/><string id="map.Out" value="Out"/>
  <string id="ev.10" value="%2 bytes sent by %1"/>
 </stringTable></resources></localization>
</instrumentationManifest>
"#;

    #[test]
    fn a_manifest_becomes_a_pack_with_tdh_names() {
        let c = convert(DEMO, "demo.man").unwrap();
        assert_eq!(c.warnings.len(), 1, "{:?}", c.warnings);
        assert!(c.warnings[0].starts_with("demo.man:17: Contoso-Demo event 12 v0 left out"));
        let p = &c.pack.providers[0];
        assert_eq!(p.name, "Contoso-Demo");
        assert_eq!(p.events.len(), 2);
        let (key, s, e) = p.schemas().next().unwrap();
        assert!(matches!(
            key,
            crate::decode::schema::SchemaKey::Manifest {
                id: 10,
                version: 2,
                ..
            }
        ));
        assert_eq!(s.event_name, "Transfer/Data sent");
        assert_eq!(s.level_name, "Information");
        assert_eq!(s.keywords_name, "Network");
        assert_eq!(e.message, "%2 bytes sent by %1");
        assert_eq!(p.events[1].opcode, "Stop");
        // PID 7, 300 bytes, Out, 2 pairs (1,2) (3,4), "ab".
        let mut payload = Vec::new();
        payload.extend(7u32.to_le_bytes());
        payload.extend(300u32.to_le_bytes());
        payload.push(1);
        payload.extend(2u16.to_le_bytes());
        payload.extend([1, 2, 3, 4]);
        payload.extend([b'a', 0, b'b', 0, 0, 0]);
        let maps = |n: &str| p.maps.iter().find(|m| m.name == n);
        let f = payload::decode_fields(&s.fields, &payload, 8, &maps).unwrap();
        assert_eq!(f[0], ("PID".to_string(), "7".to_string()));
        assert_eq!(f[2], ("dir".to_string(), "Out".to_string()));
        assert_eq!(f[5], ("who".to_string(), "ab".to_string()));
        // Through the pack text and back, nothing changes.
        assert_eq!(pack::parse(&pack::write(&c.pack)).unwrap(), c.pack);
    }

    #[test]
    fn a_broken_manifest_names_its_line() {
        let cases = [
            (DEMO.replace("</task>", ""), "closes <task>"),
            (DEMO.replace("{1f2e3d4c", "{zz"), "valid guid"),
            (
                DEMO.replace("template=\"T\"", "template=\"Nope\""),
                "not defined",
            ),
            ("<a></a>".to_string(), "no <provider>"),
        ];
        for (doc, want) in cases {
            let e = convert(&doc, "x").unwrap_err();
            assert!(e.message.contains(want), "{want}: {e}");
            assert!(e.line >= 1 && e.line <= doc.lines().count().max(1), "{e}");
        }
        let e = convert(&DEMO.replace("template=\"T\"", "template=\"Nope\""), "x").unwrap_err();
        assert_eq!(e.line, 15);
    }
}
