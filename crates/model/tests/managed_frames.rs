//! Acceptance: managed frames of perfview-net452-x64.etl carry their module
//! as WPA writes them (`mscorlib.dll!System.DateTime::GetDatePart`), equal to
//! the independent reference `tests/reference/managed_frames.py` (constants in
//! `expected/perfview_managed.rs`).

mod common;

use model::Trace;
use std::collections::{BTreeMap, HashSet};

#[path = "expected/perfview_managed.rs"]
mod expected;
use expected::*;

fn fnv1a64(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Label of every named frame of every sample, with how often it appears,
/// and the distinct named frame rows.
fn named_frames(t: &Trace) -> (BTreeMap<String, u64>, HashSet<u32>) {
    let mut labels: BTreeMap<String, u64> = BTreeMap::new();
    let mut rows = HashSet::new();
    for i in 0..t.samples.len() {
        for f in t.stacks.frames_leaf_first(t.samples.stack[i]) {
            // No PDBs were loaded: every named frame is named by CLR events.
            if t.frames.func[f as usize] == model::NONE {
                continue;
            }
            *labels.entry(t.frame_label(f)).or_default() += 1;
            rows.insert(f);
        }
    }
    (labels, rows)
}

#[test]
fn managed_frames_carry_their_module() {
    let Some(t) = common::model_of("perfview-net452-x64.etl") else {
        return;
    };
    let (labels, rows) = named_frames(&t);
    let with_module = |l: &str| l.contains('!');
    assert_eq!(
        labels.values().sum::<u64>(),
        MANAGED_FRAMES_OVER_ALL_SAMPLES
    );
    assert_eq!(
        labels
            .iter()
            .filter(|(l, _)| with_module(l))
            .map(|(_, n)| n)
            .sum::<u64>(),
        MANAGED_FRAMES_WITH_MODULE_OVER_ALL_SAMPLES
    );
    assert_eq!(rows.len() as u64, DISTINCT_MANAGED_FRAMES);
    let rows_with_module = rows
        .iter()
        .filter(|&&f| with_module(&t.frame_label(f)))
        .count();
    assert_eq!(rows_with_module as u64, DISTINCT_MANAGED_FRAMES_WITH_MODULE);
    assert_eq!(labels.len() as u64, DISTINCT_LABELS);
    for &(label, n) in TOP_LABELS {
        assert_eq!(labels.get(label), Some(&n), "{label}");
    }
    let digest = labels.iter().fold(0u64, |d, (l, &n)| {
        d.wrapping_add(n.wrapping_mul(fnv1a64(l)))
    });
    assert_eq!(digest, LABEL_DIGEST);
    let mut per_module: BTreeMap<&str, u64> = BTreeMap::new();
    for (l, &n) in &labels {
        let m = l.split_once('!').map_or("", |(m, _)| m);
        *per_module.entry(m).or_default() += n;
    }
    let want: BTreeMap<&str, u64> = FRAMES_PER_MODULE.iter().copied().collect();
    assert_eq!(per_module, want);
}
