//! `etlscope manifests export` on Windows: the registered manifest
//! providers' schemas through TDH (`TdhEnumerateProviders`,
//! `TdhEnumerateManifestProviderEvents`, `TdhGetManifestEventInformation`).
//! Each event's TRACE_EVENT_INFO is the blob KernelTraceControl's MetaData
//! events carry, so our own parser reads it (`tdh::parse_event_info`) and
//! `pack::from_schemas` makes the pack: the conversion is tested on every
//! platform, this file only calls TDH. Value and bit maps come from
//! `TdhGetEventMapInformation`, which wants an event record: one holding only
//! the provider's GUID names the provider, the only part the lookup reads.

use etl::decode::schema::{pack, tdh};
use windows::core::GUID;
use windows::core::PCWSTR;
use windows::Win32::System::Diagnostics::Etw::{
    TdhEnumerateManifestProviderEvents, TdhEnumerateProviders, TdhGetEventMapInformation,
    TdhGetManifestEventInformation, EVENT_DESCRIPTOR, EVENT_MAP_INFO, EVENT_RECORD,
    PROVIDER_ENUMERATION_INFO, PROVIDER_EVENT_INFO, TRACE_EVENT_INFO, TRACE_PROVIDER_INFO,
};

const ERROR_SUCCESS: u32 = 0;
const ERROR_INSUFFICIENT_BUFFER: u32 = 122;
/// Largest buffer one TDH call gets.
const MAX_BUFFER: u32 = 256 << 20;

/// Call `f(buffer, &mut size)` until the buffer is large enough; the buffer
/// is u64-aligned for TDH's structures.
fn sized(mut f: impl FnMut(*mut u8, &mut u32) -> u32) -> Result<Vec<u8>, u32> {
    let mut size: u32 = 4096;
    loop {
        let mut buf = vec![0u64; (size as usize).div_ceil(8)];
        let mut want = size;
        match f(buf.as_mut_ptr().cast(), &mut want) {
            ERROR_SUCCESS => {
                let bytes: Vec<u8> = buf.iter().flat_map(|w| w.to_ne_bytes()).collect();
                return Ok(bytes.into_iter().take(want.min(size) as usize).collect());
            }
            ERROR_INSUFFICIENT_BUFFER if want > size && want <= MAX_BUFFER => size = want,
            e => return Err(e),
        }
    }
}

fn guid_of(g: &GUID) -> etl::Guid {
    let mut b = [0u8; 16];
    b[..4].copy_from_slice(&g.data1.to_le_bytes());
    b[4..6].copy_from_slice(&g.data2.to_le_bytes());
    b[6..8].copy_from_slice(&g.data3.to_le_bytes());
    b[8..].copy_from_slice(&g.data4);
    etl::Guid::from_bytes_le(b)
}

/// A NUL-terminated UTF-16 string at `offset` of `blob`.
fn wstr(blob: &[u8], offset: u32) -> String {
    let units: Vec<u16> = blob
        .get(offset as usize..)
        .unwrap_or(&[])
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .take_while(|&u| u != 0)
        .collect();
    String::from_utf16_lossy(&units)
}

/// Every registered provider: GUID and name.
fn providers() -> anyhow::Result<Vec<(GUID, String)>> {
    let blob = sized(|b, n| unsafe {
        TdhEnumerateProviders(Some(b.cast::<PROVIDER_ENUMERATION_INFO>()), n)
    })
    .map_err(|e| anyhow::anyhow!("TdhEnumerateProviders failed: error {e}"))?;
    let count = u32::from_le_bytes(
        blob.get(..4)
            .and_then(|b| b.try_into().ok())
            .unwrap_or([0; 4]),
    );
    let item = std::mem::size_of::<TRACE_PROVIDER_INFO>();
    let mut out = Vec::new();
    for i in 0..count as usize {
        let Some(raw) = blob.get(8 + i * item..8 + (i + 1) * item) else {
            break;
        };
        // SAFETY: `raw` holds one whole TRACE_PROVIDER_INFO (plain data).
        let info: TRACE_PROVIDER_INFO = unsafe { std::ptr::read_unaligned(raw.as_ptr().cast()) };
        out.push((info.ProviderGuid, wstr(&blob, info.ProviderNameOffset)));
    }
    Ok(out)
}

/// The event descriptors of a manifest provider (none for other kinds).
fn events(provider: &GUID) -> Vec<EVENT_DESCRIPTOR> {
    let Ok(blob) = sized(|b, n| unsafe {
        TdhEnumerateManifestProviderEvents(provider, Some(b.cast::<PROVIDER_EVENT_INFO>()), n)
    }) else {
        return Vec::new();
    };
    let count = u32::from_le_bytes(
        blob.get(..4)
            .and_then(|b| b.try_into().ok())
            .unwrap_or([0; 4]),
    );
    let item = std::mem::size_of::<EVENT_DESCRIPTOR>();
    (0..count as usize)
        .map_while(|i| blob.get(8 + i * item..8 + (i + 1) * item))
        // SAFETY: each slice holds one whole EVENT_DESCRIPTOR (plain data).
        .map(|raw| unsafe { std::ptr::read_unaligned(raw.as_ptr().cast()) })
        .collect()
}

/// The names of the maps `fields` (and their struct members) refer to.
fn map_names(fields: &[etl::decode::schema::Field], out: &mut Vec<String>) {
    for f in fields {
        if let Some(m) = &f.map {
            if !out.contains(m) {
                out.push(m.clone());
            }
        }
        map_names(&f.members, out);
    }
}

/// One value or bit map of `provider`, read as an EventMapInfo payload
/// (the provider's GUID, then EVENT_MAP_INFO) by the parser the traces use.
fn value_map(provider: &GUID, name: &str) -> Option<etl::decode::schema::ValueMap> {
    let mut record = EVENT_RECORD::default();
    record.EventHeader.ProviderId = *provider;
    let wide: Vec<u16> = name.encode_utf16().chain(std::iter::once(0)).collect();
    let blob = sized(|b, n| unsafe {
        TdhGetEventMapInformation(
            &record,
            PCWSTR(wide.as_ptr()),
            Some(b.cast::<EVENT_MAP_INFO>()),
            n,
        )
    })
    .ok()?;
    let mut payload = guid_of(provider).to_bytes_le().to_vec();
    payload.extend_from_slice(&blob);
    tdh::parse_map_info(&payload).ok().map(|(_, map)| map)
}

/// The schemas of the providers named (names or GUIDs; none: all).
pub fn export(wanted: &[String]) -> anyhow::Result<pack::Pack> {
    let mut schemas = Vec::new();
    let mut maps = Vec::new();
    let mut matched = 0;
    for (guid, name) in providers()? {
        let g = guid_of(&guid);
        let named = wanted.is_empty()
            || wanted.iter().any(|w| {
                w.eq_ignore_ascii_case(&name)
                    || etl::Guid::parse(w.trim_matches(|c| c == '{' || c == '}')) == Some(g)
            });
        if !named {
            continue;
        }
        matched += 1;
        let first = schemas.len();
        for d in events(&guid) {
            let Ok(blob) = sized(|b, n| unsafe {
                TdhGetManifestEventInformation(&guid, &d, Some(b.cast::<TRACE_EVENT_INFO>()), n)
            }) else {
                continue;
            };
            if let Ok(info) = tdh::parse_event_info(&blob) {
                schemas.push((d.Id, d.Version, info.schema));
            }
        }
        let mut names = Vec::new();
        for (_, _, s) in &schemas[first..] {
            map_names(&s.fields, &mut names);
        }
        let found: Vec<_> = names.iter().filter_map(|n| value_map(&guid, n)).collect();
        if !found.is_empty() {
            maps.push((g, found));
        }
    }
    if matched == 0 {
        anyhow::bail!("no registered provider matches {}", wanted.join(", "));
    }
    let mut p = pack::from_schemas(schemas);
    for (guid, found) in maps {
        pack::add_maps(&mut p, guid, found);
    }
    p.notes.push(format!(
        "exported by etlscope manifests export through TDH on {}",
        std::env::var("COMPUTERNAME").unwrap_or_else(|_| "this machine".into())
    ));
    Ok(p)
}
