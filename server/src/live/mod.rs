//! Serving a trace while its events arrive (`open --replay`, `record
//! --serve`): a feeding thread pushes events in time order into the
//! model's `LiveBuilder`; every second this side copies the records, runs
//! the build's joins on them and serves the result as the trace's model,
//! which the page hears of through `/api/traces/{id}/progress`. When the
//! feed ends, the last model becomes the trace's normal library entry.

#[cfg(windows)]
pub mod record_windows;
pub mod replay;

use crate::store::{LoadedTrace, Store};
use model::build::live::LiveBuilder;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// How often a new model is served (and the page told).
pub const PUBLISH_EVERY: Duration = Duration::from_secs(1);

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

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// One served model of the trace so far.
fn snapshot(feeder: &Feeder, id: &str, label: &str) -> LoadedTrace {
    feeder.wanted.store(true, Ordering::Relaxed);
    let (input, events, copy) = {
        let mut b = feeder.lock();
        feeder.wanted.store(false, Ordering::Relaxed);
        let copying = Instant::now();
        let events = b.events();
        (b.snapshot_input(), events, copying.elapsed())
    };
    let copied_at_ms = now_ms();
    let started = Instant::now();
    let mut loaded = LoadedTrace::new(id.to_string(), input.build(), 0.0, 0);
    let build = started.elapsed();
    loaded.load_seconds = build.as_secs_f64();
    loaded.live = Some(LiveInfo {
        label: label.to_string(),
        events,
        copied_at_ms,
        copy_ms: copy.as_secs_f64() * 1e3,
        build_ms: build.as_secs_f64() * 1e3,
        viewed: feeder.viewed.clone(),
    });
    loaded
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
    std::thread::scope(|s| {
        s.spawn(|| {
            feed(&feeder);
            done.store(true, Ordering::Release);
        });
        let mut last = Instant::now();
        while !done.load(Ordering::Acquire) {
            std::thread::sleep(Duration::from_millis(20));
            if last.elapsed() < PUBLISH_EVERY {
                continue;
            }
            last = Instant::now();
            if !store.publish_live(snapshot(&feeder, &id, &label)) {
                feeder.stop.store(true, Ordering::Relaxed);
            }
        }
    });
    if feeder.stopped() {
        tracing::info!(%id, "live trace deleted: stopped");
        return;
    }
    let started = Instant::now();
    let builder = std::mem::take(&mut *feeder.lock());
    let trace = builder.finish();
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
