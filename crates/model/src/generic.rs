//! Generic Events: every event no specialised table took, with its payload
//! kept in byte arenas (one per buffer) and fields decoded on demand.

use crate::strings::StrId;
use etl::decode::schema::packs::Source;
use etl::decode::schema::registry::{is_manifest_data, is_metadata_key, OPCODE_EVENT_INFO};
use etl::decode::schema::{manifest, tdh, EventSchema, SchemaRegistry};
use etl::decode::tracelogging::out_type;
use etl::decode::{TlField, TlSchema, TlValue};
use etl::Guid;

/// `schema` value of rows without a TraceLogging schema.
pub const NO_SCHEMA: u32 = u32::MAX;

#[derive(Debug, Clone, Default)]
pub struct GenericEventTable {
    /// ns since trace start, sorted.
    pub time: Vec<i64>,
    /// Row in `providers`.
    pub provider: Vec<u32>,
    /// EventHeader event id; the hook id for kernel events; 0 for classic events.
    pub id: Vec<u16>,
    pub opcode: Vec<u8>,
    pub task: Vec<u16>,
    pub level: Vec<u8>,
    pub version: Vec<u8>,
    pub keyword: Vec<u64>,
    /// Header pid / tid, `u32::MAX` when the header has none.
    pub pid: Vec<u32>,
    pub tid: Vec<u32>,
    /// Thread and process rows (`images::NONE` when not attributed).
    pub thread: Vec<u32>,
    pub process: Vec<u32>,
    pub cpu: Vec<u16>,
    /// Event name when known (TraceLogging schema or manifest schema), else empty.
    pub name: Vec<StrId>,
    /// Payload bytes: `arenas[payload_chunk[i]][payload_start[i]..][..payload_len[i]]`
    /// (one chunk per buffer, so building never copies them twice).
    pub payload_chunk: Vec<u32>,
    pub payload_start: Vec<u32>,
    pub payload_len: Vec<u32>,
    pub arenas: Vec<Vec<u8>>,
    /// Row in `schemas`, `NO_SCHEMA` if none.
    pub schema: Vec<u32>,
    pub stack: Vec<u32>,
    pub pointer_size: Vec<u8>,
    /// `etl::HeaderType::to_byte` of the event.
    pub header_type: Vec<u8>,
    pub providers: ProviderTable,
    /// Distinct TraceLogging schema blobs (EVENT_SCHEMA_TL items).
    pub schemas: Vec<Box<[u8]>>,
    /// Row in `registry` of the manifest schema, `NO_SCHEMA` if none.
    pub event_schema: Vec<u32>,
    /// Rows whose payload names their process (Kernel-Network's PID): the
    /// header's pid and process row, kept for the Header Process column
    /// while `pid`/`process` hold the payload's.
    pub header_process: rustc_hash::FxHashMap<u32, (u32, u32)>,
    /// ActivityId and RelatedActivityId of the rows that have either.
    pub activity: rustc_hash::FxHashMap<u32, (Option<Guid>, Option<Guid>)>,
    /// Manifest schemas: the trace's MetaData events over our CLR table,
    /// then the user's and the built-in schema packs.
    pub registry: SchemaRegistry,
}

#[derive(Debug, Clone, Default)]
pub struct ProviderTable {
    pub guid: Vec<Option<Guid>>,
    /// Kernel hook group for kernel events without a GUID.
    pub kernel_group: Vec<Option<u8>>,
    pub name: Vec<StrId>,
}

impl GenericEventTable {
    /// Room for `n` more rows in every per-row column (each column at its
    /// final size at once, not grown by doubling).
    pub fn reserve(&mut self, n: usize) {
        self.time.reserve(n);
        self.keyword.reserve(n);
        self.provider.reserve(n);
        self.pid.reserve(n);
        self.tid.reserve(n);
        self.thread.reserve(n);
        self.process.reserve(n);
        self.name.reserve(n);
        self.payload_chunk.reserve(n);
        self.payload_start.reserve(n);
        self.payload_len.reserve(n);
        self.schema.reserve(n);
        self.stack.reserve(n);
        self.event_schema.reserve(n);
        self.id.reserve(n);
        self.task.reserve(n);
        self.cpu.reserve(n);
        self.opcode.reserve(n);
        self.level.reserve(n);
        self.version.reserve(n);
        self.pointer_size.reserve(n);
        self.header_type.reserve(n);
    }

    /// Bytes held: the columns' capacity, the payloads, the schemas and
    /// the per-row maps (the trace's schema registry is not counted).
    pub fn heap_bytes(&self) -> usize {
        let map_entry = std::mem::size_of::<(u32, (u32, u32))>() + 1;
        let activity_entry = std::mem::size_of::<(u32, (Option<Guid>, Option<Guid>))>() + 1;
        (self.time.capacity() + self.keyword.capacity()) * 8
            + (self.provider.capacity()
                + self.pid.capacity()
                + self.tid.capacity()
                + self.thread.capacity()
                + self.process.capacity()
                + self.name.capacity()
                + self.payload_chunk.capacity()
                + self.payload_start.capacity()
                + self.payload_len.capacity()
                + self.schema.capacity()
                + self.stack.capacity()
                + self.event_schema.capacity())
                * 4
            + (self.id.capacity() + self.task.capacity() + self.cpu.capacity()) * 2
            + self.opcode.capacity()
            + self.level.capacity()
            + self.version.capacity()
            + self.pointer_size.capacity()
            + self.header_type.capacity()
            + self.arenas.iter().map(Vec::capacity).sum::<usize>()
            + self.schemas.iter().map(|s| s.len()).sum::<usize>()
            + self.header_process.capacity() * map_entry
            + self.activity.capacity() * activity_entry
    }

    pub fn len(&self) -> usize {
        self.time.len()
    }
    pub fn is_empty(&self) -> bool {
        self.time.is_empty()
    }

    pub fn payload(&self, i: usize) -> &[u8] {
        let (Some(&c), Some(&s), Some(&n)) = (
            self.payload_chunk.get(i),
            self.payload_start.get(i),
            self.payload_len.get(i),
        ) else {
            return &[];
        };
        let s = s as usize;
        self.arenas
            .get(c as usize)
            .and_then(|a| a.get(s..s + n as usize))
            .unwrap_or(&[])
    }

    /// Field names and values of row `i`: decoded per its TraceLogging
    /// schema when it has one; else the payload as hex under "Payload".
    pub fn fields(&self, i: usize) -> Vec<(String, String)> {
        let payload = self.payload(i);
        let schema = self
            .schema
            .get(i)
            .and_then(|&s| self.schemas.get(s as usize));
        if let Some(blob) = schema {
            let ptr = self.pointer_size.get(i).copied().unwrap_or(8);
            let decoded =
                TlSchema::parse(blob).and_then(|s| s.decode_payload(payload, ptr).map(|v| (s, v)));
            return match decoded {
                // One value per top-level field, in schema order.
                Ok((schema, values)) => values
                    .into_iter()
                    .enumerate()
                    .map(|(k, v)| {
                        let text = match schema.fields.get(k) {
                            Some(f) => show(f, &v.value),
                            None => v.value.to_string(),
                        };
                        (v.name, text)
                    })
                    .collect(),
                Err(e) => vec![("Error".into(), e.to_string())],
            };
        }
        // A pack's schema comes after our typed decoders (docs/schema-packs.md),
        // except Kernel-Network's: its typed decoder reads only the part of
        // the layout the Network table needs, the manifest names every field.
        if !self.schema_from_pack(i) || self.is_kernel_network(i) {
            if let Some(fields) = self.manifest_fields(i) {
                return fields;
            }
        }
        if let Some(d) = self.decode_known(i) {
            return debug_fields(&d);
        }
        if let Some(fields) = self.manifest_fields(i) {
            return fields;
        }
        if payload.is_empty() {
            return Vec::new();
        }
        let hex: String = payload.iter().map(|b| format!("{b:02x}")).collect();
        vec![("Payload".into(), hex)]
    }

    /// Whether row `i`'s manifest schema came from a schema pack (the
    /// user's or the built-in one), not from the trace or our tables.
    pub fn schema_from_pack(&self, i: usize) -> bool {
        self.event_schema
            .get(i)
            .and_then(|&s| self.registry.source(s))
            .is_some_and(|s| matches!(s, Source::User | Source::BuiltIn))
    }

    /// Whether row `i` is a Microsoft-Windows-Kernel-Network event.
    fn is_kernel_network(&self, i: usize) -> bool {
        let provider = self.provider.get(i);
        provider.and_then(|&p| self.providers.guid.get(p as usize).copied().flatten())
            == Some(etl::decode::tcpip::KERNEL_NETWORK)
    }

    /// The manifest schema of row `i`.
    pub fn event_schema(&self, i: usize) -> Option<&EventSchema> {
        self.registry.schema(*self.event_schema.get(i)?)
    }

    /// Row `i` decoded per its manifest schema; a MetaData EventInfo row
    /// as the event it describes.
    fn manifest_fields(&self, i: usize) -> Option<Vec<(String, String)>> {
        let payload = self.payload(i);
        let ptr = self.pointer_size.get(i).copied().unwrap_or(8);
        if let Some(Ok(f)) = self
            .registry
            .decode(*self.event_schema.get(i)?, payload, ptr)
        {
            return Some(f);
        }
        let provider = self
            .provider
            .get(i)
            .and_then(|&p| self.providers.guid.get(p as usize))
            .copied()
            .flatten();
        let opcode = *self.opcode.get(i)?;
        if self.is_manifest_data(i) {
            return manifest::envelope_fields(payload);
        }
        if is_metadata_key(provider, opcode) && opcode != OPCODE_EVENT_INFO {
            let (g, map) = tdh::parse_map_info(payload).ok()?;
            return Some(vec![
                ("ProviderGuid".into(), g.to_string()),
                ("MapName".into(), map.name),
                ("Bitmap".into(), map.bitmap.to_string()),
                ("Entries".into(), map.entries.len().to_string()),
            ]);
        }
        if is_metadata_key(provider, opcode) && opcode == OPCODE_EVENT_INFO {
            let info = tdh::parse_event_info(payload).ok()?;
            let s = info.schema;
            return Some(vec![
                ("Provider".into(), s.provider_name),
                ("ProviderGuid".into(), s.provider.to_string()),
                ("EventId".into(), info.id.to_string()),
                ("Version".into(), info.version.to_string()),
                ("EventName".into(), s.event_name),
                ("Fields".into(), s.fields.len().to_string()),
            ]);
        }
        None
    }

    /// Whether row `i` is an EventSource ManifestData chunk.
    fn is_manifest_data(&self, i: usize) -> bool {
        let header = self
            .header_type
            .get(i)
            .and_then(|&h| etl::HeaderType::from_byte(h));
        match (header, self.id.get(i), self.opcode.get(i)) {
            (Some(h), Some(&id), Some(&op)) => is_manifest_data(h, id, op),
            _ => false,
        }
    }

    /// Whether row `i` shows only as hex: a payload nothing decodes.
    pub fn is_hex_only(&self, i: usize) -> bool {
        if self.payload(i).is_empty() || self.schema.get(i).is_some_and(|&s| s != NO_SCHEMA) {
            return false;
        }
        let provider = self
            .provider
            .get(i)
            .and_then(|&p| self.providers.guid.get(p as usize))
            .copied()
            .flatten();
        if is_metadata_key(provider, self.opcode.get(i).copied().unwrap_or(0))
            || self.is_manifest_data(i)
        {
            return false;
        }
        let ptr = self.pointer_size.get(i).copied().unwrap_or(8);
        let manifest = self
            .event_schema
            .get(i)
            .and_then(|&s| self.registry.decode(s, self.payload(i), ptr));
        !matches!(manifest, Some(Ok(_))) && self.decode_known(i).is_none()
    }

    /// Rows that show only as hex.
    pub fn hex_only_rows(&self) -> usize {
        (0..self.len()).filter(|&i| self.is_hex_only(i)).count()
    }
}

impl GenericEventTable {
    /// Row `i` decoded again by `etl::decode` when it is of a kind the
    /// decoders know (CLR method rundown, SysConfig ...), as their Debug text.
    fn decode_known(&self, i: usize) -> Option<String> {
        let header_type = etl::HeaderType::from_byte(*self.header_type.get(i)?)?;
        let provider = self
            .provider
            .get(i)
            .and_then(|&p| self.providers.guid.get(p as usize));
        let id = *self.id.get(i)?;
        let ev = etl::Event {
            header_type,
            timestamp: 0,
            cpu: 0,
            pid: None,
            tid: None,
            hook_id: header_type.is_kernel().then_some(id),
            provider: provider.copied().flatten(),
            event_id: if header_type.is_kernel() { 0 } else { id },
            opcode: *self.opcode.get(i)?,
            version: u16::from(*self.version.get(i)?),
            level: *self.level.get(i)?,
            channel: 0,
            task: *self.task.get(i)?,
            keyword: *self.keyword.get(i)?,
            flags: 0,
            activity_id: None,
            pointer_size: *self.pointer_size.get(i)?,
            payload: self.payload(i),
            extended: &[],
            buffer_index: 0,
            offset_in_buffer: 0,
        };
        match etl::decode::decode(&ev)? {
            Ok(d) => Some(format!("{d:?}")),
            Err(_) => None,
        }
    }
}

/// `Variant(Struct { a: 1, b: "x", c: Some(P { d: 2 }) })` as [("a", "1"),
/// ("b", "x"), ("c.d", "2")]: a typed decoder's fields as plain text, with
/// no Rust syntax (`Some(..)`, quotes, nested struct names) left in values.
fn debug_fields(text: &str) -> Vec<(String, String)> {
    let Some(inner) = struct_body(text) else {
        return vec![("Decoded".into(), plain(text))];
    };
    let mut out = Vec::new();
    for (k, v) in split_top(inner) {
        flatten(&k, &v, &mut out, 0);
    }
    out
}

/// The `a: 1, b: 2` inside the outermost `Name { .. }` of `text`.
fn struct_body(text: &str) -> Option<&str> {
    let a = text.find(" { ")?;
    let b = text.rfind(" }")?;
    text.get(a + 3..b)
}

fn flatten(key: &str, value: &str, out: &mut Vec<(String, String)>, depth: usize) {
    let mut v = value.trim();
    while let Some(inner) = v.strip_prefix("Some(").and_then(|x| x.strip_suffix(')')) {
        v = inner.trim();
    }
    let nested = v.starts_with(|c: char| c.is_ascii_uppercase()) && v.ends_with(" }");
    match struct_body(v) {
        Some(body) if nested && depth < 4 => {
            for (k, x) in split_top(body) {
                flatten(&format!("{key}.{k}"), &x, out, depth + 1);
            }
        }
        _ if v == "None" => out.push((key.to_string(), String::new())),
        _ => out.push((key.to_string(), plain(v))),
    }
}

/// A Debug value without quotes and escapes.
fn plain(v: &str) -> String {
    match v.strip_prefix('"').and_then(|x| x.strip_suffix('"')) {
        Some(s) => s.replace("\\\"", "\"").replace("\\\\", "\\"),
        None => v.to_string(),
    }
}

/// `a: 1, b: [2, 3]` split at top-level commas into (key, value) pairs.
fn split_top(inner: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let (mut depth, mut quoted, mut escaped, mut start) = (0i32, false, false, 0usize);
    let mut push = |part: &str| {
        if let Some((k, v)) = part.split_once(": ") {
            out.push((k.trim().to_string(), v.trim().to_string()));
        }
    };
    for (k, c) in inner.char_indices() {
        if quoted {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => quoted = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => quoted = true,
            '{' | '[' | '(' => depth += 1,
            '}' | ']' | ')' => depth -= 1,
            ',' if depth == 0 => {
                push(inner.get(start..k).unwrap_or(""));
                start = k + 1;
            }
            _ => {}
        }
    }
    push(inner.get(start..).unwrap_or(""));
    out
}

/// A value as WPA shows it: integers declared BOOLEAN as true/false, 8- and
/// 16-bit integers declared STRING as characters, FILETIMEs as UTC dates.
fn show(field: &TlField, v: &TlValue) -> String {
    let int = match *v {
        TlValue::U8(x) => Some(u64::from(x)),
        TlValue::U16(x) => Some(u64::from(x)),
        TlValue::U32(x) => Some(u64::from(x)),
        TlValue::I8(x) => Some(x as u8 as u64),
        _ => None,
    };
    match (field.out_type, int, v) {
        (out_type::BOOLEAN, Some(x), _) => (x != 0).to_string(),
        (out_type::STRING, Some(x), TlValue::U8(_) | TlValue::U16(_) | TlValue::I8(_)) => {
            char::from_u32(x as u32).map_or_else(|| x.to_string(), String::from)
        }
        (_, _, TlValue::FileTime(ft)) => etl::logfile::filetime_to_iso8601(*ft as i64),
        _ => v.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::debug_fields;

    #[test]
    fn typed_decoder_fields_as_plain_text() {
        let f = debug_fields(
            r#"ClrModule(ClrModule { kind: Load, name: "a, {b}\" c", ids: [1, 2], id: Some(11), none: None, pdb: Some(ClrPdb { guid: 1-2, age: 3 }) })"#,
        );
        let want = [
            ("kind", "Load"),
            ("name", r#"a, {b}" c"#),
            ("ids", "[1, 2]"),
            ("id", "11"),
            ("none", ""),
            ("pdb.guid", "1-2"),
            ("pdb.age", "3"),
        ];
        let want: Vec<(String, String)> = want
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        assert_eq!(f, want);
        assert_eq!(
            debug_fields("Odd"),
            [("Decoded".to_string(), "Odd".to_string())]
        );
    }
}
