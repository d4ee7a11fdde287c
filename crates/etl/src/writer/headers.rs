//! Encoding of event headers: every header type the reader understands.

use super::record::{ExtendedData, Header, Record};
use crate::event::HeaderType;
use std::io;

/// TRACE_HEADER_FLAG | TRACE_HEADER_EVENT_TRACE, the marker flags of every ETW event.
const MARKER_FLAGS: u8 = 0xC0;

/// EVENT_HEADER_FLAG_* bits the writer sets itself.
const FLAG_EXTENDED_INFO: u16 = 0x0001;
const FLAG_32_BIT_HEADER: u16 = 0x0020;
const FLAG_64_BIT_HEADER: u16 = 0x0040;

/// The header type a record is written with.
pub fn header_type(record: &Record<'_>, trace_pointer_size: u8) -> HeaderType {
    let wide = record.pointer_size.unwrap_or(trace_pointer_size) != 4;
    let pick = |narrow, w| if wide { w } else { narrow };
    match record.header {
        Header::System(_) => pick(HeaderType::System32, HeaderType::System64),
        Header::Compact(_) => pick(HeaderType::Compact32, HeaderType::Compact64),
        Header::PerfInfo(_) => pick(HeaderType::PerfInfo32, HeaderType::PerfInfo64),
        Header::Full(_) => pick(HeaderType::Full32, HeaderType::Full64),
        Header::Instance(..) => pick(HeaderType::Instance32, HeaderType::Instance64),
        Header::Event(_) => pick(HeaderType::EventHeader32, HeaderType::EventHeader64),
    }
}

fn header_len(header: &Header<'_>) -> usize {
    match header {
        Header::System(_) => 0x20,
        Header::Compact(_) => 0x18,
        Header::PerfInfo(_) => 0x10,
        Header::Full(_) => 0x30,
        Header::Instance(..) => 0x48,
        Header::Event(_) => 0x50,
    }
}

/// Bytes of the extended-item area: each item is 8 bytes of header plus its
/// data, padded to 8.
fn extended_len(items: &[ExtendedData<'_>]) -> usize {
    items.iter().map(|i| (8 + i.data_len() + 7) & !7).sum()
}

/// Size of the encoded event (the header's size field), before alignment.
pub fn encoded_len(record: &Record<'_>) -> usize {
    let ext = match &record.header {
        Header::Event(e) => extended_len(e.extended),
        _ => 0,
    };
    header_len(&record.header) + ext + record.payload.len()
}

fn too_big(what: &str, n: usize) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("{what} of {n} bytes does not fit its 16-bit size field"),
    )
}

/// Append the event (header, extended items, payload) to `out`, unaligned.
pub fn encode(record: &Record<'_>, trace_pointer_size: u8, out: &mut Vec<u8>) -> io::Result<()> {
    let size = encoded_len(record);
    let size16 = u16::try_from(size).map_err(|_| too_big("event", size))?;
    if let Header::Event(e) = &record.header {
        if let Some(i) = e.extended.iter().find(|i| i.data_len() > u16::MAX as usize) {
            return Err(too_big("extended item", i.data_len()));
        }
    }
    let ht = header_type(record, trace_pointer_size).to_byte();
    let ts = record.timestamp.to_le_bytes();
    let start = out.len();
    match &record.header {
        Header::System(h) | Header::Compact(h) | Header::PerfInfo(h) => {
            out.extend_from_slice(&h.version.to_le_bytes());
            out.extend_from_slice(&[ht, MARKER_FLAGS]);
            out.extend_from_slice(&size16.to_le_bytes());
            out.extend_from_slice(&h.hook_id.to_le_bytes());
            if matches!(record.header, Header::PerfInfo(_)) {
                out.extend_from_slice(&ts);
            } else {
                out.extend_from_slice(&h.tid.to_le_bytes());
                out.extend_from_slice(&h.pid.to_le_bytes());
                out.extend_from_slice(&ts);
                if matches!(record.header, Header::System(_)) {
                    // KernelTime, UserTime.
                    out.extend_from_slice(&[0; 8]);
                }
            }
        }
        Header::Full(c) | Header::Instance(c, _) => {
            out.extend_from_slice(&size16.to_le_bytes());
            out.extend_from_slice(&[ht, MARKER_FLAGS, c.opcode, c.level]);
            out.extend_from_slice(&c.version.to_le_bytes());
            out.extend_from_slice(&c.tid.to_le_bytes());
            out.extend_from_slice(&c.pid.to_le_bytes());
            out.extend_from_slice(&ts);
            out.extend_from_slice(&c.guid.to_bytes_le());
            // KernelTime, UserTime.
            out.extend_from_slice(&[0; 8]);
            if let Header::Instance(_, i) = &record.header {
                out.extend_from_slice(&i.instance_id.to_le_bytes());
                out.extend_from_slice(&i.parent_instance_id.to_le_bytes());
                out.extend_from_slice(&i.parent_guid.to_bytes_le());
            }
        }
        Header::Event(e) => {
            let width_flag = if ht == HeaderType::EventHeader32.to_byte() {
                FLAG_32_BIT_HEADER
            } else {
                FLAG_64_BIT_HEADER
            };
            let mut flags =
                (e.extra_flags & !(FLAG_32_BIT_HEADER | FLAG_64_BIT_HEADER)) | width_flag;
            if e.extended.is_empty() {
                flags &= !FLAG_EXTENDED_INFO;
            } else {
                flags |= FLAG_EXTENDED_INFO;
            }
            out.extend_from_slice(&size16.to_le_bytes());
            out.extend_from_slice(&[ht, MARKER_FLAGS]);
            out.extend_from_slice(&flags.to_le_bytes());
            out.extend_from_slice(&e.event_property.to_le_bytes());
            out.extend_from_slice(&e.tid.to_le_bytes());
            out.extend_from_slice(&e.pid.to_le_bytes());
            out.extend_from_slice(&ts);
            out.extend_from_slice(&e.provider.to_bytes_le());
            out.extend_from_slice(&e.id.to_le_bytes());
            out.extend_from_slice(&[e.version, e.channel, e.level, e.opcode]);
            out.extend_from_slice(&e.task.to_le_bytes());
            out.extend_from_slice(&e.keyword.to_le_bytes());
            // ProcessorTime.
            out.extend_from_slice(&[0; 8]);
            out.extend_from_slice(&e.activity_id.to_bytes_le());
            let n = e.extended.len();
            for (k, item) in e.extended.iter().enumerate() {
                let data_len = item.data_len();
                // Checked above.
                let len16 = data_len as u16;
                let linkage: u16 = if k + 1 < n { 1 } else { 0 };
                out.extend_from_slice(&0u16.to_le_bytes());
                out.extend_from_slice(&item.ext_type().to_le_bytes());
                out.extend_from_slice(&linkage.to_le_bytes());
                out.extend_from_slice(&len16.to_le_bytes());
                item.put_data(out);
                let pad = (8 - data_len % 8) % 8;
                out.extend_from_slice(&[0u8; 8][..pad]);
            }
        }
    }
    out.extend_from_slice(record.payload);
    debug_assert_eq!(out.len() - start, size);
    Ok(())
}
