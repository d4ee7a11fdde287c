//! Copy an .etl event for event, adding the image identity events after
//! each image load and rundown event, on the same CPU and at the same
//! timestamp: where xperf's merge puts them and how the model joins them.

use crate::identity::{read_identity, Identity};
use crate::ktc::{events_for, LoadedImage};
use etl::decode::{decode, Decoded, ImageKind};
use etl::le::u16_at;
use etl::walk::BufferEvents;
use etl::writer::{EtlWriter, WriterConfig};
use etl::EtlFile;
use std::collections::HashMap;
use std::io::{self, Seek, Write};

/// What `merge_identities` did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MergeSummary {
    /// Events copied from the input (its log-file header event excluded).
    pub events_copied: u64,
    /// Load and rundown events of images.
    pub image_events: u64,
    /// Of those, the ones that got identity events.
    pub identified: u64,
    /// KernelTraceControl events written.
    pub events_added: u64,
    /// Distinct image paths whose file could not be had or did not parse.
    pub unreadable: Vec<String>,
    /// Buffers of the input that could not be read (left out).
    pub bad_buffers: u32,
}

fn invalid(m: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, m)
}

/// Write `trace` to `out` with identity events for every image whose file
/// `read_image` returns (given the path as the trace recorded it).
pub fn merge_identities<W, F>(
    trace: &EtlFile,
    out: W,
    mut read_image: F,
) -> io::Result<(W, MergeSummary)>
where
    W: Write + Seek,
    F: FnMut(&str) -> Option<Vec<u8>>,
{
    if trace.members().len() > 1 {
        return Err(invalid("merging needs a single-file trace".into()));
    }
    let config = config_of(trace)?;
    let mut w = EtlWriter::new(out, config)?;
    let mut summary = MergeSummary::default();
    let mut known: HashMap<String, Option<Identity>> = HashMap::new();
    let mut scratch = Vec::new();
    for info in trace.buffers() {
        let Ok(data) = trace.buffer_data(info, &mut scratch) else {
            summary.bad_buffers += 1;
            continue;
        };
        let cpu = info.cpu();
        let header_buffer = info.header.buffer_type == etl::buffer::types::HEADER;
        // A walk error ends the buffer: the bytes after it cannot be framed.
        for e in BufferEvents::new(data, cpu, info.index).map_while(Result::ok) {
            if header_buffer && e.hook_id == Some(0) && e.header_type.is_kernel() {
                continue; // The log-file header: the writer wrote its own.
            }
            let raw = raw_event(data, e.offset_in_buffer as usize, e.header_type.is_kernel())
                .ok_or_else(|| invalid("event runs past its buffer".into()))?;
            w.write_raw(cpu, e.timestamp, raw)?;
            summary.events_copied += 1;
            let Some(Ok(Decoded::Image(img))) = decode(&e) else {
                continue;
            };
            if img.kind == ImageKind::Unload {
                continue;
            }
            summary.image_events += 1;
            let id = known.entry(img.file_name.clone()).or_insert_with(|| {
                let id = read_image(&img.file_name).and_then(|b| read_identity(&b).ok());
                if id.is_none() {
                    summary.unreadable.push(img.file_name.clone());
                }
                id
            });
            let Some(id) = id else { continue };
            let image = LoadedImage {
                timestamp: e.timestamp,
                base: img.image_base,
                size: img.image_size,
                pid: img.pid,
                pointer_size: e.pointer_size,
                path: &img.file_name,
            };
            for k in events_for(&image, id) {
                w.write(cpu, &k.record(&image))?;
                summary.events_added += 1;
            }
            summary.identified += 1;
        }
    }
    let (out, _) = w.finish()?;
    Ok((out, summary))
}

/// The event's bytes: its size field is the second u16 of kernel headers
/// and the first of the others (as `etl::walk` frames them).
fn raw_event(data: &[u8], at: usize, kernel: bool) -> Option<&[u8]> {
    let size = u16_at(data, if kernel { at + 4 } else { at })? as usize;
    data.get(at..at.checked_add(size)?)
}

/// The writer settings that reproduce the input's log-file header.
fn config_of(trace: &EtlFile) -> io::Result<WriterConfig> {
    let lh = trace
        .logfile()
        .ok_or_else(|| invalid("the trace has no log-file header".into()))?;
    if lh.clock_type != 1 {
        // The writer records QPC time; re-labelling another clock would
        // shift every timestamp's meaning.
        return Err(invalid(format!(
            "clock type {} is not QPC (1): not supported",
            lh.clock_type
        )));
    }
    let max_cpu = trace.buffers().iter().map(|b| b.cpu()).max().unwrap_or(0);
    let cpus = u16::try_from(lh.number_of_processors)
        .unwrap_or(u16::MAX)
        .max(max_cpu.saturating_add(1));
    let logger_id = trace.buffers().first().map_or(1, |b| b.header.logger_id);
    let config = WriterConfig {
        pointer_size: lh.pointer_size as u8,
        cpus,
        buffer_size: lh.buffer_size,
        compress: lh.is_compressed_mode(),
        ts0: trace.ts0(),
        perf_freq: lh.perf_freq,
        start_time: lh.start_time,
        boot_time: lh.boot_time,
        cpu_speed_mhz: lh.cpu_speed_mhz,
        timer_resolution: lh.timer_resolution,
        timezone_bias: lh.timezone_bias,
        os_version: (lh.major_version, lh.minor_version, lh.provider_version),
        logger_id,
        logger_name: lh.logger_name.clone(),
        log_file_name: lh.log_file_name.clone(),
        events_lost: lh.events_lost,
        buffers_lost: lh.buffers_lost,
    };
    config.validate()?;
    Ok(config)
}
