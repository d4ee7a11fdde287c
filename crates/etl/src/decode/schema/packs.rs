//! Where schemas come from, and the packs consulted after the trace's own
//! metadata: the user's (`--manifests`, the library's), then the built-in
//! pack of Windows' own providers (written by `scripts/gen-builtin-pack.py`
//! from the public manifests; docs/schema-packs.md).

use super::pack::{self, Pack};
use std::sync::{Arc, OnceLock, RwLock};

/// The source of a schema, most trusted first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Source {
    /// The trace's MetaData events or EventSource manifests.
    Trace,
    /// Our own CLR and kernel tables.
    Table,
    /// A pack or manifest the user gave.
    User,
    /// The built-in pack.
    BuiltIn,
}

impl Source {
    pub fn name(self) -> &'static str {
        match self {
            Source::Trace => "trace",
            Source::Table => "table",
            Source::User => "user pack",
            Source::BuiltIn => "built-in pack",
        }
    }
}

/// Windows providers whose payload names the process an event is about
/// (the header's is the DPC's or the system's): provider and the field, the
/// first of its events' layouts, that holds the process id (u32). WPA's
/// Process column shows that process.
pub const PAYLOAD_PROCESS: [(crate::Guid, &str); 1] = [(
    // Microsoft-Windows-Kernel-Network: every TCP/UDP send and receive.
    crate::Guid::from_u128(0x7dd42a49_5329_4832_8dfd_43d979153a88),
    "PID",
)];

/// The process id a schema's payload names, when its provider is one of
/// [`PAYLOAD_PROCESS`] and its first field is that u32.
pub fn payload_process(schema: &super::EventSchema, payload: &[u8]) -> Option<u32> {
    let (_, name) = PAYLOAD_PROCESS
        .iter()
        .find(|(g, _)| *g == schema.provider)?;
    let f = schema.fields.first()?;
    if f.name != *name || f.in_type != super::in_type::UINT32 {
        return None;
    }
    let b = payload.get(..4)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// The built-in pack's text.
pub const BUILTIN_TEXT: &str = include_str!("builtin.pack");

/// The built-in pack (empty if it does not parse: a unit test keeps it parsing).
pub fn builtin() -> &'static Pack {
    static P: OnceLock<Pack> = OnceLock::new();
    P.get_or_init(|| pack::parse(BUILTIN_TEXT).unwrap_or_default())
}

/// The built-in pack's providers, read off its `provider` lines without
/// parsing the rest (most traces need none of it).
pub fn builtin_providers() -> &'static [crate::Guid] {
    static G: OnceLock<Vec<crate::Guid>> = OnceLock::new();
    G.get_or_init(|| {
        BUILTIN_TEXT
            .lines()
            .filter_map(|l| l.strip_prefix("provider\t"))
            .filter_map(|l| crate::Guid::parse(l.split('\t').next().unwrap_or("")))
            .collect()
    })
}

fn user_slot() -> &'static RwLock<Vec<Arc<Pack>>> {
    static U: OnceLock<RwLock<Vec<Arc<Pack>>>> = OnceLock::new();
    U.get_or_init(|| RwLock::new(Vec::new()))
}

/// Replace the user's packs (for every trace read from now on).
pub fn set_user_packs(packs: Vec<Pack>) {
    let mut w = user_slot().write().unwrap_or_else(|e| e.into_inner());
    *w = packs.into_iter().map(Arc::new).collect();
}

/// As [`set_user_packs`], packs already shared.
pub fn set_user_pack_arcs(packs: Vec<Arc<Pack>>) {
    let mut w = user_slot().write().unwrap_or_else(|e| e.into_inner());
    *w = packs;
}

/// Add one user pack.
pub fn add_user_pack(p: Pack) {
    let mut w = user_slot().write().unwrap_or_else(|e| e.into_inner());
    w.push(Arc::new(p));
}

/// The user's packs, in the order given.
pub fn user_packs() -> Vec<Arc<Pack>> {
    user_slot()
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .clone()
}

#[cfg(test)]
mod tests {
    #[test]
    fn kernel_network_guid() {
        assert_eq!(
            super::PAYLOAD_PROCESS[0].0.to_string(),
            "7dd42a49-5329-4832-8dfd-43d979153a88"
        );
    }

    #[test]
    fn the_builtin_pack_parses() {
        let p = match super::pack::parse(super::BUILTIN_TEXT) {
            Ok(p) => p,
            Err(e) => panic!("builtin.pack {e}"),
        };
        let guids: Vec<_> = p.providers.iter().map(|p| p.guid).collect();
        assert_eq!(super::builtin_providers(), &guids[..]);
        assert!(guids.len() >= 15, "{guids:?}");
    }
}
