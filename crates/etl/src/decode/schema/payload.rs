//! A payload decoded per a schema's fields into `(name, text)` pairs, the
//! text as WPA shows it: decimal integers, pointers and hex types as `0x..`,
//! strings, GUIDs, SIDs, FILETIME/SYSTEMTIME as ISO dates, IP addresses,
//! map and bitmap values by name. Arrays and structs nest as `[..]`/`{..}`.

use super::{in_type as t, out_type as o, Extent, Field, ValueMap};
use crate::decode::reader::{decode_8bit, decode_utf16, Reader, Result};
use crate::logfile::filetime_to_iso8601;

/// Decoded fields: (name, text) in schema order.
pub type Fields = Vec<(String, String)>;

/// Most array elements decoded from one field: a payload is at most 64 KiB.
const MAX_ELEMENTS: usize = 1 << 16;
/// Most values one payload may produce: only zero-size elements (empty
/// structs) could exceed it, and nested they would multiply without end.
const MAX_VALUES: usize = 1 << 17;

/// Decode `payload` with `fields`; `maps` finds a provider's value maps.
pub fn decode_fields<'m>(
    fields: &[Field],
    payload: &[u8],
    pointer_size: u8,
    maps: &dyn Fn(&str) -> Option<&'m ValueMap>,
) -> Result<Fields> {
    decode_measured(fields, payload, pointer_size, maps).map(|(v, _)| v)
}

/// As [`decode_fields`], also returning how many payload bytes the fields
/// took (a layout that fits leaves none).
pub fn decode_measured<'m>(
    fields: &[Field],
    payload: &[u8],
    pointer_size: u8,
    maps: &dyn Fn(&str) -> Option<&'m ValueMap>,
) -> Result<(Fields, usize)> {
    let mut r = Reader::new(payload, pointer_size, "ManifestEvent");
    let mut ints: Vec<Option<u64>> = Vec::with_capacity(fields.len());
    let mut out = Vec::with_capacity(fields.len());
    let mut budget = MAX_VALUES;
    for f in fields {
        let (text, int) = read_field(&mut r, f, &ints, maps, &mut budget)?;
        ints.push(int);
        out.push((f.name.clone(), text));
    }
    Ok((out, r.pos()))
}

fn extent(e: Extent, ints: &[Option<u64>]) -> Option<u64> {
    match e {
        Extent::Default => None,
        Extent::Fixed(n) => Some(u64::from(n)),
        // A count or length field that is not an integer counts 0.
        Extent::Field(i) => Some(ints.get(usize::from(i)).copied().flatten().unwrap_or(0)),
    }
}

fn read_field<'m>(
    r: &mut Reader<'_>,
    f: &Field,
    ints: &[Option<u64>],
    maps: &dyn Fn(&str) -> Option<&'m ValueMap>,
    budget: &mut usize,
) -> Result<(String, Option<u64>)> {
    let is_string = matches!(
        f.in_type,
        t::UNICODE_STRING | t::ANSI_STRING | t::BINARY | t::HEXDUMP
    );
    match extent(f.count, ints) {
        // A fixed count of 1 on a field is one value, as TDH shows it.
        None | Some(1) if !matches!(f.count, Extent::Field(_)) => {
            read_one(r, f, ints, maps, budget)
        }
        n => {
            let n = n.unwrap_or(0) as usize;
            if n > MAX_ELEMENTS || (n > r.remaining() && !is_string && f.in_type != t::STRUCT) {
                return Err(r.malformed("array longer than the payload"));
            }
            let mut items = Vec::with_capacity(n.min(256));
            for _ in 0..n {
                items.push(read_one(r, f, ints, maps, budget)?.0);
            }
            Ok((format!("[{}]", items.join(", ")), None))
        }
    }
}

fn hex(v: u64) -> String {
    format!("{v:#x}")
}

fn read_one<'m>(
    r: &mut Reader<'_>,
    f: &Field,
    ints: &[Option<u64>],
    maps: &dyn Fn(&str) -> Option<&'m ValueMap>,
    budget: &mut usize,
) -> Result<(String, Option<u64>)> {
    *budget = budget
        .checked_sub(1)
        .ok_or_else(|| r.malformed("too many values in one payload"))?;
    let len = extent(f.length, ints).map(|n| n as usize);
    let int = |v: u64, signed: Option<i64>| -> (String, Option<u64>) {
        let mapped = f.map.as_deref().and_then(maps).and_then(|m| m.show(v));
        let text = match (mapped, f.out_type) {
            (Some(s), _) => s,
            (None, o::HEXINT8 | o::HEXINT16 | o::HEXINT32 | o::HEXINT64) => hex(v),
            (None, o::WIN32ERROR | o::NTSTATUS | o::HRESULT) => hex(v),
            (None, o::BOOLEAN) => (v != 0).to_string(),
            (None, o::IPV4) => ipv4(v as u32),
            (None, o::PORT) => (v as u16).swap_bytes().to_string(),
            (None, _) => signed.map_or_else(|| v.to_string(), |s| s.to_string()),
        };
        (text, Some(v))
    };
    Ok(match f.in_type {
        t::STRUCT => {
            let mut inner_ints = Vec::new();
            let mut parts = Vec::new();
            for m in &f.members {
                let (text, i) = read_field(r, m, &inner_ints, maps, budget)?;
                inner_ints.push(i);
                parts.push(format!("{}: {text}", m.name));
            }
            (format!("{{{}}}", parts.join(", ")), None)
        }
        t::UNICODE_STRING | t::NON_NULL_TERMINATED_STRING => match len {
            Some(n) => (r.fixed_utf16(n)?, None),
            // A string with no terminator runs to the end of the payload,
            // as TDH reads it (HttpService's Parse ends with its Url so).
            None if f.in_type == t::UNICODE_STRING => match r.utf16z() {
                Ok(s) => (s, None),
                Err(_) => (decode_utf16(r.rest()), None),
            },
            None => (decode_utf16(r.rest()), None),
        },
        t::ANSI_STRING | t::NON_NULL_TERMINATED_ANSI_STRING => match len {
            Some(n) => {
                let b = r.bytes(n)?;
                let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
                (decode_8bit(b.get(..end).unwrap_or(&[])), None)
            }
            None if f.in_type == t::ANSI_STRING => match r.cstr() {
                Ok(s) => (s, None),
                Err(_) => (decode_8bit(r.rest()), None),
            },
            None => (decode_8bit(r.rest()), None),
        },
        t::COUNTED_STRING | t::MANIFEST_COUNTED_STRING => {
            let n = r.u16()? as usize;
            (decode_utf16(r.bytes(n)?), None)
        }
        t::COUNTED_ANSI_STRING | t::MANIFEST_COUNTED_ANSI_STRING => {
            let n = r.u16()? as usize;
            (decode_8bit(r.bytes(n)?), None)
        }
        t::REVERSED_COUNTED_STRING => {
            let n = r.u16()?.swap_bytes() as usize;
            (decode_utf16(r.bytes(n)?), None)
        }
        t::REVERSED_COUNTED_ANSI_STRING => {
            let n = r.u16()?.swap_bytes() as usize;
            (decode_8bit(r.bytes(n)?), None)
        }
        t::UNICODE_CHAR => {
            let c = r.u16()?;
            (decode_utf16(&c.to_le_bytes()), Some(u64::from(c)))
        }
        t::ANSI_CHAR => {
            let c = r.u8()?;
            (char::from(c).to_string(), Some(u64::from(c)))
        }
        t::INT8 => {
            let v = r.i8()?;
            int(v as u8 as u64, Some(i64::from(v)))
        }
        t::UINT8 => int(u64::from(r.u8()?), None),
        t::INT16 => {
            let v = r.i16()?;
            int(v as u16 as u64, Some(i64::from(v)))
        }
        t::UINT16 => int(u64::from(r.u16()?), None),
        t::INT32 => {
            let v = r.i32()?;
            int(v as u32 as u64, Some(i64::from(v)))
        }
        t::UINT32 => int(u64::from(r.u32()?), None),
        t::INT64 => {
            let v = r.i64()?;
            int(v as u64, Some(v))
        }
        t::UINT64 => int(r.u64()?, None),
        t::HEXINT32 => {
            let v = u64::from(r.u32()?);
            (hex(v), Some(v))
        }
        t::HEXINT64 => {
            let v = r.u64()?;
            (hex(v), Some(v))
        }
        t::POINTER | t::SIZET => {
            let v = r.ptr()?;
            (hex(v), Some(v))
        }
        t::FLOAT => (r.f32()?.to_string(), None),
        t::DOUBLE => (r.f64()?.to_string(), None),
        t::BOOLEAN => {
            let v = r.u32()?;
            let mapped = f
                .map
                .as_deref()
                .and_then(maps)
                .and_then(|m| m.show(u64::from(v)));
            (
                mapped.unwrap_or_else(|| (v != 0).to_string()),
                Some(u64::from(v)),
            )
        }
        t::BINARY | t::HEXDUMP | t::MANIFEST_COUNTED_BINARY => {
            let n = match (f.in_type, len) {
                (t::HEXDUMP | t::MANIFEST_COUNTED_BINARY, _) => r.u32().map(|n| n as usize)?,
                (_, Some(n)) => n,
                (_, None) => r.remaining(),
            };
            let b = r.bytes(n)?;
            let text = match (f.out_type, b.len()) {
                (o::IPV6, 16) => ipv6(b),
                (o::SOCKETADDRESS, _) => socket_address(b),
                _ => b.iter().map(|x| format!("{x:02x}")).collect(),
            };
            (text, None)
        }
        t::GUID => (r.guid()?.to_string(), None),
        t::FILETIME => (filetime_to_iso8601(r.i64()?), None),
        t::SYSTEMTIME => {
            let mut s = [0u16; 8];
            for v in s.iter_mut() {
                *v = r.u16()?;
            }
            (
                format!(
                    "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}",
                    s[0], s[1], s[3], s[4], s[5], s[6], s[7]
                ),
                None,
            )
        }
        t::SID => (sid(r)?, None),
        t::WBEM_SID => {
            // TOKEN_USER first: a pointer and a u32, padded to 2 pointers.
            let p = usize::from(r.pointer_size());
            r.skip(2 * p)?;
            (sid(r)?, None)
        }
        _ => return Err(r.malformed("unknown TDH in-type")),
    })
}

/// A SID: revision, n sub-authorities, 6-byte authority, n u32.
pub fn sid(r: &mut Reader<'_>) -> Result<String> {
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

/// An IPv4 address stored in network order in a little-endian u32.
fn ipv4(v: u32) -> String {
    let b = v.to_le_bytes();
    format!("{}.{}.{}.{}", b[0], b[1], b[2], b[3])
}

fn ipv6(b: &[u8]) -> String {
    let words: Vec<String> = b
        .chunks_exact(2)
        .map(|c| format!("{:x}", u16::from_be_bytes([c[0], c[1]])))
        .collect();
    words.join(":")
}

/// SOCKADDR_IN / SOCKADDR_IN6 as `addr:port`, else hex.
fn socket_address(b: &[u8]) -> String {
    let family = b.get(..2).map(|f| u16::from_le_bytes([f[0], f[1]]));
    let port = b.get(2..4).map(|p| u16::from_be_bytes([p[0], p[1]]));
    match (family, port, b.get(4..8), b.get(8..24)) {
        (Some(2), Some(port), Some(a), _) => {
            format!("{}.{}.{}.{}:{port}", a[0], a[1], a[2], a[3])
        }
        (Some(23), Some(port), _, Some(a)) => format!("[{}]:{port}", ipv6(a)),
        _ => b.iter().map(|x| format!("{x:02x}")).collect(),
    }
}
