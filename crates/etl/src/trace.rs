//! An opened trace: the buffer index, the log-file header, and access to the
//! events of each buffer (decompressed on demand, in parallel when asked).

use crate::buffer::{BufferHeader, BufferInfo, BUFFER_HEADER_SIZE};
use crate::container::{self, ZipLimits};
use crate::error::{Diagnostic, Error};
use crate::event::Event;
use crate::logfile::LogfileHeader;
use crate::source::Source;
use crate::walk::BufferEvents;
use crate::xca;
use rayon::prelude::*;
use std::path::Path;

/// Largest decompressed buffer accepted (ETW's own maximum is 16 MiB).
const MAX_BUFFER_BYTES: u32 = 64 << 20;

/// Largest decompressed/compressed size ratio accepted for a buffer. Real
/// traces stay far below (at most 13.6 in perfview-net452-x64.etl). Without
/// it, a damaged SavedOffset on a few-byte buffer costs a 64 MiB allocation
/// and fill, per buffer and per CPU stream of the ordered merge; with it,
/// memory and work stay within a fixed multiple of the file size.
pub const MAX_COMPRESSION_RATIO: usize = 128;

/// Buffers up to this size may have any ratio: mostly-empty buffers of a
/// writer compress far better than 128x, and 1 MiB (the largest ETW buffer
/// WPR uses) per buffer keeps the worst case bounded anyway.
pub const RATIO_FREE_BYTES: usize = 1 << 20;

pub struct EtlFile {
    source: Source,
    buffers: Vec<BufferInfo>,
    logfile: Option<LogfileHeader>,
    /// Timestamp of the log-file header event: time zero of the trace.
    ts0: i64,
    /// Problems found while indexing buffers.
    diagnostics: Vec<Diagnostic>,
    /// Buffers (or byte ranges) that could not be used at all.
    skipped_buffers: u32,
    /// Name of the member extracted from a container, if any.
    container_member: Option<String>,
}

/// The decoded event area of one buffer.
pub struct BufferData<'a> {
    pub info: &'a BufferInfo,
    pub data: &'a [u8],
}

impl<'a> BufferData<'a> {
    pub fn events(&self) -> BufferEvents<'a> {
        BufferEvents::new(self.data, self.info.cpu(), self.info.index)
    }
}

/// What `EtlFile::probe` found.
#[derive(Debug, Clone)]
pub struct Probe {
    /// The `.etl` inside a zip container.
    pub member: Option<String>,
    /// Bytes of the trace itself (a zip member's declared size).
    pub trace_len: u64,
}

impl EtlFile {
    /// Open a file: an .etl (memory-mapped) or a zip container holding one.
    pub fn open(path: &Path) -> Result<EtlFile, Error> {
        let src = Source::map(path)?;
        if container::is_zip(src.bytes()) {
            let (name, bytes) = container::extract_etl(src.bytes(), ZipLimits::default())?;
            let mut f = EtlFile::from_source(Source::Owned(bytes))?;
            f.container_member = Some(name);
            return Ok(f);
        }
        EtlFile::from_source(src)
    }

    /// `open`, but a zip container's member is inflated into a file in
    /// `scratch` and memory-mapped, never into memory: a small archive with
    /// a huge member costs disk, not RAM. The scratch file is unlinked once
    /// mapped (on Unix the mapping stays valid; elsewhere it may remain).
    pub fn open_spilling(path: &Path, scratch: &Path) -> Result<EtlFile, Error> {
        let src = Source::map(path)?;
        if !container::is_zip(src.bytes()) {
            return EtlFile::from_source(src);
        }
        static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let tmp = scratch.join(format!("member-{}-{n}.etl.tmp", std::process::id()));
        let result = (|| {
            let mut out = std::io::BufWriter::new(std::fs::File::create(&tmp)?);
            let name = container::extract_etl_to(src.bytes(), ZipLimits::default(), &mut out)?;
            std::io::Write::flush(&mut out)?;
            drop(out);
            let mut f = EtlFile::from_source(Source::map(&tmp)?)?;
            f.container_member = Some(name);
            Ok(f)
        })();
        let _ = std::fs::remove_file(&tmp);
        result
    }

    /// Whether `path` is a readable trace (an .etl, or a zip container
    /// holding one), from its first bytes only: nothing is inflated or
    /// paged in beyond `PROBE_BYTES`. Gives the container member's name and
    /// the trace's size (the member's declared size for a zip).
    pub fn probe(path: &Path) -> Result<Probe, Error> {
        use std::io::Read;
        const PROBE_BYTES: u64 = 4 << 20;
        let file = std::fs::File::open(path)?;
        let len = file.metadata()?.len();
        let mut head = Vec::new();
        file.take(PROBE_BYTES).read_to_end(&mut head)?;
        if !container::is_zip(&head) {
            EtlFile::from_source(Source::Owned(head))?;
            return Ok(Probe {
                member: None,
                trace_len: len,
            });
        }
        // A zip's directory is at its end: map the archive (it is the small part).
        let src = Source::map(path)?;
        let (name, declared, prefix) =
            container::etl_member_prefix(src.bytes(), ZipLimits::default(), PROBE_BYTES)?;
        EtlFile::from_source(Source::Owned(prefix))?;
        Ok(Probe {
            member: Some(name),
            trace_len: declared,
        })
    }

    /// Read from bytes in memory (an .etl or a zip container).
    pub fn from_bytes(bytes: Vec<u8>) -> Result<EtlFile, Error> {
        if container::is_zip(&bytes) {
            let (name, inner) = container::extract_etl(&bytes, ZipLimits::default())?;
            let mut f = EtlFile::from_source(Source::Owned(inner))?;
            f.container_member = Some(name);
            return Ok(f);
        }
        EtlFile::from_source(Source::Owned(bytes))
    }

    fn from_source(source: Source) -> Result<EtlFile, Error> {
        let bytes = source.bytes();
        let first = BufferHeader::parse(bytes).ok_or_else(|| Error::NotEtl {
            offset: 0,
            message: format!("{} bytes is too short for a buffer header", bytes.len()),
        })?;
        if first.buffer_size < BUFFER_HEADER_SIZE as u32
            || first.saved_offset < BUFFER_HEADER_SIZE as u32
            || first.saved_offset > first.buffer_size.max(MAX_BUFFER_BYTES)
        {
            return Err(Error::NotEtl {
                offset: 0,
                message: "the first buffer header is not plausible".into(),
            });
        }
        let mut f = EtlFile {
            source,
            buffers: Vec::new(),
            logfile: None,
            ts0: 0,
            diagnostics: Vec::new(),
            skipped_buffers: 0,
            container_member: None,
        };
        f.index_buffers();
        f.read_logfile_header()?;
        Ok(f)
    }

    fn index_buffers(&mut self) {
        let (buffers, diagnostics, skipped) = index_buffers(self.source.bytes());
        self.buffers = buffers;
        self.diagnostics = diagnostics;
        self.skipped_buffers = skipped;
    }

    fn read_logfile_header(&mut self) -> Result<(), Error> {
        let Some(first) = self.buffers.first().copied() else {
            return Err(Error::NotEtl {
                offset: 0,
                message: "no readable buffer".into(),
            });
        };
        let mut scratch = Vec::new();
        let data = self
            .buffer_data(&first, &mut scratch)
            .map_err(|d| Error::NotEtl {
                offset: d.offset,
                message: d.message,
            })?;
        let ev = BufferEvents::new(data, first.cpu(), 0).next();
        let parsed = match ev {
            Some(Ok(e)) if e.hook_id == Some(0) => {
                Some((e.timestamp, LogfileHeader::parse(e.payload)))
            }
            _ => None,
        };
        match parsed {
            Some((ts0, logfile)) => {
                self.ts0 = ts0;
                self.logfile = logfile;
                if self.logfile.is_none() {
                    self.diagnostics.push(Diagnostic {
                        offset: first.offset + BUFFER_HEADER_SIZE as u64,
                        message: "the log-file header event is unreadable".into(),
                    });
                }
                Ok(())
            }
            _ => Err(Error::NotEtl {
                offset: first.offset + BUFFER_HEADER_SIZE as u64,
                message: "the first event is not a log-file header (hook 0x0000)".into(),
            }),
        }
    }

    pub fn buffers(&self) -> &[BufferInfo] {
        &self.buffers
    }

    pub fn logfile(&self) -> Option<&LogfileHeader> {
        self.logfile.as_ref()
    }

    /// Timestamp of the log-file header event, the trace's time zero.
    pub fn ts0(&self) -> i64 {
        self.ts0
    }

    pub fn ticks_per_second(&self) -> f64 {
        self.logfile.as_ref().map_or(1e7, |l| l.ticks_per_second())
    }

    /// Problems found while indexing the file (not those met while walking events).
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    pub fn skipped_buffers(&self) -> u32 {
        self.skipped_buffers
    }

    pub fn container_member(&self) -> Option<&str> {
        self.container_member.as_deref()
    }

    /// The whole (container-extracted) file.
    pub fn raw_bytes(&self) -> &[u8] {
        self.source.bytes()
    }

    pub fn file_len(&self) -> u64 {
        self.source.bytes().len() as u64
    }

    /// The event area of a buffer, decompressing into `scratch` if needed.
    pub fn buffer_data<'s>(
        &'s self,
        info: &BufferInfo,
        scratch: &'s mut Vec<u8>,
    ) -> Result<&'s [u8], Diagnostic> {
        let bytes = self.source.bytes();
        let range = info.data_range();
        let raw = bytes.get(range).unwrap_or(&[]);
        if !info.header.is_compressed() {
            return Ok(raw);
        }
        let want = info.header.payload_len();
        if want > (raw.len().saturating_mul(MAX_COMPRESSION_RATIO)).max(RATIO_FREE_BYTES) {
            return Err(Diagnostic {
                offset: info.offset,
                message: format!(
                    "compressed buffer claims {want} bytes from {} compressed, \
                     over the {MAX_COMPRESSION_RATIO}x limit for buffers over 1 MiB",
                    raw.len()
                ),
            });
        }
        // Only growth is zeroed: decompression overwrites every byte it
        // reports, and a short result is rejected below.
        scratch.truncate(want);
        scratch.resize(want, 0);
        match xca::decompress(raw, scratch) {
            Ok(n) if n == want => Ok(&scratch[..]),
            Ok(n) => Err(Diagnostic {
                offset: info.offset,
                message: format!("compressed buffer decompressed to {n} bytes instead of {want}"),
            }),
            Err(e) => Err(Diagnostic {
                offset: info.offset,
                message: format!("compressed buffer is corrupt: {e}"),
            }),
        }
    }

    /// Decode every buffer in parallel and map it with `f`; results come back
    /// in file order. Buffers that fail to decompress are passed as `Err`.
    pub fn par_map_buffers<T, F>(&self, f: F) -> Vec<T>
    where
        T: Send,
        F: Fn(Result<BufferData<'_>, Diagnostic>) -> T + Sync + Send,
    {
        self.buffers
            .par_iter()
            .map_init(Vec::new, |scratch, info| {
                let r = self
                    .buffer_data(info, scratch)
                    .map(|data| BufferData { info, data });
                f(r)
            })
            .collect()
    }

    /// Visit every event in timestamp order, see `crate::ordered`.
    pub fn for_each_event_in_order<F>(&self, f: F) -> Vec<Diagnostic>
    where
        F: FnMut(&Event<'_>),
    {
        crate::ordered::for_each_event_in_order(self, f)
    }
}

/// Step through the file buffer by buffer, resynchronising after damage.
fn index_buffers(bytes: &[u8]) -> (Vec<BufferInfo>, Vec<Diagnostic>, u32) {
    let mut buffers = Vec::new();
    let mut diagnostics = Vec::new();
    let mut skipped = 0u32;
    let push = |buffers: &mut Vec<BufferInfo>, offset: u64, header: BufferHeader| {
        let index = buffers.len() as u32;
        buffers.push(BufferInfo {
            index,
            offset,
            header,
        });
    };
    let len = bytes.len() as u64;
    let mut off = 0u64;
    // Size of the last buffer whose end was confirmed by what follows it.
    let mut stride = 0u64;
    while off + BUFFER_HEADER_SIZE as u64 <= len {
        let h = BufferHeader::parse(&bytes[off as usize..]);
        match h.filter(plausible) {
            Some(mut h) => {
                if let Some(fixed) = stride_instead_of(bytes, off, &h, stride) {
                    diagnostics.push(Diagnostic {
                        offset: off,
                        message: format!(
                            "buffer claims {} bytes but the next buffer starts after {fixed}, \
                             like the buffers before it: BufferSize is damaged",
                            h.buffer_size
                        ),
                    });
                    h.buffer_size = fixed;
                }
                let end = off + h.buffer_size as u64;
                if end > len {
                    diagnostics.push(Diagnostic {
                        offset: off,
                        message: format!(
                            "buffer of {} bytes is truncated: the file ends {} bytes into it",
                            h.buffer_size,
                            len - off
                        ),
                    });
                    if !h.is_compressed() {
                        // Keep the events that made it to disk.
                        let mut h = h;
                        h.buffer_size = (len - off) as u32;
                        h.saved_offset = h.saved_offset.min(h.buffer_size);
                        push(&mut buffers, off, h);
                    } else {
                        skipped += 1;
                    }
                    break;
                }
                if off == 0 || end == len || looks_like_buffer(bytes, end) {
                    stride = h.buffer_size as u64;
                }
                push(&mut buffers, off, h);
                off = end;
            }
            None => {
                let next = resync(bytes, off, stride);
                skipped += 1;
                diagnostics.push(Diagnostic {
                    offset: off,
                    message: match next {
                        Some(n) => format!(
                            "invalid buffer header; skipped {} bytes to the next buffer",
                            n - off
                        ),
                        None => format!(
                            "invalid buffer header; the remaining {} bytes hold no readable buffer",
                            len - off
                        ),
                    },
                });
                match next {
                    Some(n) => off = n,
                    None => break,
                }
            }
        }
    }
    if off < len && off + BUFFER_HEADER_SIZE as u64 > len && !buffers.is_empty() {
        let tail = &bytes[off as usize..];
        if tail.iter().any(|&b| b != 0) {
            diagnostics.push(Diagnostic {
                offset: off,
                message: format!("{} trailing bytes after the last buffer", len - off),
            });
        }
    }
    (buffers, diagnostics, skipped)
}

/// Whether a buffer header can be trusted enough to step over it.
fn plausible(h: &BufferHeader) -> bool {
    let size_ok = h.buffer_size >= BUFFER_HEADER_SIZE as u32 && h.buffer_size <= MAX_BUFFER_BYTES;
    let saved_ok = h.saved_offset >= BUFFER_HEADER_SIZE as u32
        && if h.is_compressed() {
            h.saved_offset <= MAX_BUFFER_BYTES
        } else {
            h.saved_offset <= h.buffer_size
        };
    size_ok && saved_ok && h.buffer_type <= 7
}

/// Find the next plausible buffer header after a damaged one at `off`: first
/// at the next multiple of the file's fixed buffer size, then by scanning in
/// 8-byte steps for a header whose first event has a valid marker.
fn resync(bytes: &[u8], off: u64, stride: u64) -> Option<u64> {
    let len = bytes.len() as u64;
    if stride >= BUFFER_HEADER_SIZE as u64 {
        let next = (off / stride + 1) * stride;
        if next < len && looks_like_buffer(bytes, next) {
            return Some(next);
        }
    }
    let mut o = (off + 8) & !7;
    while o + BUFFER_HEADER_SIZE as u64 <= len {
        if looks_like_buffer(bytes, o) {
            return Some(o);
        }
        o += 8;
    }
    None
}

/// Whether a plausible buffer header that fits the file sits at `o`, and (for
/// an uncompressed buffer) its first event has a valid marker.
fn looks_like_buffer(bytes: &[u8], o: u64) -> bool {
    let Some(h) = BufferHeader::parse(bytes.get(o as usize..).unwrap_or(&[])) else {
        return false;
    };
    if !plausible(&h) || o + h.buffer_size as u64 > bytes.len() as u64 {
        return false;
    }
    if h.is_compressed() {
        return true;
    }
    let m = o as usize + BUFFER_HEADER_SIZE + 3;
    bytes.get(m).is_some_and(|&b| b & 0xC0 == 0xC0)
}

/// The stride to step by when an uncompressed buffer claims more bytes than
/// the buffers before it while a plausible buffer header (or the end of the
/// file) sits at that stride: a damaged BufferSize, which would otherwise
/// swallow the buffers after it, or lose them all by running past the end.
/// Undamaged files never trigger it: buffer sizes vary only in compressed
/// files (etl-format.md A.3), and a buffer never holds another one's header.
fn stride_instead_of(bytes: &[u8], off: u64, h: &BufferHeader, stride: u64) -> Option<u32> {
    let fits = stride >= BUFFER_HEADER_SIZE as u64
        && u64::from(h.buffer_size) > stride
        && u64::from(h.saved_offset) <= stride;
    if h.is_compressed() || !fits {
        return None;
    }
    let next = off + stride;
    let len = bytes.len() as u64;
    (next == len || looks_like_buffer(bytes, next)).then_some(stride as u32)
}
