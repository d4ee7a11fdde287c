//! `etlscope open --replay SPEED FILE`: a recorded trace fed through the
//! live path, its events paced by their timestamps (SPEED times as fast;
//! `max`: as fast as they can be read), so the live view can be tried and
//! tested without a recording machine. It starts when something first
//! reads the trace (the page opening), so the page sees it from the start.

use super::Feeder;
use crate::catalog::TraceEntry;
use crate::store::Store;
use anyhow::{bail, Context};
use model::ingest::live::LiveBuilder;
use model::ingest::FileMeta;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Speed {
    Max,
    Times(f64),
}

impl Speed {
    pub fn parse(s: &str) -> anyhow::Result<Speed> {
        if s.eq_ignore_ascii_case("max") {
            return Ok(Speed::Max);
        }
        let x: f64 = s.trim_end_matches(['x', 'X']).parse().with_context(|| {
            format!("--replay {s:?}: give a speed like 10 (times real time) or max")
        })?;
        if !(x.is_finite() && x > 0.0) {
            bail!("--replay {s:?}: the speed must be above 0");
        }
        Ok(Speed::Times(x))
    }

    pub fn label(self) -> String {
        match self {
            Speed::Max => "Replaying at full speed".into(),
            Speed::Times(x) => format!("Replaying {x}x"),
        }
    }
}

/// Events fed between looks at the clock and at the publisher.
const STEP: u32 = 1024;

/// Start replaying `files` (the trace `entry`) on a thread of its own.
pub fn start(
    store: Arc<Store>,
    entry: &TraceEntry,
    files: Vec<PathBuf>,
    speed: Speed,
) -> anyhow::Result<()> {
    let paths: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
    let file = etl::EtlFile::open_many(&paths)?;
    let label = speed.label();
    let mut builder = LiveBuilder::new(FileMeta::of(&file));
    let viewed = Arc::new(AtomicBool::new(false));
    super::publish_empty(&store, &entry.id, &label, &mut builder, &viewed);
    let id = entry.id.clone();
    let first = files.first().cloned().unwrap_or_default();
    std::thread::spawn(move || {
        let feeder = super::Feeder::new(builder, viewed);
        super::serve_live(store, id, label, feeder, first, |feeder| {
            feed(&file, speed, feeder)
        });
    });
    Ok(())
}

/// Push every event of `file` in time order, sleeping to keep the pace.
/// A gap longer than a second of replay time is skipped (a boot logger's
/// header can be hours before the first event).
fn feed(file: &etl::EtlFile, speed: Speed, feeder: &Feeder) {
    // Start when the page (or any reader) first asks for the trace.
    while !feeder.viewed.load(Ordering::Relaxed) && !feeder.stopped() {
        std::thread::sleep(Duration::from_millis(10));
    }
    let tps = file.ticks_per_second().max(1.0);
    let mut guard = Some(feeder.lock());
    let mut base: Option<(i64, Instant)> = None;
    let mut n = 0u32;
    let diags = file.for_each_event_in_order(|e| {
        if feeder.stopped() {
            return;
        }
        n = n.wrapping_add(1);
        if n.is_multiple_of(STEP) || base.is_none() {
            if let Speed::Times(x) = speed {
                let (ts0, wall0) = *base.get_or_insert((e.timestamp, Instant::now()));
                let due = (e.timestamp.saturating_sub(ts0)) as f64 / tps / x;
                let ahead = due - wall0.elapsed().as_secs_f64();
                if ahead > 1.0 {
                    base = Some((e.timestamp, Instant::now()));
                } else if ahead > 0.0 {
                    guard = None;
                    std::thread::sleep(Duration::from_secs_f64(ahead));
                }
            }
            if feeder.should_yield() {
                guard = None;
                feeder.yield_now();
            }
        }
        let b = guard.get_or_insert_with(|| feeder.lock());
        let offset = file
            .buffers()
            .get(e.buffer_index as usize)
            .map_or(0, |b| b.offset);
        b.push(e, offset);
    });
    guard
        .get_or_insert_with(|| feeder.lock())
        .add_diagnostics(diags);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn speeds() {
        assert_eq!(Speed::parse("max").ok(), Some(Speed::Max));
        assert_eq!(Speed::parse("10").ok(), Some(Speed::Times(10.0)));
        assert_eq!(Speed::parse("2.5x").ok(), Some(Speed::Times(2.5)));
        assert!(Speed::parse("0").is_err());
        assert!(Speed::parse("-1").is_err());
        assert!(Speed::parse("fast").is_err());
        assert!(Speed::parse("inf").is_err());
        assert_eq!(Speed::Times(10.0).label(), "Replaying 10x");
    }
}
