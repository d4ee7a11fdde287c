//! Schemas of the .NET runtime providers (DotNETRuntime, -Rundown,
//! -Private), for traces that do not carry them: parsed once from our
//! compact table ([`super::clr_table`], written from the public runtime
//! manifest `src/coreclr/vm/ClrEtwAll.man` of dotnet/runtime, MIT), and
//! event names as PerfView gives them (`GC/AllocationTick`).

use super::clr_table::{MAPS, TABLE};
use super::registry::SchemaKey;
use super::table::parse_line;
use super::{EventSchema, ValueMap};
use crate::decode::providers::{CLR_PRIVATE, CLR_RUNDOWN, CLR_RUNTIME};
use crate::Guid;

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
    // Binding's opcodes keep their Loader prefix (Binding/LoaderPhaseStart).
    let prefixes: &[&str] = match short {
        "Binding" => &["Binding"],
        _ => &[short, "GC", "Method", "Loader", "CLR"],
    };
    for &prefix in prefixes {
        if let Some(rest) = op.strip_prefix(prefix) {
            if rest.starts_with(|c: char| c.is_ascii_uppercase()) {
                op = rest;
                break;
            }
        }
    }
    // PerfView's name for the manifest's GCMarkOlderGenerationRoots (id 28).
    if op == "MarkOlderGenerationRoots" {
        op = "MarkCards";
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

/// Every schema of the table (lines that do not parse are a bug the
/// table's test catches). Parsed for each registry rather than kept in a
/// static: a long-lived allocation made during an ingest would pin the
/// allocator's heap and keep a deleted trace's memory from the OS.
pub fn schemas() -> Vec<(SchemaKey, EventSchema)> {
    TABLE
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .filter_map(parse_line)
        .collect()
}

/// The value maps and bitmaps the table refers to, per provider.
pub fn maps() -> Vec<(Guid, ValueMap)> {
    {
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
    }
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
        // Names from PerfView's net.4.5.2.x64.baseline.txt COUNT lines.
        assert_eq!(
            event_name("Binding", "LoaderAssemblyInitPhaseEnd"),
            "Binding/LoaderAssemblyInitPhaseStop"
        );
        assert_eq!(
            event_name("Binding", "BindingNgenPhaseStart"),
            "Binding/NgenPhaseStart"
        );
        assert_eq!(
            event_name("CLRNgenBinder", "NgenBind"),
            "NgenBinder/NgenBind"
        );
    }
}
