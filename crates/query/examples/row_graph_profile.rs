//! Times the File I/O table and the graph above it on a File I/O table of
//! N rows built in memory (no trace file): the top level by Type, File
//! Path, and its graph (500 bins, count and duration; by File Path, 10,000
//! keys), median of 5 runs.
//!
//! `cargo run --release -p query --example row_graph_profile -- 10000000`

use model::io::FileOp;
use model::Trace;
use query::*;
use std::sync::Arc;
use std::time::Instant;

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(10_000_000);
    let mut t = Trace::default();
    let procs: Vec<u32> = (0..8)
        .map(|p| {
            let name = t.strings.intern(&format!("p{p}.exe"));
            t.processes.push(100 + p, name, 0)
        })
        .collect();
    let threads: Vec<u32> = (0..1000u32)
        .map(|i| t.threads.push(1000 + i, procs[i as usize % procs.len()], 0))
        .collect();
    let paths: Vec<_> = (0..10_000)
        .map(|i| t.strings.intern(&format!("C:\\dir{}\\file{i}.dat", i % 97)))
        .collect();
    let ops = [
        FileOp::Create,
        FileOp::Read,
        FileOp::Write,
        FileOp::Close,
        FileOp::Cleanup,
        FileOp::QueryInfo,
    ];
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let f = &mut t.file_io;
    // 1,000 s of trace, one row every 100 us.
    for i in 0..n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let th = threads[(x % threads.len() as u64) as usize];
        f.time.push(i as i64 * 100_000);
        f.duration_ns.push((x >> 40) as i64 % 50_000);
        f.op.push(ops[((x >> 20) % ops.len() as u64) as usize]);
        f.thread.push(th);
        f.process.push(t.threads.process[th as usize]);
        f.path.push(paths[((x >> 8) % paths.len() as u64) as usize]);
        f.size.push((x >> 30) % 65_536);
        f.offset.push(0);
        f.file_object.push(x);
        f.stack.push(model::NONE);
        f.from_kernel_file_provider.push(false);
    }
    t.info.duration_ns = n as i64 * 100_000;
    let e = Engine::new(Arc::new(t));
    let rt = e.row_table(RowTableKind::FileIo);
    let cols = vec![rt.column("Type").unwrap(), rt.column("File Path").unwrap()];
    let req = RowTableRequest {
        columns: cols,
        limit: 500,
        ..RowTableRequest::default()
    };
    let t0 = Instant::now();
    let first = rt.query(&req).unwrap();
    println!(
        "{n} rows; first table query (builds the key columns): {:.1} ms, {} rows",
        ms(t0),
        first.rows.len()
    );
    let whole = TimeRange {
        start_ns: 0,
        end_ns: n as i64 * 100_000,
    };
    let quarter = TimeRange {
        start_ns: whole.end_ns / 4,
        end_ns: whole.end_ns / 2,
    };
    let time = |name: &str, f: &dyn Fn()| {
        let mut v: Vec<f64> = (0..5)
            .map(|_| {
                let t0 = Instant::now();
                f();
                ms(t0)
            })
            .collect();
        v.sort_by(f64::total_cmp);
        println!(
            "{name}: median {:.1} ms (min {:.1}, max {:.1})",
            v[2], v[0], v[4]
        );
    };
    time("table Type,File Path (top level)", &|| {
        rt.query(&req).unwrap();
    });
    // 10,000 paths at the top level: more keys than one pass bins.
    let by_path = RowTableRequest {
        columns: vec![rt.column("File Path").unwrap()],
        limit: 500,
        ..RowTableRequest::default()
    };
    let bins = GraphBins {
        range: whole,
        bins: 500,
        top: 10,
    };
    time(
        "graph File Path count (10,000 keys), 500 bins, whole trace",
        &|| {
            rt.graph(&by_path, &bins, Measure::Count).unwrap();
        },
    );
    for (label, range) in [("whole trace", whole), ("a quarter", quarter)] {
        let r = RowTableRequest {
            range: Some(range),
            ..req.clone()
        };
        let bins = GraphBins {
            range,
            bins: 500,
            top: 10,
        };
        time(&format!("graph Type count, 500 bins, {label}"), &|| {
            rt.graph(&r, &bins, Measure::Count).unwrap();
        });
        time(&format!("graph Type duration, 500 bins, {label}"), &|| {
            rt.graph(&r, &bins, Measure::Weight).unwrap();
        });
    }
}

fn ms(t0: Instant) -> f64 {
    t0.elapsed().as_secs_f64() * 1e3
}
