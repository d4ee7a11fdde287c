//! `flat::group` pre-groups CPU Usage (Sampled) samples by thread
//! and stack (issue 17: comparison under 1 s on 10M samples); on random
//! synthetic traces, groupings, value columns, ranges and filters its
//! tables and comparisons must equal those of the per-row grouping it
//! replaced (`group_per_row`, the code before).

use query::compare;
use query::scan::filter::TimeRange;
use query::synthetic::{self, Shape};
use query::table::flat::{self, FlatRequest, FlatTable};
use query::{TableDef, ValueSpec};
use testdata::Rng;

const KEYS: [&str; 12] = [
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
    // Not a function of thread and stack: the per-row path answers.
    "CPU",
];
const VALUES: [&str; 9] = [
    "Count",
    "Weight",
    "% Weight",
    "Time:Min",
    "Time:Max",
    "Weight:Avg",
    "CPU:UniqueCount",
    "Thread ID:Single",
    "Process Name",
];

fn shape(samples: usize, seed: u64) -> Shape {
    Shape {
        samples,
        stacks: 300,
        threads: 40,
        processes: 7,
        modules: 12,
        frames_per_module: 20,
        cpus: 4,
        // Frames named `module!0xRVA`: synthetic traces fill no function
        // names, which `Trace::frame_label` would look up.
        symbolized: 0.0,
        two_intervals: seed.is_multiple_of(2),
        seed,
    }
}

fn same(a: &FlatTable, b: &FlatTable, what: &str) {
    assert_eq!(a.key_names, b.key_names, "{what}");
    assert_eq!(a.value_names, b.value_names, "{what}");
    assert_eq!(a.value_types, b.value_types, "{what}");
    assert_eq!(a.omitted, b.omitted, "{what}");
    assert_eq!(a.rows.len(), b.rows.len(), "{what}: row count");
    for (i, (x, y)) in a.rows.iter().zip(&b.rows).enumerate() {
        assert_eq!(x, y, "{what}: row {i}");
    }
}

fn check(t: &model::Trace, rng: &mut Rng, cases: usize) {
    let def = TableDef::of(t, "cpu-sampled").expect("cpu-sampled");
    let end = t.samples.time.last().copied().unwrap_or(0);
    for case in 0..cases {
        let nkeys = 1 + rng.below(2);
        let keys: Vec<usize> = (0..nkeys)
            .map(|_| def.column(rng.pick(&KEYS)).expect("key"))
            .collect();
        let values: Vec<ValueSpec> = match rng.below(3) {
            0 => query::table::value_spec::default_values(&def).expect("defaults"),
            _ => (0..1 + rng.below(3))
                .map(|_| ValueSpec::parse(&def, rng.pick(&VALUES)).expect("value"))
                .collect(),
        };
        let range = rng.below(2).eq(&0).then(|| {
            let a = rng.below_u64(end.max(1) as u64) as i64;
            TimeRange {
                start_ns: a,
                end_ns: a + rng.below_u64(end.max(1) as u64) as i64,
            }
        });
        // A filter on the text some sample shows, so it keeps rows.
        let filters = if rng.below(3) == 0 {
            let c = def.column(rng.pick(&KEYS[..11])).expect("filter");
            let row = rng.below(def.rows.max(1));
            vec![(c, def.cell_text(t, c, row))]
        } else {
            Vec::new()
        };
        let req = FlatRequest {
            keys,
            values,
            filters,
            excludes: Vec::new(),
            range,
            sort: None,
            limit: if rng.below(4) == 0 { 5 } else { 0 },
        };
        let what = format!("case {case}: {req:?}");
        let fast = flat::group(t, &def, &req).expect("group");
        let slow = flat::group_per_row(t, &def, &req).expect("per row");
        same(&fast, &slow, &what);
        assert_eq!(
            compare::compare(&fast, &slow, 0.5),
            compare::compare(&slow, &slow, 0.5),
            "{what}"
        );
    }
}

#[test]
fn per_class_grouping_equals_per_row_grouping() {
    let mut rng = Rng::new(17);
    for seed in 1..=6 {
        let t = synthetic::trace(&shape(2_000 + seed as usize * 1_500, seed));
        check(&t, &mut rng, 40);
    }
}

/// Enough samples for several parallel chunks, whose class totals merge.
#[test]
fn merged_chunks_equal_per_row_grouping() {
    let t = synthetic::trace(&shape(700_000, 9));
    check(&t, &mut Rng::new(18), 6);
}

/// Process,Stack (pairs of thread and stack, the map-held classes) with
/// the comparison's default values.
#[test]
fn grouped_by_process_and_stack_matches() {
    let t = synthetic::trace(&shape(20_000, 4));
    let def = TableDef::of(&t, "cpu-sampled").expect("cpu-sampled");
    let req = FlatRequest {
        keys: vec![
            def.column("Process").expect("Process"),
            def.column("Stack").expect("Stack"),
        ],
        values: query::table::value_spec::default_values(&def).expect("defaults"),
        ..Default::default()
    };
    let fast = flat::group(&t, &def, &req).expect("group");
    let slow = flat::group_per_row(&t, &def, &req).expect("per row");
    same(&fast, &slow, "Process,Stack");
    // Independent of both paths: the rows' counts add up to the samples.
    let total: f64 = fast
        .rows
        .iter()
        .filter_map(|r| r.values.first()?.number(query::ColumnType::Count))
        .sum();
    assert_eq!(total as usize, t.samples.len());
}
