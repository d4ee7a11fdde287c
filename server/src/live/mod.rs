//! Serving a trace while its events arrive (`open --replay`, `record
//! --serve`): a feeding thread pushes events in time order into the
//! model's `LiveBuilder`; this side copies the records, runs the build's
//! joins on them and serves the result as the trace's model, which the page
//! hears of through `/api/traces/{id}/progress`, then starts the next model
//! as soon as new events exist (back to back, after a short gap), so an
//! event waits for at most two builds, not for a clock tick as well. When
//! the feed ends, the last model becomes the trace's normal library entry.

#[cfg(windows)]
pub mod record_windows;
pub mod replay;

use crate::store::{LoadedTrace, Store};
use model::ingest::live::{LiveBuilder, LiveState};
use model::ingest::steps::StepTimes;
use query::index::live::{Kept, LiveSeed};
use query::Engine;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The least time between serving one model and copying the next: the
/// page's own queries (and the feed) get a turn of the cores in between.
/// Short, because it lies in every event's wait (after the build before
/// its copy): 100 ms cost a tenth of the 1 s budget; at 20 ms the feed
/// still runs above 2 M events/s at full speed (docs/BENCHMARKS.md).
pub const MIN_GAP: Duration = Duration::from_millis(20);

/// What the summary says of a trace still arriving.
#[derive(Debug, Clone)]
pub struct LiveInfo {
    /// "Live" or "Replaying 10x".
    pub label: String,
    /// Events pushed when this model's records were copied.
    pub events: u64,
    /// When they were copied (ms since 1970): how fresh the model is.
    pub copied_at_ms: u64,
    /// What this model cost: copying the records (the feed waits for
    /// that), then the joins and the query index.
    pub copy_ms: f64,
    pub build_ms: f64,
    /// Set by the first request that reads the trace: a replay waits for
    /// it, so the page sees the trace from its first event.
    pub viewed: Arc<AtomicBool>,
}

/// What feeds a live trace: a replay of files, or a recording (Windows).
pub enum Source {
    Replay(replay::Speed),
    Record(crate::cli::record::RecordArgs),
}

/// The feeding side's handle: the builder, taken in turns with the
/// publisher, and whether to stop (the trace was deleted).
#[derive(Default)]
pub struct Feeder {
    builder: Mutex<LiveBuilder>,
    /// See `LiveInfo::viewed`.
    pub viewed: Arc<AtomicBool>,
    /// The publisher waits for the builder: the feeder lets go soon.
    wanted: AtomicBool,
    stop: AtomicBool,
}

impl Feeder {
    pub fn new(builder: LiveBuilder, viewed: Arc<AtomicBool>) -> Arc<Feeder> {
        Arc::new(Feeder {
            builder: Mutex::new(builder),
            viewed,
            ..Feeder::default()
        })
    }

    pub fn lock(&self) -> MutexGuard<'_, LiveBuilder> {
        self.builder.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// True when the publisher waits: drop the guard and call `lock` again.
    pub fn should_yield(&self) -> bool {
        self.wanted.load(Ordering::Relaxed)
    }

    /// Let the publisher take its turn, then wait for the next.
    pub fn yield_now(&self) {
        while self.wanted.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_micros(50));
        }
    }

    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

/// This process's CPU time in ms (every thread's: the feed's too).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub(crate) fn cpu_ms() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec to a valid pointer.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 * 1e3 + ts.tv_nsec as f64 / 1e6
}

/// Elsewhere the log shows wall times only.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub(crate) fn cpu_ms() -> f64 {
    0.0
}

/// Each step's cost in the debug log (`RUST_LOG=etlscope=debug`), else off.
fn step_times() -> StepTimes {
    if tracing::enabled!(tracing::Level::DEBUG) {
        StepTimes::on(cpu_ms)
    } else {
        StepTimes::default()
    }
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// One served model of the trace so far; None when no event came since
/// the model of `since` events. `checkpoint` is the previous model's (the
/// sample join resumes from it) and becomes this one's.
fn snapshot(
    feeder: &Feeder,
    id: &str,
    label: &str,
    since: u64,
    checkpoint: &mut LiveState,
    seed: &mut Option<LiveSeed>,
) -> Option<LoadedTrace> {
    feeder.wanted.store(true, Ordering::Relaxed);
    let (input, events, copy) = {
        let mut b = feeder.lock();
        feeder.wanted.store(false, Ordering::Relaxed);
        let copying = Instant::now();
        let events = b.events();
        if events == since {
            return None;
        }
        (b.snapshot_input(), events, copying.elapsed())
    };
    let copied_at_ms = now_ms();
    let started = Instant::now();
    let mut steps = step_times();
    let built = input.build_after_timed(std::mem::take(checkpoint), &mut steps);
    *checkpoint = built.next;
    let trace = Arc::new(built.trace);
    // The index keeps the previous model's sample views for the samples
    // the join resumed with.
    let engine = match seed.take() {
        Some(s) if built.resumed > 0 => {
            let kept = Kept {
                samples: built.resumed,
                threads: built.resumed_threads,
                stacks: built.resumed_stacks,
            };
            Engine::extending(&s, trace, kept)
        }
        _ => Engine::new(trace),
    };
    *seed = Some(engine.live_seed());
    let mut loaded = LoadedTrace::from_engine(id.to_string(), engine);
    steps.mark("query index");
    let build = started.elapsed();
    tracing::debug!(%id, events, resumed = built.resumed, ms = build.as_millis() as u64, steps = %steps.line(), "live model");
    loaded.load_seconds = build.as_secs_f64();
    loaded.live = Some(LiveInfo {
        label: label.to_string(),
        events,
        copied_at_ms,
        copy_ms: copy.as_secs_f64() * 1e3,
        build_ms: build.as_secs_f64() * 1e3,
        viewed: feeder.viewed.clone(),
    });
    Some(loaded)
}

/// Serve trace `id` from `feeder` as `feed` fills it on a thread of its
/// own; returns once the feed has ended and the last model is served as a
/// normal entry. `trace_path` is where symbols are looked up beside.
pub fn serve_live<F>(
    store: Arc<Store>,
    id: String,
    label: String,
    feeder: Arc<Feeder>,
    trace_path: PathBuf,
    feed: F,
) where
    F: FnOnce(&Arc<Feeder>) + Send,
{
    let done = AtomicBool::new(false);
    let mut checkpoint = LiveState::default();
    std::thread::scope(|s| {
        s.spawn(|| {
            feed(&feeder);
            done.store(true, Ordering::Release);
        });
        let mut served = Instant::now();
        let mut events = 0;
        let mut seed = None;
        while !done.load(Ordering::Acquire) {
            std::thread::sleep(Duration::from_millis(10));
            if served.elapsed() < MIN_GAP {
                continue;
            }
            // Nothing new (the feed has not started, or paused): look
            // again at the next tick, not a whole gap later, so the first
            // model after a pause holds a tick of events, not a gap's.
            let Some(loaded) = snapshot(&feeder, &id, &label, events, &mut checkpoint, &mut seed)
            else {
                continue;
            };
            events = loaded.live.as_ref().map_or(events, |l| l.events);
            if !store.publish_live(loaded) {
                feeder.stop.store(true, Ordering::Relaxed);
            }
            served = Instant::now();
        }
    });
    if feeder.stopped() {
        tracing::info!(%id, "live trace deleted: stopped");
        return;
    }
    let started = Instant::now();
    let builder = std::mem::take(&mut *feeder.lock());
    // Resumed from the last live model: the same model as a normal build.
    let trace = builder.finish_after(checkpoint);
    let loaded = LoadedTrace::new(id.clone(), trace, started.elapsed().as_secs_f64(), 0);
    store.finish_live(loaded, &trace_path);
    tracing::info!(%id, "live trace complete");
}

/// Serve the empty model at once, so the trace is there (live) before the
/// first event, and no normal ingest of the same id starts. `viewed` is
/// set once something reads it.
pub fn publish_empty(
    store: &Store,
    id: &str,
    label: &str,
    builder: &mut LiveBuilder,
    viewed: &Arc<AtomicBool>,
) {
    let trace = builder.snapshot_input().build();
    let mut loaded = LoadedTrace::new(id.to_string(), trace, 0.0, 0);
    loaded.live = Some(LiveInfo {
        label: label.to_string(),
        events: 0,
        copied_at_ms: now_ms(),
        copy_ms: 0.0,
        build_ms: 0.0,
        viewed: viewed.clone(),
    });
    store.publish_live(loaded);
}
