//! `EtlWriter`: streams records into per-CPU buffers and buffers into a
//! `Write + Seek` sink; patches the log-file header at the end.

use super::buffer::{BufferHeaderFields, EventArea};
use super::compress::Compressor;
use super::config::WriterConfig;
use super::headers::{encode, encoded_len};
use super::logfile::{self, BUFFERS_WRITTEN_OFFSET, END_TIME_OFFSET};
use super::record::{KernelHeader, Record};
use crate::buffer::BUFFER_HEADER_SIZE;
use std::io::{self, Seek, SeekFrom, Write};

/// Bytes of the SYSTEM header in front of the log-file header payload.
const SYSTEM_HEADER_SIZE: u64 = 0x20;

/// What `finish` reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriteSummary {
    /// Buffers in the file, the header buffer included.
    pub buffers: u32,
    /// Events in the file, the log-file header event included.
    pub events: u64,
    /// Bytes written to the sink.
    pub bytes: u64,
    /// Sum of the event areas' used sizes (uncompressed).
    pub event_bytes: u64,
}

pub struct EtlWriter<W: Write + Seek> {
    sink: W,
    config: WriterConfig,
    /// Sink position of the header buffer.
    base: u64,
    /// Bytes written so far (from `base`).
    written: u64,
    areas: Vec<EventArea>,
    next_sequence: u64,
    buffers: u32,
    events: u64,
    event_bytes: u64,
    max_timestamp: Option<i64>,
    compressor: Compressor,
    out: Vec<u8>,
}

fn invalid(m: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, m)
}

impl<W: Write + Seek> EtlWriter<W> {
    /// Start a trace at the sink's current position: writes the header buffer.
    pub fn new(mut sink: W, config: WriterConfig) -> io::Result<Self> {
        config.validate()?;
        let base = sink.stream_position()?;
        let areas = (0..config.cpus)
            .map(|_| EventArea::new(config.buffer_size))
            .collect();
        let mut w = EtlWriter {
            sink,
            base,
            written: 0,
            areas,
            next_sequence: 1,
            buffers: 0,
            events: 0,
            event_bytes: 0,
            max_timestamp: None,
            compressor: Compressor::new(),
            out: Vec::new(),
            config,
        };
        w.write_header_buffer()?;
        Ok(w)
    }

    pub fn config(&self) -> &WriterConfig {
        &self.config
    }

    /// Bytes written to the sink so far (buffers still being filled excluded).
    pub fn bytes_written(&self) -> u64 {
        self.written
    }

    /// Events accepted so far, the log-file header event included.
    pub fn events_written(&self) -> u64 {
        self.events
    }

    /// The biggest event `write` accepts, in bytes (header included).
    pub fn max_event_size(&self) -> usize {
        self.areas
            .first()
            .map_or(0, |a| a.capacity())
            .min(u16::MAX as usize)
    }

    fn write_header_buffer(&mut self) -> io::Result<()> {
        let c = &self.config;
        let payload = logfile::encode(c, c.start_time, 0);
        let rec = Record::system(
            c.ts0,
            KernelHeader {
                hook_id: 0x0000,
                version: 2,
                pid: 0,
                tid: 0,
            },
            &payload,
        );
        let mut area = EventArea::new(c.buffer_size);
        let len = encoded_len(&rec);
        if !area.fits(len) {
            return Err(invalid(format!(
                "the log-file header event ({len} bytes) does not fit a {}-byte buffer",
                c.buffer_size
            )));
        }
        encode(&rec, c.pointer_size, &mut area.data)?;
        area.align();
        let saved = (BUFFER_HEADER_SIZE + area.data.len()) as u32;
        let mut h = BufferHeaderFields::header(c.logger_id);
        h.saved_offset = saved;
        h.timestamp = c.ts0;
        h.sequence_number = 0;
        // Compressed files have variable-size buffers; PerfView trims the
        // header buffer there. Uncompressed files keep the fixed size.
        h.buffer_size = if c.compress { saved } else { c.buffer_size };
        self.events += 1;
        self.event_bytes += area.data.len() as u64;
        let fill = !c.compress;
        self.put_buffer(&h, &area.data, fill)
    }

    /// Write the buffer header, the event data and (uncompressed) the 0xFF fill.
    fn put_buffer(&mut self, h: &BufferHeaderFields, data: &[u8], fill: bool) -> io::Result<()> {
        self.sink.write_all(&h.encode())?;
        self.sink.write_all(data)?;
        let mut n = (BUFFER_HEADER_SIZE + data.len()) as u64;
        if fill {
            let pad = (h.buffer_size as usize).saturating_sub(BUFFER_HEADER_SIZE + data.len());
            const FF: [u8; 4096] = [0xFF; 4096];
            let mut left = pad;
            while left > 0 {
                let k = left.min(FF.len());
                self.sink.write_all(&FF[..k])?;
                left -= k;
            }
            n += pad as u64;
        }
        self.written += n;
        self.buffers += 1;
        Ok(())
    }

    /// Append an event to `cpu`'s buffer, flushing it first if the event
    /// does not fit. Within one CPU, timestamps should not decrease (readers
    /// merge the per-CPU streams by time).
    pub fn write(&mut self, cpu: u16, record: &Record<'_>) -> io::Result<()> {
        let ps = record.pointer_size.unwrap_or(self.config.pointer_size);
        if ps != 4 && ps != 8 {
            return Err(invalid(format!("pointer size {ps} is not 4 or 8")));
        }
        let len = encoded_len(record);
        if len > self.max_event_size() {
            return Err(invalid(format!(
                "event of {len} bytes exceeds the largest possible ({})",
                self.max_event_size()
            )));
        }
        let idx = self.room_on(cpu, len)?;
        let trace_ps = self.config.pointer_size;
        if let Some(area) = self.areas.get_mut(idx) {
            encode(record, trace_ps, &mut area.data)?;
        }
        self.written_event(idx, record.timestamp);
        Ok(())
    }

    /// The index of `cpu`'s buffer, flushed first when `len` more bytes do
    /// not fit; an error for a CPU the trace does not have.
    fn room_on(&mut self, cpu: u16, len: usize) -> io::Result<usize> {
        let idx = cpu as usize;
        let fits = match self.areas.get(idx) {
            Some(a) => a.fits(len),
            None => {
                return Err(invalid(format!(
                    "CPU {cpu} is out of range: the trace has {} CPUs",
                    self.config.cpus
                )))
            }
        };
        if !fits {
            self.flush_cpu(cpu)?;
        }
        Ok(idx)
    }

    /// After an event was appended to buffer `idx`: its alignment and the
    /// counts and times the header and the file's last buffer report.
    fn written_event(&mut self, idx: usize, timestamp: i64) {
        if let Some(area) = self.areas.get_mut(idx) {
            area.align();
            area.last_timestamp = area.last_timestamp.max(timestamp);
        }
        self.events += 1;
        self.max_timestamp = Some(self.max_timestamp.map_or(timestamp, |m| m.max(timestamp)));
    }

    /// Append an already-encoded event (header included, as a reader's
    /// buffer holds it) to `cpu`'s buffer: copying a trace event for event
    /// keeps every header field, which re-encoding a `Record` would not.
    pub fn write_raw(&mut self, cpu: u16, timestamp: i64, event: &[u8]) -> io::Result<()> {
        let len = event.len();
        if len == 0 || len > self.max_event_size() {
            return Err(invalid(format!(
                "raw event of {len} bytes is empty or exceeds the largest possible ({})",
                self.max_event_size()
            )));
        }
        let idx = self.room_on(cpu, len)?;
        if let Some(area) = self.areas.get_mut(idx) {
            area.data.extend_from_slice(event);
        }
        self.written_event(idx, timestamp);
        Ok(())
    }

    /// Write `cpu`'s buffer to the sink now (no-op when it is empty).
    pub fn flush_cpu(&mut self, cpu: u16) -> io::Result<()> {
        let Some(mut area) = self.areas.get_mut(cpu as usize).map(|a| {
            // Take the area out to borrow `self` freely; put it back below.
            std::mem::replace(a, EventArea::new(0))
        }) else {
            return Ok(());
        };
        let r = self.write_area(cpu, &area);
        area.clear();
        if let Some(slot) = self.areas.get_mut(cpu as usize) {
            *slot = area;
        }
        r
    }

    fn write_area(&mut self, cpu: u16, area: &EventArea) -> io::Result<()> {
        if area.is_empty() {
            return Ok(());
        }
        let c = &self.config;
        let mut h = BufferHeaderFields::data(cpu, c.logger_id, c.compress);
        h.saved_offset = (BUFFER_HEADER_SIZE + area.data.len()) as u32;
        h.timestamp = area.last_timestamp;
        h.sequence_number = self.next_sequence;
        self.next_sequence += 1;
        self.event_bytes += area.data.len() as u64;
        if c.compress {
            let mut out = std::mem::take(&mut self.out);
            out.clear();
            self.compressor.compress(&area.data, &mut out);
            h.buffer_size = (BUFFER_HEADER_SIZE + out.len()) as u32;
            let r = self.put_buffer(&h, &out, false);
            self.out = out;
            r
        } else {
            h.buffer_size = c.buffer_size;
            self.put_buffer(&h, &area.data, true)
        }
    }

    /// Flush every CPU's buffer (in CPU order), patch BuffersWritten and
    /// EndTime in the log-file header, and hand the sink back, positioned at
    /// the end of the trace.
    pub fn finish(mut self) -> io::Result<(W, WriteSummary)> {
        for cpu in 0..self.config.cpus {
            self.flush_cpu(cpu)?;
        }
        let end_time = self
            .config
            .filetime_of(self.max_timestamp.unwrap_or(self.config.ts0));
        let payload = self.base + BUFFER_HEADER_SIZE as u64 + SYSTEM_HEADER_SIZE;
        self.sink
            .seek(SeekFrom::Start(payload + END_TIME_OFFSET as u64))?;
        self.sink.write_all(&end_time.to_le_bytes())?;
        self.sink
            .seek(SeekFrom::Start(payload + BUFFERS_WRITTEN_OFFSET as u64))?;
        self.sink.write_all(&self.buffers.to_le_bytes())?;
        self.sink.seek(SeekFrom::Start(self.base + self.written))?;
        self.sink.flush()?;
        let summary = WriteSummary {
            buffers: self.buffers,
            events: self.events,
            bytes: self.written,
            event_bytes: self.event_bytes,
        };
        Ok((self.sink, summary))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::writer::{ClassicHeader, Header};
    use crate::{EtlFile, Guid};
    use std::io::Cursor;

    /// The events of a trace as (cpu, timestamp, raw bytes), each CPU's in
    /// its order (buffers of different CPUs interleave by when they filled).
    fn raw_events(bytes: Vec<u8>) -> Vec<(u16, i64, Vec<u8>)> {
        let f = EtlFile::from_bytes(bytes).unwrap();
        let mut out = Vec::new();
        let mut scratch = Vec::new();
        for info in f.buffers().iter().skip(1) {
            let data = f.buffer_data(info, &mut scratch).unwrap().to_vec();
            for e in crate::walk::BufferEvents::new(&data, info.cpu(), info.index) {
                let e = e.unwrap();
                let at = e.offset_in_buffer as usize;
                // Classic header: the size is the first u16.
                let size = u16::from_le_bytes([data[at], data[at + 1]]) as usize;
                out.push((info.cpu(), e.timestamp, data[at..at + size].to_vec()));
            }
        }
        out.sort_by_key(|e| e.0);
        out
    }

    #[test]
    fn raw_copies_read_back_byte_for_byte() {
        let config = WriterConfig {
            cpus: 2,
            buffer_size: 1024,
            ..WriterConfig::default()
        };
        let mut w = EtlWriter::new(Cursor::new(Vec::new()), config.clone()).unwrap();
        for i in 0..60u8 {
            let h = ClassicHeader {
                guid: Guid::from_u128(0x1234),
                opcode: i,
                pid: 7,
                ..ClassicHeader::default()
            };
            let payload = vec![i; usize::from(i) * 3];
            let rec = Record::new(config.ts0 + i64::from(i), Header::Full(h), &payload);
            w.write(u16::from(i % 2), &rec).unwrap();
        }
        let (c, _) = w.finish().unwrap();
        let first = raw_events(c.into_inner());
        assert_eq!(first.len(), 60);

        let mut w = EtlWriter::new(Cursor::new(Vec::new()), config).unwrap();
        for (cpu, ts, raw) in &first {
            w.write_raw(*cpu, *ts, raw).unwrap();
        }
        assert!(w.write_raw(2, 0, &first[0].2).is_err(), "CPU out of range");
        assert!(w.write_raw(0, 0, &[]).is_err(), "empty event");
        assert!(
            w.write_raw(0, 0, &vec![0; 2000]).is_err(),
            "bigger than a buffer"
        );
        let (c, s) = w.finish().unwrap();
        assert_eq!(s.events, 61, "60 copies and the log-file header");
        let copy = raw_events(c.into_inner());
        assert!(copy == first, "the copy differs");
    }
}
