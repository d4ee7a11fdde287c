//! Our table of the .NET runtime events, written from the public runtime
//! manifest (dotnet/runtime `src/coreclr/vm/ClrEtwAll.man`, MIT): one line
//! per (provider, event id, version): provider (R Runtime, D Rundown,
//! P Private), id, version, manifest task and opcode, then the template's
//! fields in order as `Name:type` (u8..u64, i32, i64, x32/x64 hex, ptr,
//! str UTF-16z, guid, bool, f32, f64, bin), `=Map` for a value map,
//! `[Field]` for an array counted by an earlier field, `{a:t,b:t}` for a
//! struct element.

pub const TABLE: &str = r"
";

/// `valuemap|bitmap Name value=Text...` (spaces in texts written as `_`
/// would be wrong: the manifest's CLR map texts have none).
pub const MAPS: &str = r"
";
