//! Schemas of the .NET runtime providers (DotNETRuntime, -Rundown,
//! -Private), for traces that do not carry them: parsed once from our
//! compact table ([`super::clr_table`], written from the public runtime
//! manifest `src/coreclr/vm/ClrEtwAll.man` of dotnet/runtime, MIT), and
//! event names as PerfView gives them (`GC/AllocationTick`).

use super::clr_table::{MAPS, TABLE};
use super::registry::SchemaKey;
use super::{in_type as t, out_type as o, EventSchema, Extent, Field, ValueMap};
use crate::decode::providers::{CLR_PRIVATE, CLR_RUNDOWN, CLR_RUNTIME};
use crate::Guid;
use std::sync::OnceLock;

pub fn is_clr(provider: Guid) -> bool {
    provider == CLR_RUNTIME || provider == CLR_RUNDOWN || provider == CLR_PRIVATE
}

/// PerfView's short task names (ClrTraceEventParser's event names).
fn short_task(task: &str) -> &str {
    match task {
        "GarbageCollection" | "GarbageCollectionPrivate" => "GC",
        "CLRMethod" | "CLRMethodRundown" => "Method",
        "CLRLoader" | "CLRLoaderRundown" | "LoaderPrivate" => "Loader",
        "CLRStack" | "CLRStackPrivate" => "ClrStack",
        "CLRRuntimeInformation" | "CLRRuntimeInformationRundown" => "Runtime",
        "CLRPerfTrack" | "CLRPerfTrackPrivate" => "PerfTrack",
        "CLRStackRundown" => "ClrStack",
        "CLRAppDomainResourceManagement" => "AppDomainResourceManagement",
        "CLRExceptionCatch" => "ExceptionCatch",
        "CLRInterop" => "Interop",
        _ => task.strip_prefix("CLR").unwrap_or(task),
    }
}

/// PerfView's name of a CLR event: short task, then the opcode without the
/// task's prefix, Begin/End as Start/Stop (`GCSuspendEEBegin` -> `GC/SuspendEEStart`).
pub fn event_name(task: &str, opcode: &str) -> String {
    let short = short_task(task);
    let mut op = opcode.strip_prefix("win:").unwrap_or(opcode);
    for prefix in [short, "GC", "Method", "Loader", "CLR"] {
        if let Some(rest) = op.strip_prefix(prefix) {
            if rest.starts_with(|c: char| c.is_ascii_uppercase()) {
                op = rest;
                break;
            }
        }
    }
    let mut op = op.to_string();
    for (from, to) in [("Begin", "Start"), ("End", "Stop")] {
        if let Some(i) = op.find(from) {
            let after = op.get(i + from.len()..).unwrap_or("");
            if after.is_empty() || after.starts_with(|c: char| c.is_ascii_uppercase()) {
                op.replace_range(i..i + from.len(), to);
            }
        }
    }
    match (short.is_empty(), op.is_empty() || op == "Info") {
        (_, true) => short.to_string(),
        (true, false) => op,
        (false, false) => format!("{short}/{op}"),
    }
}

fn provider_of(tag: &str) -> Option<(Guid, &'static str)> {
    match tag {
        "R" => Some((CLR_RUNTIME, "Microsoft-Windows-DotNETRuntime")),
        "D" => Some((CLR_RUNDOWN, "Microsoft-Windows-DotNETRuntimeRundown")),
        "P" => Some((CLR_PRIVATE, "Microsoft-Windows-DotNETRuntimePrivate")),
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
            "i32" => (t::INT32, 0),
            "i64" => (t::INT64, 0),
            "x8" => (t::UINT8, o::HEXINT8),
            "x16" => (t::UINT16, o::HEXINT16),
            "x32" => (t::UINT32, o::HEXINT32),
            "x64" => (t::UINT64, o::HEXINT64),
            "ptr" => (t::POINTER, 0),
            "str" => (t::UNICODE_STRING, 0),
            "guid" => (t::GUID, 0),
            "bool" => (t::BOOLEAN, 0),
            "f32" => (t::FLOAT, 0),
            "f64" => (t::DOUBLE, 0),
            "bin" => (t::BINARY, 0),
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
fn parse_line(line: &str) -> Option<(SchemaKey, EventSchema)> {
    let mut it = line.split_whitespace();
    let (provider, provider_name) = provider_of(it.next()?)?;
    let id = it.next()?.parse().ok()?;
    let version = it.next()?.parse().ok()?;
    let task = it.next()?;
    let opcode = it.next()?;
    let mut fields: Vec<Field> = Vec::new();
    for spec in it {
        let f = parse_field(spec, &fields)?;
        fields.push(f);
    }
    Some((
        SchemaKey::Manifest {
            provider,
            id,
            version,
        },
        EventSchema {
            provider,
            provider_name: provider_name.to_string(),
            event_name: event_name(task, opcode),
            task_name: task.to_string(),
            opcode_name: opcode.to_string(),
            level_name: String::new(),
            keywords_name: String::new(),
            fields,
        },
    ))
}

/// Every schema of the table (lines that do not parse are a bug the
/// table's test catches).
pub fn schemas() -> &'static [(SchemaKey, EventSchema)] {
    static S: OnceLock<Vec<(SchemaKey, EventSchema)>> = OnceLock::new();
    S.get_or_init(|| {
        TABLE
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .filter_map(parse_line)
            .collect()
    })
}

/// The value maps and bitmaps the table refers to, per provider.
pub fn maps() -> &'static [(Guid, ValueMap)] {
    static M: OnceLock<Vec<(Guid, ValueMap)>> = OnceLock::new();
    M.get_or_init(|| {
        let mut out = Vec::new();
        for line in MAPS.lines().map(str::trim).filter(|l| !l.is_empty()) {
            let mut it = line.split_whitespace();
            let (Some(kind), Some(name)) = (it.next(), it.next()) else {
                continue;
            };
            let entries = it
                .filter_map(|e| {
                    let (v, n) = e.split_once('=')?;
                    let v = match v.strip_prefix("0x") {
                        Some(h) => u64::from_str_radix(h, 16).ok()?,
                        None => v.parse().ok()?,
                    };
                    Some((v, n.to_string()))
                })
                .collect::<Vec<_>>();
            let map = ValueMap {
                name: name.to_string(),
                bitmap: kind == "bitmap",
                entries,
            };
            for g in [CLR_RUNTIME, CLR_RUNDOWN, CLR_PRIVATE] {
                out.push((g, map.clone()));
            }
        }
        out
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_table_line_parses() {
        let lines = TABLE
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'));
        for l in lines {
            assert!(parse_line(l).is_some(), "{l}");
        }
    }

    #[test]
    fn perfview_names() {
        assert_eq!(
            event_name("GarbageCollection", "GCAllocationTick"),
            "GC/AllocationTick"
        );
        assert_eq!(
            event_name("CLRMethod", "MethodLoadVerbose"),
            "Method/LoadVerbose"
        );
        assert_eq!(
            event_name("GarbageCollection", "GCSuspendEEBegin"),
            "GC/SuspendEEStart"
        );
        assert_eq!(event_name("GarbageCollection", "win:Start"), "GC/Start");
        assert_eq!(
            event_name("CLRMethodRundown", "MethodDCEndVerbose"),
            "Method/DCStopVerbose"
        );
        assert_eq!(event_name("Type", "BulkType"), "Type/BulkType");
    }
}
