//! The live path (events in time order through `LiveBuilder`, snapshots on
//! the way) ends with the model the normal build makes of the same file:
//! same samples, processes, images, stacks and per-process counts. The
//! normal build is the oracle here (as `build_reference` is for the sweep);
//! on the real trace the sample count is also the Python reference's.

use model::ingest::live::{LiveBuilder, LiveState};
use model::ingest::FileMeta;
use model::Trace;
use std::collections::BTreeMap;
use std::path::Path;

#[path = "common/live_check.rs"]
mod live_check;
use live_check::incremental_equals_from_scratch;

#[path = "expected/perfview_net452.rs"]
#[allow(dead_code)]
mod expected;

/// Replay `file` through the live path, taking a snapshot every
/// `snapshot_every` events, each resumed from the one before, as the server
/// does; returns the final model (resumed from the last snapshot) and the
/// snapshots' sample counts.
fn replay(file: &etl::EtlFile, snapshot_every: u64) -> (Trace, Vec<usize>) {
    let mut live = LiveBuilder::new(FileMeta::of(file));
    let mut state = LiveState::default();
    let mut counts = Vec::new();
    let mut next = snapshot_every;
    let diags = file.for_each_event_in_order(|e| {
        let offset = file
            .buffers()
            .get(e.buffer_index as usize)
            .map_or(0, |b| b.offset);
        live.push(e, offset);
        if live.events() >= next {
            next += snapshot_every;
            let b = live
                .snapshot_input()
                .build_after(std::mem::take(&mut state));
            counts.push(b.trace.samples.len());
            state = b.next;
        }
    });
    live.add_diagnostics(diags);
    (live.finish_after(state), counts)
}

/// Per process label: sample count and the multiset of stacks (as frame
/// label paths), independent of row numbering.
fn by_process(t: &Trace) -> BTreeMap<String, (usize, BTreeMap<String, usize>)> {
    let mut out: BTreeMap<String, (usize, BTreeMap<String, usize>)> = BTreeMap::new();
    for i in 0..t.samples.len() {
        let thread = t.samples.thread(i);
        let p = t.threads.process[thread as usize];
        let mut path = Vec::new();
        let mut s = t.samples.stack[i];
        while s != model::NONE {
            path.push(t.frame_label(t.stacks.frame[s as usize]));
            s = t.stacks.parent[s as usize];
        }
        let e = out.entry(t.process_label(p)).or_default();
        e.0 += 1;
        *e.1.entry(path.join("/")).or_default() += 1;
    }
    out
}

fn processes(t: &Trace) -> Vec<(u32, String, i64, i64)> {
    let p = &t.processes;
    let mut v: Vec<_> = (0..p.len())
        .map(|i| {
            (
                p.pid[i],
                t.strings.get(p.name[i]).to_string(),
                p.start[i],
                p.end[i],
            )
        })
        .collect();
    v.sort();
    v
}

fn images(t: &Trace) -> Vec<(u64, u64, String, i64)> {
    let im = &t.images;
    let mut v: Vec<_> = (0..im.len())
        .map(|i| {
            (
                im.base[i],
                im.size[i],
                t.strings.get(im.path[i]).to_string(),
                im.load[i],
            )
        })
        .collect();
    v.sort();
    v
}

fn check_same(path: &Path) -> (Trace, Vec<usize>) {
    let file = etl::EtlFile::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let normal = model::build(&file);
    // About five snapshots on the way.
    let (live, counts) = replay(&file, normal.info.events / 5 + 1);
    assert!(!normal.samples.is_empty(), "{}: no samples", path.display());
    assert_eq!(live.samples.len(), normal.samples.len());
    assert_eq!(live.info.events, normal.info.events);
    assert_eq!(live.info.samples_with_stack, normal.info.samples_with_stack);
    assert_eq!(live.stacks.len(), normal.stacks.len());
    assert_eq!(live.frames.len(), normal.frames.len());
    assert_eq!(processes(&live), processes(&normal));
    assert_eq!(live.threads.len(), normal.threads.len());
    assert_eq!(images(&live), images(&normal));
    assert_eq!(by_process(&live), by_process(&normal));
    assert_eq!(live.generic.len(), normal.generic.len());
    assert_eq!(live.file_io.len(), normal.file_io.len());
    // Snapshots on the way grow and never pass the end.
    assert!(counts.len() >= 3, "only {} snapshots", counts.len());
    assert!(counts.windows(2).all(|w| w[0] <= w[1]), "{counts:?}");
    assert!(counts.iter().all(|&c| c <= normal.samples.len()));
    (live, counts)
}

#[test]
fn replayed_demo_equals_the_normal_build() {
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../traces/explorer-overlay.etl");
    let (live, _) = check_same(&demo);
    // The README's figure: explorer.exe's 42,300 samples in 7-23 s are
    // part of its total, so it has at least that many.
    let explorer = by_process(&live)
        .get("explorer.exe (6148)")
        .map_or(0, |e| e.0);
    assert!(explorer >= 42_300, "{explorer}");
}

#[test]
fn replayed_perfview_trace_equals_the_normal_build() {
    let Some(dir) = testdata::real_traces_dir() else {
        return;
    };
    let (live, _) = check_same(&dir.join("perfview-net452-x64.etl"));
    assert_eq!(live.samples.len(), expected::SAMPLES);
}

#[test]
fn incremental_snapshots_equal_from_scratch_builds_on_the_demo() {
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../traces/explorer-overlay.etl");
    let file = etl::EtlFile::open(&demo).expect("demo trace");
    let every = model::build(&file).info.events / 8 + 1;
    let r = incremental_equals_from_scratch(&file, every);
    // The demo's samples come after its rundown: later snapshots resume,
    // and every snapshot extends the stack parts of the one before.
    assert!(r.sample_joins >= 3 && r.samples > 0, "{r:?}");
    assert_eq!(r.stack_parts, r.snapshots, "{r:?}");
}

#[test]
fn incremental_snapshots_equal_from_scratch_builds_on_a_real_trace() {
    let Some(dir) = testdata::real_traces_dir() else {
        return;
    };
    let file = etl::EtlFile::open(&dir.join("perfview-net452-x64.etl")).expect("real trace");
    let every = model::build(&file).info.events / 8 + 1;
    // Whether they resume depends on when its stack parts come; equal they must be.
    let r = incremental_equals_from_scratch(&file, every);
    assert_eq!(r.stack_parts, r.snapshots, "{r:?}");
}

/// The bench scenario logs each sample's stack walk after it, so a walk
/// that arrives after a snapshot's horizon can be of a sample before it.
/// The checkpoint stops before such samples; otherwise every second
/// snapshot joined all samples again (the proof of the parts failed).
#[test]
fn every_snapshot_after_the_first_resumes_when_stack_walks_follow_their_samples() {
    for pointer_size in [4, 8] {
        let params = synth::bench::BenchParams {
            samples: 12_000,
            distinct_stacks: 2_000,
            pointer_size,
            ..Default::default()
        };
        let (cur, _) = synth::bench::write_bench(std::io::Cursor::new(Vec::new()), &params)
            .expect("writer trace");
        let file = etl::EtlFile::from_bytes(cur.into_inner()).expect("writer trace");
        let events = model::build(&file).info.events;
        // Snapshots at several spacings: where a horizon falls between a
        // sample and its walk depends on it.
        for parts in [5, 7, 9, 12] {
            let r = incremental_equals_from_scratch(&file, events / parts + 1);
            assert_eq!(
                r.sample_joins,
                r.snapshots - 1,
                "pointer size {pointer_size}, every {}: {r:?}",
                events / parts + 1
            );
        }
    }
}
