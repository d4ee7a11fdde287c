//! The Stack Tag column on seeded synthetic traces against a naive tagger
//! written here: it walks each sample's frames by label, matches every
//! entry point with its own glob, and keeps the highest priority, then the
//! deepest frame, then the first entry (WPA's rule); it shares no code with
//! `query::stack_tags`.

use model::{Trace, NONE};
use query::stack_tags::StackTags;
use query::synthetic::{self, Shape};
use query::*;
use std::collections::BTreeMap;
use std::sync::Arc;

const XML: &str = r#"<?xml version="1.0"?>
<Tag Name="">
  <Tag Name="Low">
    <Entrypoint Module="mod1.dll" Method="*"/>
    <Tag Name="Deep">
      <Entrypoint Module="mod?.dll" Method="func#1?"/>
    </Tag>
  </Tag>
  <Tag Name="High" Priority="3">
    <Entrypoint Module="MOD5.DLL" Method="func#6*"/>
  </Tag>
  <Tag Name="Any">
    <Entrypoint Module="mod2*" Method="*"/>
  </Tag>
</Tag>"#;

/// The same set by hand: (module, method, tag, priority), in file order.
const ENTRIES: [(&str, &str, &str, i64); 4] = [
    ("mod1.dll", "*", "Low", 0),
    ("mod?.dll", "func#1?", "Low\\Deep", 0),
    ("MOD5.DLL", "func#6*", "High", 3),
    ("mod2*", "*", "Any", 0),
];

fn glob(p: &[char], t: &[char]) -> bool {
    match (p.first(), t.first()) {
        (None, None) => true,
        (Some('*'), _) => glob(&p[1..], t) || (!t.is_empty() && glob(p, &t[1..])),
        (Some('?'), Some(_)) => glob(&p[1..], &t[1..]),
        (Some(a), Some(b)) => a.eq_ignore_ascii_case(b) && glob(&p[1..], &t[1..]),
        _ => false,
    }
}

fn matches(p: &str, t: &str) -> bool {
    let p: Vec<char> = p.chars().collect();
    let t: Vec<char> = t.chars().collect();
    glob(&p, &t)
}

/// `module!method` of a frame as the Stack column shows it.
fn frame_label(t: &Trace, f: u32) -> (String, String) {
    let m = t.frames.module[f as usize];
    let func = t.frames.func[f as usize];
    if m == NONE {
        return ("?".into(), "?".into());
    }
    let module = t.strings.get(t.modules.name[m as usize]).to_string();
    let method = if func == NONE {
        "?".into()
    } else {
        format!("func#{func}")
    };
    (module, method)
}

fn naive_tag(t: &Trace, i: usize) -> String {
    naive_stack_tag(t, t.samples.stack[i])
}

/// The tag of model stack `s` (`NONE`: `n/a`).
fn naive_stack_tag(t: &Trace, mut s: u32) -> String {
    let mut frames = Vec::new();
    while s != NONE {
        frames.push(t.stacks.frame[s as usize]);
        s = t.stacks.parent[s as usize];
    }
    if frames.is_empty() {
        return "n/a".into();
    }
    frames.reverse();
    // (priority, depth, -entry) is largest for the winner.
    let mut best: Option<((i64, usize, i64), &str)> = None;
    for (depth, &f) in frames.iter().enumerate() {
        let (module, method) = frame_label(t, f);
        for (j, (pm, pf, tag, prio)) in ENTRIES.iter().enumerate() {
            if matches(pm, &module) && matches(pf, &method) {
                let k = (*prio, depth, -(j as i64));
                if best.is_none_or(|(b, _)| k > b) {
                    best = Some((k, tag));
                }
            }
        }
    }
    best.map_or("Other".into(), |(_, tag)| tag.to_string())
}

fn shape(seed: u64) -> Shape {
    Shape {
        samples: 4000,
        stacks: 400,
        threads: 12,
        processes: 4,
        modules: 8,
        frames_per_module: 40,
        cpus: 4,
        symbolized: 0.7,
        two_intervals: false,
        seed,
    }
}

fn engine(seed: u64) -> Engine {
    let e = Engine::new(Arc::new(synthetic::trace(&shape(seed))));
    let tags = match StackTags::parse("test", XML) {
        Ok(t) => t,
        Err(err) => panic!("{err}"),
    };
    e.with_stack_tags(Arc::new(tags))
}

fn request(columns: Vec<Column>, filters: Filters, path: Vec<u32>) -> TableRequest {
    TableRequest {
        columns,
        filters,
        path,
        sort: SortBy::default(),
        limit: 0,
    }
}

fn counts(rows: &[Row]) -> BTreeMap<String, u64> {
    rows.iter().map(|r| (r.label.clone(), r.count)).collect()
}

#[test]
fn grouping_by_stack_tag_matches_the_naive_tagger() {
    let mut tags_seen = 0;
    for seed in 0..6 {
        let e = engine(seed);
        let t = e.trace();
        let mut expect: BTreeMap<String, u64> = BTreeMap::new();
        for i in 0..t.samples.len() {
            *expect.entry(naive_tag(t, i)).or_default() += 1;
        }
        let got = match e.table(&request(vec![Column::StackTag], Filters::default(), vec![])) {
            Ok(r) => r,
            Err(err) => panic!("{err}"),
        };
        assert_eq!(counts(&got.rows), expect, "seed {seed}");
        tags_seen += expect.len();
    }
    // Every tag, Other and n/a show up across the seeds.
    assert!(tags_seen >= 6 * 4, "{tags_seen}");
}

#[test]
fn stack_tag_nests_under_process_and_filters() {
    let e = engine(1);
    let t = e.trace();
    let top = match e.table(&request(vec![Column::StackTag], Filters::default(), vec![])) {
        Ok(r) => r,
        Err(err) => panic!("{err}"),
    };
    let Some(low) = top.rows.iter().find(|r| r.label == "Low") else {
        panic!("no Low row")
    };
    // Filter to Low, group by Process: per-process counts of Low samples.
    let filters = Filters {
        columns: vec![ColumnFilter {
            column: Column::StackTag,
            values: vec![low.key],
            exclude: false,
        }],
        ..Filters::default()
    };
    let got = match e.table(&request(vec![Column::Process], filters, vec![])) {
        Ok(r) => r,
        Err(err) => panic!("{err}"),
    };
    let mut expect: BTreeMap<String, u64> = BTreeMap::new();
    for i in 0..t.samples.len() {
        if naive_tag(t, i) == "Low" {
            let th = t.samples.thread(i) as usize;
            *expect
                .entry(t.process_label(t.threads.process[th]))
                .or_default() += 1;
        }
    }
    assert_eq!(counts(&got.rows), expect);
    // Process, then Stack Tag: the children of each process row.
    for p in &got.rows {
        let kids = match e.table(&request(
            vec![Column::Process, Column::StackTag],
            Filters::default(),
            vec![p.key],
        )) {
            Ok(r) => r,
            Err(err) => panic!("{err}"),
        };
        let mut want: BTreeMap<String, u64> = BTreeMap::new();
        for i in 0..t.samples.len() {
            let th = t.samples.thread(i) as usize;
            if t.process_label(t.threads.process[th]) == p.label {
                *want.entry(naive_tag(t, i)).or_default() += 1;
            }
        }
        assert_eq!(counts(&kids.rows), want, "{}", p.label);
    }
}

#[test]
fn flame_graph_groups_by_stack_tag() {
    for seed in 0..3 {
        let e = engine(seed);
        let t = e.trace();
        let req = FlameRequest {
            filters: Filters::default(),
            min_fraction: 0.0,
            order: FlameOrder::Name,
            per_process: false,
        };
        let g = match e.flame_by_stack_tag(&req) {
            Ok(g) => g,
            Err(err) => panic!("{err}"),
        };
        let mut want: BTreeMap<String, i64> = BTreeMap::new();
        for i in 0..t.samples.len() {
            *want.entry(naive_tag(t, i)).or_default() += t.samples.weight_ns(i);
        }
        let got: BTreeMap<String, i64> = (0..g.depth.len())
            .filter(|&b| g.depth[b] == 1)
            .map(|b| (g.label[b].clone(), g.width[b]))
            .collect();
        assert_eq!(got, want, "seed {seed}");
        assert_eq!(g.width[0], want.values().sum::<i64>());
        // Under a tag's box, its stacks: depth-2 boxes lie inside it.
        let tagged = (0..g.depth.len()).find(|&b| g.depth[b] == 1 && g.label[b] == "Low");
        let Some(b) = tagged else {
            panic!("no Low box")
        };
        assert!((0..g.depth.len()).any(|c| g.depth[c] == 2
            && g.start[c] >= g.start[b]
            && g.start[c] + g.width[c] <= g.start[b] + g.width[b]));
    }
}

/// The synthetic trace with `n` context switches: each switches in a
/// random thread with a random stack (or none), readied by a ReadyThread
/// row with its own random stack (or by none).
fn with_switches(seed: u64, n: usize) -> Engine {
    let mut t = synthetic::trace(&shape(seed));
    let mut rng = testdata::Rng::new(seed ^ 0x5eed);
    let stacks = t.stacks.len();
    let threads = t.threads.len();
    let pick_stack = |rng: &mut testdata::Rng| match rng.below(5) {
        0 => NONE,
        _ => rng.below(stacks) as u32,
    };
    for i in 0..n {
        let ready = match rng.below(3) {
            0 => NONE,
            _ => {
                let r = &mut t.ready_threads;
                r.time.push(i as i64 * 10);
                r.cpu.push(0);
                r.thread.push(rng.below(threads) as u32);
                r.readying_thread.push(rng.below(threads) as u32);
                r.adjust_reason.push(0);
                r.adjust_increment.push(0);
                r.flags.push(0);
                r.stack.push(pick_stack(&mut rng));
                (r.time.len() - 1) as u32
            }
        };
        let c = &mut t.cswitches;
        c.time.push(i as i64 * 10 + 5);
        c.cpu.push((i % 4) as u16);
        c.new_thread.push(rng.below(threads) as u32);
        c.old_thread.push(rng.below(threads) as u32);
        c.old_wait_reason.push(0);
        c.old_state.push(5);
        c.new_priority.push(8);
        c.old_priority.push(8);
        c.new_wait_time_raw.push(0);
        c.wait_ns.push(0);
        c.ready_ns.push(0);
        c.ready_event.push(ready);
        c.run_ns.push(1 + rng.below(1000) as i64);
        c.stack.push(pick_stack(&mut rng));
    }
    let e = Engine::new(Arc::new(t));
    let tags = match StackTags::parse("test", XML) {
        Ok(t) => t,
        Err(err) => panic!("{err}"),
    };
    e.with_stack_tags(Arc::new(tags))
}

/// Count and CPU Usage per label of a row-table query.
fn row_counts(r: &TableResponse) -> BTreeMap<String, (u64, i64)> {
    r.rows
        .iter()
        .map(|x| (x.label.clone(), (x.count, x.weight_ns)))
        .collect()
}

#[test]
fn cpu_precise_stack_tags_match_the_naive_tagger() {
    let mut seen = 0;
    for seed in 0..4 {
        let e = with_switches(seed, 3000);
        let t = e.trace();
        let rt = e.row_table(RowTableKind::CpuPrecise);
        let col = |n: &str| match rt.column(n) {
            Some(c) => c,
            None => panic!("no column {n}: {:?}", rt.columns),
        };
        let c = &t.cswitches;
        let ready_stack = |i: usize| match c.ready_event[i] {
            NONE => NONE,
            r => t.ready_threads.stack[r as usize],
        };
        type StackOf<'a> = Box<dyn Fn(usize) -> u32 + 'a>;
        let cases: [(&str, StackOf); 3] = [
            ("Stack Tag", Box::new(|i| c.stack[i])),
            ("New Thread Stack Tag", Box::new(|i| c.stack[i])),
            ("Ready Thread Stack Tag", Box::new(ready_stack)),
        ];
        for (name, stack_of) in &cases {
            let mut want: BTreeMap<String, (u64, i64)> = BTreeMap::new();
            for i in 0..c.len() {
                let w = want.entry(naive_stack_tag(t, stack_of(i))).or_default();
                w.0 += 1;
                w.1 += c.run_ns[i];
            }
            let req = RowTableRequest {
                columns: vec![col(name)],
                ..RowTableRequest::default()
            };
            let got = match rt.query(&req) {
                Ok(r) => r,
                Err(err) => panic!("{err}"),
            };
            assert_eq!(row_counts(&got), want, "seed {seed} {name}");
            seen += want.len();
        }
        // Filtered to Low, grouped by New Process.
        let tag = col("Stack Tag");
        let req = RowTableRequest {
            columns: vec![col("New Process")],
            filters: vec![RowFilter {
                column: tag,
                values: rt.keys_of_label(tag, "Low"),
                exclude: false,
            }],
            ..RowTableRequest::default()
        };
        let got = match rt.query(&req) {
            Ok(r) => r,
            Err(err) => panic!("{err}"),
        };
        let mut want: BTreeMap<String, (u64, i64)> = BTreeMap::new();
        for i in 0..c.len() {
            if naive_stack_tag(t, c.stack[i]) == "Low" {
                let p = t.threads.process[c.new_thread[i] as usize];
                let w = want.entry(t.process_text(p)).or_default();
                w.0 += 1;
                w.1 += c.run_ns[i];
            }
        }
        assert!(!want.is_empty(), "seed {seed}: no Low switches");
        assert_eq!(row_counts(&got), want, "seed {seed} filter");
    }
    // At least two tags besides Other and n/a in each grouping.
    assert!(seen >= 4 * 3 * 4, "{seen}");
}
