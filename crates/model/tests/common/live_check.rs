//! The live path's incremental snapshots against from-scratch builds of
//! the same events (shared by `live.rs` and `acceptance_writer.rs`).

#![allow(dead_code)]

use model::ingest::live::{LiveBuilder, LiveState};
use model::ingest::FileMeta;
use model::Trace;

/// Every table of `t` a sample join touches or follows, row for row in id
/// order (their Debug form; Generic Events' schemas sit in hash maps of
/// no fixed order, so that table is compared by its columns of ids).
fn tables(t: &Trace) -> Vec<(&'static str, String)> {
    let g = &t.generic;
    vec![
        ("info", format!("{:?}", t.info)),
        // The pool in id order (its index is a hash map of random order).
        (
            "strings",
            format!(
                "{:?}",
                (0..t.strings.len() as u32)
                    .map(|i| t.strings.get(model::strings::StrId(i)))
                    .collect::<Vec<_>>()
            ),
        ),
        ("processes", format!("{:?}", t.processes)),
        ("threads", format!("{:?}", t.threads)),
        ("modules", format!("{:?}", t.modules)),
        ("images", format!("{:?}", t.images)),
        ("frame times", format!("{:?}", t.frame_times)),
        ("funcs", format!("{:?}", t.funcs)),
        ("stacks", format!("{:?}", t.stacks)),
        ("samples", format!("{:?}", t.samples)),
        ("cswitches", format!("{:?}", t.cswitches)),
        ("ready threads", format!("{:?}", t.ready_threads)),
        ("file io", format!("{:?}", t.file_io)),
        ("disk io", format!("{:?}", t.disk_io)),
        ("hard faults", format!("{:?}", t.hard_faults)),
        ("network", format!("{:?}", t.network)),
        ("page faults", format!("{:?}", t.page_faults)),
        ("registry", format!("{:?}", t.registry)),
        ("dpc isr", format!("{:?}", t.dpc_isr)),
        ("frequency", format!("{:?}", t.frequency)),
        ("idle states", format!("{:?}", t.idle_states)),
        ("focus", format!("{:?}", t.focus)),
        ("ui delays", format!("{:?}", t.ui_delays)),
        ("gpu", format!("{:?}", t.gpu)),
        ("frame times", format!("{:?}", t.frame_times)),
        ("commits", format!("{:?}", t.commits)),
        ("heap", format!("{:?}", t.heap)),
        (
            "generic",
            format!("{:?}", (&g.time, &g.thread, &g.process, &g.stack)),
        ),
    ]
}

/// What the incremental snapshots of a replay took from earlier ones.
#[derive(Debug)]
pub struct Resumed {
    pub snapshots: usize,
    /// Snapshots whose sample join resumed, and the samples not joined again.
    pub sample_joins: usize,
    pub samples: usize,
    /// Snapshots that left stack parts for the next one to extend.
    pub stack_parts: usize,
}

/// Replay `file`, and every `every` events build the snapshot twice: from
/// the start (`build`) and resuming from the previous snapshot's state
/// (`build_after`: the sample join's checkpoint and the stack parts). The
/// two must be the same model, row for row.
pub fn incremental_equals_from_scratch(file: &etl::EtlFile, every: u64) -> Resumed {
    let mut live = LiveBuilder::new(FileMeta::of(file));
    let mut next = every;
    let mut checkpoint = LiveState::default();
    let (mut snapshots, mut resumed, mut skipped, mut parts) = (0, 0, 0, 0);
    let mut step = |live: &mut LiveBuilder| {
        let scratch = live.snapshot_input().build();
        let b = live
            .snapshot_input()
            .build_after(std::mem::take(&mut checkpoint));
        for ((name, got), (_, want)) in tables(&b.trace).iter().zip(tables(&scratch)) {
            assert!(
                *got == want,
                "{name} differ: snapshot {snapshots} at {} events (resumed {} samples)",
                live.events(),
                b.resumed
            );
        }
        snapshots += 1;
        if b.resumed > 0 {
            resumed += 1;
            skipped += b.resumed;
        }
        parts += usize::from(b.next.keeps_stack_parts());
        checkpoint = b.next;
    };
    let diags = file.for_each_event_in_order(|e| {
        let offset = file
            .buffers()
            .get(e.buffer_index as usize)
            .map_or(0, |b| b.offset);
        live.push(e, offset);
        if live.events() >= next {
            next += every;
            step(&mut live);
        }
    });
    live.add_diagnostics(diags);
    step(&mut live);
    assert!(snapshots >= 5, "only {snapshots} snapshots");
    Resumed {
        snapshots,
        sample_joins: resumed,
        samples: skipped,
        stack_parts: parts,
    }
}
