//! Caller and callee trees (View Callers / View Callees) against a naive
//! reference on seeded synthetic traces with recursive stacks: each tree
//! node's count and weight is the number of samples whose caller (or
//! callee) sequence, from the chosen occurrence of the target outwards,
//! starts with that node's path; the reference works on labels, sample by
//! sample, and shares no code with the engine.

use model::{Trace, NONE};
use query::synthetic::{self, Rng, Shape};
use query::*;
use std::collections::BTreeMap;
use std::sync::Arc;

fn shape(seed: u64) -> Shape {
    Shape {
        samples: 2000,
        stacks: 250,
        threads: 10,
        processes: 4,
        modules: 5,
        frames_per_module: 6,
        cpus: 2,
        symbolized: 0.6,
        two_intervals: !seed.is_multiple_of(2),
        seed,
    }
}

/// Weight of sample `i`: the interval in force at its time.
fn weight(t: &Trace, i: usize) -> i64 {
    let time = t.samples.time[i];
    let mut w = t.samples.intervals.first().map_or(1_000_000, |c| c.1);
    for &(start, interval) in &t.samples.intervals {
        if start <= time {
            w = interval;
        }
    }
    w
}

fn module_name(t: &Trace, f: u32) -> String {
    match t.frames.module[f as usize] {
        NONE => "?".into(),
        m => t.strings.get(t.modules.name[m as usize]).to_string(),
    }
}

/// `module!func#N`, `module!?` or `?!?`, as WPA names an unsymbolized frame.
fn func_label(t: &Trace, f: u32) -> String {
    let func = t.frames.func[f as usize];
    match (t.frames.module[f as usize], func) {
        (NONE, _) => "?!?".into(),
        (_, NONE) => format!("{}!?", module_name(t, f)),
        _ => format!("{}!func#{func}", module_name(t, f)),
    }
}

/// Frames of sample `i`, root first.
fn frames(t: &Trace, i: usize) -> Vec<u32> {
    let mut v = Vec::new();
    let mut s = t.samples.stack[i];
    while s != NONE {
        v.push(t.stacks.frame[s as usize]);
        s = t.stacks.parent[s as usize];
    }
    v.reverse();
    v
}

struct Case {
    target: ButterflyTarget,
    /// The target as a label: a function label, or a module name.
    name: String,
    module: bool,
}

impl Case {
    fn is_x(&self, t: &Trace, f: u32) -> bool {
        if self.module {
            module_name(t, f) == self.name
        } else {
            func_label(t, f) == self.name
        }
    }
}

/// The occurrences of X on a stack, as (first, last) frame indexes: each
/// frame of a function target, each maximal run of a module's frames.
fn runs(t: &Trace, fr: &[u32], c: &Case) -> Vec<(usize, usize)> {
    let mut v: Vec<(usize, usize)> = Vec::new();
    for (j, &f) in fr.iter().enumerate() {
        if !c.is_x(t, f) {
            continue;
        }
        match v.last_mut() {
            Some(r) if c.module && r.1 + 1 == j => r.1 = j,
            _ => v.push((j, j)),
        }
    }
    v
}

/// Level labels from X outwards of one sample, ending with "[root]" or
/// "[self]"; `None` when the stack does not contain X.
fn naive_seq(
    t: &Trace,
    i: usize,
    c: &Case,
    dir: Direction,
    by_module: bool,
    occ: Occurrence,
) -> Option<Vec<String>> {
    let fr = frames(t, i);
    let rs = runs(t, &fr, c);
    let (i0, i1) = match occ {
        Occurrence::Innermost => *rs.last()?,
        Occurrence::Outermost => *rs.first()?,
    };
    let side: Vec<u32> = match dir {
        Direction::Callers => fr[..i0].iter().rev().copied().collect(),
        Direction::Callees => fr[i1 + 1..].to_vec(),
    };
    let mut seq: Vec<String> = Vec::new();
    for f in side {
        let l = if by_module {
            module_name(t, f)
        } else {
            func_label(t, f)
        };
        if !(by_module && seq.last() == Some(&l)) {
            seq.push(l);
        }
    }
    seq.push(match dir {
        Direction::Callers => "[root]".into(),
        Direction::Callees => "[self]".into(),
    });
    Some(seq)
}

/// A target from a random sample's random frame: its function, or (half
/// the time) its module.
fn random_case(e: &Engine, r: &mut Rng) -> Option<Case> {
    let t = e.trace();
    let fr = frames(t, r.below(t.samples.len()));
    let &pick = fr.get(r.below(fr.len().max(1)))?;
    let m = t.frames.module[pick as usize];
    if m != NONE && r.chance(0.5) {
        return Some(Case {
            target: ButterflyTarget::Module(m),
            name: module_name(t, pick),
            module: true,
        });
    }
    let name = func_label(t, pick);
    let key = (0..e.funcs().len() as u32).find(|&k| e.func_label(k) == name)?;
    Some(Case {
        target: ButterflyTarget::Function(key),
        name,
        module: false,
    })
}

#[test]
fn caller_and_callee_trees_match_the_naive_reference() {
    let (mut nodes, mut recursive_samples) = (0, 0);
    for seed in 0..12u64 {
        let t = Arc::new(synthetic::trace(&shape(seed)));
        let e = Engine::new(t.clone());
        let mut r = Rng::new(seed * 31 + 3);
        let end = t.samples.time.last().copied().unwrap_or(0) + 1;
        for round in 0..4 {
            let Some(c) = random_case(&e, &mut r) else {
                continue;
            };
            // Every other round over a time range: % stays of the range's total.
            let range = (round % 2 == 1).then(|| TimeRange {
                start_ns: end / 4,
                end_ns: end - end / 5,
            });
            let kept = |i: usize| {
                range
                    .is_none_or(|g| t.samples.time[i] >= g.start_ns && t.samples.time[i] < g.end_ns)
            };
            let total_w: i64 = (0..t.samples.len())
                .filter(|&i| kept(i))
                .map(|i| weight(&t, i))
                .sum();
            recursive_samples += (0..t.samples.len())
                .filter(|&i| kept(i) && runs(&t, &frames(&t, i), &c).len() > 1)
                .count();
            for dir in [Direction::Callers, Direction::Callees] {
                for by_module in [false, true] {
                    for occ in [Occurrence::Innermost, Occurrence::Outermost] {
                        let seqs: Vec<(Vec<String>, i64)> = (0..t.samples.len())
                            .filter(|&i| kept(i))
                            .filter_map(|i| {
                                naive_seq(&t, i, &c, dir, by_module, occ)
                                    .map(|s| (s, weight(&t, i)))
                            })
                            .collect();
                        // (key path, label path) of the rows to expand.
                        let mut todo: Vec<(Vec<u32>, Vec<String>)> = vec![(vec![], vec![])];
                        while let Some((path, labels)) = todo.pop() {
                            nodes += 1;
                            let resp = e
                                .butterfly_tree(&ButterflyTreeRequest {
                                    target: c.target,
                                    direction: dir,
                                    filters: Filters {
                                        range,
                                        ..Filters::default()
                                    },
                                    by: if by_module {
                                        NeighborBy::Module
                                    } else {
                                        NeighborBy::Function
                                    },
                                    occurrence: occ,
                                    path: path.clone(),
                                    sort: SortBy::default(),
                                    limit: 0,
                                })
                                .unwrap();
                            let mut parent = (0u64, 0i64);
                            let mut kids: BTreeMap<String, (u64, i64)> = BTreeMap::new();
                            for (seq, w) in &seqs {
                                if seq.len() <= labels.len() || seq[..labels.len()] != labels[..] {
                                    continue;
                                }
                                parent.0 += 1;
                                parent.1 += w;
                                let k = kids.entry(seq[labels.len()].clone()).or_default();
                                k.0 += 1;
                                k.1 += w;
                            }
                            let what = format!(
                                "{} {dir:?} by_module={by_module} {occ:?} {labels:?}",
                                c.name
                            );
                            assert_eq!(
                                (resp.parent.count, resp.parent.weight_ns),
                                parent,
                                "{what}"
                            );
                            let got: BTreeMap<String, (u64, i64)> = resp
                                .rows
                                .iter()
                                .map(|x| (x.label.clone(), (x.count, x.weight_ns)))
                                .collect();
                            assert_eq!(got, kids, "{what}");
                            // No sample counted twice on a path: the children sum to the parent.
                            let sum: u64 = resp.rows.iter().map(|x| x.count).sum();
                            assert_eq!(sum, parent.0, "{what}");
                            for row in &resp.rows {
                                let pc = row.weight_ns as f64 * 100.0 / total_w as f64;
                                assert!((row.percent_weight - pc).abs() < 1e-9, "{what}");
                                if row.expandable && todo.len() < 12 && r.chance(0.5) {
                                    let mut p = path.clone();
                                    p.push(row.key);
                                    let mut l = labels.clone();
                                    l.push(row.label.clone());
                                    todo.push((p, l));
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    assert!(nodes > 500, "{nodes} tree levels compared");
    assert!(
        recursive_samples > 100,
        "only {recursive_samples} recursive samples"
    );
}

/// The autocomplete finds every function and module on a sampled stack
/// whose name contains the text, whatever its case, with the number of
/// samples whose stack has it (once per sample), prefix matches first.
#[test]
fn name_search_matches_a_naive_scan() {
    for seed in 0..4u64 {
        let t = Arc::new(synthetic::trace(&shape(seed)));
        let e = Engine::new(t.clone());
        for text in ["MOD1", "func#1", "!?", "od"] {
            let want = text.to_lowercase();
            let mut expect: BTreeMap<(bool, String), u64> = BTreeMap::new();
            for i in 0..t.samples.len() {
                let mut names: Vec<(bool, String)> = Vec::new();
                for f in frames(&t, i) {
                    names.push((false, func_label(&t, f)));
                    if t.frames.module[f as usize] != NONE {
                        names.push((true, module_name(&t, f)));
                    }
                }
                names.sort();
                names.dedup();
                for n in names {
                    if n.1.to_lowercase().contains(&want) {
                        *expect.entry(n).or_default() += 1;
                    }
                }
            }
            let got = e.search_names(text, 100_000, &Filters::default()).unwrap();
            let got_map: BTreeMap<(bool, String), u64> = got
                .iter()
                .map(|m| ((m.kind == NameKind::Module, m.label.clone()), m.count))
                .collect();
            assert_eq!(got_map, expect, "{text}");
            // Names starting with the text come before the others.
            let starts: Vec<bool> = got
                .iter()
                .map(|m| m.label.to_lowercase().starts_with(&want))
                .collect();
            assert!(
                starts.windows(2).all(|w| w[0] || !w[1]),
                "{text}: {starts:?}"
            );
            let few = e.search_names(text, 3, &Filters::default()).unwrap();
            assert_eq!(few.len(), expect.len().min(3));
        }
    }
}
