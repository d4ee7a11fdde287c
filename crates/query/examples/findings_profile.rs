//! Times `findings::run` and a comparison (`Process Name` and `Module`
//! grouped on two synthetic traces, then `compare::compare`) at a given
//! size. Usage: `cargo run --release -p query --example findings_profile --
//! [samples]` (default 10,000,000; the bench shape of `synthetic`).

use query::flat_table::{self, FlatRequest};
use query::synthetic::{self, Shape};
use query::{compare, findings, Engine, TableDef, ValueSpec};
use std::sync::Arc;
use std::time::Instant;

fn grouped(t: &model::Trace, col: &str) -> flat_table::FlatTable {
    let def = TableDef::of(t, "cpu-sampled").expect("cpu-sampled");
    let req = FlatRequest {
        keys: vec![def.column(col).expect("column")],
        values: vec![ValueSpec::parse(&def, "Count").expect("Count")],
        ..Default::default()
    };
    flat_table::group(t, &def, &req).expect("group")
}

fn main() {
    // A file: the findings of that trace (built as the server builds it).
    if let Some(path) = std::env::args().nth(1).filter(|a| a.ends_with(".etl")) {
        let file = etl::EtlFile::open(std::path::Path::new(&path)).expect("open");
        let t = Instant::now();
        let engine = Engine::new(Arc::new(model::build(&file)));
        let built = t.elapsed().as_secs_f64() * 1e3;
        let t = Instant::now();
        let list = findings::run(&engine);
        println!(
            "{path}: model {built:.0} ms; findings: {} in {:.0} ms",
            list.len(),
            t.elapsed().as_secs_f64() * 1e3
        );
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
