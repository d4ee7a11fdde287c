//! Builds a `Trace` from an `EtlFile`: a parallel pass over buffers turns
//! events into records (`collect`), then sequential passes in time order
//! build lifetimes, images, stacks and samples.

mod collect;
mod commit_heap;
mod cut_names;
mod dpc_isr;
mod fileio;
mod fragment_memo;
mod fragments;
mod generic;
mod gpu;
mod idle_states;
mod images;
mod io_tables;
mod joiner;
mod lean_sort;
mod lifetimes;
pub mod live;
mod managed;
mod memory_tables;
mod network;
pub mod paths;
mod precise;
pub mod records;
pub mod resume;
mod sample_join;
mod stack_parts;
mod stacks;
pub mod steps;
mod sysconfig;
mod win32k;

use joiner::Joiner;

use crate::images::NONE;
use crate::progress::{BuildProgress, Phase};
use crate::samples::MAX_THREADS;
use crate::time::Clock;
use crate::{Trace, TraceInfo};
use etl::EtlFile;
use rayon::prelude::*;
use records::Batch;
use std::sync::atomic::Ordering;

/// Samples looked up at once (about 2.5 MB of lookups): large enough to
/// keep every core busy, small enough to stay in cache.
const JOIN_BLOCK: usize = 65536;
/// Fewer samples than this are joined on one thread (a thread costs tens of
/// microseconds to start; live snapshots join a few samples at a time).
const PIPED_BLOCK_MIN: usize = 64;

pub use images::is_kernel_address;
pub use sysconfig::read_system_config;

pub fn build(file: &EtlFile) -> Trace {
    build_with_progress(file, &BuildProgress::default())
}

/// `build`, reporting progress through `progress` as it goes.
pub fn build_with_progress(file: &EtlFile, progress: &BuildProgress) -> Trace {
    build_with_steps(file, progress, &mut steps::StepTimes::default())
}

/// `build_with_progress`, timing each step into `steps` (the server's log
/// and the build bench: where an ingest's time goes).
pub fn build_with_steps(
    file: &EtlFile,
    progress: &BuildProgress,
    steps: &mut steps::StepTimes,
) -> Trace {
    build_inner(file, progress, true, steps)
}

/// `build` as it was done before the sweep and the folded read: every
/// buffer's records merged at the end, every stack looked up by a binary
/// search over all stack parts. The reference that tests compare the
/// normal build with; not for use outside tests.
#[doc(hidden)]
pub fn build_reference(file: &EtlFile) -> Trace {
    build_inner(
        file,
        &BuildProgress::default(),
        false,
        &mut steps::StepTimes::default(),
    )
}

fn build_inner(
    file: &EtlFile,
    progress: &BuildProgress,
    sweep: bool,
    steps: &mut steps::StepTimes,
) -> Trace {
    progress
        .buffers_total
        .store(file.buffers().len() as u64, Ordering::Relaxed);
    progress
        .bytes_total
        .store(file.file_len(), Ordering::Relaxed);
    progress.set_phase(Phase::Reading);
    let mut batch = if sweep {
        read_folded(file, progress)
    } else {
        read_then_merge(file)
    };
    let mut candidates = std::mem::take(&mut batch.hex_candidates);
    candidates.sort_unstable();
    let sources = std::mem::take(&mut batch.registry_sources);
    // The records hold what the joins need of the file's pages now.
    file.done_with_pages();
    steps.mark("read");
    let meta = FileMeta::without_coverage(file);
    // Counting undecoded events reads the buffers the read left undecided
    // again: on the core the single-threaded correlating pass leaves idle,
    // not before it.
    std::thread::scope(|s| {
        let hex_only = s.spawn(|| hex_only_events_on_one_thread(file, &candidates, &sources));
        let mut trace = build_resuming(batch, &meta, progress, sweep, Resume::No, steps).0;
        trace.info.hex_only_events = hex_only
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        steps.mark("hex-only count wait");
        trace
    })
}

/// `coverage(file).hex_only` in a pool of its own with one thread: in the
/// shared pool its tasks would be stolen by (and hold up) the correlating
/// pass's parallel sorts. Only the buffers the read found an event in that
/// no typed decoder read are read again (none, for most kernel traces).
fn hex_only_events_on_one_thread(
    file: &EtlFile,
    candidates: &[u32],
    sources: &etl::decode::schema::coverage::RegistrySources,
) -> u64 {
    let count = || etl::decode::schema::coverage::hex_only_in(file, candidates, sources);
    match rayon::ThreadPoolBuilder::new().num_threads(1).build() {
        Ok(pool) => pool.install(count),
        Err(_) => count(),
    }
}

/// What the joins need of the file besides its events' records (the live
/// path has it before any event arrives).
#[derive(Debug, Clone, Default)]
pub struct FileMeta {
    pub logfile: etl::logfile::LogfileHeader,
    pub ts0: i64,
    pub ticks_per_second: f64,
    pub buffers: u32,
    pub skipped_buffers: u32,
    pub buffers_with_lost_events: Vec<u32>,
    pub diagnostics: Vec<etl::Diagnostic>,
    /// Events no schema decodes, as `etlscope info` counts them (a health finding).
    pub hex_only_events: u64,
}

impl FileMeta {
    pub fn of(file: &EtlFile) -> FileMeta {
        FileMeta {
            hex_only_events: etl::decode::schema::coverage::coverage(file).hex_only,
            ..FileMeta::without_coverage(file)
        }
    }

    /// `of` but for `hex_only_events` (0): the header and buffer facts,
    /// without reading the events.
    pub fn without_coverage(file: &EtlFile) -> FileMeta {
        FileMeta {
            logfile: file.logfile().cloned().unwrap_or_default(),
            ts0: file.ts0(),
            ticks_per_second: file.ticks_per_second(),
            buffers: file.buffers().len() as u32,
            skipped_buffers: file.skipped_buffers(),
            buffers_with_lost_events: file
                .buffers()
                .iter()
                .filter(|b| b.header.flags & etl::buffer::flags::EVENTS_LOST != 0)
                .map(|b| b.index)
                .collect(),
            diagnostics: file.diagnostics().to_vec(),
            hex_only_events: 0,
        }
    }
}

/// The time-ordered joins over every record of the trace: the normal
/// build's second half, and what the live path runs on each snapshot.
pub(crate) fn build_from_batch(
    batch: Batch,
    meta: &FileMeta,
    progress: &BuildProgress,
    sweep: bool,
) -> Trace {
    let steps = &mut steps::StepTimes::default();
    build_resuming(batch, meta, progress, sweep, Resume::No, steps).0
}

/// Whether a build keeps (and may start from) the sample join's state.
pub(crate) enum Resume {
    /// The normal build: every sample joined, nothing kept.
    No,
    /// A live snapshot: start from the earlier snapshot's checkpoint when it
    /// fits (`resume.rs`), and keep one for the next, `settle` ticks before
    /// the newest event (stack parts may still come for later samples).
    Live { from: live::LiveState, settle: i64 },
}

/// `build_from_batch`, resuming the sample join as `resume` says; returns
/// the checkpoint for the next live snapshot and how many samples came
/// from the one it started from.
pub(crate) fn build_resuming(
    mut batch: Batch,
    meta: &FileMeta,
    progress: &BuildProgress,
    sweep: bool,
    resume: Resume,
    steps: &mut steps::StepTimes,
) -> (Trace, live::LiveState, [usize; 3]) {
    let header = resume::HeaderInputs::of(&batch);
    let (from, parts_state, settle) = match resume {
        Resume::No => (None, None, None),
        Resume::Live { from, settle } => (from.checkpoint, from.parts, Some(settle)),
    };
    // In arrival order still (the live builder appends; the sort below
    // would hide a late sample that sorts into the checkpoint's prefix).
    let from = from.filter(|cp| cp.arrivals_fit(header, sweep, &batch.samples));
    let lf = meta.logfile.clone();
    let clock = Clock {
        ts0: meta.ts0,
        ticks_per_second: meta.ticks_per_second.round().max(1.0) as i64,
        start_filetime: lf.start_time,
    };
    let pointer_size = if lf.pointer_size == 4 { 4 } else { 8 };
    // A live snapshot extends the previous one's stack parts (also checked
    // in arrival order); the normal build joins them all.
    let mut parts_state = match settle {
        Some(_) if sweep => stack_parts::PartsState::for_batch(parts_state, &batch, pointer_size),
        _ => None,
    };

    progress.set_phase(Phase::Correlating);
    batch.adopt_manifest_lifetimes();
    batch.sort_by_time();
    steps.mark("sort");
    let arenas = std::mem::take(&mut batch.arenas);

    let mut t = Trace {
        clock,
        ..Trace::default()
    };
    t.system_config = sysconfig::build(&batch.sysconfig, &mut t.strings);
    let (mut processes, mut pidx) =
        lifetimes::build_processes(&batch.processes, &clock, &mut t.strings);
    // Threads and images of processes the trace never describes (no rundown,
    // as in perfmon's Kernel-Process sessions) get an "Unknown" row of their
    // own instead of landing in Idle.
    let referenced = batch.threads.iter().map(|r| r.pid);
    let referenced = referenced.chain(
        batch
            .images
            .iter()
            .filter(|r| !images::is_kernel_address(r.base, pointer_size))
            .map(|r| r.pid),
    );
    lifetimes::add_undescribed(&mut processes, &mut pidx, referenced, &mut t.strings);
    t.processes = processes;
    let (threads, tidx) =
        lifetimes::build_threads(&batch.threads, &clock, &t.processes, &pidx, &mut t.strings);
    t.threads = threads;
    for n in &batch.thread_names {
        let time = clock.to_ns(n.ts);
        if let Some((row, _)) = tidx.find(n.tid, time, &t.threads.start, &t.threads.end) {
            t.threads.name[row as usize] = t.strings.intern(&n.name);
        }
    }
    let mapper = paths::PathMapper::new(&batch.path_maps);
    let ib = images::build_images(
        &batch.images,
        &batch.image_info,
        &clock,
        pointer_size,
        &t.processes,
        &pidx,
        &mapper,
        &mut t.strings,
    );
    t.modules = ib.modules;
    t.images = ib.images;
    let addresses = images::AddressMap::new(&t.images);
    steps.mark("lifetimes+images");

    // Samples.
    let (mut resolver, tail) = match parts_state.as_mut() {
        Some(state) => {
            let (r, tail) = state.resolver(&batch, &batch.fragments, settle.unwrap_or(0));
            (r, Some(tail))
        }
        None => (
            stacks::StackResolver::new(
                std::mem::take(&mut batch.inline_stacks),
                &batch.key_refs,
                &batch.key_defs,
                &batch.fragments,
                pointer_size,
            ),
            None,
        ),
    };
    if !sweep {
        resolver = resolver.without_sweep();
    }
    steps.mark("stack parts");
    records::sort_samples_by_time(&mut batch.samples);
    steps.mark("sample sort");
    // The resolver keeps its own time-sorted parts: free the records now
    // (and the samples' below, once in the model) to lower the peak.
    if parts_state.is_none() {
        batch.key_refs = Vec::new();
        batch.key_defs = Vec::new();
    }
    t.samples.intervals = batch
        .intervals
        .iter()
        .map(|r| (clock.to_ns(r.ts), r.interval as i64 * 100))
        .collect();
    t.samples.interval_source = if t.samples.intervals.is_empty() {
        t.samples.intervals.push((i64::MIN, 1_000_000));
        "default 1 ms (no SampledProfile interval events)"
    } else {
        "SampledProfile interval events"
    };
    let mut unknown_process: Option<u32> = None;
    let mut unknown_threads: rustc_hash::FxHashMap<u32, u32> = Default::default();
    let mut info = TraceInfo::default();
    let from =
        from.filter(|cp| cp.parts_fit(resolver.parts_through(cp.last_ts), parts_state.as_deref()));
    steps.mark("parts check");
    let mut samples = std::mem::take(&mut batch.samples);
    let mut start = 0;
    let mut kept_rows = (0, 0);
    if let Some(cp) = from {
        let st = cp.state;
        start = cp.samples;
        kept_rows = (st.threads.len(), st.stacks.len());
        t.strings = st.strings;
        t.processes = st.processes;
        t.threads = st.threads;
        t.frames = st.frames;
        t.stacks = st.stacks;
        t.samples = st.samples;
        resolver.restore(st.caches);
        unknown_process = st.unknown_process;
        unknown_threads = st.unknown_threads;
        info.uncertain_samples = st.uncertain_samples;
        info.unattributed_samples = st.unattributed_samples;
        info.samples_with_stack = st.samples_with_stack;
    }
    steps.mark("restore");
    // Where to keep the next checkpoint: before the samples not settled
    // by now, and before the first event whose stack parts can still
    // change (the next snapshot could not resume from a sample joined
    // with them).
    let keep_at = settle.map(|settle| {
        let newest = batch.max_ts.unwrap_or(i64::MIN).saturating_sub(settle);
        let horizon = parts_state
            .as_deref()
            .map_or(newest, |s| newest.min(s.settled_before()));
        samples.partition_point(|s| s.ts < horizon).max(start)
    });
    let mut kept = None;
    // Every column at its final size at once: grown by doubling, each
    // would reach up to twice the samples' length.
    let arriving = samples.len().saturating_sub(start);
    t.samples.time.reserve(arriving);
    t.samples.thread_cpu.reserve(arriving);
    t.samples.stack.reserve(arriving);
    // One more step than samples: the event tables after them.
    progress
        .correlate_total
        .store(samples.len() as u64 + 1, Ordering::Relaxed);
    // In blocks: each block's lookups on every core, then its rest in
    // sample order; a block ends at the checkpoint.
    let mut i = start;
    loop {
        if Some(i) == keep_at && i > 0 {
            steps.mark("join to checkpoint");
            let last_ts = samples.get(i - 1).map_or(i64::MIN, |s| s.ts);
            kept = Some(Box::new(resume::SampleCheckpoint {
                header,
                sweep,
                samples: i,
                arrived: samples.len(),
                last_ts,
                parts: match parts_state.as_deref() {
                    Some(s) => resume::PartsProof::State(s.id()),
                    None => resume::PartsProof::Copy(resolver.parts_through(last_ts).to_vec()),
                },
                state: resume::JoinState {
                    strings: t.strings.clone(),
                    processes: t.processes.clone(),
                    threads: t.threads.clone(),
                    frames: t.frames.clone(),
                    stacks: t.stacks.clone(),
                    samples: t.samples.clone(),
                    caches: resolver.caches(),
                    unknown_process,
                    unknown_threads: unknown_threads.clone(),
                    uncertain_samples: info.uncertain_samples,
                    unattributed_samples: info.unattributed_samples,
                    samples_with_stack: info.samples_with_stack,
                },
            }));
            steps.mark("checkpoint copy");
        }
        if i >= samples.len() {
            break;
        }
        let mut end = (i + JOIN_BLOCK).min(samples.len());
        if let Some(k) = keep_at.filter(|&k| k > i) {
            end = end.min(k);
        }
        progress.correlate_done.store(i as u64, Ordering::Relaxed);
        let block = samples.get(i..end).unwrap_or_default();
        let looked = sample_join::look_up(
            block,
            &sample_join::Lookups {
                clock: &clock,
                tidx: &tidx,
                threads: &t.threads,
                resolver: &resolver,
                images: &t.images,
                addresses: &addresses,
                frames: &t.frames,
                stacks: &t.stacks,
            },
        );
        resolver.set_cursor(sample_join::cursor_after(block, &resolver));
        i = end;
        // The frame rows on a second thread while this one makes the stack
        // rows (sample_join::make_frames): making both on one thread was
        // most of the join (1M bench trace: 1.2 of its 1.4 s; 0.8 s so).
        // Only when sweeping (the reference join stays on one thread: the
        // test oracle), for blocks worth a thread, and when no thread row
        // made for a sample with no thread can reach MAX_THREADS (the
        // frame thread does not follow those rows).
        let piped = resolver.sweeps()
            && block.len() >= PIPED_BLOCK_MIN
            && t.threads.len().saturating_add(block.len()) < MAX_THREADS as usize;
        let unknown = unknown_process.unwrap_or(t.processes.len() as u32);
        let keys = resolver.keys();
        let (images, frames) = (&t.images, &mut t.frames);
        let addresses = &addresses;
        std::thread::scope(|scope| {
            let looked = &looked;
            let mut rows = if piped {
                let (to_join, from_frames) = std::sync::mpsc::channel();
                let maker = scope.spawn(move || {
                    sample_join::make_frames(
                        block, looked, keys, unknown, images, addresses, frames, &to_join,
                    );
                    frames
                });
                sample_join::JoinFrames::piped(from_frames, maker)
            } else {
                sample_join::JoinFrames::here(frames)
            };
            for (s, l) in block.iter().zip(looked.iter().copied()) {
                // This sample's rows from the frame thread, taken before
                // anything can skip the sample.
                let made = rows.next_made();
                let time = l.time;
                let thread = match l.thread {
                    Some((row, exact)) => {
                        if !exact {
                            info.uncertain_samples += 1;
                        }
                        row
                    }
                    None => {
                        info.unattributed_samples += 1;
                        let p = *unknown_process.get_or_insert_with(|| {
                            let name = t.strings.intern("Unknown");
                            t.processes.push(u32::MAX, name, crate::processes::OPEN)
                        });
                        *unknown_threads
                            .entry(s.tid)
                            .or_insert_with(|| t.threads.push(s.tid, p, crate::processes::OPEN))
                    }
                };
                if thread >= MAX_THREADS {
                    info.unattributed_samples += 1;
                    continue;
                }
                let process = t.threads.process[thread as usize];
                if let Some((m, _)) = &made {
                    let have = (
                        m.user != sample_join::NOT_MADE,
                        m.kernel != sample_join::NOT_MADE,
                    );
                    if resolver.wants_unmade(l.parts, l.stack, process, have) {
                        // Not expected (see make_frames). Made here after
                        // all the frame thread makes of the block, the rows
                        // are still numbered the same in every build.
                        rows.make_here();
                    }
                }
                // What the frame thread made, while it makes the rows.
                let made = made.filter(|_| rows.is_piped());
                let frame_rows = match &made {
                    Some((m, made_rows)) => {
                        let (user, kernel) = rows.made_rows(*m, made_rows.clone());
                        stacks::FrameRows::Made { user, kernel }
                    }
                    None => stacks::FrameRows::Intern(rows.table()),
                };
                let walked = resolver.resolve_found(
                    l.parts,
                    l.stack,
                    process,
                    time,
                    &t.images,
                    addresses,
                    frame_rows,
                    &mut t.stacks,
                );
                let stack = match walked {
                    Some(st) => {
                        info.samples_with_stack += 1;
                        st
                    }
                    // No stack walk: the instruction pointer alone is the stack.
                    None => match l.ip_stack {
                        Some(st) => st,
                        None => {
                            let f = match made {
                                Some((m, _)) if m.ip != NONE => m.ip,
                                _ => resolver.frame(
                                    process,
                                    s.ip,
                                    time,
                                    &t.images,
                                    addresses,
                                    rows.table(),
                                ),
                            };
                            t.stacks.intern(NONE, f)
                        }
                    },
                };
                t.samples.push(time, thread, s.cpu, stack);
            }
            rows.make_here();
        });
        // Joined samples are not read again but by a live snapshot's
        // checkpoint: free them as the columns grow.
        if settle.is_none() {
            lean_sort::release_prefix(&mut samples, i);
        }
    }
    let samples_len = samples.len() as u64;
    drop(samples);
    steps.mark("sample join");

    let lookups = Lookups {
        tidx: &tidx,
        pidx: &pidx,
        addresses: &addresses,
        mapper: &mapper,
    };
    progress
        .correlate_done
        .store(samples_len, Ordering::Relaxed);
    info.unattributed_events = build_event_tables(&mut t, &batch, arenas, &lookups, &mut resolver);
    steps.mark("event tables");
    // Once every table has interned its frames.
    managed::name_managed_frames(
        &mut t,
        &batch.clr_methods,
        &batch.clr_modules,
        &addresses,
        |t, pid, time| lifetimes::owner(&t.processes, &pidx, pid, time),
    );
    progress
        .correlate_done
        .store(samples_len + 1, Ordering::Relaxed);
    info.cpus = lf.number_of_processors;
    info.pointer_size = pointer_size;
    info.os_version = format!(
        "{}.{} build {}",
        lf.major_version, lf.minor_version, lf.provider_version
    );
    info.start_time = etl::logfile::filetime_to_iso8601(lf.start_time);
    info.timezone_bias_minutes = lf.timezone_bias;
    info.duration_ns = clock.to_ns(batch.max_ts.unwrap_or(meta.ts0));
    info.events_start_ns = batch.min_ts.map_or(0, |t| clock.to_ns(t).max(0));
    info.events = batch.events;
    info.buffers = meta.buffers;
    info.skipped_buffers = meta.skipped_buffers + batch.failed_buffers;
    info.lost_events = lf.events_lost as u64;
    info.lost_buffers = lf.buffers_lost as u64;
    info.buffers_with_lost_events = meta.buffers_with_lost_events.clone();
    info.stack_key_refs_unresolved = resolver.stats.unresolved_key_refs;
    if let (Some(state), Some(tail)) = (parts_state.as_mut(), tail) {
        state.take_back(resolver.into_parts(), tail);
    }
    info.image_info_unmatched = ib.unmatched_info;
    info.hex_only_events = meta.hex_only_events;
    info.diagnostics = meta.diagnostics.clone();
    info.diagnostics.extend(batch.diagnostics);
    t.frequency = crate::power::build_frequency(&t.generic, info.duration_ns);
    crate::win32k::close_focus(&mut t.focus, info.duration_ns);
    t.info = info;
    progress.set_phase(Phase::Done);
    steps.mark("managed+info");
    let next = live::LiveState {
        checkpoint: kept,
        parts: parts_state,
    };
    t.marks = crate::regions::find_marks(&t.generic);
    crate::regions::apply_installed(&mut t);
    // Nothing interns stacks or frames after the build (a live snapshot
    // resumes from its checkpoint's copies, which keep their indexes).
    t.stacks.seal();
    t.frames.seal();
    (t, next, [start, kept_rows.0, kept_rows.1])
}

/// The parallel pass. Each worker collects the buffers of its contiguous
/// run straight into one batch as it reads them, and neighbouring runs
/// merge in file order: no batch per buffer to copy and merge, nor every
/// buffer's batch held until a single-threaded merge at the end. (Reading
/// in file-order windows behind the server's hash was tried: from a cold
/// page cache the 80M-sample trace took 43 s to read against 29 s.)
fn read_folded(file: &EtlFile, progress: &BuildProgress) -> Batch {
    let mut batch = file
        .buffers()
        .par_iter()
        .fold(
            || {
                (
                    Batch::default(),
                    Vec::new(),
                    Vec::new(),
                    ReadBehind::default(),
                )
            },
            |(mut acc, mut scratch, mut frames, mut behind), info| {
                if progress.is_cancelled() {
                    // The result is thrown away: skip the work.
                    return (acc, scratch, frames, behind);
                }
                let r = file
                    .buffer_data(info, &mut scratch)
                    .map(|data| etl::BufferData { info, data });
                let before = acc.events;
                collect::collect_buffer_into(r, &mut acc, &mut frames);
                behind.read(file, info);
                progress.buffers_done.fetch_add(1, Ordering::Relaxed);
                let size = info.header.buffer_size as u64;
                progress.bytes_done.fetch_add(size, Ordering::Relaxed);
                progress
                    .events
                    .fetch_add(acc.events - before, Ordering::Relaxed);
                (acc, scratch, frames, behind)
            },
        )
        .map(|(b, _, _, mut behind)| {
            behind.release(file);
            b
        })
        .reduce(Batch::default, |mut a, b| {
            a.extend(b);
            a
        });
    batch.shrink_to_fit();
    batch
}

/// The file's bytes a fold run has read and not yet taken out of the
/// process's resident memory: released every `RELEASE_BYTES`, so that a
/// trace larger than memory is not resident whole while it is read.
#[derive(Default)]
struct ReadBehind {
    /// (member, start, end) of the contiguous bytes read since the last release.
    pending: Option<(u16, u64, u64)>,
}

const RELEASE_BYTES: u64 = 32 << 20;

impl ReadBehind {
    /// `info`'s buffer has been read.
    fn read(&mut self, file: &EtlFile, info: &etl::buffer::BufferInfo) {
        let end = info
            .offset
            .saturating_add(u64::from(info.header.buffer_size));
        match self.pending {
            Some((m, start, e)) if m == info.member && e == info.offset => {
                self.pending = Some((m, start, end));
                if end - start >= RELEASE_BYTES {
                    file.done_with(m, start..end);
                    self.pending = Some((m, end, end));
                }
            }
            _ => {
                self.release(file);
                self.pending = Some((info.member, info.offset, end));
            }
        }
    }

    fn release(&mut self, file: &EtlFile) {
        if let Some((m, start, end)) = self.pending.take() {
            file.done_with(m, start..end);
        }
    }
}

/// The parallel pass as it was before `read_folded`: every buffer's batch,
/// then one merge in file order (the reference build's).
fn read_then_merge(file: &EtlFile) -> Batch {
    let batches = file.par_map_buffers(collect::collect_buffer);
    let mut batch = Batch::default();
    for b in batches {
        batch.extend(b);
    }
    batch
}

/// What the event tables look things up in, built once for the samples:
/// thread and process instances, image address ranges, NT->DOS paths.
#[derive(Clone, Copy)]
struct Lookups<'a> {
    tidx: &'a lifetimes::InstanceIndex,
    pidx: &'a lifetimes::InstanceIndex,
    addresses: &'a images::AddressMap,
    mapper: &'a paths::PathMapper,
}

/// CPU Usage (Precise), File I/O, Disk I/O, hard faults and Generic Events,
/// after samples (their stacks reuse the samples' frame and stack caches).
/// Returns how many of their events named a thread with no thread event.
fn build_event_tables(
    t: &mut Trace,
    batch: &Batch,
    arenas: Vec<Vec<u8>>,
    lookups: &Lookups<'_>,
    resolver: &mut stacks::StackResolver<'_>,
) -> u64 {
    let clock = t.clock;
    let Lookups {
        tidx,
        pidx,
        addresses,
        mapper,
    } = *lookups;
    let names = fileio::FileNames::new(&batch.file_names, mapper, &mut t.strings);
    let mut generic = generic::build_generic_rows(
        &batch.generic,
        arenas,
        &batch.schemas.list,
        &batch.provider_names,
        &clock,
        &mut t.strings,
    );
    let mut j = Joiner {
        clock,
        t,
        tidx,
        pidx,
        addresses,
        resolver,
        unattributed: 0,
    };
    let (cs, rt) = precise::build_precise(&batch.cswitches, &batch.readies, &mut j);
    let file_io = io_tables::build_file_io(batch, &names, mapper, &mut j);
    let disk_io = io_tables::build_disk_io(batch, &names, &mut j);
    let hard_faults = io_tables::build_hard_faults(batch, &names, &mut j);
    let network = network::build_network(&batch.net, &mut j);
    let page_faults = memory_tables::build_page_faults(&batch.page_faults, &mut j);
    let registry = memory_tables::build_registry(&batch.registry, &mut j);
    let commits = commit_heap::build_commits(&batch.virtual_allocs, &mut j);
    let heap = commit_heap::build_heap(&batch.heap, &mut j);
    let dpc_isr = dpc_isr::build_dpc_isr(&batch.dpc_isr, &mut j);
    let idle_states = idle_states::build_idle_states(&batch.cswitches, &clock);
    for (row, r) in batch.generic.iter().enumerate() {
        let time = generic.time[row];
        let (thread, mut process) = match r.tid {
            Some(tid) => j.thread_at(tid, time),
            None => (NONE, NONE),
        };
        if process == NONE {
            if let Some(pid) = r.pid {
                process = j.process_at(pid, time);
            }
        }
        // The payload names the process (Kernel-Network): the header's stays
        // in its own column.
        if let Some(h) = generic.header_process.get_mut(&(row as u32)) {
            h.1 = process;
            process = j.process_at(generic.pid[row], time);
        }
        generic.thread[row] = thread;
        generic.process[row] = process;
        generic.stack[row] = match (r.ext_stack, r.tid) {
            (Some(frag), _) => j.fragment_stack(frag, process, time),
            (None, Some(tid)) => j.stack(r.ts, tid, process, time),
            (None, None) => NONE,
        };
    }
    let (focus, ui_delays) = win32k::build_win32k(&generic, &mut j);
    let (gpu, frames) = gpu::build_gpu(&generic, &mut j);
    let unattributed = j.unattributed;
    t.cswitches = cs;
    t.ready_threads = rt;
    t.file_io = file_io;
    t.disk_io = disk_io;
    t.hard_faults = hard_faults;
    t.network = network;
    t.page_faults = page_faults;
    t.registry = registry;
    t.commits = commits;
    t.heap = heap;
    t.dpc_isr = dpc_isr;
    t.idle_states = idle_states;
    t.focus = focus;
    t.ui_delays = ui_delays;
    t.gpu = gpu;
    t.frame_times = frames;
    t.generic = generic;
    unattributed
}
