//! Hand-built events for unit tests of layouts absent from the real traces.

use crate::event::{Event, HeaderType};
use crate::Guid;

pub fn utf16z(s: &str) -> Vec<u8> {
    s.encode_utf16()
        .chain([0])
        .flat_map(u16::to_le_bytes)
        .collect()
}

fn blank(header_type: HeaderType, pointer_size: u8, payload: &[u8]) -> Event<'_> {
    Event {
        header_type,
        timestamp: 1000,
        cpu: 0,
        pid: None,
        tid: None,
        hook_id: None,
        provider: None,
        event_id: 0,
        opcode: 0,
        version: 0,
        level: 0,
        channel: 0,
        task: 0,
        keyword: 0,
        flags: 0,
        activity_id: None,
        pointer_size,
        payload,
        extended: &[],
        buffer_index: 0,
        offset_in_buffer: 0,
    }
}

/// A kernel event with a system header of the given pointer size.
pub fn kernel_event(hook: u16, version: u16, pointer_size: u8, payload: &[u8]) -> Event<'_> {
    let ht = if pointer_size == 4 {
        HeaderType::System32
    } else {
        HeaderType::System64
    };
    let mut e = blank(ht, pointer_size, payload);
    e.hook_id = Some(hook);
    e.opcode = hook as u8;
    e.version = version;
    e.pid = Some(4);
    e.tid = Some(8);
    e
}

/// A classic (full header) event such as KernelTraceControl's.
pub fn classic_event(
    provider: Guid,
    opcode: u8,
    version: u16,
    pointer_size: u8,
    payload: &[u8],
) -> Event<'_> {
    let ht = if pointer_size == 4 {
        HeaderType::Full32
    } else {
        HeaderType::Full64
    };
    let mut e = blank(ht, pointer_size, payload);
    e.provider = Some(provider);
    e.opcode = opcode;
    e.version = version;
    e
}

/// An EventHeader event with raw extended items.
pub fn event_header_event<'a>(
    provider: Guid,
    event_id: u16,
    version: u8,
    pointer_size: u8,
    extended: &'a [u8],
    payload: &'a [u8],
) -> Event<'a> {
    let ht = if pointer_size == 4 {
        HeaderType::EventHeader32
    } else {
        HeaderType::EventHeader64
    };
    let mut e = blank(ht, pointer_size, payload);
    e.provider = Some(provider);
    e.event_id = event_id;
    e.version = u16::from(version);
    e.extended = extended;
    e.flags = if extended.is_empty() { 0 } else { 1 };
    e
}

/// Extended items laid out as in an event: 8-byte header, data, 8-aligned.
pub fn ext_items(items: &[(u16, &[u8])]) -> Vec<u8> {
    let mut out = Vec::new();
    for (i, (t, d)) in items.iter().enumerate() {
        let link: u16 = if i + 1 < items.len() { 1 } else { 0 };
        out.extend(0u16.to_le_bytes());
        out.extend(t.to_le_bytes());
        out.extend(link.to_le_bytes());
        out.extend((d.len() as u16).to_le_bytes());
        out.extend(*d);
        while out.len() % 8 != 0 {
            out.push(0);
        }
    }
    out
}
