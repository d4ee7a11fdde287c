//! Property tests on seeded random traces built directly as `model::Trace`:
//! every engine answer is compared with a naive reference written here,
//! which works on labels (strings) sample by sample and shares no code
//! with the engine.

use model::{Trace, NONE};
use query::synthetic::{self, Rng, Shape};
use query::*;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

const SELF: &str = "[self]";

fn shape(seed: u64) -> Shape {
    Shape {
        samples: 3000,
        stacks: 300,
        threads: 20,
        processes: 6,
        modules: 8,
        frames_per_module: 12,
        cpus: 4,
        symbolized: 0.5,
        two_intervals: !seed.is_multiple_of(2),
        seed,
    }
}

// ---- the naive reference ----

/// Weight of sample `i`: the last interval change at or before its time (the
/// first interval before any change), found by a linear scan.
fn weight(t: &Trace, i: usize) -> i64 {
    let time = t.samples.time[i];
    let changes = &t.samples.intervals;
    let mut w = changes.first().map_or(1_000_000, |c| c.1);
    for &(start, interval) in changes {
        if start <= time {
            w = interval;
        }
    }
    w
}

fn module_name(t: &Trace, m: u32) -> String {
    t.strings.get(t.modules.name[m as usize]).to_string()
}

fn frame_label(t: &Trace, f: u32) -> String {
    let m = t.frames.module[f as usize];
    let func = t.frames.func[f as usize];
    if m == NONE {
        "?!?".into()
    } else if func != NONE {
        format!("{}!func#{func}", module_name(t, m))
    } else {
        format!("{}!?", module_name(t, m))
    }
}

fn frame_module(t: &Trace, f: u32) -> String {
    match t.frames.module[f as usize] {
        NONE => "?".into(),
        m => module_name(t, m),
    }
}

/// Frames of sample `i`, root first.
fn frames(t: &Trace, i: usize) -> Vec<u32> {
    let st = t.samples.stack[i];
    let mut v = Vec::new();
    let mut s = st;
    while s != NONE {
        v.push(t.stacks.frame[s as usize]);
        s = t.stacks.parent[s as usize];
    }
    v.reverse();
    v
}

fn flat_key(t: &Trace, c: Column, i: usize) -> String {
    let th = t.samples.thread(i) as usize;
    let p = t.threads.process[th];
    let leaf = frames(t, i).last().copied();
    let attr = |col: &Vec<model::strings::StrId>| match leaf.map(|f| t.frames.module[f as usize]) {
        Some(m) if m != NONE => t.strings.get(col[m as usize]).to_string(),
        _ => String::new(),
    };
    match c {
        Column::Process => t.process_label(p),
        Column::ProcessName => t.strings.get(t.processes.name[p as usize]).to_string(),
        Column::ThreadId => t.threads.tid[th].to_string(),
        Column::ThreadName => t.strings.get(t.threads.name[th]).to_string(),
        Column::Cpu => t.samples.cpu(i).to_string(),
        Column::Module => leaf.map_or("n/a".into(), |f| frame_module(t, f)),
        Column::Function => leaf.map_or("n/a".into(), |f| frame_label(t, f)),
        Column::ImagePath => attr(&t.modules.path),
        Column::FileVersion => attr(&t.modules.file_version),
        Column::CompanyName => attr(&t.modules.company_name),
        // The built-in set names no synthetic module (tests/stack_tags.rs
        // checks tagging itself).
        Column::StackTag => match leaf {
            Some(_) => "Other".into(),
            None => "n/a".into(),
        },
        // These traces have no regions file: every sample is outside.
        Column::Region => String::new(),
        Column::Stack | Column::StackInverted => unreachable!(),
    }
}

/// The labels of sample `i` level by level in the tree of `columns`.
fn levels(t: &Trace, columns: &[Column], i: usize) -> Vec<String> {
    let mut v = Vec::new();
    for &c in columns {
        match c {
            Column::Stack | Column::StackInverted => {
                let mut l: Vec<String> = frames(t, i).iter().map(|&f| frame_label(t, f)).collect();
                if c == Column::StackInverted {
                    l.reverse();
                }
                v.extend(l);
                v.push(SELF.into());
            }
            c => v.push(flat_key(t, c, i)),
        }
    }
    v
}

/// A filter in label space.
#[derive(Clone, Debug)]
struct NaiveFilter {
    range: Option<(i64, i64)>,
    column: Option<(Column, String, bool)>,
}

fn keeps(t: &Trace, f: &NaiveFilter, i: usize) -> bool {
    let time = t.samples.time[i];
    if let Some((a, b)) = f.range {
        if time < a || time >= b {
            return false;
        }
    }
    if let Some((c, label, exclude)) = &f.column {
        let hit = match c {
            Column::StackInverted => frames(t, i).iter().any(|&fr| &frame_label(t, fr) == label),
            // A call node: the stack starts with its labels (joined by '\n').
            Column::Stack => {
                let want: Vec<&str> = label.split('\n').collect();
                let have: Vec<String> = frames(t, i).iter().map(|&f| frame_label(t, f)).collect();
                have.len() >= want.len() && have.iter().zip(&want).all(|(a, b)| a == b)
            }
            c => &flat_key(t, *c, i) == label,
        };
        if hit == *exclude {
            return false;
        }
    }
    true
}

#[derive(Default, Debug, Clone, Copy, PartialEq, Eq)]
struct Agg {
    count: u64,
    weight: i64,
    first: i64,
    last: i64,
}

impl Agg {
    fn add(&mut self, t: i64, w: i64) {
        if self.count == 0 {
            self.first = t;
            self.last = t;
        }
        self.count += 1;
        self.weight += w;
        self.first = self.first.min(t);
        self.last = self.last.max(t);
    }
}

fn naive_children(
    t: &Trace,
    columns: &[Column],
    f: &NaiveFilter,
    path: &[String],
) -> (Agg, BTreeMap<String, Agg>) {
    let mut parent = Agg::default();
    let mut kids = BTreeMap::new();
    for i in 0..t.samples.len() {
        if !keeps(t, f, i) {
            continue;
        }
        let l = levels(t, columns, i);
        if l.len() < path.len() || l[..path.len()] != *path {
            continue;
        }
        let w = weight(t, i);
        parent.add(t.samples.time[i], w);
        if let Some(k) = l.get(path.len()) {
            kids.entry(k.clone())
                .or_insert_with(Agg::default)
                .add(t.samples.time[i], w);
        }
    }
    (parent, kids)
}

// ---- helpers on the engine side ----

fn request(columns: &[Column], filters: &Filters, path: &[u32]) -> TableRequest {
    TableRequest {
        columns: columns.to_vec(),
        filters: filters.clone(),
        path: path.to_vec(),
        sort: SortBy::default(),
        limit: 0,
    }
}

/// A random filter, both as the engine takes it and in label space.
fn random_filter(e: &Engine, r: &mut Rng) -> (Filters, NaiveFilter) {
    let t = e.trace();
    let mut f = Filters::default();
    let mut n = NaiveFilter {
        range: None,
        column: None,
    };
    if r.chance(0.5) {
        let end = t.samples.time.last().copied().unwrap_or(0);
        let a = r.below(end as usize / 2) as i64;
        let b = a + r.below(end as usize / 2) as i64 + 1;
        f.range = Some(TimeRange {
            start_ns: a,
            end_ns: b,
        });
        n.range = Some((a, b));
    }
    if r.chance(0.6) {
        let flat = [
            Column::Process,
            Column::ProcessName,
            Column::ThreadName,
            Column::Cpu,
            Column::Module,
            Column::Function,
            Column::CompanyName,
            Column::StackInverted,
        ];
        let c = flat[r.below(flat.len())];
        let exclude = r.chance(0.4);
        // Pick a value the trace has: a top-level row of that column.
        let is_node_filter = r.chance(0.3);
        let (key, label) = if is_node_filter {
            // A call node one or two levels down.
            let c = Column::Stack;
            let none = Filters::default();
            let rows = e.table(&request(&[c], &none, &[])).unwrap().rows;
            let rows: Vec<_> = rows.into_iter().filter(|x| x.key != STACK_SELF).collect();
            let a = &rows[r.below(rows.len())];
            let deeper = e.table(&request(&[c], &none, &[a.key])).unwrap().rows;
            let deeper: Vec<_> = deeper.into_iter().filter(|x| x.key != STACK_SELF).collect();
            if !deeper.is_empty() && r.chance(0.5) {
                let b = &deeper[r.below(deeper.len())];
                (b.key, format!("{}\n{}", a.label, b.label))
            } else {
                (a.key, a.label.clone())
            }
        } else if c == Column::StackInverted {
            let k = r.below(e.funcs().len()) as u32;
            (k, e.func_label(k))
        } else {
            let rows = e
                .table(&request(&[c], &Filters::default(), &[]))
                .unwrap()
                .rows;
            let row = &rows[r.below(rows.len())];
            (row.key, row.label.clone())
        };
        let c = if is_node_filter { Column::Stack } else { c };
        f.columns.push(ColumnFilter {
            column: c,
            values: vec![key],
            exclude,
        });
        n.column = Some((c, label, exclude));
    }
    (f, n)
}

fn random_columns(r: &mut Rng) -> Vec<Column> {
    let mut all = Column::ALL.to_vec();
    let k = 1 + r.below(3);
    let mut out = Vec::new();
    for _ in 0..k {
        out.push(all.swap_remove(r.below(all.len())));
    }
    if r.chance(0.5) && !out.iter().any(|c| c.is_stack()) {
        let at = r.below(out.len() + 1);
        out.insert(at, Column::Stack);
    }
    out
}

/// Walks the tree from the root, comparing every visited level with the
/// naive reference, and returns how many levels it compared.
fn check_tree(
    e: &Engine,
    columns: &[Column],
    filters: &Filters,
    nf: &NaiveFilter,
    r: &mut Rng,
) -> usize {
    let t = e.trace();
    let mut todo: Vec<(Vec<u32>, Vec<String>)> = vec![(vec![], vec![])];
    let mut visited = 0;
    let (all, _) = naive_children(t, columns, nf, &[]);
    while let Some((path, labels)) = todo.pop() {
        visited += 1;
        if visited > 60 {
            break;
        }
        let resp = e.table(&request(columns, filters, &path)).unwrap();
        let (parent, kids) = naive_children(t, columns, nf, &labels);
        assert_eq!(
            resp.parent.count, parent.count,
            "parent count at {labels:?} of {columns:?}"
        );
        assert_eq!(resp.parent.weight_ns, parent.weight);
        // The 100 % of % Weight, even when the scan skipped other rows.
        assert_eq!(
            (resp.total.count, resp.total.weight_ns),
            (all.count, all.weight)
        );
        let got: BTreeMap<String, Agg> = resp
            .rows
            .iter()
            .map(|row| {
                let a = Agg {
                    count: row.count,
                    weight: row.weight_ns,
                    first: row.first_ns,
                    last: row.last_ns,
                };
                (row.label.clone(), a)
            })
            .collect();
        assert_eq!(got.len(), resp.rows.len(), "duplicate labels at {labels:?}");
        // A stack node whose samples all end there, with nothing after the
        // stack column, shows no [self] child.
        let only_self = kids.len() == 1 && kids.contains_key(SELF);
        if only_self && got.is_empty() {
            assert!(columns.last().is_some_and(|c| c.is_stack()));
        } else {
            assert_eq!(got, kids, "children at {labels:?} of {columns:?}");
        }
        if !resp.rows.is_empty() {
            let sum: u64 = resp.rows.iter().map(|r| r.count).sum();
            let wsum: i64 = resp.rows.iter().map(|r| r.weight_ns).sum();
            assert_eq!(
                (sum, wsum),
                (resp.parent.count, resp.parent.weight_ns),
                "children sum to parent"
            );
        }
        for row in &resp.rows {
            if row.expandable && r.chance(0.5) {
                let mut p = path.clone();
                p.push(row.key);
                let mut l = labels.clone();
                l.push(row.label.clone());
                todo.push((p, l));
            }
        }
    }
    visited
}

/// Engines alternate between one bucket of precomputed totals and several
/// (as on large traces), so both ways of answering are compared.
fn engine(seed: u64) -> Engine {
    let options = EngineOptions {
        totals_buckets: Some(if seed.is_multiple_of(3) {
            1
        } else {
            2 + seed as usize % 6
        }),
    };
    Engine::with_options(Arc::new(synthetic::trace(&shape(seed))), options)
}

#[test]
fn tables_match_the_naive_reference() {
    let mut compared = 0;
    for seed in 0..24 {
        let e = engine(seed);
        let mut r = Rng::new(seed ^ 0xA5A5);
        for _ in 0..4 {
            let columns = random_columns(&mut r);
            let (f, nf) = random_filter(&e, &mut r);
            compared += check_tree(&e, &columns, &f, &nf, &mut r);
        }
    }
    eprintln!("compared {compared} tree levels with the naive reference");
    assert!(compared > 300);
}

#[test]
fn every_column_order_gives_the_same_grand_total() {
    for seed in 0..8 {
        let e = engine(seed);
        let mut r = Rng::new(seed);
        let (f, nf) = random_filter(&e, &mut r);
        let t = e.trace();
        let (expect, _) = naive_children(t, &[Column::Cpu], &nf, &[]);
        let mut cols = Column::ALL.to_vec();
        for _ in 0..10 {
            // Fisher-Yates with our own generator.
            for i in (1..cols.len()).rev() {
                cols.swap(i, r.below(i + 1));
            }
            let k = 1 + r.below(cols.len());
            let resp = e.table(&request(&cols[..k], &f, &[])).unwrap();
            assert_eq!(
                (resp.parent.count, resp.parent.weight_ns),
                (expect.count, expect.weight)
            );
            assert_eq!(resp.total, resp.parent);
            let sum: u64 = resp.rows.iter().map(|r| r.count).sum();
            assert_eq!(sum, expect.count, "{:?}", &cols[..k]);
        }
    }
}

fn naive_butterfly(
    t: &Trace,
    nf: &NaiveFilter,
    is_x: &dyn Fn(u32) -> bool,
    module: bool,
) -> (Agg, Agg, BTreeMap<String, Agg>, BTreeMap<String, Agg>) {
    let (mut inc, mut own) = (Agg::default(), Agg::default());
    let (mut up, mut down) = (BTreeMap::new(), BTreeMap::new());
    for i in 0..t.samples.len() {
        if !keeps(t, nf, i) {
            continue;
        }
        let fr = frames(t, i);
        if !fr.iter().any(|&f| is_x(f)) {
            continue;
        }
        let (time, w) = (t.samples.time[i], weight(t, i));
        inc.add(time, w);
        if is_x(*fr.last().unwrap()) {
            own.add(time, w);
        }
        let (mut callers, mut callees) = (BTreeSet::new(), BTreeSet::new());
        for j in 0..fr.len() {
            if !is_x(fr[j]) {
                continue;
            }
            let run_before = module && j > 0 && is_x(fr[j - 1]);
            let run_after = module && j + 1 < fr.len() && is_x(fr[j + 1]);
            if !run_before {
                callers.insert(if j == 0 {
                    "[root]".to_string()
                } else {
                    frame_label(t, fr[j - 1])
                });
            }
            if j + 1 < fr.len() && !run_after {
                callees.insert(frame_label(t, fr[j + 1]));
            }
        }
        for c in callers {
            up.entry(c).or_insert_with(Agg::default).add(time, w);
        }
        for c in callees {
            down.entry(c).or_insert_with(Agg::default).add(time, w);
        }
    }
    (inc, own, up, down)
}

fn neighbors(v: &[Neighbor]) -> BTreeMap<String, (u64, i64)> {
    v.iter()
        .map(|n| (n.label.clone(), (n.count, n.weight_ns)))
        .collect()
}

fn strip(m: &BTreeMap<String, Agg>) -> BTreeMap<String, (u64, i64)> {
    m.iter()
        .map(|(k, a)| (k.clone(), (a.count, a.weight)))
        .collect()
}

/// A butterfly target from a frame some sample has, as a function or (half
/// the time) as its module, with the naive test of "frame f is it" and
/// whether it is a module. `None` when the picked sample has no frames.
#[allow(clippy::type_complexity)]
fn random_target<'a>(
    e: &'a Engine,
    r: &mut Rng,
) -> Option<(ButterflyTarget, Box<dyn Fn(u32) -> bool + 'a>, bool)> {
    let t = e.trace();
    let fr = frames(t, r.below(t.samples.len()));
    if fr.is_empty() {
        return None;
    }
    let pick = fr[r.below(fr.len())];
    let module = r.chance(0.5) && t.frames.module[pick as usize] != NONE;
    if module {
        let m = t.frames.module[pick as usize];
        return Some((
            ButterflyTarget::Module(m),
            Box::new(move |f| t.frames.module[f as usize] == m),
            true,
        ));
    }
    let label = frame_label(t, pick);
    let key = (0..e.funcs().len() as u32)
        .find(|&k| e.func_label(k) == label)
        .unwrap();
    Some((
        ButterflyTarget::Function(key),
        Box::new(move |f| frame_label(t, f) == label),
        false,
    ))
}

#[test]
fn butterfly_matches_the_naive_reference_and_never_double_counts() {
    let mut checked = 0;
    for seed in 0..16 {
        let e = engine(seed);
        let t = e.trace();
        let mut r = Rng::new(seed * 7 + 1);
        for _ in 0..6 {
            let (f, nf) = random_filter(&e, &mut r);
            let Some((target, is_x, module)) = random_target(&e, &mut r) else {
                continue;
            };
            let b = e
                .butterfly(&ButterflyRequest {
                    target,
                    by: NeighborBy::Function,
                    filters: f,
                })
                .unwrap();
            let (inc, own, up, down) = naive_butterfly(t, &nf, &*is_x, module);
            assert_eq!(
                (b.inclusive.count, b.inclusive.weight_ns),
                (inc.count, inc.weight)
            );
            assert_eq!((b.self_.count, b.self_.weight_ns), (own.count, own.weight));
            assert_eq!(neighbors(&b.callers), strip(&up), "callers of {target:?}");
            assert_eq!(neighbors(&b.callees), strip(&down), "callees of {target:?}");
            for n in b.callers.iter().chain(&b.callees) {
                assert!(n.count <= b.inclusive.count, "a sample counted twice");
            }
            checked += 1;
        }
    }
    assert!(checked > 50);
}

/// The flame graph of `f` (unpruned) against the naive inclusive weight of
/// every label path of the samples `nf` keeps; returns their total weight.
fn assert_flame_matches_the_naive_reference(
    e: &Engine,
    f: &Filters,
    nf: &NaiveFilter,
    order: FlameOrder,
) -> i64 {
    let t = e.trace();
    let g = e
        .flame(&FlameRequest {
            filters: f.clone(),
            min_fraction: 0.0,
            order,
            per_process: false,
        })
        .unwrap();
    // Naive inclusive weight of every label path.
    let mut inc: BTreeMap<Vec<String>, i64> = BTreeMap::new();
    let mut total = 0;
    for i in 0..t.samples.len() {
        if !keeps(t, nf, i) {
            continue;
        }
        let w = weight(t, i);
        total += w;
        let l: Vec<String> = frames(t, i).iter().map(|&f| frame_label(t, f)).collect();
        for d in 1..=l.len() {
            *inc.entry(l[..d].to_vec()).or_default() += w;
        }
    }
    assert_eq!(g.width[0], total);
    assert_eq!(g.total.weight_ns, total);
    let mut path: Vec<String> = Vec::new();
    let mut ends: Vec<i64> = vec![g.width[0]];
    for b in 1..g.len() {
        let d = g.depth[b] as usize;
        path.truncate(d - 1);
        path.push(g.label[b].clone());
        assert_eq!(Some(&g.width[b]), inc.get(&path), "box {path:?}");
        // Inside the parent's extent.
        ends.truncate(d);
        assert!(g.start[b] + g.width[b] <= ends[d - 1]);
        ends.push(g.start[b] + g.width[b]);
    }
    assert_eq!(
        g.len() - 1,
        inc.len(),
        "every path is a box when nothing is pruned"
    );
    total
}

#[test]
fn flame_graph_boxes_match_the_naive_reference() {
    for seed in 0..8 {
        let e = engine(seed);
        let mut r = Rng::new(seed + 99);
        let (f, nf) = random_filter(&e, &mut r);
        let order = if seed.is_multiple_of(2) {
            FlameOrder::Name
        } else {
            FlameOrder::Weight
        };
        let total = assert_flame_matches_the_naive_reference(&e, &f, &nf, order);
        // Per process: the process boxes add up to the same total.
        let p = e
            .flame(&FlameRequest {
                filters: f,
                min_fraction: 0.0,
                order: FlameOrder::Name,
                per_process: true,
            })
            .unwrap();
        let procs: i64 = (0..p.len())
            .filter(|&b| p.depth[b] == 1)
            .map(|b| p.width[b])
            .sum();
        assert_eq!(procs, total);
    }
}

#[test]
fn flame_and_butterfly_of_one_process_match_the_naive_reference() {
    // Process (and CPU, thread name) filters, kept or excluded, with and
    // without a time range: the filtered flame graph reads the by-node view
    // when the filter keeps many samples and scans when it keeps few.
    let mut checked = 0;
    for seed in 0..6 {
        let e = engine(seed);
        let t = e.trace();
        let end = t.samples.time.last().copied().unwrap_or(0) + 1;
        let mut r = Rng::new(seed + 1500);
        for c in [Column::Process, Column::Cpu, Column::ThreadName] {
            let rows = e
                .table(&request(&[c], &Filters::default(), &[]))
                .unwrap()
                .rows;
            for (k, row) in rows.iter().enumerate().take(4) {
                let exclude = k % 3 == 2;
                let range = (k % 2 == 1).then(|| {
                    let a = r.below(end as usize / 2) as i64;
                    (a, a + r.below(end as usize / 2) as i64 + 1)
                });
                let f = Filters {
                    range: range.map(|(a, b)| TimeRange {
                        start_ns: a,
                        end_ns: b,
                    }),
                    columns: vec![ColumnFilter {
                        column: c,
                        values: vec![row.key],
                        exclude,
                    }],
                    ..Filters::default()
                };
                let nf = NaiveFilter {
                    range,
                    column: Some((c, row.label.clone(), exclude)),
                };
                assert_flame_matches_the_naive_reference(&e, &f, &nf, FlameOrder::Name);
                let Some((target, is_x, module)) = random_target(&e, &mut r) else {
                    continue;
                };
                let b = e
                    .butterfly(&ButterflyRequest {
                        target,
                        by: NeighborBy::Function,
                        filters: f,
                    })
                    .unwrap();
                let (inc, own, up, down) = naive_butterfly(t, &nf, &*is_x, module);
                assert_eq!(
                    (b.inclusive.count, b.inclusive.weight_ns),
                    (inc.count, inc.weight)
                );
                assert_eq!((b.self_.count, b.self_.weight_ns), (own.count, own.weight));
                assert_eq!(neighbors(&b.callers), strip(&up), "callers of {target:?}");
                assert_eq!(neighbors(&b.callees), strip(&down), "callees of {target:?}");
                checked += 1;
            }
        }
    }
    assert!(checked > 30, "{checked} filters checked");
}

#[test]
fn timeline_bins_match_the_naive_reference() {
    for seed in 0..6 {
        let e = engine(seed);
        let t = e.trace();
        let end = t.samples.time.last().unwrap() + 1;
        let range = TimeRange {
            start_ns: end / 5,
            end_ns: end - end / 7,
        };
        let bins = 37;
        let tl = e
            .timeline(&TimelineRequest {
                range,
                bins,
                by: if seed.is_multiple_of(2) {
                    SeriesBy::Process
                } else {
                    SeriesBy::Thread
                },
                top: 3,
                filters: Filters::default(),
            })
            .unwrap();
        let mut expect: BTreeMap<String, Vec<i64>> = BTreeMap::new();
        for i in 0..t.samples.len() {
            let time = t.samples.time[i];
            if time < range.start_ns || time >= range.end_ns {
                continue;
            }
            let th = t.samples.thread(i) as usize;
            let p = t.threads.process[th];
            let key = if seed.is_multiple_of(2) {
                t.process_label(p)
            } else {
                format!("{} thread {}", t.process_label(p), t.threads.tid[th])
            };
            let b = ((time - range.start_ns) as i128 * bins as i128
                / (range.end_ns - range.start_ns) as i128) as usize;
            expect.entry(key).or_insert_with(|| vec![0; bins])[b] += weight(t, i);
        }
        // The top series equal the naive ones; everything sums up.
        for s in &tl.series {
            assert_eq!(Some(&s.weight_ns), expect.get(&s.label), "{}", s.label);
        }
        let all: i64 = expect.values().flatten().sum();
        let got: i64 = tl.series.iter().chain(&tl.other).map(|s| s.total_ns).sum();
        assert_eq!(got, all);
        assert_eq!(tl.series.len(), 3.min(expect.len()));
    }
}

#[test]
fn selection_keeps_the_union_of_its_paths() {
    for seed in 0..6 {
        let e = engine(seed);
        let t = e.trace();
        let cols = [Column::Process, Column::Stack];
        let top = e
            .table(&request(&cols, &Filters::default(), &[]))
            .unwrap()
            .rows;
        let (a, b) = (&top[0], &top[1]);
        let under_b = e
            .table(&request(&cols, &Filters::default(), &[b.key]))
            .unwrap()
            .rows;
        let c = &under_b[0];
        let sel = Selection {
            columns: cols.to_vec(),
            paths: vec![vec![a.key], vec![b.key, c.key]],
        };
        let f = Filters {
            selection: Some(sel),
            ..Filters::default()
        };
        let resp = e.table(&request(&[Column::Cpu], &f, &[])).unwrap();
        let expect = (0..t.samples.len())
            .filter(|&i| {
                let l = levels(t, &cols, i);
                l[0] == a.label || (l[0] == b.label && l[1] == c.label)
            })
            .count() as u64;
        assert_eq!(resp.parent.count, expect);
        assert_eq!(resp.parent.count, a.count + c.count);
    }
}

#[test]
fn limit_and_sort_report_omitted_rows() {
    let e = Engine::new(Arc::new(synthetic::trace(&shape(3))));
    let mut req = request(&[Column::Function], &Filters::default(), &[]);
    let all = e.table(&req).unwrap();
    req.limit = 5;
    req.sort = SortBy {
        column: ValueColumn::Count,
        descending: true,
    };
    let some = e.table(&req).unwrap();
    assert_eq!(some.rows.len(), 5);
    assert_eq!(some.omitted, all.rows.len() - 5);
    assert!(some.rows.windows(2).all(|w| w[0].count >= w[1].count));
    let max = all.rows.iter().map(|r| r.count).max().unwrap();
    assert_eq!(some.rows[0].count, max);
    req.sort.column = ValueColumn::Label;
    req.sort.descending = false;
    let by_name = e.table(&req).unwrap();
    assert!(by_name.rows.windows(2).all(|w| w[0].label <= w[1].label));
}

#[test]
fn bad_paths_are_errors_not_panics() {
    let e = Engine::new(Arc::new(synthetic::trace(&shape(1))));
    let cols = [Column::Stack];
    assert!(e
        .table(&request(&cols, &Filters::default(), &[u32::MAX]))
        .is_err());
    assert!(e
        .table(&request(&[Column::Cpu], &Filters::default(), &[0, 1]))
        .is_err());
    let empty = e
        .table(&request(
            &[Column::Process],
            &Filters::default(),
            &[123_456],
        ))
        .unwrap();
    assert_eq!(empty.parent.count, 0);
}

#[test]
fn row_tables_group_like_a_plain_count() {
    let e = Engine::new(Arc::new(synthetic::trace(&shape(2))));
    let t = e.trace();
    let rt = e.row_table(RowTableKind::Threads);
    let resp = rt
        .query(&RowTableRequest {
            columns: vec![0, 2],
            ..RowTableRequest::default()
        })
        .unwrap();
    let mut expect: BTreeMap<String, u64> = BTreeMap::new();
    for th in 0..t.threads.len() {
        *expect
            .entry(t.process_label(t.threads.process[th]))
            .or_default() += 1;
    }
    let got: BTreeMap<String, u64> = resp
        .rows
        .iter()
        .map(|r| (r.label.clone(), r.count))
        .collect();
    assert_eq!(got, expect);
    assert_eq!(resp.parent.count, t.threads.len() as u64);
}

#[test]
fn engine_can_be_shared_between_request_threads() {
    fn shared<T: Send + Sync>() {}
    shared::<Engine>();
}

#[test]
fn dangling_rows_in_the_model_do_not_panic_and_count_alike_everywhere() {
    // Samples pointing past the thread and stack tables.
    let broken = || {
        let mut t = synthetic::trace(&shape(5));
        let n = t.samples.len();
        for i in (0..n).step_by(97) {
            t.samples.thread_cpu[i] = t.threads.len() as u32 + 3;
        }
        for i in (0..n).step_by(89) {
            t.samples.stack[i] = t.stacks.len() as u32 + 5;
        }
        t
    };
    let n = broken().samples.len();
    let end = broken().samples.time[n - 1] + 1;
    for buckets in [1, 4] {
        let e = Engine::with_options(
            Arc::new(broken()),
            EngineOptions {
                totals_buckets: Some(buckets),
            },
        );
        let whole = Filters::default();
        let ranged = Filters {
            range: Some(TimeRange {
                start_ns: -1,
                end_ns: end,
            }),
            ..Filters::default()
        };
        let mut counts = Vec::new();
        for f in [&whole, &ranged] {
            for cols in [
                [Column::Process, Column::Stack],
                [Column::Function, Column::Cpu],
            ] {
                counts.push(e.table(&request(&cols, f, &[])).unwrap().parent.count);
            }
            let req = FlameRequest {
                filters: f.clone(),
                ..FlameRequest::default()
            };
            counts.push(e.flame(&req).unwrap().total.count);
        }
        assert!(counts.windows(2).all(|w| w[0] == w[1]), "{counts:?}");
        // The dangling-thread samples are the ones left out.
        let dangling = (0..n).step_by(97).count() as u64;
        assert_eq!(counts[0], n as u64 - dangling);
        let tl = e
            .timeline(&TimelineRequest {
                range: TimeRange {
                    start_ns: 0,
                    end_ns: end,
                },
                bins: 10,
                by: SeriesBy::Thread,
                top: 1000,
                filters: Filters::default(),
            })
            .unwrap();
        let w: i64 = tl.series.iter().map(|s| s.total_ns).sum();
        assert!(w > 0);
        let b = e.butterfly(&ButterflyRequest {
            target: ButterflyTarget::Module(0),
            by: NeighborBy::Module,
            filters: Filters::default(),
        });
        assert!(b.is_ok());
    }
}

#[test]
fn new_symbols_give_the_same_answers_as_a_fresh_engine() {
    let before = Engine::new(Arc::new(synthetic::trace(&shape(4))));
    let symbolized = || {
        let mut t = synthetic::trace(&shape(4));
        // Symbolize every frame: RVAs 0x40 apart share a function.
        for f in 0..t.frames.len() {
            if t.frames.module[f] != NONE {
                t.frames.func[f] =
                    10_000 + t.frames.module[f] * 100 + (t.frames.address[f] / 0x40) as u32;
            }
        }
        t
    };
    let after = before.with_symbols(Arc::new(symbolized())).unwrap();
    let fresh = Engine::new(Arc::new(symbolized()));
    assert_eq!(after.funcs().len(), fresh.funcs().len());
    let mut r = Rng::new(4);
    for _ in 0..10 {
        let (f, _) = random_filter(&fresh, &mut r);
        let cols = random_columns(&mut r);
        let a = after.table(&request(&cols, &f, &[])).unwrap();
        let b = fresh.table(&request(&cols, &f, &[])).unwrap();
        assert_eq!(a, b, "{cols:?}");
    }
    let req = FlameRequest::default();
    assert_eq!(after.flame(&req).unwrap(), fresh.flame(&req).unwrap());
    let smaller = Shape {
        samples: 100,
        ..shape(4)
    };
    let other = Engine::new(Arc::new(synthetic::trace(&smaller)));
    assert!(other.with_symbols(Arc::new(symbolized())).is_err());
}

/// Naive caller/callee sequences (labels, from X outwards) of one sample.
fn naive_sides(
    t: &Trace,
    i: usize,
    is_x: &dyn Fn(u32) -> bool,
    module: bool,
) -> Option<(Vec<String>, Vec<String>)> {
    let fr = frames(t, i);
    let i0 = fr.iter().position(|&f| is_x(f))?;
    let mut i1 = i0;
    while module && i1 + 1 < fr.len() && is_x(fr[i1 + 1]) {
        i1 += 1;
    }
    let callees = fr[i1 + 1..].iter().map(|&f| frame_label(t, f)).collect();
    let callers = fr[..i0].iter().rev().map(|&f| frame_label(t, f)).collect();
    Some((callers, callees))
}

#[test]
fn butterfly_trees_match_the_naive_reference() {
    let mut compared = 0;
    for seed in 0..10 {
        let e = engine(seed);
        let t = e.trace();
        let mut r = Rng::new(seed * 13 + 5);
        for _ in 0..4 {
            let (f, nf) = random_filter(&e, &mut r);
            let Some((target, is_x, module)) = random_target(&e, &mut r) else {
                continue;
            };
            for direction in [Direction::Callers, Direction::Callees] {
                let end = if direction == Direction::Callers {
                    "[root]"
                } else {
                    SELF
                };
                let mut todo: Vec<(Vec<u32>, Vec<String>)> = vec![(vec![], vec![])];
                while let Some((path, labels)) = todo.pop() {
                    compared += 1;
                    let resp = e
                        .butterfly_tree(&ButterflyTreeRequest {
                            target,
                            direction,
                            filters: f.clone(),
                            // This naive reference follows the outermost occurrence.
                            by: NeighborBy::Function,
                            occurrence: Occurrence::Outermost,
                            path: path.clone(),
                            sort: SortBy::default(),
                            limit: 0,
                        })
                        .unwrap();
                    let mut parent = (0u64, 0i64);
                    let mut kids: BTreeMap<String, (u64, i64)> = BTreeMap::new();
                    for s in 0..t.samples.len() {
                        if !keeps(t, &nf, s) {
                            continue;
                        }
                        let Some((up, down)) = naive_sides(t, s, &*is_x, module) else {
                            continue;
                        };
                        let mut seq = if direction == Direction::Callers {
                            up
                        } else {
                            down
                        };
                        seq.push(end.to_string());
                        if seq.len() <= labels.len() || seq[..labels.len()] != labels[..] {
                            continue;
                        }
                        let w = weight(t, s);
                        parent.0 += 1;
                        parent.1 += w;
                        let k = kids.entry(seq[labels.len()].clone()).or_default();
                        k.0 += 1;
                        k.1 += w;
                    }
                    assert_eq!(
                        (resp.parent.count, resp.parent.weight_ns),
                        parent,
                        "{direction:?} {labels:?}"
                    );
                    let got: BTreeMap<String, (u64, i64)> = resp
                        .rows
                        .iter()
                        .map(|x| (x.label.clone(), (x.count, x.weight_ns)))
                        .collect();
                    assert_eq!(got, kids, "{direction:?} {labels:?}");
                    for row in &resp.rows {
                        if row.expandable && todo.len() < 8 && r.chance(0.4) {
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
    assert!(compared > 100, "{compared}");
}

/// A time range alone (and a minimum depth) takes a shortcut: each call
/// node's samples counted by binary search in its time-sorted run. It must
/// equal the general scan, which a filter that keeps everything forces
/// (excluding a process key no sample has), for flame graphs and
/// butterflies, across the interval change of the two-interval traces.
#[test]
fn range_only_shortcut_equals_the_scan() {
    for seed in 0..8 {
        let e = engine(seed);
        let t = e.trace();
        let end = t.samples.time.last().copied().unwrap_or(0) + 1;
        let mut r = Rng::new(seed + 7);
        for round in 0..12 {
            let a = r.below(end as usize) as i64;
            let b = a + r.below(end as usize) as i64 + 1;
            let range = match round {
                0 => None,
                // Edges on sample times, where half-open bounds matter.
                1 => Some(TimeRange {
                    start_ns: t.samples.time[t.samples.len() / 3],
                    end_ns: t.samples.time[2 * t.samples.len() / 3],
                }),
                _ => Some(TimeRange {
                    start_ns: a,
                    end_ns: b,
                }),
            };
            let fast = Filters {
                range,
                min_stack_depth: if round % 3 == 0 { 2 } else { 0 },
                ..Filters::default()
            };
            let mut slow = fast.clone();
            slow.columns.push(ColumnFilter {
                column: Column::Process,
                values: vec![u32::MAX - 7],
                exclude: true,
            });
            let flame = |f: &Filters| {
                e.flame(&FlameRequest {
                    filters: f.clone(),
                    min_fraction: 0.0,
                    order: FlameOrder::Name,
                    per_process: false,
                })
                .unwrap()
            };
            assert_eq!(flame(&fast), flame(&slow), "seed {seed} round {round}");
            let bf = |f: &Filters| {
                e.butterfly(&ButterflyRequest {
                    target: ButterflyTarget::Module(1),
                    by: NeighborBy::Function,
                    filters: f.clone(),
                })
                .unwrap()
            };
            let (x, y) = (bf(&fast), bf(&slow));
            assert_eq!(
                (x.total, x.inclusive, neighbors(&x.callers)),
                (y.total, y.inclusive, neighbors(&y.callers)),
                "seed {seed} round {round}"
            );
        }
    }
}

/// A per-process flame graph is, under each process box, the flame graph
/// of that process alone (one level deeper, shifted to the box's start).
#[test]
fn per_process_flame_is_each_process_flame_side_by_side() {
    for seed in 0..6 {
        let e = engine(seed);
        let mut r = Rng::new(seed + 31);
        let end = e.trace().samples.time.last().copied().unwrap_or(0) + 1;
        let a = r.below(end as usize / 2) as i64;
        let range = (seed % 2 == 1).then_some(TimeRange {
            start_ns: a,
            end_ns: a + end / 2,
        });
        let req = |filters: Filters, per_process| FlameRequest {
            filters,
            min_fraction: 0.0,
            order: FlameOrder::Name,
            per_process,
        };
        let all = e
            .flame(&req(
                Filters {
                    range,
                    ..Filters::default()
                },
                true,
            ))
            .unwrap();
        let mut procs = 0;
        for b in (0..all.len()).filter(|&b| all.depth[b] == 1) {
            procs += 1;
            let p = all.process[b];
            let alone = e
                .flame(&req(
                    Filters {
                        range,
                        columns: vec![ColumnFilter {
                            column: Column::Process,
                            values: vec![p],
                            exclude: false,
                        }],
                        ..Filters::default()
                    },
                    false,
                ))
                .unwrap();
            // Boxes of this process in the per-process graph: b's subtree.
            let sub: Vec<(u16, i64, i64, String, i64)> = (b + 1..all.len())
                .take_while(|&x| all.depth[x] > 1)
                .map(|x| {
                    (
                        all.depth[x] - 1,
                        all.start[x] - all.start[b],
                        all.width[x],
                        all.label[x].clone(),
                        all.self_ns[x],
                    )
                })
                .collect();
            let want: Vec<(u16, i64, i64, String, i64)> = (1..alone.len())
                .map(|x| {
                    (
                        alone.depth[x],
                        alone.start[x],
                        alone.width[x],
                        alone.label[x].clone(),
                        alone.self_ns[x],
                    )
                })
                .collect();
            assert_eq!(sub, want, "seed {seed} process {}", all.label[b]);
            assert_eq!(all.width[b], alone.width[0]);
            assert_eq!(all.self_ns[b], alone.self_ns[0]);
        }
        assert!(procs > 1, "seed {seed}: {procs} process boxes");
        // The general scan (forced by a filter that keeps everything) agrees.
        let scanned = e
            .flame(&req(
                Filters {
                    range,
                    columns: vec![ColumnFilter {
                        column: Column::Process,
                        values: vec![u32::MAX - 7],
                        exclude: true,
                    }],
                    ..Filters::default()
                },
                true,
            ))
            .unwrap();
        assert_eq!(scanned, all, "seed {seed}");
    }
}
