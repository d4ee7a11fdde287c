//! Walks the events of one buffer's (decompressed) event area.

use crate::event::{Event, HeaderType};
use crate::extended::extended_area_len;
use crate::le::{guid_at, i64_at, u16_at, u32_at, u64_at, u8_at};

/// Why walking a buffer stopped early.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WalkError {
    /// Offset of the bad event within the event area.
    pub offset: usize,
    pub message: String,
}

/// Iterator over the events of one buffer. Yields `Err` once on damage, then ends.
pub struct BufferEvents<'a> {
    data: &'a [u8],
    pos: usize,
    cpu: u16,
    buffer_index: u32,
    done: bool,
}

impl<'a> BufferEvents<'a> {
    /// `data` is the event area: buffer bytes `[0x48, SavedOffset)`.
    pub fn new(data: &'a [u8], cpu: u16, buffer_index: u32) -> Self {
        BufferEvents {
            data,
            pos: 0,
            cpu,
            buffer_index,
            done: false,
        }
    }

    /// Resume walking at byte `pos` of the event area.
    pub fn at(data: &'a [u8], pos: usize, cpu: u16, buffer_index: u32) -> Self {
        BufferEvents {
            data,
            pos,
            cpu,
            buffer_index,
            done: false,
        }
    }

    /// Byte offset of the next event to be read.
    pub fn position(&self) -> usize {
        self.pos
    }

    pub fn is_done(&self) -> bool {
        self.done
    }

    fn fail(&mut self, message: String) -> Option<Result<Event<'a>, WalkError>> {
        self.done = true;
        Some(Err(WalkError {
            offset: self.pos,
            message,
        }))
    }
}

impl<'a> Iterator for BufferEvents<'a> {
    type Item = Result<Event<'a>, WalkError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let d = self.data;
        let p = self.pos;
        let Some(marker) = u32_at(d, p) else {
            self.done = true;
            if p < d.len() && d[p..].iter().any(|&b| b != 0 && b != 0xFF) {
                return self.fail(format!("{} stray bytes at end of buffer", d.len() - p));
            }
            return None;
        };
        if marker == 0xFFFF_FFFF {
            // 0xFF fill: end of the used part.
            self.done = true;
            return None;
        }
        let type_byte = (marker >> 16) as u8;
        let marker_flags = (marker >> 24) as u8;
        if marker_flags & 0x80 == 0 {
            if d[p..].iter().all(|&b| b == 0) {
                self.done = true;
                return None;
            }
            return self.fail(format!("no event marker (bytes {marker:08x})"));
        }
        let Some(header_type) = HeaderType::from_byte(type_byte) else {
            return self.fail(format!("unknown event header type {type_byte:#04x}"));
        };
        let size = match header_type {
            // Size sits in the second u16 for kernel headers, in the first otherwise.
            h if h.is_kernel() => u16_at(d, p + 4),
            _ => u16_at(d, p),
        }
        .unwrap_or(0) as usize;
        if size == 0 {
            return self.fail("zero event size".into());
        }
        if p + size > d.len() {
            return self.fail(format!(
                "event of {size} bytes runs {} bytes past the end of its buffer",
                p + size - d.len()
            ));
        }
        let ev = &d[p..p + size];
        let parsed = parse_event(ev, header_type, self.cpu, self.buffer_index, p as u32);
        match parsed {
            Ok(e) => {
                self.pos = (p + size + 7) & !7;
                Some(Ok(e))
            }
            Err(m) => self.fail(m),
        }
    }
}

#[inline(always)]
fn short(ev: &[u8], need: usize, what: &str) -> Result<(), String> {
    if ev.len() < need {
        Err(short_message(ev.len(), need, what))
    } else {
        Ok(())
    }
}

#[cold]
#[inline(never)]
fn short_message(len: usize, need: usize, what: &str) -> String {
    format!("{what} event of {len} bytes is shorter than its {need}-byte header")
}

/// Decode one event's header. `ev` is exactly the event's bytes.
#[inline(always)]
pub fn parse_event(
    ev: &[u8],
    header_type: HeaderType,
    cpu: u16,
    buffer_index: u32,
    offset_in_buffer: u32,
) -> Result<Event<'_>, String> {
    let g = |o| guid_at(ev, o);
    let mut e = Event {
        header_type,
        timestamp: 0,
        cpu,
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
        pointer_size: header_type.pointer_size(),
        payload: &[],
        extended: &[],
        buffer_index,
        offset_in_buffer,
    };
    let z = |v: Option<u32>| v.unwrap_or(0);
    let header_len = match header_type {
        HeaderType::System32
        | HeaderType::System64
        | HeaderType::Compact32
        | HeaderType::Compact64 => {
            let len = if matches!(header_type, HeaderType::System32 | HeaderType::System64) {
                0x20
            } else {
                0x18
            };
            short(ev, len, header_type.name())?;
            let hook = u16_at(ev, 6).unwrap_or(0);
            e.version = u16_at(ev, 0).unwrap_or(0);
            e.hook_id = Some(hook);
            e.opcode = hook as u8;
            e.tid = Some(z(u32_at(ev, 8)));
            e.pid = Some(z(u32_at(ev, 12)));
            e.timestamp = i64_at(ev, 0x10).unwrap_or(0);
            len
        }
        HeaderType::PerfInfo32 | HeaderType::PerfInfo64 => {
            short(ev, 0x10, "perfinfo")?;
            let raw_version = u16_at(ev, 0).unwrap_or(0);
            let hook = u16_at(ev, 6).unwrap_or(0);
            e.version = raw_version & 0xFF;
            e.hook_id = Some(hook);
            e.opcode = hook as u8;
            e.timestamp = i64_at(ev, 8).unwrap_or(0);
            // PEBS index and PMC counters are appended to the header.
            let pebs = if raw_version & 0x8000 != 0 { 8 } else { 0 };
            let pmc = 8 * ((raw_version >> 8) & 7) as usize;
            let len = 0x10 + pebs + pmc;
            short(ev, len, "perfinfo")?;
            len
        }
        HeaderType::Full32
        | HeaderType::Full64
        | HeaderType::Instance32
        | HeaderType::Instance64 => {
            let len = if matches!(header_type, HeaderType::Full32 | HeaderType::Full64) {
                0x30
            } else {
                0x48
            };
            short(ev, len, header_type.name())?;
            e.opcode = u8_at(ev, 4).unwrap_or(0);
            e.level = u8_at(ev, 5).unwrap_or(0);
            e.version = u16_at(ev, 6).unwrap_or(0);
            e.tid = Some(z(u32_at(ev, 8)));
            e.pid = Some(z(u32_at(ev, 12)));
            e.timestamp = i64_at(ev, 0x10).unwrap_or(0);
            e.provider = g(0x18);
            len
        }
        HeaderType::EventHeader32 | HeaderType::EventHeader64 => {
            short(ev, 0x50, "EventHeader")?;
            e.flags = u16_at(ev, 4).unwrap_or(0);
            e.tid = Some(z(u32_at(ev, 8)));
            e.pid = Some(z(u32_at(ev, 12)));
            e.timestamp = i64_at(ev, 0x10).unwrap_or(0);
            e.provider = g(0x18);
            e.event_id = u16_at(ev, 0x28).unwrap_or(0);
            e.version = u8_at(ev, 0x2A).unwrap_or(0) as u16;
            e.channel = u8_at(ev, 0x2B).unwrap_or(0);
            e.level = u8_at(ev, 0x2C).unwrap_or(0);
            e.opcode = u8_at(ev, 0x2D).unwrap_or(0);
            e.task = u16_at(ev, 0x2E).unwrap_or(0);
            e.keyword = u64_at(ev, 0x30).unwrap_or(0);
            e.activity_id = g(0x40);
            // The 32/64-bit header flags decide the payload's pointer size.
            if e.flags & 0x0020 != 0 {
                e.pointer_size = 4;
            } else if e.flags & 0x0040 != 0 {
                e.pointer_size = 8;
            }
            let mut len = 0x50;
            if e.flags & 0x0001 != 0 {
                let Some(n) = extended_area_len(&ev[0x50..]) else {
                    return Err("extended data items run past the end of the event".into());
                };
                e.extended = &ev[0x50..0x50 + n];
                len += n;
            }
            len
        }
        HeaderType::Message => {
            // TraceMessage: u16 size, then message flags; the optional fields
            // depend on them. Not decoded: expose the bytes after the marker.
            short(ev, 8, "message")?;
            e.flags = u16_at(ev, 4).unwrap_or(0);
            8
        }
    };
    e.payload = ev.get(header_len..).unwrap_or(&[]);
    Ok(e)
}
