//! TraceLogging / self-describing EventSource events: the EVENT_SCHEMA_TL
//! extended item (type 11) describes the payload; this parses it into an
//! event name and a field tree, then decodes the payload into named values.
//!
//! Metadata (TraceLoggingProvider.h conventions, etl-format F.4): u16 blob
//! size; event tags as 1..4 bytes, 0x80 = another byte follows; event name
//! (UTF-8 z); then per field: name (UTF-8 z), u8 InType; if InType & 0x80 a
//! u8 OutType; if OutType & 0x80 field tags (chained like event tags); a u16
//! count in the metadata for constant-count arrays; a u16 size + schema
//! bytes for custom types. InType bits 0x60: 0x20 constant-count array,
//! 0x40 variable-count array (u16 count in the payload), 0x60 custom.
//! InType 24 is a struct whose OutType (low 7 bits) is its field count.
//! Payload fields are packed in order, without alignment.

use super::reader::{DecodeError, DecodeErrorKind, Reader, Result};
use super::Decode;
use crate::extended::ext_type;
use crate::{Event, Guid};
use std::fmt;

/// TraceLogging base types (low 5 bits of InType).
pub mod in_type {
    pub const NULL: u8 = 0;
    pub const UNICODE_STRING: u8 = 1;
    pub const ANSI_STRING: u8 = 2;
    pub const INT8: u8 = 3;
    pub const UINT8: u8 = 4;
    pub const INT16: u8 = 5;
    pub const UINT16: u8 = 6;
    pub const INT32: u8 = 7;
    pub const UINT32: u8 = 8;
    pub const INT64: u8 = 9;
    pub const UINT64: u8 = 10;
    pub const FLOAT: u8 = 11;
    pub const DOUBLE: u8 = 12;
    pub const BOOL32: u8 = 13;
    pub const BINARY: u8 = 14;
    pub const GUID: u8 = 15;
    pub const POINTER: u8 = 16;
    pub const FILETIME: u8 = 17;
    pub const SYSTEMTIME: u8 = 18;
    pub const SID: u8 = 19;
    pub const HEXINT32: u8 = 20;
    pub const HEXINT64: u8 = 21;
    pub const COUNTED_STRING: u8 = 22;
    pub const COUNTED_ANSI_STRING: u8 = 23;
    pub const STRUCT: u8 = 24;
    pub const COUNTED_BINARY: u8 = 25;
}

/// Common OutType values (how to show a value).
pub mod out_type {
    pub const STRING: u8 = 2;
    pub const BOOLEAN: u8 = 3;
    pub const HEX: u8 = 4;
}

/// Deepest struct nesting accepted.
const MAX_DEPTH: usize = 32;
/// Most values one payload may produce: an event payload is at most 64 KiB,
/// so only zero-size elements (empty structs) could exceed this.
const MAX_VALUES: usize = 1 << 17;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TlCount {
    Single,
    /// Constant-count array, the count stored in the metadata.
    Fixed(u16),
    /// Variable-count array, a u16 count before the elements in the payload.
    Variable,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlField {
    pub name: String,
    /// Base type (InType & 0x1F).
    pub in_type: u8,
    /// OutType without its chain bit (0 when absent). For structs: the field count.
    pub out_type: u8,
    pub tags: u32,
    pub count: TlCount,
    /// Custom types (InType count bits 0x60): the schema bytes.
    pub custom_schema: Option<Vec<u8>>,
    /// Struct members.
    pub fields: Vec<TlField>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlSchema {
    pub name: String,
    pub tags: u32,
    pub fields: Vec<TlField>,
}

/// A decoded value. Integers keep their declared width; `TlField::out_type`
/// says how to show them (e.g. a UINT8 with OutType BOOLEAN).
#[derive(Debug, Clone, PartialEq)]
pub enum TlValue {
    I8(i8),
    U8(u8),
    I16(i16),
    U16(u16),
    I32(i32),
    U32(u32),
    I64(i64),
    U64(u64),
    F32(f32),
    F64(f64),
    Bool(bool),
    String(String),
    Binary(Vec<u8>),
    Guid(Guid),
    Pointer(u64),
    /// 100 ns intervals since 1601-01-01 UTC.
    FileTime(u64),
    /// Year, month, day of week, day, hour, minute, second, milliseconds.
    SystemTime([u16; 8]),
    Sid(String),
    HexInt32(u32),
    HexInt64(u64),
    Array(Vec<TlValue>),
    Struct(Vec<TlNamedValue>),
    /// A custom-typed field: its raw bytes.
    Custom(Vec<u8>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct TlNamedValue {
    pub name: String,
    pub value: TlValue,
}

/// A decoded TraceLogging event: name and field values.
#[derive(Debug, Clone, PartialEq)]
pub struct TlEvent {
    pub name: String,
    pub fields: Vec<TlNamedValue>,
}

impl TlEvent {
    pub fn field(&self, name: &str) -> Option<&TlValue> {
        self.fields
            .iter()
            .find(|f| f.name == name)
            .map(|f| &f.value)
    }
}

/// Tags: 1..4 bytes of 7 bits each, 0x80 = another byte follows.
fn read_tags(r: &mut Reader<'_>) -> Result<u32> {
    let mut tags = 0u32;
    for i in 0..4 {
        let b = r.u8()?;
        tags |= u32::from(b & 0x7F) << (21 - 7 * i);
        if b & 0x80 == 0 {
            return Ok(tags);
        }
    }
    Err(r.malformed("tags longer than 4 bytes"))
}

impl TlSchema {
    /// Parse an EVENT_SCHEMA_TL blob (the extended item's data).
    pub fn parse(blob: &[u8]) -> Result<TlSchema> {
        let mut r = Reader::new(blob, 8, "TraceLoggingSchema");
        let size = r.u16()? as usize;
        if size < 2 || size > blob.len() {
            return Err(r.malformed("metadata size does not fit the item"));
        }
        let mut r = Reader::new(blob.get(..size).unwrap_or(&[]), 8, "TraceLoggingSchema");
        r.skip(2)?;
        let tags = read_tags(&mut r)?;
        let name = r.cstr()?;
        let mut flat = Vec::new();
        while !r.at_end() {
            flat.push(read_field(&mut r)?);
        }
        let mut it = flat.into_iter();
        let mut fields = Vec::new();
        while let Some(f) = nest(&mut it, 0)? {
            fields.push(f);
        }
        Ok(TlSchema { name, tags, fields })
    }

    /// Decode a payload laid out per this schema.
    pub fn decode_payload(&self, payload: &[u8], pointer_size: u8) -> Result<Vec<TlNamedValue>> {
        let mut r = Reader::new(payload, pointer_size, "TraceLogging");
        let mut budget = MAX_VALUES;
        let v = read_fields(&mut r, &self.fields, &mut budget)?;
        Ok(v)
    }
}

fn read_field(r: &mut Reader<'_>) -> Result<TlField> {
    let name = r.cstr()?;
    let raw_in = r.u8()?;
    let mut out = 0u8;
    let mut tags = 0u32;
    if raw_in & 0x80 != 0 {
        let raw_out = r.u8()?;
        out = raw_out & 0x7F;
        if raw_out & 0x80 != 0 {
            tags = read_tags(r)?;
        }
    }
    let mut count = TlCount::Single;
    let mut custom_schema = None;
    match raw_in & 0x60 {
        0x20 => count = TlCount::Fixed(r.u16()?),
        0x40 => count = TlCount::Variable,
        0x60 => {
            let n = r.u16()? as usize;
            custom_schema = Some(r.bytes(n)?.to_vec());
        }
        _ => {}
    }
    Ok(TlField {
        name,
        in_type: raw_in & 0x1F,
        out_type: out,
        tags,
        count,
        custom_schema,
        fields: Vec::new(),
    })
}

/// Attach to each struct the fields that follow it (its OutType counts them).
fn nest(it: &mut impl Iterator<Item = TlField>, depth: usize) -> Result<Option<TlField>> {
    let Some(mut f) = it.next() else {
        return Ok(None);
    };
    if f.in_type == in_type::STRUCT && f.custom_schema.is_none() {
        if depth >= MAX_DEPTH {
            return Err(schema_error("structs nested too deeply"));
        }
        for _ in 0..f.out_type {
            match nest(it, depth + 1)? {
                Some(c) => f.fields.push(c),
                None => return Err(schema_error("struct has fewer fields than declared")),
            }
        }
    }
    Ok(Some(f))
}

fn schema_error(why: &'static str) -> DecodeError {
    DecodeError {
        event: "TraceLoggingSchema",
        offset: 0,
        kind: DecodeErrorKind::Malformed(why),
    }
}

fn read_fields(
    r: &mut Reader<'_>,
    fields: &[TlField],
    budget: &mut usize,
) -> Result<Vec<TlNamedValue>> {
    let mut out = Vec::with_capacity(fields.len());
    for f in fields {
        let value = read_field_value(r, f, budget)?;
        out.push(TlNamedValue {
            name: f.name.clone(),
            value,
        });
    }
    Ok(out)
}

fn read_field_value(r: &mut Reader<'_>, f: &TlField, budget: &mut usize) -> Result<TlValue> {
    if f.custom_schema.is_some() {
        let n = r.u16()? as usize;
        return Ok(TlValue::Custom(r.bytes(n)?.to_vec()));
    }
    let n = match f.count {
        TlCount::Single => return read_one(r, f, budget),
        TlCount::Fixed(n) => n,
        TlCount::Variable => r.u16()?,
    };
    let mut items = Vec::new();
    for _ in 0..n {
        items.push(read_one(r, f, budget)?);
    }
    Ok(TlValue::Array(items))
}

fn counted(r: &mut Reader<'_>) -> Result<Vec<u8>> {
    let n = r.u16()? as usize;
    Ok(r.bytes(n)?.to_vec())
}

fn read_one(r: &mut Reader<'_>, f: &TlField, budget: &mut usize) -> Result<TlValue> {
    if *budget == 0 {
        return Err(r.malformed("too many values in one payload"));
    }
    *budget -= 1;
    use in_type as t;
    Ok(match f.in_type {
        t::UNICODE_STRING => TlValue::String(r.utf16z()?),
        t::ANSI_STRING => TlValue::String(r.cstr()?),
        t::INT8 => TlValue::I8(r.i8()?),
        t::UINT8 => TlValue::U8(r.u8()?),
        t::INT16 => TlValue::I16(r.i16()?),
        t::UINT16 => TlValue::U16(r.u16()?),
        t::INT32 => TlValue::I32(r.i32()?),
        t::UINT32 => TlValue::U32(r.u32()?),
        t::INT64 => TlValue::I64(r.i64()?),
        t::UINT64 => TlValue::U64(r.u64()?),
        t::FLOAT => TlValue::F32(r.f32()?),
        t::DOUBLE => TlValue::F64(r.f64()?),
        t::BOOL32 => TlValue::Bool(r.i32()? != 0),
        t::BINARY | t::COUNTED_BINARY => TlValue::Binary(counted(r)?),
        t::GUID => TlValue::Guid(r.guid()?),
        t::POINTER => TlValue::Pointer(r.ptr()?),
        t::FILETIME => TlValue::FileTime(r.u64()?),
        t::SYSTEMTIME => {
            let mut st = [0u16; 8];
            for v in st.iter_mut() {
                *v = r.u16()?;
            }
            TlValue::SystemTime(st)
        }
        t::SID => {
            let sid = sid_string(r)?;
            TlValue::Sid(sid)
        }
        t::HEXINT32 => TlValue::HexInt32(r.u32()?),
        t::HEXINT64 => TlValue::HexInt64(r.u64()?),
        t::COUNTED_STRING => TlValue::String(super::reader::decode_utf16(&counted(r)?)),
        t::COUNTED_ANSI_STRING => TlValue::String(super::reader::decode_8bit(&counted(r)?)),
        t::STRUCT => TlValue::Struct(read_fields(r, &f.fields, budget)?),
        _ => return Err(r.malformed("unknown TraceLogging field type")),
    })
}

/// A SID in the payload: revision, n sub-authorities, 6-byte authority, n u32.
fn sid_string(r: &mut Reader<'_>) -> Result<String> {
    let revision = r.u8()?;
    let n = r.u8()?;
    let auth = r
        .bytes(6)?
        .iter()
        .fold(0u64, |a, &b| (a << 8) | u64::from(b));
    let mut s = format!("S-{revision}-{auth}");
    for _ in 0..n {
        s.push_str(&format!("-{}", r.u32()?));
    }
    Ok(s)
}

impl fmt::Display for TlValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TlValue::I8(v) => write!(f, "{v}"),
            TlValue::U8(v) => write!(f, "{v}"),
            TlValue::I16(v) => write!(f, "{v}"),
            TlValue::U16(v) => write!(f, "{v}"),
            TlValue::I32(v) => write!(f, "{v}"),
            TlValue::U32(v) => write!(f, "{v}"),
            TlValue::I64(v) => write!(f, "{v}"),
            TlValue::U64(v) => write!(f, "{v}"),
            TlValue::F32(v) => write!(f, "{v}"),
            TlValue::F64(v) => write!(f, "{v}"),
            TlValue::Bool(v) => write!(f, "{v}"),
            TlValue::String(s) | TlValue::Sid(s) => write!(f, "{s}"),
            TlValue::Binary(b) | TlValue::Custom(b) => {
                b.iter().try_for_each(|x| write!(f, "{x:02x}"))
            }
            TlValue::Guid(g) => write!(f, "{g}"),
            TlValue::Pointer(v) | TlValue::HexInt64(v) => write!(f, "{v:#x}"),
            TlValue::HexInt32(v) => write!(f, "{v:#x}"),
            TlValue::FileTime(v) => write!(f, "filetime:{v}"),
            TlValue::SystemTime(s) => write!(
                f,
                "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}",
                s[0], s[1], s[3], s[4], s[5], s[6], s[7]
            ),
            TlValue::Array(items) => {
                write!(f, "[")?;
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{v}")?;
                }
                write!(f, "]")
            }
            TlValue::Struct(fields) => {
                write!(f, "{{")?;
                for (i, v) in fields.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{}: {}", v.name, v.value)?;
                }
                write!(f, "}}")
            }
        }
    }
}

/// The TraceLogging schema of an event, if its extended data has one.
pub fn schema(ev: &Event<'_>) -> Option<Result<TlSchema>> {
    let item = ev
        .extended_items()
        .find(|i| i.ext_type == ext_type::EVENT_SCHEMA_TL)?;
    Some(TlSchema::parse(item.data))
}

/// The provider name from a PROV_TRAITS item (u16 size, UTF-8 z name, traits).
pub fn provider_name(ev: &Event<'_>) -> Option<String> {
    let item = ev
        .extended_items()
        .find(|i| i.ext_type == ext_type::PROV_TRAITS)?;
    let mut r = Reader::new(item.data, 8, "ProviderTraits");
    r.skip(2).ok()?;
    r.cstr().ok()
}

impl<'a> Decode<'a> for TlEvent {
    const NAME: &'static str = "TraceLogging";

    fn read(ev: &Event<'a>, r: &mut Reader<'a>) -> Result<TlEvent> {
        let schema = schema(ev).ok_or_else(|| r.malformed("no TraceLogging schema"))??;
        let mut budget = MAX_VALUES;
        let fields = read_fields(r, &schema.fields, &mut budget)?;
        Ok(TlEvent {
            name: schema.name,
            fields,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blob(body: &[u8]) -> Vec<u8> {
        let mut b = ((body.len() + 2) as u16).to_le_bytes().to_vec();
        b.extend(body);
        b
    }

    #[test]
    fn arrays_nested_structs_and_counted_types() {
        let mut m = vec![0x00]; // no tags
        m.extend(b"Ev\0");
        m.extend(b"list\0\x46"); // variable-count u16 array
        m.extend(b"fixed\0\x23\x02\x00"); // constant-count (2) i8 array
        m.extend(b"outer\0\x98\x02"); // struct of 2 fields (InType 24 | 0x80, OutType 2)
        m.extend(b"inner\0\x98\x01"); // struct of 1 field
        m.extend(b"x\0\x08"); // u32
        m.extend(b"s\0\x16"); // counted UTF-16
        m.extend(b"tagged\0\x84\x83\x05"); // u8, OutType boolean with tags
        let schema = TlSchema::parse(&blob(&m)).unwrap();
        assert_eq!(schema.name, "Ev");
        assert_eq!(schema.fields.len(), 4);
        assert_eq!(schema.fields[2].fields.len(), 2);
        assert_eq!(schema.fields[3].out_type, out_type::BOOLEAN);
        assert_eq!(schema.fields[3].tags, 5 << 21);

        let mut p = Vec::new();
        p.extend(2u16.to_le_bytes());
        p.extend(7u16.to_le_bytes());
        p.extend(8u16.to_le_bytes());
        p.extend([0xFFu8, 1]);
        p.extend(42u32.to_le_bytes());
        p.extend(4u16.to_le_bytes());
        p.extend([b'h', 0, b'i', 0]);
        p.push(1);
        let v = schema.decode_payload(&p, 8).unwrap();
        assert_eq!(
            v[0].value,
            TlValue::Array(vec![TlValue::U16(7), TlValue::U16(8)])
        );
        assert_eq!(
            v[1].value,
            TlValue::Array(vec![TlValue::I8(-1), TlValue::I8(1)])
        );
        assert_eq!(v[2].value.to_string(), "{inner: {x: 42}, s: hi}");
        assert_eq!(v[3].value, TlValue::U8(1));
        assert!(schema.decode_payload(&p[..p.len() - 1], 8).is_err());
    }

    #[test]
    fn struct_missing_fields_is_an_error() {
        let mut m = vec![0x00];
        m.extend(b"Ev\0a\0\x98\x03b\0\x04");
        assert!(TlSchema::parse(&blob(&m)).is_err());
        assert!(TlSchema::parse(&[0xFF, 0xFF, 0]).is_err());
    }

    #[test]
    fn pointer_follows_the_event_pointer_size() {
        let mut m = vec![0x00];
        m.extend(b"Ev\0p\0\x10");
        let s = TlSchema::parse(&blob(&m)).unwrap();
        let v = s.decode_payload(&[1, 0, 0, 0], 4).unwrap();
        assert_eq!(v[0].value, TlValue::Pointer(1));
    }
}
