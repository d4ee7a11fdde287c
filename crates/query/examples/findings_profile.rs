//! Times `findings::run` and a comparison (`Process Name` and `Module`
//! grouped on two synthetic traces, then `compare::compare`) at a given
//! size. Usage: `cargo run --release -p query --example findings_profile --
//! [samples]` (default 10,000,000; the bench shape of `synthetic`), or
//! `-- FILE.etl`: the findings of that trace, then the trace compared with
//! itself by Process Name, Module, Function and Process,Stack.

use query::synthetic::{self, Shape};
use query::table::flat::{self, FlatRequest};
use query::{compare, findings, Engine, TableDef, ValueSpec};
use std::sync::Arc;
use std::time::Instant;

fn grouped(t: &model::Trace, col: &str) -> flat::FlatTable {
    let def = TableDef::of(t, "cpu-sampled").expect("cpu-sampled");
    let req = FlatRequest {
        keys: vec![def.column(col).expect("column")],
        values: vec![ValueSpec::parse(&def, "Count").expect("Count")],
        ..Default::default()
    };
    flat::group(t, &def, &req).expect("group")
}

/// The table `POST /api/compare` groups (the default values: Count,
/// Weight, % Weight) by `cols`, per class of samples or per row.
fn compare_group(t: &model::Trace, cols: &[&str], per_row: bool) -> flat::FlatTable {
    let def = TableDef::of(t, "cpu-sampled").expect("cpu-sampled");
    let req = FlatRequest {
        keys: cols
            .iter()
            .map(|c| def.column(c).expect("column"))
            .collect(),
        values: query::table::value_spec::default_values(&def).expect("values"),
        ..Default::default()
    };
    let g = if per_row {
        flat::group_per_row
    } else {
        flat::group
    };
    g(t, &def, &req).expect("group")
}

/// The trace compared with itself (both sides grouped), per grouping:
/// `ETLSCOPE_PER_ROW=1` times the per-row grouping (the code before).
fn time_compares(t: &model::Trace) {
    let per_row = std::env::var("ETLSCOPE_PER_ROW").is_ok_and(|v| v == "1");
    // `ETLSCOPE_GROUPS="Module;Process,Stack"`: only those groupings.
    let only = std::env::var("ETLSCOPE_GROUPS").ok();
    for cols in [
        &["Process Name"][..],
        &["Module"],
        &["Function"],
        &["Process", "Stack"],
    ] {
        if only
            .as_deref()
            .is_some_and(|o| !o.split(';').any(|g| g == cols.join(",")))
        {
            continue;
        }
        let s = Instant::now();
        let c = compare::compare(
            &compare_group(t, cols, per_row),
            &compare_group(t, cols, per_row),
            1.0,
        );
        println!(
            "compare by {} ({}): {} rows in {:.0} ms",
            cols.join(","),
            if per_row { "per row" } else { "per class" },
            c.rows.len(),
            s.elapsed().as_secs_f64() * 1e3
        );
    }
}

fn main() {
    // A file: the findings of that trace (built as the server builds it).
    if let Some(path) = std::env::args().nth(1).filter(|a| a.ends_with(".etl")) {
        let file = etl::EtlFile::open(std::path::Path::new(&path)).expect("open");
        let t = Instant::now();
        let engine = Engine::new(Arc::new(model::build(&file)));
        let built = t.elapsed().as_secs_f64() * 1e3;
        let t = Instant::now();
        let mut steps = Vec::new();
        let list = if std::env::var("ETLSCOPE_GROUPS").is_ok() {
            Vec::new()
        } else {
            findings::run_timed(&engine, |name, d| {
                steps.push(format!("{name} {:.0} ms", d.as_secs_f64() * 1e3))
            })
        };
        println!(
            "{path}: model {built:.0} ms; findings: {} in {:.0} ms",
            list.len(),
            t.elapsed().as_secs_f64() * 1e3
        );
        let mut by_rule = std::collections::BTreeMap::<&str, usize>::new();
        for f in &list {
            *by_rule.entry(f.rule).or_default() += 1;
        }
        println!("findings by rule: {by_rule:?}");
        println!("time by step: {}", steps.join(", "));
        // `ETLSCOPE_FINDINGS_RUNS=N`: N more runs on the same engine.
        let runs: usize = std::env::var("ETLSCOPE_FINDINGS_RUNS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        for _ in 0..runs {
            let t = Instant::now();
            let n = findings::run(&engine).len();
            println!(
                "findings again: {n} in {:.0} ms",
                t.elapsed().as_secs_f64() * 1e3
            );
        }
        if std::env::var("ETLSCOPE_NO_COMPARE").is_ok() {
            return;
        }
        time_compares(engine.trace());
        return;
    }
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|x| x.parse().ok())
        .unwrap_or(10_000_000);
    let base = synthetic::trace(&Shape::bench(n));
    let mut shape = Shape::bench(n);
    shape.seed = 43;
    let new = synthetic::trace(&shape);
    let engine = Engine::new(Arc::new(base.clone()));
    let t = Instant::now();
    let list = findings::run(&engine);
    println!(
        "findings: {} in {:.0} ms ({} samples)",
        list.len(),
        t.elapsed().as_secs_f64() * 1e3,
        n
    );
    for col in ["Process Name", "Module"] {
        let t = Instant::now();
        let c = compare::compare(&grouped(&base, col), &grouped(&new, col), 1.0);
        println!(
            "compare by {col}: {} rows in {:.0} ms",
            c.rows.len(),
            t.elapsed().as_secs_f64() * 1e3
        );
    }
}
