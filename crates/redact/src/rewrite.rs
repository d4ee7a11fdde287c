//! The second pass: one member's file written again, buffer by buffer, with
//! the replacements written over every event's payload and extended data.
//! Compressed buffers are written decompressed (the log-file header's
//! compressed mode cleared), so the copy is a plain file any reader opens
//! and a byte search sees all of it. Bytes between buffers are copied as
//! they are; the last pass refuses the copy if they hold an original.

use crate::mask::Salt;
use crate::matcher::Matcher;
use crate::net;
use crate::report::Report;
use etl::buffer::{flags, BUFFER_HEADER_SIZE};
use etl::logfile::{LogfileHeader, LOG_FILE_MODE_COMPRESSED};
use etl::walk::BufferEvents;
use etl::EtlFile;
use std::ops::Range;

/// A member written again, and where each part of it came from.
pub struct Output {
    pub bytes: Vec<u8>,
    /// (output offset, input offset) of each buffer and gap, in order.
    pub origins: Vec<(u64, u64)>,
}

/// A failure to rewrite: input offset and why.
pub type Failure = (u64, String);

/// The names of `file`'s members, in member order.
pub fn member_names(file: &EtlFile) -> Vec<String> {
    file.members().into_iter().map(|m| m.name).collect()
}

/// Where in the event area the text to rewrite lies: every event's payload
/// and extended data (a walk that stops at damage leaves the rest as it
/// was, for the last pass to judge), and the binary addresses.
struct Areas {
    text: Vec<Range<usize>>,
    addresses: Vec<Range<usize>>,
    /// The log-file header event's payload, when this is the header buffer.
    logfile: Option<Range<usize>>,
    events: u64,
}

fn areas(data: &[u8], cpu: u16, index: u32, addresses: bool) -> Areas {
    let base = data.as_ptr() as usize;
    let range_of = |s: &[u8]| {
        let start = (s.as_ptr() as usize).saturating_sub(base);
        start..start + s.len()
    };
    let mut a = Areas {
        text: Vec::new(),
        addresses: Vec::new(),
        logfile: None,
        events: 0,
    };
    for ev in BufferEvents::new(data, cpu, index).map_while(Result::ok) {
        a.events += 1;
        let payload = range_of(ev.payload);
        if ev.hook_id == Some(0) && ev.offset_in_buffer == 0 && a.logfile.is_none() {
            a.logfile = Some(payload.clone());
        }
        if addresses {
            for r in net::address_ranges(&ev) {
                a.addresses
                    .push(payload.start + r.start..payload.start + r.end);
            }
        }
        a.text.push(payload);
        if !ev.extended.is_empty() {
            a.text.push(range_of(ev.extended));
        }
    }
    a
}

/// Rewrite member `m` of `file`.
pub fn member(
    file: &EtlFile,
    m: usize,
    matcher: &Matcher,
    addresses: bool,
    salt: Salt,
    report: &mut Report,
) -> Result<Output, Failure> {
    let buffers: Vec<_> = file
        .buffers()
        .iter()
        .filter(|b| usize::from(b.member) == m)
        .copied()
        .collect();
    let Some(first) = buffers.first() else {
        return Err((0, "the file has no readable buffer".into()));
    };
    let input = file.bytes_of(first);
    let decompress = buffers.iter().any(|b| b.header.is_compressed());
    let mut logger_buffer_size = 0u32;
    let mut out = Output {
        bytes: Vec::with_capacity(input.len()),
        origins: Vec::new(),
    };
    let mut pos = 0usize;
    let mut scratch = Vec::new();
    for b in &buffers {
        let at = b.offset as usize;
        if at < pos {
            return Err((b.offset, "buffers overlap".into()));
        }
        if at > pos {
            out.origins.push((out.bytes.len() as u64, pos as u64));
            out.bytes
                .extend_from_slice(input.get(pos..at).unwrap_or(&[]));
        }
        let data = file.buffer_data(b, &mut scratch).map_err(|d| {
            (
                d.offset,
                format!("the buffer cannot be read: {}", d.message),
            )
        })?;
        let mut area = data.to_vec();
        let found = areas(&area, b.cpu(), b.index, addresses);
        report.events += found.events;
        for r in &found.text {
            if let Some(bytes) = area.get_mut(r.clone()) {
                report.count(matcher, &matcher.replace(bytes));
            }
        }
        for r in &found.addresses {
            if let Some(bytes) = area.get_mut(r.clone()) {
                if net::replace_address(bytes, salt) {
                    report.addresses += 1;
                }
            }
        }
        if let Some(r) = found.logfile {
            if let Some(h) = area.get(r.clone()).and_then(LogfileHeader::parse) {
                logger_buffer_size = h.buffer_size;
            }
            if decompress {
                clear_compressed_mode(&mut area[r]);
            }
        }
        out.origins.push((out.bytes.len() as u64, b.offset));
        let header = input
            .get(at..at + BUFFER_HEADER_SIZE)
            .ok_or((b.offset, "the buffer header is cut short".to_string()))?;
        let on_disk = b.header.buffer_size as usize;
        if b.header.is_compressed() {
            let used = BUFFER_HEADER_SIZE + area.len();
            let size = if used <= logger_buffer_size as usize {
                logger_buffer_size as usize
            } else {
                used.div_ceil(8) * 8
            };
            let mut h = header.to_vec();
            let fl = u16::from_le_bytes([h[0x34], h[0x35]]) & !flags::COMPRESSED;
            h[0x34..0x36].copy_from_slice(&fl.to_le_bytes());
            h[0..4].copy_from_slice(&(size as u32).to_le_bytes());
            h[4..8].copy_from_slice(&(used as u32).to_le_bytes());
            h[0x30..0x34].copy_from_slice(&(used as u32).to_le_bytes());
            out.bytes.extend_from_slice(&h);
            out.bytes.extend_from_slice(&area);
            out.bytes.resize(out.bytes.len() + (size - used), 0xFF);
            report.decompressed += 1;
        } else {
            let range = b.data_range();
            out.bytes.extend_from_slice(header);
            out.bytes.extend_from_slice(&area);
            let rest = input
                .get(range.end..(at + on_disk).min(input.len()))
                .unwrap_or(&[]);
            out.bytes.extend_from_slice(rest);
        }
        report.buffers += 1;
        pos = (at + on_disk.max(BUFFER_HEADER_SIZE))
            .min(input.len())
            .max(pos);
    }
    if pos < input.len() {
        out.origins.push((out.bytes.len() as u64, pos as u64));
        out.bytes.extend_from_slice(&input[pos..]);
    }
    Ok(out)
}

/// The copy's buffers are not compressed: say so in LogFileMode (0x20).
fn clear_compressed_mode(payload: &mut [u8]) {
    if let Some(mode) = payload.get_mut(0x20..0x24) {
        let v =
            u32::from_le_bytes([mode[0], mode[1], mode[2], mode[3]]) & !LOG_FILE_MODE_COMPRESSED;
        mode.copy_from_slice(&v.to_le_bytes());
    }
}
