//! Live and peak heap at each step from a trace file to an idle server's
//! state: the model's build, the query index, the comparison indexes and
//! the findings, each against the model's own estimate (`heap_bytes`).
//! Where the peak after ready comes from.
//!
//! cargo run --release -p query --example memory_profile -- FILE

use std::sync::Arc;
use std::time::Instant;
use testdata::counting_alloc;

#[global_allocator]
static A: testdata::Counting = testdata::Counting;

fn mb(b: usize) -> f64 {
    b as f64 / 1e6
}

/// Run `f`, printing its wall time, the peak heap while it ran and the
/// live heap after it.
fn step<T>(name: &str, f: impl FnOnce() -> T) -> T {
    counting_alloc::reset_peak();
    let t = Instant::now();
    let r = f();
    println!(
        "{name:<22} {:>8.0} ms  peak {:>8.1} MB  live after {:>8.1} MB",
        t.elapsed().as_secs_f64() * 1e3,
        mb(counting_alloc::peak()),
        mb(counting_alloc::live()),
    );
    r
}

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: memory_profile FILE");
        std::process::exit(2);
    };
    let file = match etl::EtlFile::open(std::path::Path::new(&path)) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(1);
        }
    };
    let trace = step("model build", || Arc::new(model::build(&file)));
    let estimate = trace.heap_bytes();
    let engine = step("query index", || query::Engine::new(trace.clone()));
    step("comparison indexes", || engine.warm_compare());
    step("findings", || drop(query::findings::run(&engine)));
    println!(
        "accounted: model (Trace::heap_bytes) {:.1} MB; model, indexes and comparison cache (Engine::heap_bytes, the server's memory_bytes) {:.1} MB against {:.1} MB live",
        mb(estimate),
        mb(engine.heap_bytes()),
        mb(counting_alloc::live()),
    );
}
