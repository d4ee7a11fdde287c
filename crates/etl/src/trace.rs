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
    /// The files of the trace: one, or several recorded together (the
    /// members of a `.diagsession`, PerfView's unmerged `x.etl` and
    /// `x.kernel.etl`) whose events are one trace.
    members: Vec<Member>,
    /// Every member's buffers, member after member.
    buffers: Vec<BufferInfo>,
    /// The member whose log-file header and time zero the trace uses: the
    /// one that started first.
    primary: usize,
    /// Problems found while indexing buffers.
    diagnostics: Vec<Diagnostic>,
    /// Buffers (or byte ranges) that could not be used at all.
    skipped_buffers: u32,
}

/// One file of a trace.
struct Member {
    source: Source,
    /// Name of the member inside a container, or of the file given.
    name: Option<String>,
    logfile: Option<LogfileHeader>,
    /// Timestamp of the log-file header event.
    ts0: i64,
    buffers: u32,
    /// Whether it came out of a zip container.
    from_container: bool,
}

/// What `EtlFile::members` tells of each file of a trace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberInfo {
    pub name: String,
    pub buffers: u32,
    pub bytes: u64,
}

/// A container member being inflated into a scratch file.
struct SpillFile {
    path: std::path::PathBuf,
    out: std::io::BufWriter<std::fs::File>,
}

impl SpillFile {
    fn create(path: std::path::PathBuf) -> std::io::Result<SpillFile> {
        let out = std::io::BufWriter::new(std::fs::File::create(&path)?);
        Ok(SpillFile { path, out })
    }

    /// Map the finished file and unlink it (the mapping keeps the pages).
    fn map(mut self) -> Result<Source, Error> {
        let r = std::io::Write::flush(&mut self.out)
            .and_then(|_| Source::map(&self.path))
            .map_err(Error::from);
        let _ = std::fs::remove_file(&self.path);
        r
    }
}

impl std::io::Write for SpillFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.out.write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

impl Drop for SpillFile {
    fn drop(&mut self) {
        // A member refused half-way (over the limits) leaves no scratch file.
        let _ = std::fs::remove_file(&self.path);
    }
}

/// A file to read as a member of a trace (or why it could not be had), its
/// name, and whether it came out of a container.
type Part = (Result<Source, Error>, Option<String>, bool);

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

/// Bytes from which a file's pages are released once its buffers are
/// indexed (`from_source`).
const RELEASE_AFTER_INDEX: u64 = 1 << 30;

/// What `EtlFile::probe` found.
#[derive(Debug, Clone)]
pub struct Probe {
    /// The `.etl` inside a zip container.
    pub member: Option<String>,
    /// Bytes of the trace itself (a zip member's declared size).
    pub trace_len: u64,
    /// `trace_len` with compressed buffers counted at their decompressed
    /// size, as the first buffers' ratio predicts (what a read costs).
    pub expanded_len: u64,
    /// Of those bytes, the samples and stack walks, as the first buffers' mix predicts.
    pub profile: ProfileMix,
}

/// The share of a trace's events whose records cost the same whatever
/// their size: samples (SampledProfile, hook 0x0F2E) and stack walks
/// (StackWalk, hook 0x1820, whose frames are kept once per distinct stack).
/// A sampled trace is mostly these; admission control counts them by
/// number, the rest by bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ProfileMix {
    /// Such events per byte read.
    pub events_per_byte: f64,
    /// Fraction of the bytes read that such events take.
    pub byte_share: f64,
}

impl ProfileMix {
    /// The mix of the events in `f`'s buffers (the probe's first bytes).
    pub fn of(f: &EtlFile) -> ProfileMix {
        const SAMPLED_PROFILE: u16 = 0x0F2E;
        const STACK_WALK: u16 = 0x1820;
        let (mut read, mut events, mut bytes) = (0u64, 0u64, 0u64);
        let mut scratch = Vec::new();
        for b in f.buffers() {
            let Ok(data) = f.buffer_data(b, &mut scratch) else {
                continue;
            };
            read += data.len() as u64;
            let bd = BufferData { info: b, data };
            // An event's size: up to the next one's start (or the data's end).
            let mut last: Option<(u32, bool)> = None;
            let mut count = |end: u32, last: Option<(u32, bool)>| {
                if let Some((start, true)) = last {
                    events += 1;
                    bytes += u64::from(end.saturating_sub(start));
                }
            };
            for e in bd.events().map_while(Result::ok) {
                count(e.offset_in_buffer, last);
                let profile = matches!(e.hook_id, Some(SAMPLED_PROFILE | STACK_WALK));
                last = Some((e.offset_in_buffer, profile));
            }
            count(u32::try_from(data.len()).unwrap_or(u32::MAX), last);
        }
        if read == 0 {
            return ProfileMix::default();
        }
        ProfileMix {
            events_per_byte: events as f64 / read as f64,
            byte_share: (bytes as f64 / read as f64).min(1.0),
        }
    }
}

/// The buffers' bytes in the file, and as reading them takes (a compressed
/// buffer at its decompressed size, capped where the reader refuses one).
fn buffer_bytes(f: &EtlFile) -> (u64, u64) {
    let (mut stored, mut read) = (0u64, 0u64);
    for b in f.buffers() {
        let h = &b.header;
        let size = u64::from(h.buffer_size);
        stored += size;
        read += if h.is_compressed() {
            u64::from(h.used_bytes())
                .min(size.saturating_mul(MAX_COMPRESSION_RATIO as u64))
                .max(size)
        } else {
            size
        };
    }
    (stored, read)
}

/// `len` scaled by how much the buffers of `head` (a file's first bytes) expand.
fn expanded(len: u64, head: &EtlFile) -> u64 {
    let (stored, read) = buffer_bytes(head);
    if stored == 0 {
        return len;
    }
    (len as f64 * (read as f64 / stored as f64)) as u64
}

impl EtlFile {
    /// Open a file: an .etl (memory-mapped), or a zip container (PerfView's
    /// `.etl.zip`, Visual Studio's `.diagsession`) whose `.etl` members are
    /// read as one trace.
    pub fn open(path: &Path) -> Result<EtlFile, Error> {
        EtlFile::open_many(&[path])
    }

    /// Open several files recorded together as one trace (each may be a
    /// container). A member that cannot be read costs only its own events
    /// and is named in the diagnostics; with no readable member at all, the
    /// first member's error is returned.
    pub fn open_many(paths: &[&Path]) -> Result<EtlFile, Error> {
        let mut parts = Vec::new();
        for path in paths {
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
            // A file that cannot be mapped, or a broken container, is one
            // refused member, not the end of the others.
            match Source::map(path)
                .map_err(Error::from)
                .and_then(|src| EtlFile::sources_of(src, name.clone()))
            {
                Ok(p) => parts.extend(p),
                Err(e) => parts.push((Err(e), name, false)),
            }
        }
        EtlFile::from_members(parts)
    }

    /// `open`, but a zip container's members are inflated into files in
    /// `scratch` and memory-mapped, never into memory: a small archive with
    /// a huge member costs disk, not RAM. Each scratch file is unlinked once
    /// mapped (on Unix the mapping stays valid; elsewhere it may remain).
    pub fn open_spilling(path: &Path, scratch: &Path) -> Result<EtlFile, Error> {
        EtlFile::open_many_spilling(&[path], scratch)
    }

    /// `open_many` with `open_spilling`'s handling of containers.
    pub fn open_many_spilling(paths: &[&Path], scratch: &Path) -> Result<EtlFile, Error> {
        let mut parts = Vec::new();
        for path in paths {
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
            match Source::map(path)
                .map_err(Error::from)
                .and_then(|src| EtlFile::spilled_sources_of(src, name.clone(), scratch))
            {
                Ok(p) => parts.extend(p),
                Err(e) => parts.push((Err(e), name, false)),
            }
        }
        EtlFile::from_members(parts)
    }

    /// The .etl sources in `src`: itself, or a container's members inflated
    /// into scratch files.
    fn spilled_sources_of(
        src: Source,
        name: Option<String>,
        scratch: &Path,
    ) -> Result<Vec<Part>, Error> {
        if !container::is_zip(src.bytes()) {
            return Ok(vec![(Ok(src), name, false)]);
        }
        static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let members = container::extract_etls_to(src.bytes(), ZipLimits::default(), |_, _| {
            let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let tmp = scratch.join(format!("member-{}-{n}.etl.tmp", std::process::id()));
            SpillFile::create(tmp)
        })?;
        Ok(members
            .into_iter()
            .map(|(n, r)| (r.and_then(SpillFile::map), Some(n), true))
            .collect())
    }

    /// Whether `path` is a readable trace (an .etl, or a zip container
    /// holding one), from its first bytes only: nothing is inflated or
    /// paged in beyond `PROBE_BYTES` per member. Gives the first readable
    /// container member's name and the trace's size (for a zip, the sum of
    /// its `.etl` members' declared sizes).
    pub fn probe(path: &Path) -> Result<Probe, Error> {
        use std::io::Read;
        const PROBE_BYTES: u64 = 4 << 20;
        let file = std::fs::File::open(path)?;
        let len = file.metadata()?.len();
        let mut head = Vec::new();
        file.take(PROBE_BYTES).read_to_end(&mut head)?;
        if !container::is_zip(&head) {
            let f = EtlFile::from_source(Source::Owned(head), None, false)?;
            return Ok(Probe {
                member: None,
                trace_len: len,
                expanded_len: expanded(len, &f),
                profile: ProfileMix::of(&f),
            });
        }
        // A zip's directory is at its end: map the archive (it is the small part).
        let src = Source::map(path)?;
        let members = container::probe_etls(src.bytes(), ZipLimits::default(), PROBE_BYTES)?;
        let trace_len = members.iter().map(|m| m.1).fold(0u64, u64::saturating_add);
        let mut first_error = None;
        for (name, _, prefix) in members {
            match prefix.and_then(|p| EtlFile::from_source(Source::Owned(p), None, true)) {
                Ok(f) => {
                    return Ok(Probe {
                        member: Some(name),
                        trace_len,
                        expanded_len: expanded(trace_len, &f),
                        profile: ProfileMix::of(&f),
                    })
                }
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
        Err(first_error.unwrap_or_else(|| Error::Container("no readable .etl member".into())))
    }

    /// Read from bytes in memory (an .etl or a zip container).
    pub fn from_bytes(bytes: Vec<u8>) -> Result<EtlFile, Error> {
        EtlFile::from_members(EtlFile::sources_of(Source::Owned(bytes), None)?)
    }

    /// The .etl sources in `src`: itself, or a container's members.
    fn sources_of(src: Source, name: Option<String>) -> Result<Vec<Part>, Error> {
        if !container::is_zip(src.bytes()) {
            return Ok(vec![(Ok(src), name, false)]);
        }
        let members = container::extract_etls(src.bytes(), ZipLimits::default())?;
        Ok(members
            .into_iter()
            .map(|(n, b)| (b.map(Source::Owned), Some(n), true))
            .collect())
    }

    fn from_members(parts: Vec<Part>) -> Result<EtlFile, Error> {
        let many = parts.len() > 1;
        let mut opened: Vec<EtlFile> = Vec::new();
        let mut refused: Vec<Diagnostic> = Vec::new();
        let mut first_error = None;
        for (source, name, from_container) in parts {
            let r = source.and_then(|s| EtlFile::from_source(s, name.clone(), from_container));
            match r {
                Ok(f) => opened.push(f),
                Err(e) => {
                    let what = name.as_deref().unwrap_or("the trace");
                    refused.push(Diagnostic {
                        offset: e.offset().unwrap_or(0),
                        message: format!("{what} is not read: {e}"),
                    });
                    first_error.get_or_insert(e);
                }
            }
        }
        if opened.is_empty() {
            return Err(first_error.unwrap_or(Error::NotEtl {
                offset: 0,
                message: "no .etl file to read".into(),
            }));
        }
        if many {
            // Offsets are within each member's file: say which.
            for m in &mut opened {
                if let Some(n) = m.members[0].name.clone() {
                    for d in &mut m.diagnostics {
                        d.message = format!("{n}: {}", d.message);
                    }
                }
            }
        }
        let mut f = opened.remove(0);
        for other in opened {
            f.absorb(other, &mut refused);
        }
        f.diagnostics.extend(refused);
        Ok(f)
    }

    /// Add the member(s) of `other`: its buffers follow ours. A member whose
    /// clock differs cannot be put on our time line and is refused.
    fn absorb(&mut self, other: EtlFile, refused: &mut Vec<Diagnostic>) {
        let base_member = self.members.len() as u16;
        let base_index = self.buffers.len() as u32;
        let ours = self.ticks_per_second();
        for m in &other.members {
            let theirs = m.logfile.as_ref().map_or(1e7, |l| l.ticks_per_second());
            if theirs != ours {
                refused.push(Diagnostic {
                    offset: 0,
                    message: format!(
                        "{} is not read: its clock runs at {theirs} ticks/s, the trace's at {ours}",
                        m.name.as_deref().unwrap_or("a member")
                    ),
                });
                return;
            }
        }
        self.buffers.extend(other.buffers.into_iter().map(|mut b| {
            b.index += base_index;
            b.member += base_member;
            b
        }));
        self.diagnostics.extend(other.diagnostics);
        self.skipped_buffers += other.skipped_buffers;
        self.members.extend(other.members);
        self.primary = (0..self.members.len())
            .min_by_key(|&i| self.members[i].ts0)
            .unwrap_or(0);
    }

    fn from_source(
        source: Source,
        name: Option<String>,
        from_container: bool,
    ) -> Result<EtlFile, Error> {
        let bytes = source.bytes();
        let first = BufferHeader::parse(bytes).ok_or_else(|| Error::NotEtl {
            offset: 0,
            message: format!("{} bytes is too short for a buffer header", bytes.len()),
        })?;
        if first.buffer_size < BUFFER_HEADER_SIZE as u32
            || first.used_bytes() < BUFFER_HEADER_SIZE as u32
            || first.used_bytes() > first.buffer_size.max(MAX_BUFFER_BYTES)
        {
            return Err(Error::NotEtl {
                offset: 0,
                message: "the first buffer header is not plausible".into(),
            });
        }
        // Walking the buffer headers maps most of the file (the kernel maps
        // the pages around each one touched): of a large trace, the walk
        // leaves them to the page cache behind itself, so that a trace
        // larger than memory is not resident whole before its read.
        let large = bytes.len() as u64 > RELEASE_AFTER_INDEX;
        let (buffers, diagnostics, skipped) = index_buffers(bytes, |from, to| {
            if large {
                source.done_with(from as usize, (to - from) as usize);
            }
        });
        let mut f = EtlFile {
            members: vec![Member {
                source,
                name,
                logfile: None,
                ts0: 0,
                buffers: buffers.len() as u32,
                from_container,
            }],
            buffers,
            primary: 0,
            diagnostics,
            skipped_buffers: skipped,
        };
        f.read_logfile_header()?;
        // The rest of the walk's pages, and the logfile header's.
        if f.file_len() > RELEASE_AFTER_INDEX {
            f.done_with_pages();
        }
        Ok(f)
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
                let m = &mut self.members[0];
                m.ts0 = ts0;
                m.logfile = logfile;
                if m.logfile.is_none() {
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

    /// The log-file header of the trace: the first-started member's.
    pub fn logfile(&self) -> Option<&LogfileHeader> {
        self.members[self.primary].logfile.as_ref()
    }

    /// Timestamp of the (first-started member's) log-file header event, the
    /// trace's time zero.
    pub fn ts0(&self) -> i64 {
        self.members[self.primary].ts0
    }

    pub fn ticks_per_second(&self) -> f64 {
        self.logfile().map_or(1e7, |l| l.ticks_per_second())
    }

    /// The files of the trace, in the order their buffers come.
    pub fn members(&self) -> Vec<MemberInfo> {
        self.members
            .iter()
            .enumerate()
            .map(|(i, m)| MemberInfo {
                name: m.name.clone().unwrap_or_else(|| format!("member {i}")),
                buffers: m.buffers,
                bytes: m.source.bytes().len() as u64,
            })
            .collect()
    }

    /// Problems found while indexing the file (not those met while walking events).
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    pub fn skipped_buffers(&self) -> u32 {
        self.skipped_buffers
    }

    /// The name of the first `.etl` read out of a container, if the trace
    /// came from one.
    pub fn container_member(&self) -> Option<&str> {
        let m = self.members.iter().find(|m| m.from_container)?;
        m.name.as_deref()
    }

    /// The first member's whole (container-extracted) file.
    pub fn raw_bytes(&self) -> &[u8] {
        self.members[0].source.bytes()
    }

    /// The bytes of the member that holds `info`.
    pub fn bytes_of(&self, info: &BufferInfo) -> &[u8] {
        self.members
            .get(info.member as usize)
            .map_or(&[], |m| m.source.bytes())
    }

    /// Bytes of every member with compressed buffers counted decompressed.
    pub fn expanded_len(&self) -> u64 {
        let (stored, read) = buffer_bytes(self);
        self.file_len().saturating_sub(stored).saturating_add(read)
    }

    /// Take the pages of `member`'s bytes `range` out of this process's
    /// resident memory (`Source::done_with`).
    pub fn done_with(&self, member: u16, range: std::ops::Range<u64>) {
        if let Some(m) = self.members.get(member as usize) {
            let start = usize::try_from(range.start).unwrap_or(usize::MAX);
            let len = usize::try_from(range.end.saturating_sub(range.start)).unwrap_or(0);
            m.source.done_with(start, len);
        }
    }

    /// Take every mapped member's pages out of this process's resident
    /// memory (`Source::done_with`): once the read has been through them.
    pub fn done_with_pages(&self) {
        for m in &self.members {
            m.source.done_with(0, m.source.bytes().len());
        }
    }

    /// Bytes of every member together.
    pub fn file_len(&self) -> u64 {
        self.members
            .iter()
            .map(|m| m.source.bytes().len() as u64)
            .sum()
    }

    /// The event area of a buffer, decompressing into `scratch` if needed.
    pub fn buffer_data<'s>(
        &'s self,
        info: &BufferInfo,
        scratch: &'s mut Vec<u8>,
    ) -> Result<&'s [u8], Diagnostic> {
        let bytes = self.bytes_of(info);
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
/// Bytes the buffer walk goes past before it calls `behind` for them.
const INDEX_RELEASE_STEP: u64 = 256 << 20;

/// Every buffer of `bytes` in file order, with what was damaged and how
/// many buffers were skipped; `behind(from, to)` is told of each stretch
/// of about `INDEX_RELEASE_STEP` bytes the walk is done with.
fn index_buffers(
    bytes: &[u8],
    mut behind: impl FnMut(u64, u64),
) -> (Vec<BufferInfo>, Vec<Diagnostic>, u32) {
    let mut buffers = Vec::new();
    let mut diagnostics = Vec::new();
    let mut skipped = 0u32;
    let push = |buffers: &mut Vec<BufferInfo>, offset: u64, header: BufferHeader| {
        let index = buffers.len() as u32;
        buffers.push(BufferInfo {
            index,
            member: 0,
            offset,
            header,
        });
    };
    let len = bytes.len() as u64;
    let mut off = 0u64;
    // Size of the last buffer whose end was confirmed by what follows it.
    let mut stride = 0u64;
    let mut released = 0u64;
    while off + BUFFER_HEADER_SIZE as u64 <= len {
        if off - released >= INDEX_RELEASE_STEP {
            behind(released, off);
            released = off;
        }
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
                        h.saved_offset = h.used_bytes().min(h.buffer_size);
                        h.filled_bytes = h.saved_offset;
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
    let used = h.used_bytes();
    let saved_ok = used >= BUFFER_HEADER_SIZE as u32
        && if h.is_compressed() {
            used <= MAX_BUFFER_BYTES
        } else {
            used <= h.buffer_size
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
        && u64::from(h.used_bytes()) <= stride;
    if h.is_compressed() || !fits {
        return None;
    }
    let next = off + stride;
    let len = bytes.len() as u64;
    (next == len || looks_like_buffer(bytes, next)).then_some(stride as u32)
}
