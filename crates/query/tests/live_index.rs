//! The index of a live model extended from the previous model's
//! (`Engine::extending`) has the same sample views as the one `Engine::new`
//! builds over the same model, snapshot after snapshot of a replay.

use model::ingest::live::{LiveBuilder, LiveState};
use model::ingest::FileMeta;
use query::index::live::{Kept, LiveSeed};
use query::Engine;
use std::path::Path;
use std::sync::Arc;

/// Replay `file` with a snapshot every `every` events; returns how many
/// snapshots extended the previous index.
fn extended_equals_new(file: &etl::EtlFile, every: u64) -> usize {
    let mut live = LiveBuilder::new(FileMeta::of(file));
    let mut state = LiveState::default();
    let mut seed: Option<LiveSeed> = None;
    let (mut next, mut extended) = (every, 0);
    let mut step = |live: &mut LiveBuilder| {
        let b = live
            .snapshot_input()
            .build_after(std::mem::take(&mut state));
        state = b.next;
        let trace = Arc::new(b.trace);
        let new = Engine::new(trace.clone());
        if let (Some(s), true) = (&seed, b.resumed > 0) {
            let kept = Kept {
                samples: b.resumed,
                threads: b.resumed_threads,
                stacks: b.resumed_stacks,
            };
            let ext = Engine::extending(s, trace, kept);
            assert!(ext.same_sample_views(&new), "at {} events", live.events());
            extended += 1;
        }
        seed = Some(new.live_seed());
    };
    file.for_each_event_in_order(|e| {
        live.push(e, 0);
        if live.events() >= next {
            next += every;
            step(&mut live);
        }
    });
    step(&mut live);
    extended
}

#[test]
fn extended_live_index_equals_a_new_one_on_the_demo() {
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../traces/explorer-overlay.etl");
    let file = etl::EtlFile::open(&demo).expect("demo trace");
    let events = model::build(&file).info.events;
    let extended = extended_equals_new(&file, events / 8 + 1);
    assert!(
        extended >= 3,
        "only {extended} snapshots extended the index"
    );
}
