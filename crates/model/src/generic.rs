//! Generic Events: every event no specialised table took, with its payload
//! kept in byte arenas (one per buffer) and fields decoded on demand.

use crate::strings::StrId;
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
    /// Event name when known (TraceLogging schema), else empty.
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
    pub providers: ProviderTable,
    /// Distinct TraceLogging schema blobs (EVENT_SCHEMA_TL items).
    pub schemas: Vec<Box<[u8]>>,
}

#[derive(Debug, Clone, Default)]
pub struct ProviderTable {
    pub guid: Vec<Option<Guid>>,
    /// Kernel hook group for kernel events without a GUID.
    pub kernel_group: Vec<Option<u8>>,
    pub name: Vec<StrId>,
}

impl GenericEventTable {
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
        if payload.is_empty() {
            return Vec::new();
        }
        let hex: String = payload.iter().map(|b| format!("{b:02x}")).collect();
        vec![("Payload".into(), hex)]
    }
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
