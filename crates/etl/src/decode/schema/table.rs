//! The line format of our own schema tables ([`super::clr_table`],
//! [`super::kernel_table`]): `P id version Task Opcode field...`, P naming
//! the provider (R Runtime, D Rundown, P Private, K a kernel event whose id
//! is its hook id in hex, T KernelTraceControl and S SysConfig: classic
//! events whose id is their opcode, KP Microsoft-Windows-Kernel-Process),
//! each field `Name:type`, `Name:type=Map`,
//! `Name:type[CountField]` or `Name:{member,member}[CountField]`.

use super::registry::SchemaKey;
use super::tdh::task_opcode_name;
use super::{in_type as t, out_type as o, EventSchema, Extent, Field};
use crate::decode::providers::{
    CLR_PRIVATE, CLR_RUNDOWN, CLR_RUNTIME, KERNEL_PROCESS, KERNEL_TRACE_CONTROL, SYSCONFIG,
    SYSTEM_TRACE,
};
use crate::Guid;

fn provider_of(tag: &str) -> Option<(Guid, &'static str)> {
    match tag {
        "R" => Some((CLR_RUNTIME, "Microsoft-Windows-DotNETRuntime")),
        "D" => Some((CLR_RUNDOWN, "Microsoft-Windows-DotNETRuntimeRundown")),
        "P" => Some((CLR_PRIVATE, "Microsoft-Windows-DotNETRuntimePrivate")),
        "K" => Some((SYSTEM_TRACE, "Windows Kernel")),
        "T" => Some((KERNEL_TRACE_CONTROL, "KernelTraceControl")),
        "S" => Some((SYSCONFIG, "Windows Kernel/SysConfig")),
        "KP" => Some((KERNEL_PROCESS, "Microsoft-Windows-Kernel-Process")),
        _ => None,
    }
}

/// One field spec: `Name:type`, `Name:type=Map`, `Name:type[CountField]`,
/// or `Name:{member member}[CountField]` for arrays of structs.
fn parse_field(spec: &str, earlier: &[Field]) -> Option<Field> {
    let (name, rest) = spec.split_once(':')?;
    let (rest, count) = match rest.strip_suffix(']').and_then(|r| r.rsplit_once('[')) {
        Some((r, c)) => (r, Some(c)),
        None => (rest, None),
    };
    let mut f = if let Some(body) = rest.strip_prefix('{').and_then(|b| b.strip_suffix('}')) {
        let mut s = Field::new(name, t::STRUCT);
        for m in body.split(',') {
            let mm = parse_field(m, &s.members)?;
            s.members.push(mm);
        }
        s
    } else {
        let (ty, map) = match rest.split_once('=') {
            Some((ty, m)) => (ty, Some(m)),
            None => (rest, None),
        };
        let (in_type, out_type) = match ty {
            "u8" => (t::UINT8, 0),
            "u16" => (t::UINT16, 0),
            "u32" => (t::UINT32, 0),
            "u64" => (t::UINT64, 0),
            "i16" => (t::INT16, 0),
            "i32" => (t::INT32, 0),
            "i64" => (t::INT64, 0),
            "x8" => (t::UINT8, o::HEXINT8),
            "x16" => (t::UINT16, o::HEXINT16),
            "x32" => (t::UINT32, o::HEXINT32),
            "x64" => (t::UINT64, o::HEXINT64),
            "ptr" => (t::POINTER, 0),
            "str" => (t::UNICODE_STRING, 0),
            "guid" => (t::GUID, 0),
            "time" => (t::FILETIME, 0),
            "bool" => (t::BOOLEAN, 0),
            "f32" => (t::FLOAT, 0),
            "f64" => (t::DOUBLE, 0),
            "bin" => (t::BINARY, 0),
            "ip4" => (t::UINT32, o::IPV4),
            "ip6" => (t::BINARY, o::IPV6),
            "port" => (t::UINT16, o::PORT),
            _ => return None,
        };
        let mut f = Field::new(name, in_type);
        f.out_type = out_type;
        f.map = map.map(str::to_string);
        f
    };
    if let Some(c) = count {
        f.count = match c.parse::<u16>() {
            Ok(n) => Extent::Fixed(n),
            Err(_) => Extent::Field(earlier.iter().position(|e| e.name == c)? as u16),
        };
        // A binary array of n bytes is one value of length n.
        if f.in_type == t::BINARY {
            f.length = f.count;
            f.count = Extent::Default;
        }
    }
    Some(f)
}

/// Table line: `P id version Task Opcode field...`.
pub fn parse_line(line: &str) -> Option<(SchemaKey, EventSchema)> {
    let mut it = line.split_whitespace();
    let tag = it.next()?;
    let (provider, provider_name) = provider_of(tag)?;
    let id_text = it.next()?;
    let id = match tag {
        "K" => u16::from_str_radix(id_text.strip_prefix("0x")?, 16).ok()?,
        _ => id_text.parse().ok()?,
    };
    let version = it.next()?.parse().ok()?;
    let task = it.next()?;
    let opcode = it.next()?;
    let mut fields: Vec<Field> = Vec::new();
    for spec in it {
        let f = parse_field(spec, &fields)?;
        fields.push(f);
    }
    let key = match tag {
        "K" => SchemaKey::Kernel { hook: id, version },
        "T" | "S" => SchemaKey::Classic {
            guid: provider,
            opcode: u8::try_from(id).ok()?,
            version,
        },
        _ => SchemaKey::Manifest {
            provider,
            id,
            version,
        },
    };
    Some((
        key,
        EventSchema {
            provider,
            provider_name: provider_name.to_string(),
            event_name: match tag {
                "K" | "T" | "S" | "KP" => task_opcode_name(task, opcode, id),
                _ => super::clr::event_name(task, opcode),
            },
            task_name: task.to_string(),
            opcode_name: opcode.to_string(),
            level_name: String::new(),
            keywords_name: String::new(),
            fields,
        },
    ))
}
