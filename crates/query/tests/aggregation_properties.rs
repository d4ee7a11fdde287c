//! Property tests of value columns on seeded random Images tables: every
//! aggregation mode of every column, for every order of the key columns,
//! against a naive reference written here (labels and values read straight
//! from the model rows, aggregates computed from scratch, no query code).
//! Checks: each group row equals the aggregate of its rows and of the union
//! of its children's rows; every key order gives the same totals; sorting
//! by a value column orders rows numerically, in version order, or
//! case-insensitively; the export grouping (flat_table) agrees too.

use model::processes::OPEN;
use model::Trace;
use query::synthetic::Rng;
use query::table::flat::{self, FlatRequest};
use query::*;
use std::collections::BTreeSet;
use std::sync::Arc;

const VERSIONS: [&str; 6] = [
    "",
    "10.0.19041.110",
    "10.0.19041.1093",
    "10.0.2",
    "6.3.9600.17415",
    "10.0.19041.5",
];
const NAMES: [&str; 6] = ["a.dll", "B.dll", "c.DLL", "Ab.dll", "b2.dll", "shell32.dll"];

fn random_images(seed: u64) -> Trace {
    let mut r = Rng::new(seed);
    let mut t = Trace::default();
    t.info.duration_ns = 1_000_000;
    let procs: Vec<u32> = (0..3)
        .map(|p| {
            let n = t.strings.intern(&format!("p{p}.exe"));
            t.processes.push(100 + p, n, 0)
        })
        .collect();
    let modules: Vec<u32> = (0..8)
        .map(|m| {
            let name = NAMES[r.below(NAMES.len())];
            let n = t.strings.intern(name);
            let path = t.strings.intern(&format!("C:\\dir{m}\\{name}"));
            let id = t.modules.push(n, path, 4096, m, 0);
            t.modules.file_version[id as usize] =
                t.strings.intern(VERSIONS[r.below(VERSIONS.len())]);
            id
        })
        .collect();
    for _ in 0..(40 + r.below(200)) {
        let m = modules[r.below(modules.len())];
        let path = t.modules.path[m as usize];
        let size = 4096 * (1 + r.below(4) as u64);
        let load = if r.chance(0.2) {
            OPEN
        } else {
            r.below(1000) as i64 * 1000
        };
        let i = t.images.push(
            procs[r.below(procs.len())],
            m,
            path,
            0x1000,
            size,
            load,
            false,
        );
        if r.chance(0.6) {
            t.images.unload[i as usize] = load.max(0) + 1 + r.below(1000) as i64 * 7;
        }
    }
    t
}

/// A cell of the naive table.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Naive {
    Missing,
    Num(i64),
    Text(String),
}

/// The naive value of `column` in image row `i`.
fn naive(t: &Trace, column: &str, i: usize) -> Naive {
    let im = &t.images;
    let m = im.module[i] as usize;
    let s = |id| Naive::Text(t.strings.get(id).to_string());
    let time = |ns: i64| {
        if ns == OPEN {
            Naive::Missing
        } else {
            Naive::Num(ns)
        }
    };
    match column {
        "Process" => Naive::Text(format!(
            "{} ({})",
            t.strings.get(t.processes.name[im.process[i] as usize]),
            t.processes.pid[im.process[i] as usize]
        )),
        "Image Name" => s(t.modules.name[m]),
        "Image Path" => s(t.modules.path[m]),
        "File Version" => s(t.modules.file_version[m]),
        "Image Size" => Naive::Num(im.size[i] as i64),
        "Load Time" => time(im.load[i]),
        "Unload Time" => time(im.unload[i]),
        c => panic!("no naive column {c}"),
    }
}

fn naive_label(v: &Naive) -> String {
    match v {
        Naive::Missing => String::new(),
        Naive::Num(n) => n.to_string(),
        Naive::Text(s) => s.clone(),
    }
}

/// The naive aggregate of `column` over `rows`.
fn naive_agg(t: &Trace, column: &str, agg: Aggregation, rows: &[usize]) -> CellValue {
    let vals: Vec<Naive> = rows
        .iter()
        .map(|&i| naive(t, column, i))
        .filter(|v| *v != Naive::Missing)
        .collect();
    let nums: Vec<i64> = vals
        .iter()
        .filter_map(|v| match v {
            Naive::Num(n) => Some(*n),
            _ => None,
        })
        .collect();
    let distinct: BTreeSet<&Naive> = vals.iter().collect();
    match agg {
        Aggregation::Sum => CellValue::Number(nums.iter().sum()),
        Aggregation::Min => nums
            .iter()
            .min()
            .map_or(CellValue::Empty, |&x| CellValue::Number(x)),
        Aggregation::Max => nums
            .iter()
            .max()
            .map_or(CellValue::Empty, |&x| CellValue::Number(x)),
        Aggregation::Avg if nums.is_empty() => CellValue::Empty,
        Aggregation::Avg => CellValue::Float(
            nums.iter().map(|&x| i128::from(x)).sum::<i128>() as f64 / nums.len() as f64,
        ),
        Aggregation::Count => CellValue::Count(vals.len() as u64),
        Aggregation::UniqueCount => CellValue::Count(distinct.len() as u64),
        Aggregation::Single => match distinct.len() {
            0 => CellValue::Empty,
            1 => match distinct.into_iter().next() {
                Some(Naive::Num(n)) => CellValue::Number(*n),
                Some(Naive::Text(s)) => CellValue::Text(s.clone()),
                _ => CellValue::Empty,
            },
            // Text shows how many; numbers (a time, an id) show nothing.
            n if distinct.iter().any(|v| matches!(v, Naive::Text(_))) => CellValue::Count(n as u64),
            _ => CellValue::Empty,
        },
    }
}

const VALUE_COLUMNS: [&str; 6] = [
    "Image Size",
    "Load Time",
    "Unload Time",
    "File Version",
    "Image Path",
    "Process",
];
const NUMERIC: [&str; 3] = ["Image Size", "Load Time", "Unload Time"];

/// Every (column, aggregation) that applies, as specs and as pairs.
fn all_values(rt: &RowTable) -> (Vec<ValueSpec>, Vec<(&'static str, Aggregation)>) {
    let mut specs = Vec::new();
    let mut pairs = Vec::new();
    for c in VALUE_COLUMNS {
        for a in Aggregation::ALL {
            let spec = rt.value_spec(&format!("{c}:{}", a.name()));
            let numeric = NUMERIC.contains(&c);
            // Instants do not add up: no Sum of Load or Unload Time.
            let instant_sum = c.ends_with("Time") && a == Aggregation::Sum;
            assert_eq!(
                spec.is_ok(),
                (numeric || !a.needs_numbers()) && !instant_sum,
                "{c}:{a:?}"
            );
            if let Ok(s) = spec {
                specs.push(s);
                pairs.push((c, a));
            }
        }
    }
    (specs, pairs)
}

fn rows_where(t: &Trace, keys: &[(&str, &str)]) -> Vec<usize> {
    (0..t.images.len())
        .filter(|&i| keys.iter().all(|(c, l)| naive_label(&naive(t, c, i)) == *l))
        .collect()
}

/// The orders of two key columns out of three.
const KEY_ORDERS: [[&str; 2]; 6] = [
    ["Process", "File Version"],
    ["File Version", "Process"],
    ["Process", "Image Size"],
    ["Image Size", "Process"],
    ["File Version", "Image Size"],
    ["Image Size", "File Version"],
];

#[test]
fn group_rows_are_the_aggregate_of_their_rows_and_children_for_every_mode() {
    for seed in 0..12u64 {
        let t = random_images(seed);
        let e = Engine::new(Arc::new(t.clone()));
        let rt = e.row_table(RowTableKind::Images);
        let (specs, pairs) = all_values(&rt);
        let everything: Vec<usize> = (0..t.images.len()).collect();
        for order in KEY_ORDERS {
            let columns: Vec<usize> = order.iter().map(|c| rt.column(c).unwrap()).collect();
            let req = RowTableRequest {
                columns: columns.clone(),
                values: specs.clone(),
                ..RowTableRequest::default()
            };
            let top = rt.query(&req).unwrap();
            let mut seen = 0;
            for row in &top.rows {
                let mine = rows_where(&t, &[(order[0], &row.label)]);
                seen += mine.len();
                for ((c, a), got) in pairs.iter().zip(&row.values) {
                    assert_eq!(
                        *got,
                        naive_agg(&t, c, *a, &mine),
                        "seed {seed} {order:?} {} {c}:{a:?}",
                        row.label
                    );
                }
                let kids = rt
                    .query(&RowTableRequest {
                        path: vec![row.key],
                        ..req.clone()
                    })
                    .unwrap();
                let mut union = Vec::new();
                for kid in &kids.rows {
                    let theirs = rows_where(&t, &[(order[0], &row.label), (order[1], &kid.label)]);
                    for ((c, a), got) in pairs.iter().zip(&kid.values) {
                        assert_eq!(
                            *got,
                            naive_agg(&t, c, *a, &theirs),
                            "seed {seed} {order:?} child {c}:{a:?}"
                        );
                    }
                    union.extend(theirs);
                }
                union.sort_unstable();
                assert_eq!(union, mine, "children partition their group");
                for ((c, a), got) in pairs.iter().zip(&row.values) {
                    assert_eq!(
                        *got,
                        naive_agg(&t, c, *a, &union),
                        "group = aggregate of its children"
                    );
                }
            }
            assert_eq!(
                seen,
                everything.len(),
                "seed {seed} {order:?}: every row in one group"
            );
            // Totals from the top-level rows, the same for every order.
            for (i, (c, a)) in pairs.iter().enumerate() {
                let cells: Vec<&CellValue> = top.rows.iter().map(|r| &r.values[i]).collect();
                let nums = || {
                    cells.iter().filter_map(|v| match v {
                        CellValue::Number(x) => Some(*x),
                        _ => None,
                    })
                };
                let want = naive_agg(&t, c, *a, &everything);
                match a {
                    Aggregation::Sum => assert_eq!(CellValue::Number(nums().sum()), want),
                    Aggregation::Min => assert_eq!(
                        nums().min().map_or(CellValue::Empty, CellValue::Number),
                        want
                    ),
                    Aggregation::Max => assert_eq!(
                        nums().max().map_or(CellValue::Empty, CellValue::Number),
                        want
                    ),
                    Aggregation::Count => {
                        let n: u64 = cells
                            .iter()
                            .map(|v| match v {
                                CellValue::Count(n) => *n,
                                _ => 0,
                            })
                            .sum();
                        assert_eq!(CellValue::Count(n), want)
                    }
                    _ => {}
                }
            }
            // The export's grouping of whole keys: the same aggregates.
            let def = TableDef::of(&t, "images").unwrap();
            let flat_specs: Vec<ValueSpec> = pairs
                .iter()
                .map(|(c, a)| ValueSpec::parse(&def, &format!("{c}:{}", a.name())).unwrap())
                .collect();
            let flat = flat::group(
                &t,
                &def,
                &FlatRequest {
                    keys: order.iter().map(|c| def.column(c).unwrap()).collect(),
                    values: flat_specs,
                    ..FlatRequest::default()
                },
            )
            .unwrap();
            let mut flat_rows = 0;
            for fr in &flat.rows {
                let labels: Vec<String> = fr
                    .keys
                    .iter()
                    .zip(&flat.key_types)
                    .map(|(k, &ty)| k.text(ty))
                    .collect();
                let theirs = rows_where(&t, &[(order[0], &labels[0]), (order[1], &labels[1])]);
                flat_rows += theirs.len();
                for ((c, a), got) in pairs.iter().zip(&fr.values) {
                    assert_eq!(
                        *got,
                        naive_agg(&t, c, *a, &theirs),
                        "flat {order:?} {c}:{a:?}"
                    );
                }
            }
            assert_eq!(flat_rows, everything.len());
        }
    }
}

/// `10.0.19041.1093` after `10.0.19041.110`: dot-separated numbers.
fn naive_version(s: &str) -> Vec<u64> {
    s.split('.').filter_map(|p| p.parse().ok()).collect()
}

#[test]
fn sorting_by_a_value_column_follows_its_type() {
    for seed in 0..12u64 {
        let t = random_images(seed);
        let e = Engine::new(Arc::new(t.clone()));
        let rt = e.row_table(RowTableKind::Images);
        let col = |c: &str| rt.column(c).unwrap();
        let values = vec![
            rt.value_spec("File Version:single").unwrap(),
            rt.value_spec("Image Size:sum").unwrap(),
            rt.value_spec("Image Name:single").unwrap(),
        ];
        let sorted = |by: usize, descending: bool| {
            rt.query(&RowTableRequest {
                columns: vec![col("Image Path")],
                values: values.clone(),
                sort_aggregate: Some(by),
                sort: SortBy {
                    column: ValueColumn::Count,
                    descending,
                },
                ..RowTableRequest::default()
            })
            .unwrap()
            .rows
        };
        // Versions: the empty version first, then in version order (every
        // path names one module here, so one version per row).
        let v: Vec<Vec<u64>> = sorted(0, false)
            .iter()
            .map(|r| match &r.values[0] {
                CellValue::Text(s) => naive_version(s),
                other => panic!("one version per path, got {other:?}"),
            })
            .collect();
        assert!(v.windows(2).all(|w| w[0] <= w[1]), "seed {seed}: {v:?}");
        let sizes: Vec<i64> = sorted(1, true)
            .iter()
            .map(|r| match r.values[1] {
                CellValue::Number(x) => x,
                _ => panic!("a size"),
            })
            .collect();
        assert!(
            sizes.windows(2).all(|w| w[0] >= w[1]),
            "seed {seed}: {sizes:?}"
        );
        let names: Vec<String> = sorted(2, false)
            .iter()
            .map(|r| match &r.values[2] {
                CellValue::Text(s) => s.to_lowercase(),
                _ => panic!("a name"),
            })
            .collect();
        assert!(
            names.windows(2).all(|w| w[0] <= w[1]),
            "seed {seed}: {names:?}"
        );
        // By key label: File Version groups in version order.
        let by_label = rt
            .query(&RowTableRequest {
                columns: vec![col("File Version")],
                sort: SortBy {
                    column: ValueColumn::Label,
                    descending: false,
                },
                ..RowTableRequest::default()
            })
            .unwrap();
        let v: Vec<Vec<u64>> = by_label
            .rows
            .iter()
            .map(|r| naive_version(&r.label))
            .collect();
        assert!(v.windows(2).all(|w| w[0] <= w[1]), "seed {seed}: {v:?}");
    }
}
