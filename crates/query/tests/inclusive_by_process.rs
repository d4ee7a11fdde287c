//! `Engine::inclusive_by_module_per_process` (every module's inclusive
//! count in several processes from one scan, the third-party findings
//! rule's figures) against a naive count straight from the trace model:
//! per sample, the set of modules on its stack walked through the stack
//! table's parents; and against `inclusive_by_module` with a Process
//! filter, the per-process walk it replaces. Random traces, engines with
//! one and with several buckets of per-stack totals.

use model::{Trace, NONE};
use query::synthetic::{self, Shape};
use query::*;
use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

/// Module key of each module row as the Module column names it: the
/// first row of its name, ASCII case-insensitive.
fn module_key_of_row(t: &Trace) -> Vec<u32> {
    let mut first: HashMap<String, u32> = HashMap::new();
    (0..t.modules.len())
        .map(|m| {
            let name = t.strings.get(t.modules.name[m]).to_ascii_lowercase();
            *first.entry(name).or_insert(m as u32)
        })
        .collect()
}

/// Per process row, per module key: samples with that module on the stack.
fn naive(t: &Trace) -> HashMap<u32, HashMap<u32, u64>> {
    let keys = module_key_of_row(t);
    let unknown = t.modules.len() as u32; // frames outside every module
    let mut out: HashMap<u32, HashMap<u32, u64>> = HashMap::new();
    for i in 0..t.samples.len() {
        let th = t.samples.thread(i) as usize;
        let Some(&p) = t.threads.process.get(th) else {
            continue;
        };
        let mut on_stack = BTreeSet::new();
        let mut row = t.samples.stack[i];
        while (row as usize) < t.stacks.len() {
            let frame = t.stacks.frame[row as usize] as usize;
            let m = t.frames.module.get(frame).copied().unwrap_or(NONE);
            on_stack.insert(keys.get(m as usize).copied().unwrap_or(unknown));
            let parent = t.stacks.parent[row as usize];
            // A parent row after its child hangs off the root (the call tree's rule).
            if parent == NONE || parent >= row {
                break;
            }
            row = parent;
        }
        let per = out.entry(p).or_default();
        for m in on_stack {
            *per.entry(m).or_default() += 1;
        }
    }
    out
}

#[test]
fn per_process_module_costs_equal_a_naive_count_and_the_filtered_walk() {
    for seed in 1..7u64 {
        let shape = Shape {
            samples: 4000,
            stacks: 400,
            threads: 24,
            processes: 6,
            modules: 9,
            frames_per_module: 12,
            cpus: 4,
            symbolized: 0.5,
            two_intervals: seed % 2 == 0,
            seed,
        };
        let trace = Arc::new(synthetic::trace(&shape));
        let expected = naive(&trace);
        for buckets in [None, Some(3)] {
            let e = Engine::with_options(
                trace.clone(),
                EngineOptions {
                    totals_buckets: buckets,
                },
            );
            // Every process, in an order that is not the rows'.
            let mut processes: Vec<u32> = (0..trace.processes.len() as u32).rev().collect();
            processes.push(999); // no such process: every module 0
            let got = e.inclusive_by_module_per_process(&processes).unwrap();
            assert_eq!(got.len(), processes.len());
            for (g, &p) in processes.iter().enumerate() {
                let want = expected.get(&p).cloned().unwrap_or_default();
                for (m, &n) in got[g].iter().enumerate() {
                    let w = want.get(&(m as u32)).copied().unwrap_or(0);
                    assert_eq!(
                        n, w,
                        "seed {seed}, buckets {buckets:?}, process {p}, module {m}"
                    );
                }
                // Every module the naive count saw is in the answer.
                for (&m, &w) in &want {
                    assert_eq!(got[g].get(m as usize).copied(), Some(w), "seed {seed}");
                }
                let filtered = e
                    .inclusive_by_module(&Filters {
                        columns: vec![ColumnFilter {
                            column: Column::Process,
                            values: vec![p],
                            exclude: false,
                        }],
                        ..Filters::default()
                    })
                    .unwrap();
                assert_eq!(got[g], filtered, "seed {seed}, process {p}");
            }
        }
    }
}
