//! Schema packs: our own compact, versioned text format for manifest
//! providers' schemas (docs/schema-packs.md). One record per line, columns
//! separated by TAB, `\t` `\n` `\\` escaped in text; a provider's templates
//! are shared by its events, so a pack stays small. [`parse`] never panics
//! and names the line of the first error; [`write`] gives the text back.

use super::registry::SchemaKey;
use super::tdh::task_opcode_name;
use super::{in_type, EventSchema, Extent, Field, ValueMap};
use crate::Guid;
use std::collections::BTreeMap;
use std::fmt;

/// The first line of every pack; the number is the format version.
pub const MAGIC: &str = "etlscope-pack";
pub const VERSION: u32 = 1;

/// Limits that keep a hostile pack from exhausting memory.
const MAX_LINES: usize = 2_000_000;
const MAX_MEMBERS: usize = 256;

/// One event kind of a provider.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PackEvent {
    pub id: u16,
    pub version: u8,
    pub task: String,
    pub opcode: String,
    pub level: String,
    pub keywords: String,
    /// Template name in the provider's `templates`; `None`: no payload.
    pub template: Option<String>,
    /// Message template (`%1` refers to the first field), may be empty.
    pub message: String,
}

/// One provider: its name, maps, templates and events.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PackProvider {
    pub guid: Guid,
    pub name: String,
    pub maps: Vec<ValueMap>,
    pub templates: BTreeMap<String, Vec<Field>>,
    pub events: Vec<PackEvent>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Pack {
    /// Where the facts come from (one line each).
    pub notes: Vec<String>,
    pub providers: Vec<PackProvider>,
}

/// What is wrong with a pack, and on which line (1-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackError {
    pub line: usize,
    pub message: String,
}

impl fmt::Display for PackError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for PackError {}

impl PackProvider {
    /// Every event as a schema key and schema (fields from its template).
    pub fn schemas(&self) -> impl Iterator<Item = (SchemaKey, EventSchema, &PackEvent)> + '_ {
        self.events.iter().map(move |e| {
            let fields = e
                .template
                .as_ref()
                .and_then(|t| self.templates.get(t))
                .cloned()
                .unwrap_or_default();
            let key = SchemaKey::Manifest {
                provider: self.guid,
                id: e.id,
                version: e.version,
            };
            let schema = EventSchema {
                provider: self.guid,
                provider_name: self.name.clone(),
                event_name: task_opcode_name(&e.task, &e.opcode, e.id),
                task_name: e.task.clone(),
                opcode_name: e.opcode.clone(),
                level_name: e.level.clone(),
                keywords_name: e.keywords.clone(),
                fields,
            };
            (key, schema, e)
        })
    }
}

impl Pack {
    /// Add `other`'s providers and events: an event (id, version) already
    /// here stays first; one with another layout follows it as an
    /// alternative (Windows changed some layouts without a new version: the
    /// decoder takes the layout that reads the whole payload). Returns how
    /// many events were taken.
    pub fn merge(&mut self, other: &Pack) -> usize {
        let mut taken = 0;
        for note in &other.notes {
            if !self.notes.contains(note) {
                self.notes.push(note.clone());
            }
        }
        for op in &other.providers {
            let Some(p) = self.providers.iter_mut().find(|p| p.guid == op.guid) else {
                taken += op.events.len();
                self.providers.push(op.clone());
                continue;
            };
            for m in &op.maps {
                if !p.maps.iter().any(|x| x.name == m.name) {
                    p.maps.push(m.clone());
                }
            }
            for e in &op.events {
                let fields_of = |p: &PackProvider, e: &PackEvent| {
                    e.template
                        .as_ref()
                        .and_then(|t| p.templates.get(t))
                        .cloned()
                        .unwrap_or_default()
                };
                let theirs = fields_of(op, e);
                if p.events
                    .iter()
                    .any(|x| x.id == e.id && x.version == e.version && fields_of(p, x) == theirs)
                {
                    continue;
                }
                let mut e = e.clone();
                if let Some(fields) = e.template.as_ref().and_then(|t| op.templates.get(t)) {
                    e.template = Some(template_slot(p, e.template.as_deref(), fields));
                }
                p.events.push(e);
                taken += 1;
            }
            // Stable: alternatives keep their order.
            p.events.sort_by_key(|e| (e.id, e.version));
        }
        taken
    }
}

/// Add value and bit maps read elsewhere (TDH's EVENT_MAP_INFO, as
/// `etlscope manifests export` reads them) to `provider`'s entry; a map
/// whose name it already has is kept as it was. Returns how many were added.
pub fn add_maps(
    pack: &mut Pack,
    provider: Guid,
    maps: impl IntoIterator<Item = ValueMap>,
) -> usize {
    let Some(p) = pack.providers.iter_mut().find(|p| p.guid == provider) else {
        return 0;
    };
    let mut added = 0;
    for m in maps {
        if !p.maps.iter().any(|x| x.name == m.name) {
            p.maps.push(m);
            added += 1;
        }
    }
    added
}

/// A pack of schemas read elsewhere (TDH's TRACE_EVENT_INFO of each
/// event, as `etlscope manifests export` reads them on Windows): one
/// provider per GUID, events sharing a template when their fields are equal.
pub fn from_schemas(schemas: impl IntoIterator<Item = (u16, u8, EventSchema)>) -> Pack {
    let mut pack = Pack::default();
    for (id, version, s) in schemas {
        let p = match pack.providers.iter().position(|p| p.guid == s.provider) {
            Some(i) => &mut pack.providers[i],
            None => {
                pack.providers.push(PackProvider {
                    guid: s.provider,
                    name: s.provider_name.clone(),
                    ..Default::default()
                });
                let last = pack.providers.len() - 1;
                &mut pack.providers[last]
            }
        };
        if p.events.iter().any(|e| e.id == id && e.version == version) {
            continue;
        }
        let template = (!s.fields.is_empty()).then(|| {
            let want = format!("e{id}v{version}");
            match p.templates.iter().find(|(_, f)| **f == s.fields) {
                Some((name, _)) => name.clone(),
                None => template_slot(p, Some(&want), &s.fields),
            }
        });
        p.events.push(PackEvent {
            id,
            version,
            task: s.task_name,
            opcode: s.opcode_name,
            level: s.level_name,
            keywords: s.keywords_name,
            template,
            message: String::new(),
        });
    }
    for p in &mut pack.providers {
        p.events.sort_by_key(|e| (e.id, e.version));
    }
    pack
}

/// The name under which `fields` sit in `p`'s templates: `want` when free
/// or equal, else `want~2`, `want~3`...
fn template_slot(p: &mut PackProvider, want: Option<&str>, fields: &[Field]) -> String {
    let base = want.unwrap_or("t");
    for n in 1.. {
        let name = if n == 1 {
            base.to_string()
        } else {
            format!("{base}~{n}")
        };
        match p.templates.get(&name) {
            Some(f) if f == fields => return name,
            Some(_) => continue,
            None => {
                p.templates.insert(name.clone(), fields.to_vec());
                return name;
            }
        }
    }
    unreachable!("1.. never ends")
}

fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    out
}

fn unescape(s: &str) -> Result<String, String> {
    if !s.contains('\\') {
        return Ok(s.to_string());
    }
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        out.push(match it.next() {
            Some('\\') => '\\',
            Some('t') => '\t',
            Some('n') => '\n',
            Some('r') => '\r',
            other => return Err(format!("bad escape \\{}", other.unwrap_or(' '))),
        });
    }
    Ok(out)
}

fn extent_text(e: Extent) -> String {
    match e {
        Extent::Default => String::new(),
        Extent::Fixed(n) => n.to_string(),
        Extent::Field(i) => format!("@{i}"),
    }
}

fn write_field(out: &mut String, tag: &str, f: &Field) {
    let in_type = if f.in_type == in_type::STRUCT {
        "struct".to_string()
    } else {
        f.in_type.to_string()
    };
    out.push_str(&format!(
        "{tag}\t{}\t{in_type}\t{}\t{}\t{}\t{}\n",
        escape(&f.name),
        f.out_type,
        escape(f.map.as_deref().unwrap_or("")),
        extent_text(f.count),
        extent_text(f.length),
    ));
}

/// The pack as text.
pub fn write(pack: &Pack) -> String {
    let mut out = format!("{MAGIC}\t{VERSION}\n");
    for n in &pack.notes {
        out.push_str(&format!("note\t{}\n", escape(n)));
    }
    for p in &pack.providers {
        out.push_str(&format!("provider\t{}\t{}\n", p.guid, escape(&p.name)));
        for m in &p.maps {
            let kind = if m.bitmap { "bitmap" } else { "valuemap" };
            out.push_str(&format!("{kind}\t{}\n", escape(&m.name)));
            for (v, text) in &m.entries {
                out.push_str(&format!("v\t{v:#x}\t{}\n", escape(text)));
            }
        }
        for (name, fields) in &p.templates {
            out.push_str(&format!("template\t{}\n", escape(name)));
            for f in fields {
                write_field(&mut out, "f", f);
                for m in &f.members {
                    write_field(&mut out, "m", m);
                }
            }
        }
        for e in &p.events {
            out.push_str(&format!(
                "event\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\n",
                e.id,
                e.version,
                escape(&e.task),
                escape(&e.opcode),
                escape(&e.level),
                escape(&e.keywords),
                escape(e.template.as_deref().unwrap_or("")),
                escape(&e.message),
            ));
        }
    }
    out
}

fn number(s: &str) -> Result<u64, String> {
    let r = match s.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16),
        None => s.parse(),
    };
    r.map_err(|_| format!("not a number: {s:?}"))
}

fn small<T: TryFrom<u64>>(s: &str, what: &str) -> Result<T, String> {
    T::try_from(number(s)?).map_err(|_| format!("{what} out of range: {s}"))
}

fn extent(s: &str, fields_so_far: usize) -> Result<Extent, String> {
    if s.is_empty() {
        return Ok(Extent::Default);
    }
    if let Some(i) = s.strip_prefix('@') {
        let i: u16 = small(i, "field reference")?;
        if usize::from(i) >= fields_so_far {
            return Err(format!("@{i} refers to no earlier field"));
        }
        return Ok(Extent::Field(i));
    }
    Ok(Extent::Fixed(small(s, "extent")?))
}

fn parse_field(cols: &[&str], fields_so_far: usize) -> Result<Field, String> {
    let [name, in_t, out_t, map, count, length] = cols else {
        return Err(format!("a field has 6 columns, not {}", cols.len()));
    };
    let in_type = if *in_t == "struct" {
        in_type::STRUCT
    } else {
        small(in_t, "in type")?
    };
    let mut f = Field::new(&unescape(name)?, in_type);
    f.out_type = if out_t.is_empty() {
        0
    } else {
        small(out_t, "out type")?
    };
    f.map = Some(unescape(map)?).filter(|m| !m.is_empty());
    f.count = extent(count, fields_so_far)?;
    f.length = extent(length, fields_so_far)?;
    Ok(f)
}

/// The provider a record belongs to.
fn need<'a>(
    p: Option<&'a mut PackProvider>,
    line: usize,
    tag: &str,
) -> Result<&'a mut PackProvider, PackError> {
    p.ok_or_else(|| PackError {
        line,
        message: format!("{tag} before any provider line"),
    })
}

/// Parse a pack's text; the first error names its line.
pub fn parse(text: &str) -> Result<Pack, PackError> {
    let mut pack = Pack::default();
    let mut template: Option<String> = None;
    let mut in_map = false;
    let mut seen_magic = false;
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let err = |message: String| PackError { line, message };
        if line > MAX_LINES {
            return Err(err(format!("more than {MAX_LINES} lines")));
        }
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        if raw.is_empty() || raw.starts_with('#') {
            continue;
        }
        let cols: Vec<&str> = raw.split('\t').collect();
        let (tag, rest) = cols.split_first().map_or(("", &[][..]), |(t, r)| (*t, r));
        if !seen_magic {
            if tag != MAGIC {
                return Err(err(format!("not a schema pack (no {MAGIC:?} line)")));
            }
            let v: u32 = rest
                .first()
                .and_then(|v| v.parse().ok())
                .ok_or_else(|| err("no format version".into()))?;
            if v != VERSION {
                return Err(err(format!(
                    "format version {v}; this etlscope reads version {VERSION}"
                )));
            }
            seen_magic = true;
            continue;
        }
        let provider = pack.providers.last_mut();
        let need = |p| need(p, line, tag);
        match tag {
            "note" => pack
                .notes
                .push(unescape(rest.join("\t").as_str()).map_err(err)?),
            "provider" => {
                let [guid, name] = rest else {
                    return Err(err("provider needs a GUID and a name".into()));
                };
                let guid = Guid::parse(guid.trim_matches(|c| c == '{' || c == '}'))
                    .ok_or_else(|| err(format!("bad provider GUID {guid:?}")))?;
                pack.providers.push(PackProvider {
                    guid,
                    name: unescape(name).map_err(err)?,
                    ..Default::default()
                });
                template = None;
                in_map = false;
            }
            "valuemap" | "bitmap" => {
                let p = need(provider)?;
                let [name] = rest else {
                    return Err(err(format!("{tag} needs one name")));
                };
                p.maps.push(ValueMap {
                    name: unescape(name).map_err(err)?,
                    bitmap: tag == "bitmap",
                    entries: Vec::new(),
                });
                in_map = true;
                template = None;
            }
            "v" => {
                let p = need(provider)?;
                let [v, text] = rest else {
                    return Err(err("a map entry needs a value and a text".into()));
                };
                let m = p
                    .maps
                    .last_mut()
                    .filter(|_| in_map)
                    .ok_or_else(|| err("map entry outside a map".into()))?;
                m.entries
                    .push((number(v).map_err(err)?, unescape(text).map_err(err)?));
            }
            "template" => {
                let p = need(provider)?;
                let [name] = rest else {
                    return Err(err("template needs one name".into()));
                };
                let name = unescape(name).map_err(err)?;
                if p.templates.insert(name.clone(), Vec::new()).is_some() {
                    return Err(err(format!("template {name:?} defined twice")));
                }
                template = Some(name);
                in_map = false;
            }
            "f" | "m" => {
                let p = need(provider)?;
                let fields = template
                    .as_ref()
                    .and_then(|t| p.templates.get_mut(t))
                    .ok_or_else(|| err("field outside a template".into()))?;
                let f = parse_field(rest, fields.len()).map_err(err)?;
                if tag == "f" {
                    fields.push(f);
                } else {
                    let s = fields
                        .last_mut()
                        .filter(|s| s.in_type == in_type::STRUCT)
                        .ok_or_else(|| err("struct member after no struct field".into()))?;
                    if s.members.len() >= MAX_MEMBERS || f.in_type == in_type::STRUCT {
                        return Err(err("too many or nested struct members".into()));
                    }
                    s.members.push(f);
                }
            }
            "event" => {
                let p = need(provider)?;
                let [id, version, task, opcode, level, keywords, tmpl, message] = rest else {
                    return Err(err(format!("an event has 8 columns, not {}", rest.len())));
                };
                let tmpl = unescape(tmpl).map_err(err)?;
                if !tmpl.is_empty() && !p.templates.contains_key(&tmpl) {
                    return Err(err(format!("event refers to unknown template {tmpl:?}")));
                }
                p.events.push(PackEvent {
                    id: small(id, "event id").map_err(err)?,
                    version: small(version, "event version").map_err(err)?,
                    task: unescape(task).map_err(err)?,
                    opcode: unescape(opcode).map_err(err)?,
                    level: unescape(level).map_err(err)?,
                    keywords: unescape(keywords).map_err(err)?,
                    template: Some(tmpl).filter(|t| !t.is_empty()),
                    message: unescape(message).map_err(err)?,
                });
                template = None;
                in_map = false;
            }
            other => return Err(err(format!("unknown record {other:?}"))),
        }
    }
    if !seen_magic {
        return Err(PackError {
            line: 1,
            message: format!("empty: not a schema pack (no {MAGIC:?} line)"),
        });
    }
    Ok(pack)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Pack {
        let g = Guid::parse("7dd42a49-5329-4832-8dfd-43d979153a88").unwrap();
        let mut pid = Field::new("PID", in_type::UINT32);
        pid.out_type = 0;
        let mut blob = Field::new("blob", in_type::BINARY);
        blob.length = Extent::Field(0);
        let mut s = Field::new("pairs", in_type::STRUCT);
        s.count = Extent::Fixed(2);
        s.members = vec![Field::new("a", in_type::UINT8)];
        let mut kind = Field::new("kind", in_type::UINT32);
        kind.map = Some("K\tmap".into());
        let mut templates = BTreeMap::new();
        templates.insert("T1".to_string(), vec![pid, blob, s, kind]);
        Pack {
            notes: vec!["from a test\\here".into()],
            providers: vec![PackProvider {
                guid: g,
                name: "Demo Provider".into(),
                maps: vec![ValueMap {
                    name: "K\tmap".into(),
                    bitmap: true,
                    entries: vec![(1, "One".into()), (4, "Four".into())],
                }],
                templates,
                events: vec![
                    PackEvent {
                        id: 10,
                        version: 0,
                        task: "TcpIp".into(),
                        opcode: "Send".into(),
                        level: "Information".into(),
                        keywords: "ipv4".into(),
                        template: Some("T1".into()),
                        message: "sent %2\nbytes".into(),
                    },
                    PackEvent {
                        id: 11,
                        version: 1,
                        ..Default::default()
                    },
                ],
            }],
        }
    }

    #[test]
    fn a_pack_round_trips_through_its_text() {
        let p = sample();
        let text = write(&p);
        assert_eq!(parse(&text), Ok(p.clone()));
        let schemas: Vec<_> = p.providers[0].schemas().collect();
        assert_eq!(schemas[0].1.event_name, "TcpIp/Send");
        assert_eq!(schemas[0].1.fields.len(), 4);
        assert_eq!(schemas[1].1.event_name, "EventID(11)");
        assert!(schemas[1].1.fields.is_empty());
    }

    #[test]
    fn damaged_packs_name_their_line() {
        let text = write(&sample());
        let cases = [
            ("", 1, "empty"),
            ("hello", 1, "not a schema pack"),
            ("etlscope-pack\t9", 1, "version 9"),
            ("etlscope-pack\t1\nevent\t1", 2, "before any provider"),
            (
                "etlscope-pack\t1\nprovider\tnot-a-guid\tX",
                2,
                "bad provider GUID",
            ),
        ];
        for (t, line, msg) in cases {
            let e = parse(t).unwrap_err();
            assert_eq!(e.line, line, "{t:?}: {e}");
            assert!(e.message.contains(msg), "{t:?}: {e}");
        }
        // Each line of a good pack cut short or garbled fails on that line.
        let lines: Vec<&str> = text.lines().collect();
        for (i, l) in lines.iter().enumerate().skip(1) {
            let mut bad = lines.clone();
            let cut = format!("{}\tzz\t@99", l);
            bad[i] = &cut;
            if let Err(e) = parse(&bad.join("\n")) {
                assert_eq!(e.line, i + 1, "{e}");
            }
        }
        let bad_ref = text.replace("\t@0\n", "\t@7\n");
        let e = parse(&bad_ref).unwrap_err();
        assert!(e.message.contains("@7 refers to no earlier field"), "{e}");
    }

    #[test]
    fn schemas_from_tdh_become_a_pack() {
        let p = sample();
        let schemas: Vec<_> = p.providers[0]
            .schemas()
            .map(|(_, s, e)| (e.id, e.version, s))
            .collect();
        let mut twice = schemas.clone();
        twice.extend(schemas.clone());
        // The same layout under a second id shares its template.
        let mut other = schemas[0].clone();
        other.0 = 99;
        twice.push(other);
        let back = from_schemas(twice);
        let q = &back.providers[0];
        assert_eq!(
            (q.guid, q.name.as_str()),
            (p.providers[0].guid, "Demo Provider")
        );
        assert_eq!(q.events.len(), 3);
        assert_eq!(q.templates.len(), 1);
        assert_eq!(q.events[2].template, q.events[0].template);
        let again: Vec<_> = q.schemas().map(|(k, s, _)| (k, s)).collect();
        let want: Vec<_> = p.providers[0].schemas().map(|(k, s, _)| (k, s)).collect();
        assert_eq!(again[..2], want[..]);
    }

    /// `manifests export`'s maps: an EVENT_MAP_INFO blob as TDH answers it
    /// (@0 NameOffset, @4 Flag, @8 EntryCount, @12 value type, entries of
    /// OutputOffset + Value from @16, strings UTF-16 after them; Microsoft's
    /// tdh.h), read by the traces' parser, kept by the pack's text.
    #[test]
    fn maps_from_tdh_join_their_provider_and_survive_the_text() {
        let mut p = sample();
        let g = p.providers[0].guid;
        let wide = |t: &str| -> Vec<u8> {
            t.encode_utf16()
                .chain([0])
                .flat_map(u16::to_le_bytes)
                .collect()
        };
        let mut blob = Vec::new();
        let (name, up, down) = (wide("LinkState"), wide("Up"), wide("Down"));
        let strings = 16 + 2 * 8;
        for v in [strings as u32, 1, 2, 0] {
            blob.extend(v.to_le_bytes());
        }
        let up_at = strings + name.len();
        let down_at = up_at + up.len();
        for (at, value) in [(up_at, 1u32), (down_at, 2)] {
            blob.extend((at as u32).to_le_bytes());
            blob.extend(value.to_le_bytes());
        }
        blob.extend(&name);
        blob.extend(&up);
        blob.extend(&down);
        let mut payload = g.to_bytes_le().to_vec();
        payload.extend(&blob);
        let (_, map) = super::super::tdh::parse_map_info(&payload).unwrap();
        assert_eq!(
            map.entries,
            vec![(1, "Up".to_string()), (2, "Down".to_string())]
        );
        assert_eq!(add_maps(&mut p, g, [map.clone()]), 1);
        // Again, or for a provider the pack lacks: nothing added.
        assert_eq!(add_maps(&mut p, g, [map.clone()]), 0);
        assert_eq!(add_maps(&mut p, Guid::default(), [map]), 0);
        let back = parse(&write(&p)).unwrap();
        let m = back.providers[0]
            .maps
            .iter()
            .find(|m| m.name == "LinkState")
            .unwrap();
        assert_eq!(
            m.entries,
            vec![(1, "Up".to_string()), (2, "Down".to_string())]
        );
        assert!(!m.bitmap);
    }

    #[test]
    fn merge_keeps_the_first_event_of_an_id_and_version() {
        let mut a = sample();
        let mut b = sample();
        // Same id, version and layout: not taken, whatever its names.
        b.providers[0].events[0].task = "Other".into();
        // A new version: taken, with its template.
        b.providers[0].events[1].version = 2;
        b.providers[0].events[1].template = Some("T2".into());
        b.providers[0]
            .templates
            .insert("T2".into(), vec![Field::new("x", 8)]);
        assert_eq!(a.merge(&b), 1);
        let p = &a.providers[0];
        assert_eq!(p.events[0].task, "TcpIp");
        assert_eq!(p.events[2].template.as_deref(), Some("T2"));
        // Another layout of an id and version already here, under a template
        // name already taken: an alternative after it, its template renamed.
        let mut c = sample();
        c.providers[0]
            .templates
            .insert("T1".into(), vec![Field::new("y", 8)]);
        assert_eq!(a.merge(&c), 1);
        let p = &a.providers[0];
        assert_eq!((p.events[0].id, p.events[1].id), (10, 10));
        assert_eq!(p.events[1].template.as_deref(), Some("T1~2"));
        assert_eq!(parse(&write(&a)), Ok(a.clone()));
    }
}
