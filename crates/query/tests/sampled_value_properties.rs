//! Property tests of CPU Usage (Sampled) value columns on seeded random
//! traces: every aggregation mode of every column that can be a value,
//! against a naive reference written here (each sample's cell read straight
//! from the model, aggregates computed from scratch, no query code).
//! Checks: rows of one and two key columns equal the naive aggregate of
//! their samples; under a stack column a group row equals the merge of its
//! children; every key order gives the same totals; sorting by a value
//! orders the rows by it.

use model::{Trace, NONE};
use query::synthetic::{self, Rng, Shape};
use query::*;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

fn trace(seed: u64) -> Trace {
    synthetic::trace(&Shape {
        samples: 2500,
        stacks: 200,
        threads: 16,
        processes: 5,
        modules: 6,
        frames_per_module: 10,
        cpus: 4,
        symbolized: 0.5,
        two_intervals: !seed.is_multiple_of(2),
        seed,
    })
}

/// Engines alternate between one bucket of precomputed totals and several
/// (as on large traces), so that values from per-thread and per-stack
/// totals are compared as well as those read sample by sample.
fn engine(t: &Trace, seed: u64) -> Engine {
    let options = EngineOptions {
        totals_buckets: Some(if seed.is_multiple_of(3) {
            1
        } else {
            2 + seed as usize % 6
        }),
    };
    Engine::with_options(Arc::new(t.clone()), options)
}

// ---- the naive reference ----

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

fn leaf(t: &Trace, i: usize) -> Option<u32> {
    match t.samples.stack[i] {
        NONE => None,
        s => Some(t.stacks.frame[s as usize]),
    }
}

/// The engine's key label of sample `i` in flat column `c`.
fn key_label(t: &Trace, c: Column, i: usize) -> String {
    let th = t.samples.thread(i) as usize;
    let p = t.threads.process[th];
    let module = |f: u32| match t.frames.module[f as usize] {
        NONE => "?".to_string(),
        m => t.strings.get(t.modules.name[m as usize]).to_string(),
    };
    match c {
        Column::Process => t.process_label(p),
        Column::ProcessName => t.strings.get(t.processes.name[p as usize]).to_string(),
        Column::ThreadId => t.threads.tid[th].to_string(),
        Column::ThreadName => t.strings.get(t.threads.name[th]).to_string(),
        Column::Cpu => t.samples.cpu(i).to_string(),
        Column::Module => leaf(t, i).map_or("n/a".into(), module),
        _ => unreachable!("not a key of these tests"),
    }
}

/// A cell as export shows it: a number, or a text.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum V {
    Num(i64),
    Text(String),
}

/// Sample `i`'s cell in value column `name` (`cpu_sampled`'s definitions).
fn cell(t: &Trace, name: &str, i: usize) -> V {
    let th = t.samples.thread(i) as usize;
    let p = t.threads.process[th] as usize;
    let s = |id: model::strings::StrId| V::Text(t.strings.get(id).to_string());
    let attr =
        |col: &Vec<model::strings::StrId>| match leaf(t, i).map(|f| t.frames.module[f as usize]) {
            Some(m) if m != NONE => s(col[m as usize]),
            _ => V::Text(String::new()),
        };
    match name {
        "Process" => V::Text(t.process_label(p as u32)),
        "Process Name" => s(t.processes.name[p]),
        "PID" => V::Num(i64::from(t.processes.pid[p])),
        "Thread ID" => V::Num(i64::from(t.threads.tid[th])),
        "Thread Name" => s(t.threads.name[th]),
        "CPU" => V::Num(i64::from(t.samples.cpu(i))),
        "Module" => attr(&t.modules.name),
        "Function" => V::Text(leaf(t, i).map_or(String::new(), |f| t.frame_label(f))),
        "Image Path" => attr(&t.modules.path),
        "File Version" => attr(&t.modules.file_version),
        "Company Name" => attr(&t.modules.company_name),
        "Time" => V::Num(t.samples.time[i]),
        "Weight" => V::Num(weight(t, i)),
        "Count" => V::Num(1),
        _ => unreachable!(),
    }
}

const TEXT: [&str; 8] = [
    "Process",
    "Process Name",
    "Thread Name",
    "Module",
    "Function",
    "Image Path",
    "File Version",
    "Company Name",
];
const NUMBERS: [&str; 6] = ["PID", "Thread ID", "CPU", "Time", "Weight", "Count"];

/// The aggregate of `cells` as the engine's `CellValue` should be (times
/// and weights in ns).
fn naive(agg: Aggregation, cells: &[V]) -> CellValue {
    let nums: Vec<i64> = cells
        .iter()
        .filter_map(|c| match c {
            V::Num(n) => Some(*n),
            V::Text(_) => None,
        })
        .collect();
    let distinct: BTreeSet<&V> = cells.iter().collect();
    match agg {
        Aggregation::Count => CellValue::Count(cells.len() as u64),
        Aggregation::UniqueCount => CellValue::Count(distinct.len() as u64),
        Aggregation::Sum => CellValue::Number(nums.iter().sum()),
        _ if cells.is_empty() => CellValue::Empty,
        Aggregation::Min => CellValue::Number(*nums.iter().min().unwrap()),
        Aggregation::Max => CellValue::Number(*nums.iter().max().unwrap()),
        Aggregation::Avg => CellValue::Float(nums.iter().sum::<i64>() as f64 / nums.len() as f64),
        Aggregation::Single if distinct.len() == 1 => match cells[0].clone() {
            V::Num(n) => CellValue::Number(n),
            V::Text(s) => CellValue::Text(s),
        },
        // Text shows how many; numbers (an id, a time) show nothing.
        Aggregation::Single if matches!(cells[0], V::Text(_)) => {
            CellValue::Count(distinct.len() as u64)
        }
        Aggregation::Single => CellValue::Empty,
    }
}

/// Ids and instants do not add up (`ColumnDef::accepts`).
fn applies(column: &str, a: Aggregation) -> bool {
    match column {
        "PID" | "Thread ID" | "CPU" | "Time" => a != Aggregation::Sum,
        _ => true,
    }
}

fn close(a: &CellValue, b: &CellValue) -> bool {
    match (a, b) {
        (CellValue::Float(x), CellValue::Float(y)) => (x - y).abs() <= 1e-6 * x.abs().max(1.0),
        _ => a == b,
    }
}

/// Random value columns: names and aggregations that apply to them.
fn random_values(r: &mut Rng) -> Vec<(&'static str, Aggregation)> {
    let n = 1 + r.below(3);
    (0..n)
        .map(|_| {
            if r.chance(0.5) {
                let aggs = [
                    Aggregation::Count,
                    Aggregation::UniqueCount,
                    Aggregation::Single,
                ];
                (TEXT[r.below(TEXT.len())], aggs[r.below(aggs.len())])
            } else {
                let c = NUMBERS[r.below(NUMBERS.len())];
                let ok: Vec<Aggregation> = (Aggregation::ALL.into_iter())
                    .filter(|&a| applies(c, a))
                    .collect();
                (c, ok[r.below(ok.len())])
            }
        })
        .collect()
}

fn specs(t: &Trace, values: &[(&str, Aggregation)]) -> Vec<ValueSpec> {
    let def = TableDef::of(t, "cpu-sampled").unwrap();
    values
        .iter()
        .map(|(n, a)| ValueSpec::parse(&def, &format!("{n}:{}", a.name())).unwrap())
        .collect()
}

fn request(columns: &[Column], range: Option<TimeRange>, path: &[u32]) -> TableRequest {
    TableRequest {
        columns: columns.to_vec(),
        filters: Filters {
            range,
            ..Filters::default()
        },
        path: path.to_vec(),
        sort: SortBy::default(),
        limit: 0,
    }
}

fn random_range(t: &Trace, r: &mut Rng) -> Option<TimeRange> {
    let end = *t.samples.time.last().unwrap();
    r.chance(0.5).then(|| {
        let a = r.below(end as usize / 2) as i64;
        TimeRange {
            start_ns: a,
            end_ns: a + r.below(end as usize / 2) as i64 + 1,
        }
    })
}

const KEYS: [Column; 6] = [
    Column::Process,
    Column::ProcessName,
    Column::ThreadId,
    Column::ThreadName,
    Column::Cpu,
    Column::Module,
];

fn in_range(t: &Trace, range: Option<TimeRange>, i: usize) -> bool {
    let time = t.samples.time[i];
    range.is_none_or(|r| time >= r.start_ns && time < r.end_ns)
}

#[test]
fn every_mode_matches_the_naive_reference_one_and_two_levels_down() {
    let mut compared = 0;
    for seed in 0..16 {
        let t = trace(seed);
        let e = engine(&t, seed);
        let mut r = Rng::new(seed ^ 0x5EED);
        for _ in 0..6 {
            let values = random_values(&mut r);
            let sp = specs(&t, &values);
            let range = random_range(&t, &mut r);
            let a = KEYS[r.below(KEYS.len())];
            let b = KEYS[r.below(KEYS.len())];
            let cols = [a, b];
            let top = e
                .table_values(&request(&cols, range, &[]), &sp, None)
                .unwrap();
            for row in &top.rows {
                let kids = e
                    .table_values(&request(&cols, range, &[row.key]), &sp, None)
                    .unwrap();
                let mut levels = vec![(row, None)];
                levels.extend(kids.rows.iter().map(|k| (k, Some(&row.label))));
                for (x, parent) in levels {
                    let samples: Vec<usize> = (0..t.samples.len())
                        .filter(|&i| in_range(&t, range, i))
                        .filter(|&i| match parent {
                            None => key_label(&t, a, i) == x.label,
                            Some(p) => key_label(&t, a, i) == *p && key_label(&t, b, i) == x.label,
                        })
                        .collect();
                    assert_eq!(x.count, samples.len() as u64);
                    for ((name, agg), got) in values.iter().zip(&x.values) {
                        let cells: Vec<V> = samples.iter().map(|&i| cell(&t, name, i)).collect();
                        let want = naive(*agg, &cells);
                        assert!(
                            close(got, &want),
                            "{name}:{} of {:?} under {parent:?}: {got:?} != {want:?}",
                            agg.name(),
                            x.label
                        );
                        compared += 1;
                    }
                }
            }
        }
    }
    eprintln!("compared {compared} aggregates with the naive reference");
    assert!(compared > 2000);
}

/// Merges children's aggregates the naive way, where that is possible.
fn check_merge(agg: Aggregation, parent: &CellValue, kids: &[&CellValue]) {
    let n = |c: &CellValue| match *c {
        CellValue::Number(v) => v as i128,
        CellValue::Count(v) => v as i128,
        _ => panic!("not a number: {c:?}"),
    };
    match agg {
        Aggregation::Sum | Aggregation::Count => {
            assert_eq!(n(parent), kids.iter().map(|k| n(k)).sum::<i128>())
        }
        Aggregation::Min => assert_eq!(Some(n(parent)), kids.iter().map(|k| n(k)).min()),
        Aggregation::Max => assert_eq!(Some(n(parent)), kids.iter().map(|k| n(k)).max()),
        Aggregation::UniqueCount => {
            let p = n(parent);
            assert!(p <= kids.iter().map(|k| n(k)).sum::<i128>());
            assert!(kids.iter().all(|k| n(k) <= p));
        }
        _ => {}
    }
}

#[test]
fn under_a_stack_a_group_row_is_the_merge_of_its_children() {
    let mut checked = 0;
    for seed in 0..8 {
        let t = trace(seed);
        let e = engine(&t, seed);
        let mut r = Rng::new(seed);
        let values: Vec<(&str, Aggregation)> = vec![
            ("Time", Aggregation::Min),
            ("Time", Aggregation::Max),
            ("Weight", Aggregation::Sum),
            ("Thread ID", Aggregation::UniqueCount),
            ("Function", Aggregation::Count),
        ];
        let sp = specs(&t, &values);
        let cols = [Column::Process, Column::Stack];
        let range = random_range(&t, &mut r);
        let mut todo: Vec<Vec<u32>> = vec![vec![]];
        while let Some(path) = todo.pop() {
            if checked > 400 * (seed + 1) {
                break;
            }
            let level = e
                .table_values(&request(&cols, range, &path), &sp, None)
                .unwrap();
            for row in level.rows.iter().filter(|x| x.expandable) {
                let mut p = path.clone();
                p.push(row.key);
                let kids = e
                    .table_values(&request(&cols, range, &p), &sp, None)
                    .unwrap();
                if kids.rows.is_empty() {
                    continue;
                }
                for (j, (_, agg)) in values.iter().enumerate() {
                    let k: Vec<&CellValue> = kids.rows.iter().map(|x| &x.values[j]).collect();
                    check_merge(*agg, &row.values[j], &k);
                    checked += 1;
                }
                if r.chance(0.5) {
                    todo.push(p);
                }
            }
        }
    }
    assert!(checked > 500, "checked {checked}");
}

#[test]
fn every_column_order_gives_the_same_totals_and_sorting_follows_the_value() {
    for seed in 0..6 {
        let t = trace(seed);
        let e = engine(&t, seed);
        let mut r = Rng::new(seed ^ 7);
        let values = [
            ("Weight", Aggregation::Sum),
            ("Time", Aggregation::Min),
            ("Time", Aggregation::Max),
            ("CPU", Aggregation::Max),
        ];
        let sp = specs(&t, &values);
        let all: Vec<usize> = (0..t.samples.len()).collect();
        let want: Vec<CellValue> = values
            .iter()
            .map(|(n, a)| naive(*a, &all.iter().map(|&i| cell(&t, n, i)).collect::<Vec<_>>()))
            .collect();
        let mut cols = KEYS.to_vec();
        cols.push(Column::Function);
        cols.push(Column::Stack);
        for _ in 0..8 {
            for i in (1..cols.len()).rev() {
                cols.swap(i, r.below(i + 1));
            }
            let k = 1 + r.below(3);
            let resp = e
                .table_values(&request(&cols[..k], None, &[]), &sp, Some(1))
                .unwrap();
            let rows = &resp.rows;
            let sum: i64 = rows
                .iter()
                .map(|x| match x.values[0] {
                    CellValue::Number(v) => v,
                    _ => 0,
                })
                .sum();
            assert_eq!(CellValue::Number(sum), want[0], "{:?}", &cols[..k]);
            let nums = |j: usize| -> Vec<i64> {
                rows.iter()
                    .map(|x| match x.values[j] {
                        CellValue::Number(v) => v,
                        _ => panic!(),
                    })
                    .collect()
            };
            assert_eq!(
                nums(1).iter().min().map(|&v| CellValue::Number(v)),
                Some(want[1].clone())
            );
            assert_eq!(
                nums(2).iter().max().map(|&v| CellValue::Number(v)),
                Some(want[2].clone())
            );
            assert_eq!(
                nums(3).iter().max().map(|&v| CellValue::Number(v)),
                Some(want[3].clone())
            );
            // Sorted by Time:min, latest first (the default descending sort).
            let firsts = nums(1);
            assert!(firsts.windows(2).all(|w| w[0] >= w[1]), "{firsts:?}");
        }
    }
}

/// The engine's per-thread and per-stack tables read what `cpu_sampled`'s
/// row-by-row definitions read, for every sample of the demo-sized trace.
#[test]
fn one_group_per_sample_reads_the_definitions_cells() {
    let t = trace(5);
    let e = engine(&t, 5);
    let def = TableDef::of(&t, "cpu-sampled").unwrap();
    let names: Vec<&str> = TEXT.iter().chain(NUMBERS.iter()).copied().collect();
    let values: Vec<(&str, Aggregation)> =
        names.iter().map(|&n| (n, Aggregation::Single)).collect();
    let sp = specs(&t, &values);
    // One row per thread and CPU: compare its single values with the cells.
    let resp = e
        .table_values(
            &request(&[Column::ThreadId, Column::Cpu], None, &[]),
            &sp,
            None,
        )
        .unwrap();
    let mut by_label: BTreeMap<String, Vec<CellValue>> = BTreeMap::new();
    for row in &resp.rows {
        by_label.insert(row.label.clone(), row.values.clone());
    }
    for (tid, values) in by_label {
        let samples: Vec<usize> = (0..t.samples.len())
            .filter(|&i| key_label(&t, Column::ThreadId, i) == tid)
            .collect();
        for (j, n) in names.iter().enumerate() {
            if !["Process", "Process Name", "PID", "Thread ID", "Thread Name"].contains(n) {
                continue;
            }
            let c = def.column(n).unwrap();
            let text = def.cell_text(&t, c, samples[0]);
            let got = values[j].text(sp[j].shown_type(&def));
            assert_eq!(got, text, "{n} of thread {tid}");
        }
    }
}

/// Values that follow from a thread's (or a stack row's) samples taken
/// together come from the precomputed per-thread (per-stack) totals: the
/// same answers as the naive reference.
#[test]
fn values_from_precomputed_totals_match_the_naive_reference() {
    let cases: [(Column, &[(&str, Aggregation)]); 2] = [
        (
            Column::Process,
            &[
                ("Time", Aggregation::Min),
                ("Time", Aggregation::Max),
                ("Thread ID", Aggregation::UniqueCount),
                ("Process Name", Aggregation::Single),
                ("Weight", Aggregation::Sum),
                ("Count", Aggregation::Sum),
            ],
        ),
        (
            Column::Module,
            &[
                ("Time", Aggregation::Min),
                ("Function", Aggregation::UniqueCount),
                ("Module", Aggregation::Single),
                ("Count", Aggregation::Sum),
            ],
        ),
    ];
    for seed in 1..9 {
        let t = trace(seed);
        let e = engine(&t, seed);
        let mut r = Rng::new(seed);
        for (key, values) in cases {
            let sp = specs(&t, values);
            let range = random_range(&t, &mut r);
            let resp = e
                .table_values(&request(&[key], range, &[]), &sp, None)
                .unwrap();
            for row in &resp.rows {
                let samples: Vec<usize> = (0..t.samples.len())
                    .filter(|&i| in_range(&t, range, i) && key_label(&t, key, i) == row.label)
                    .collect();
                for ((name, agg), got) in values.iter().zip(&row.values) {
                    let cells: Vec<V> = samples.iter().map(|&i| cell(&t, name, i)).collect();
                    let want = naive(*agg, &cells);
                    assert!(
                        close(got, &want),
                        "{name}:{} of {}: {got:?} != {want:?}",
                        agg.name(),
                        row.label
                    );
                }
            }
        }
    }
}
