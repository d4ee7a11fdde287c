//! Issue 15, point 5: ingest progress stays honest on big traces: the
//! phases come in order, the percent never goes back and ends at 100.

use etl::EtlFile;
use model::progress::{BuildProgress, Phase};
use std::io::Cursor;
use std::sync::atomic::Ordering;

/// A bench trace big enough that a poll every millisecond sees both phases.
fn bench_trace() -> EtlFile {
    let params = synth::bench::BenchParams {
        samples: 300_000,
        distinct_stacks: 5_000,
        threads: 200,
        ..Default::default()
    };
    let (cur, _) = synth::bench::write_bench(Cursor::new(Vec::new()), &params).unwrap();
    EtlFile::from_bytes(cur.into_inner()).unwrap()
}

#[test]
fn progress_phases_come_in_order_and_the_percent_only_grows_to_100() {
    let file = bench_trace();
    let progress = BuildProgress::default();
    let mut seen: Vec<(Phase, f64, Option<f64>)> = Vec::new();
    let trace = std::thread::scope(|s| {
        let worker = s.spawn(|| model::build_with_progress(&file, &progress));
        while !worker.is_finished() {
            seen.push((
                progress.phase(),
                progress.fraction(),
                progress.seconds_left(),
            ));
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        worker.join().unwrap()
    });
    seen.push((
        progress.phase(),
        progress.fraction(),
        progress.seconds_left(),
    ));
    assert!(!trace.samples.is_empty());
    let order = |p: Phase| p as u8;
    for w in seen.windows(2) {
        let (a, b) = (&w[0], &w[1]);
        assert!(
            order(a.0) <= order(b.0),
            "phase went back: {a:?} then {b:?}"
        );
        assert!(a.1 <= b.1, "percent went back: {a:?} then {b:?}");
    }
    assert!(seen.iter().all(|s| (0.0..=1.0).contains(&s.1)), "{seen:?}");
    assert!(
        seen.iter()
            .any(|s| s.0 == Phase::Reading && s.1 > 0.0 && s.1 < 1.0)
            || seen.iter().any(|s| s.0 == Phase::Correlating),
        "no progress seen under way: {seen:?}"
    );
    let last = seen.last().unwrap();
    assert_eq!(last.0, Phase::Done);
    assert_eq!(last.1, 1.0);
    assert_eq!(last.2, Some(0.0), "nothing left once done");
    // Reading counted every byte of the file.
    assert_eq!(
        progress.bytes_done.load(Ordering::Relaxed),
        progress.bytes_total.load(Ordering::Relaxed)
    );
}

#[test]
fn the_percent_weighs_reading_then_correlating() {
    // By hand: reading is 35% of the whole, correlating the other 65%.
    let p = BuildProgress::default();
    assert_eq!(p.fraction(), 0.0);
    assert_eq!(p.seconds_left(), None, "no pace yet");
    p.set_phase(Phase::Reading);
    p.bytes_total.store(200, Ordering::Relaxed);
    p.bytes_done.store(100, Ordering::Relaxed);
    assert!((p.fraction() - 0.175).abs() < 1e-12, "{}", p.fraction());
    p.bytes_done.store(200, Ordering::Relaxed);
    assert!((p.fraction() - 0.35).abs() < 1e-12);
    p.set_phase(Phase::Correlating);
    assert!(
        (p.fraction() - 0.35).abs() < 1e-12,
        "correlating starts where reading ended"
    );
    p.correlate_total.store(4, Ordering::Relaxed);
    p.correlate_done.store(1, Ordering::Relaxed);
    assert!((p.fraction() - (0.35 + 0.65 / 4.0)).abs() < 1e-12);
    p.set_phase(Phase::Done);
    assert_eq!(p.fraction(), 1.0);
}
