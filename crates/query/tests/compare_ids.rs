//! The id-based comparison (`compare_ids`, issue 17) against a naive one
//! on random pairs of synthetic traces of differing content (stacks and
//! functions on one side only, recursion): each trace grouped row by row
//! by its key texts, the groups matched by their identity texts. Rows,
//! values and order must be equal, to the bit.

use model::Trace;
use query::compare::ids::{self, Side};
use query::compare::{self, CompareRow, CompareTable};
use query::scan::filter::TimeRange;
use query::synthetic::{self, Shape};
use query::table::columns::{Cells, MISSING};
use query::table::flat::{self, FlatRequest};
use query::{CellValue, ColumnType, Engine, EngineOptions, TableDef, ValueSpec};
use rustc_hash::FxHashMap;
use std::sync::Arc;
use testdata::Rng;

const KEYS: [&str; 11] = [
    "Process",
    "Process Name",
    "PID",
    "Thread ID",
    "Thread Name",
    "Module",
    "Function",
    "Stack",
    "Image Path",
    "File Version",
    "Company Name",
];
const VALUES: [&str; 3] = ["Count", "Weight", "% Weight"];

fn shape(samples: usize, stacks: usize, seed: u64) -> Shape {
    Shape {
        samples,
        stacks,
        threads: 30,
        processes: 6,
        modules: 10,
        frames_per_module: 15,
        cpus: 4,
        // Frames named `module!0xRVA`, or half of them `module!function`.
        symbolized: if seed.is_multiple_of(3) { 0.5 } else { 0.0 },
        two_intervals: seed.is_multiple_of(2),
        seed,
    }
}

/// The naive comparison: per row, the key texts; per distinct texts, the
/// count and weight; per identity (`compare::identity` of each text), the
/// values of its groups added heaviest first (the order export lists
/// them in); then both traces' identities matched by text.
fn naive(
    sides: [(&Trace, Option<TimeRange>); 2],
    keys: &[&str],
    values: &[&str],
    scale: f64,
) -> Vec<CompareRow> {
    let mut per_side: Vec<FxHashMap<Vec<String>, Vec<f64>>> = Vec::new();
    for (t, range) in sides {
        let def = TableDef::of(t, "cpu-sampled").expect("cpu-sampled");
        let cols: Vec<usize> = keys.iter().map(|k| def.column(k).expect("key")).collect();
        let weight = def.column("Weight").expect("Weight");
        let mut groups: FxHashMap<Vec<String>, (u64, i64)> = FxHashMap::default();
        for row in 0..def.rows {
            let time = t.samples.time[row];
            if range.is_some_and(|r| time < r.start_ns || time >= r.end_ns) {
                continue;
            }
            let texts: Vec<String> = cols.iter().map(|&c| def.cell_text(t, c, row)).collect();
            let w = match &def.columns[weight].cells {
                Cells::Number(f) => f.at(row),
                _ => unreachable!(),
            };
            let g = groups.entry(texts).or_default();
            g.0 += 1;
            g.1 += if w == MISSING { 0 } else { w };
        }
        let span = range.map_or(t.info.duration_ns, |r| r.end_ns - r.start_ns);
        let capacity = span.max(0) as f64 * f64::from(t.info.cpus.max(1));
        let mut listed: Vec<(Vec<String>, u64, i64)> =
            groups.into_iter().map(|(k, (c, w))| (k, c, w)).collect();
        listed.sort_by_key(|g| std::cmp::Reverse((g.2, g.1)));
        let mut by_identity: FxHashMap<Vec<String>, Vec<f64>> = FxHashMap::default();
        for (texts, count, weight) in listed {
            let identity: Vec<String> = texts
                .iter()
                .zip(keys)
                .map(|(s, k)| compare::identity(k, &CellValue::Text(s.clone()), ColumnType::Text))
                .collect();
            let sums = by_identity
                .entry(identity)
                .or_insert_with(|| vec![0.0; values.len()]);
            for (v, name) in sums.iter_mut().zip(values) {
                *v += match *name {
                    "Count" => count as f64,
                    "Weight" => weight as f64 / 1e9,
                    _ if capacity > 0.0 => weight as f64 * 100.0 / capacity,
                    _ => 0.0,
                };
            }
        }
        per_side.push(by_identity);
    }
    let (b, n) = (&per_side[0], &per_side[1]);
    let zero = vec![0.0; values.len()];
    let mut rows: Vec<CompareRow> = b
        .keys()
        .chain(n.keys().filter(|k| !b.contains_key(*k)))
        .map(|k| CompareRow {
            keys: k.clone(),
            values: b
                .get(k)
                .unwrap_or(&zero)
                .iter()
                .zip(n.get(k).unwrap_or(&zero))
                .map(|(x, y)| (x * scale, *y))
                .collect(),
        })
        .collect();
    rows.sort_by(|x, y| {
        x.delta(0)
            .total_cmp(&y.delta(0))
            .then_with(|| x.keys.cmp(&y.keys))
    });
    rows
}

/// The comparison the text path computes (the code before `compare_ids`).
fn by_texts(
    sides: [(&Trace, Option<TimeRange>); 2],
    keys: &[&str],
    values: &[&str],
    scale: f64,
) -> CompareTable {
    let tables: Vec<_> = sides
        .iter()
        .map(|&(t, range)| {
            let def = TableDef::of(t, "cpu-sampled").expect("cpu-sampled");
            let req = FlatRequest {
                keys: keys.iter().map(|k| def.column(k).expect("key")).collect(),
                values: values
                    .iter()
                    .map(|v| ValueSpec::parse(&def, v).expect("value"))
                    .collect(),
                range,
                ..Default::default()
            };
            flat::group_per_row(t, &def, &req).expect("group")
        })
        .collect();
    compare::compare(&tables[0], &tables[1], scale)
}

fn engine(t: Trace, buckets: usize) -> Engine {
    Engine::with_options(
        Arc::new(t),
        EngineOptions {
            totals_buckets: Some(buckets),
        },
    )
}

fn range(rng: &mut Rng, t: &Trace) -> Option<TimeRange> {
    let end = t.samples.time.last().copied().unwrap_or(0).max(1) as u64;
    (rng.below(2) == 0).then(|| {
        let a = rng.below_u64(end) as i64;
        TimeRange {
            start_ns: a,
            end_ns: a + rng.below_u64(end) as i64,
        }
    })
}

/// Rows matched on both sides and rows of one side only, over `cases`.
fn check(base: &Engine, new: &Engine, rng: &mut Rng, cases: usize) -> (usize, usize) {
    let (mut shared, mut one_sided) = (0, 0);
    for case in 0..cases {
        let keys: Vec<&str> = (0..1 + rng.below(2)).map(|_| rng.pick(&KEYS)).collect();
        let values: Vec<&str> = match rng.below(3) {
            0 => VALUES.to_vec(),
            _ => (0..1 + rng.below(3)).map(|_| rng.pick(&VALUES)).collect(),
        };
        let (rb, rn) = (range(rng, base.trace()), range(rng, new.trace()));
        let scale = rng.pick(&[1.0, 0.5, 1.7]);
        let what = format!("case {case}: {keys:?} {values:?} {rb:?} {rn:?} x{scale}");
        let strings = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let side = |engine, range| Side { engine, range };
        let ids = ids::compare(
            side(base, rb),
            side(new, rn),
            "cpu-sampled",
            &strings(&keys),
            Some(&strings(&values)),
            scale,
        )
        .unwrap_or_else(|| panic!("{what}: not covered"));
        let total = ids.len();
        let (table, omitted) = ids.into_table(usize::MAX);
        assert_eq!((total, omitted), (table.rows.len(), 0), "{what}");
        let sides = [(base.trace(), rb), (new.trace(), rn)];
        let expected = naive(sides, &keys, &values, scale);
        assert_eq!(table.rows.len(), expected.len(), "{what}: row count");
        for (i, (x, y)) in table.rows.iter().zip(&expected).enumerate() {
            assert_eq!(x, y, "{what}: row {i}");
        }
        // A cut (as `POST /api/compare` asks): the naive rows' largest changes.
        let limit = rng.below(expected.len() + 2);
        let (cut, omitted) = ids::compare(
            side(base, rb),
            side(new, rn),
            "cpu-sampled",
            &strings(&keys),
            Some(&strings(&values)),
            scale,
        )
        .unwrap_or_else(|| panic!("{what}: not covered"))
        .into_table(limit);
        let mut kept = expected.clone();
        let left_out = compare::keep_largest_changes(&mut kept, limit, |r| r.delta(0));
        assert_eq!(omitted, left_out, "{what}: cut at {limit}");
        assert!(cut.rows == kept, "{what}: cut at {limit}");
        assert_eq!(table, by_texts(sides, &keys, &values, scale), "{what}");
        for r in &table.rows {
            match r.values.first() {
                Some((b, n)) if *b != 0.0 && *n != 0.0 => shared += 1,
                Some(_) => one_sided += 1,
                None => {}
            }
        }
    }
    (shared, one_sided)
}

#[test]
fn id_comparison_equals_the_naive_text_comparison() {
    let mut rng = Rng::new(170);
    let (mut shared, mut one_sided) = (0, 0);
    for seed in 1..=5u64 {
        let b = synthetic::trace(&shape(3_000 + 700 * seed as usize, 200, seed));
        let n = synthetic::trace(&shape(2_000 + 900 * seed as usize, 260, seed + 50));
        let (b, n) = (engine(b, 1 + seed as usize % 3), engine(n, 3));
        let (s, o) = check(&b, &n, &mut rng, 30);
        (shared, one_sided) = (shared + s, one_sided + o);
    }
    assert!(
        shared > 0 && one_sided > 0,
        "{shared} matched rows, {one_sided} on one side"
    );
}

/// Enough samples for the totals' buckets and the pair pass's parallel
/// parts; a trace against itself (every delta 0: the order is the keys').
#[test]
fn larger_traces_and_a_trace_against_itself() {
    let mut rng = Rng::new(171);
    let b = engine(synthetic::trace(&shape(150_000, 2_000, 7)), 8);
    let n = engine(synthetic::trace(&shape(120_000, 1_500, 8)), 5);
    check(&b, &n, &mut rng, 8);
    let values = ["Count", "Weight", "% Weight"];
    for (x, y) in [(&b, &n), (&b, &b)] {
        let by_ids = ids::compare(
            Side {
                engine: x,
                range: None,
            },
            Side {
                engine: y,
                range: None,
            },
            "cpu-sampled",
            &["Process".into(), "Stack".into()],
            None,
            1.0,
        )
        .expect("covered");
        let (table, _) = by_ids.into_table(usize::MAX);
        let sides = [(x.trace(), None), (y.trace(), None)];
        let expected = naive(sides, &["Process", "Stack"], &values, 1.0);
        assert_eq!(table.rows.len(), expected.len());
        assert!(table.rows == expected, "Process,Stack");
    }
}

/// What the comparison does not cover is left to the text path.
#[test]
fn other_requests_are_not_covered() {
    let b = engine(synthetic::trace(&shape(1_000, 50, 3)), 1);
    let side = Side {
        engine: &b,
        range: None,
    };
    let ask = |table: &str, keys: &[&str], values: Option<&[&str]>| {
        let keys: Vec<String> = keys.iter().map(|s| s.to_string()).collect();
        let values: Option<Vec<String>> = values.map(|v| v.iter().map(|s| s.to_string()).collect());
        ids::compare(side, side, table, &keys, values.as_deref(), 1.0).is_some()
    };
    assert!(ask("cpu-sampled", &["Module"], None));
    assert!(
        !ask("cpu-sampled", &["CPU"], None),
        "not a thread or stack column"
    );
    assert!(
        !ask("cpu-sampled", &["Module"], Some(&["Time:Min"])),
        "not a sum"
    );
    assert!(!ask("cpu-sampled", &[], None), "no keys");
    assert!(!ask("cpu-sampled", &["Nope"], None), "no such column");
    assert!(!ask("file-io", &["Process"], None), "another table");
}

/// Groupings by thread and stack columns without a range, asked again
/// and in turn (more of them than the engine keeps pairs of): each answer
/// from the kept pair counts equals the naive one.
#[test]
fn kept_pair_counts_answer_as_a_fresh_pass() {
    let b = engine(synthetic::trace(&shape(20_000, 400, 9)), 2);
    let n = engine(synthetic::trace(&shape(15_000, 300, 10)), 3);
    let groupings: [&[&str]; 6] = [
        &["Process", "Stack"],
        &["Thread ID", "Function"],
        &["Process Name", "Module"],
        &["Process", "Stack"],
        &["Thread Name", "Stack", "PID"],
        &["PID", "Image Path"],
    ];
    let values = ["Count", "Weight", "% Weight"];
    for round in 0..3 {
        for keys in groupings {
            let owned: Vec<String> = keys.iter().map(|s| s.to_string()).collect();
            let side = |engine| Side {
                engine,
                range: None,
            };
            let (table, _) = ids::compare(side(&b), side(&n), "cpu-sampled", &owned, None, 1.0)
                .expect("covered")
                .into_table(usize::MAX);
            let sides = [(b.trace(), None), (n.trace(), None)];
            let expected = naive(sides, keys, &values, 1.0);
            assert!(table.rows == expected, "round {round}: {keys:?}");
        }
    }
}

#[test]
fn a_warmed_trace_answers_as_a_cold_one() {
    let (b, n) = (
        synthetic::trace(&shape(20_000, 400, 11)),
        synthetic::trace(&shape(15_000, 300, 12)),
    );
    let (cold, warm) = (engine(b.clone(), 2), engine(b, 2));
    let new = engine(n, 3);
    assert_eq!(warm.compare_cache_bytes(), 0);
    warm.warm_compare();
    let made = warm.compare_cache_bytes();
    assert!(made > 0);
    for keys in [&["Function"][..], &["Process", "Stack"], &["Module"]] {
        let owned: Vec<String> = keys.iter().map(|s| s.to_string()).collect();
        let table = |base| {
            let side = |engine| Side {
                engine,
                range: None,
            };
            ids::compare(side(base), side(&new), "cpu-sampled", &owned, None, 1.0)
                .expect("covered")
                .into_table(usize::MAX)
                .0
                .rows
        };
        assert!(table(&warm) == table(&cold), "{keys:?}");
    }
    // Only the pairs of the Process,Stack grouping were added to what warm made.
    assert!(warm.compare_cache_bytes() >= made);
}
