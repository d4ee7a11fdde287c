//! Synthetic traces built directly as `model::Trace` (no ETL), for property
//! tests and benchmarks: seeded, with shared stack prefixes, recursion,
//! raw frames, samples without stacks and skewed thread/stack popularity.

use model::strings::StrId;
use model::{Trace, NONE};

#[derive(Debug, Clone)]
pub struct Shape {
    pub samples: usize,
    /// Distinct stacks the samples use (stack rows number about twice that).
    pub stacks: usize,
    pub threads: usize,
    pub processes: usize,
    pub modules: usize,
    pub frames_per_module: usize,
    pub cpus: u16,
    /// Fraction of frames with a symbolized function.
    pub symbolized: f64,
    /// Two sampling intervals (the second from mid-trace) instead of one.
    pub two_intervals: bool,
    pub seed: u64,
}

impl Shape {
    /// The benchmark shape of issue 4 at `samples` samples.
    pub fn bench(samples: usize) -> Shape {
        Shape {
            samples,
            stacks: 100_000,
            threads: 1_000,
            processes: 100,
            modules: 500,
            frames_per_module: 200,
            cpus: 2,
            symbolized: 0.5,
            two_intervals: false,
            seed: 42,
        }
    }
}

impl Shape {
    /// A small trace for unit tests: 2,000 samples over 300 stacks, half of
    /// the frames symbolized on even seeds and none on odd ones.
    pub fn small(seed: u64) -> Shape {
        Shape {
            samples: 2_000,
            stacks: 300,
            threads: 8,
            processes: 3,
            modules: 4,
            frames_per_module: 6,
            cpus: 2,
            symbolized: if seed.is_multiple_of(2) { 0.5 } else { 0.0 },
            two_intervals: false,
            seed,
        }
    }
}

/// splitmix64: small, seeded, good enough for test data.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        ((self.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * n as f64) as usize % n.max(1)
    }
    pub fn chance(&mut self, p: f64) -> bool {
        ((self.next_u64() >> 11) as f64 / (1u64 << 53) as f64) < p
    }
    /// Skewed towards 0: popular items first.
    pub fn skewed(&mut self, n: usize) -> usize {
        let u = (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        ((u * u * u) * n as f64) as usize % n.max(1)
    }
}

pub fn trace(shape: &Shape) -> Trace {
    let mut r = Rng::new(shape.seed);
    let mut t = Trace::default();
    let mut s = |x: &str| t.strings.intern(x);
    let names: Vec<StrId> = (0..shape.processes.max(1))
        // Half as many names as processes: Process Name merges some.
        .map(|i| s(&format!("proc{}.exe", i % (shape.processes / 2).max(1))))
        .collect();
    let companies = [s("Contoso"), s("Fabrikam"), StrId::EMPTY];
    let versions = [s("10.0.1"), s("2.3")];
    let thread_names = [s(""), s("worker"), s("main")];
    for (i, &n) in names.iter().enumerate() {
        t.processes
            .push(1000 + 4 * i as u32, n, model::processes::OPEN);
    }
    for i in 0..shape.threads.max(1) {
        let p = (i % shape.processes.max(1)) as u32;
        // Thread ids repeat across processes, as after tid reuse.
        let th = t
            .threads
            .push(4 + 4 * (i as u32 % 300), p, model::processes::OPEN);
        t.threads.name[th as usize] = thread_names[i % 3];
    }
    for m in 0..shape.modules.max(1) {
        let name = t.strings.intern(&format!("mod{m}.dll"));
        let path = t.strings.intern(&format!("C:\\Windows\\mod{m}.dll"));
        let row = t.modules.push(name, path, 0x10_0000, 0, 0);
        t.modules.company_name[row as usize] = companies[m % 3];
        t.modules.file_version[row as usize] = versions[m % 2];
    }
    // Frames: per module, some RVAs; several RVAs share a function.
    for m in 0..shape.modules.max(1) {
        for k in 0..shape.frames_per_module.max(1) {
            let f = t
                .frames
                .intern_module_frame(m as u32, 0x1000 + 0x10 * k as u64);
            if r.chance(shape.symbolized) {
                t.frames.func[f as usize] = (m * shape.frames_per_module + k / 4) as u32;
            }
        }
    }
    for k in 0..16u64 {
        t.frames
            .intern_raw_frame((k % 3) as u32, 0x7ff0_0000_0000 + k * 0x40);
    }
    let nframes = t.frames.len();
    // Stacks: each new one extends an earlier one by 1-3 frames.
    let roots = 8.min(nframes);
    let mut leaves: Vec<u32> = Vec::with_capacity(shape.stacks);
    for i in 0..shape.stacks.max(1) {
        let mut st = if i < roots || r.chance(0.02) {
            NONE
        } else {
            leaves[r.skewed(leaves.len())]
        };
        if st == NONE {
            st = t.stacks.intern(NONE, r.below(roots) as u32);
        }
        for _ in 0..1 + r.below(3) {
            let f = if r.chance(0.05) {
                t.stacks.frame[st as usize] // recursion
            } else {
                r.below(nframes) as u32
            };
            st = t.stacks.intern(st, f);
        }
        leaves.push(st);
    }
    let mid = shape.samples as i64 / 2 * 1_000_000;
    for i in 0..shape.samples {
        let time = i as i64 * 1_000_000 + r.below(1000) as i64;
        let thread = r.skewed(shape.threads.max(1)) as u32;
        let cpu = r.below(shape.cpus.max(1) as usize) as u16;
        let stack = if r.chance(0.01) {
            NONE
        } else {
            leaves[r.skewed(leaves.len())]
        };
        t.samples.push(time, thread, cpu, stack);
    }
    t.samples.intervals = if shape.two_intervals {
        vec![(i64::MIN, 1_000_000), (mid, 500_000)]
    } else {
        vec![(i64::MIN, 1_000_000)]
    };
    t.info.duration_ns = shape.samples as i64 * 1_000_000;
    t
}

/// One benchmark query: its name and a closure running it once.
pub type BenchQuery<'a> = (&'static str, Box<dyn Fn() + Sync + 'a>);

/// The queries of issue 4's benchmark on engine `e`. With `range`, every
/// query is limited to the middle 90 % of the trace, which forces a scan
/// of the samples (the whole trace is often answered from per-stack or
/// per-thread totals instead).
pub fn bench_queries(e: &crate::Engine, range: bool) -> Vec<BenchQuery<'_>> {
    use crate::*;
    use std::hint::black_box;
    let end = e.trace().samples.time.last().copied().unwrap_or(0) + 1;
    let filters = Filters {
        range: range.then_some(TimeRange {
            start_ns: end / 20,
            end_ns: end - end / 20,
        }),
        ..Filters::default()
    };
    let table = move |columns: &[Column], path: &[u32], f: &Filters| TableRequest {
        columns: columns.to_vec(),
        filters: f.clone(),
        path: path.to_vec(),
        sort: SortBy::default(),
        limit: 100,
    };
    let first = |r: Result<TableResponse, QueryError>| {
        r.ok()
            .and_then(|r| r.rows.first().map(|r| r.key))
            .unwrap_or(0)
    };
    let ps = [Column::Process, Column::Stack];
    let top = first(e.table(&table(&ps, &[], &filters)));
    let node = first(e.table(&table(&ps, &[top], &filters)));
    let module = first(e.table(&table(&[Column::Module], &[], &filters)));
    let f = filters;
    vec![
        ("regroup Process,Module", {
            let f = f.clone();
            Box::new(move || {
                let r = e.table(&table(&[Column::Process, Column::Module], &[], &f));
                black_box(r.ok());
            })
        }),
        ("regroup Function,Thread ID", {
            let f = f.clone();
            Box::new(move || {
                let r = e.table(&table(&[Column::Function, Column::ThreadId], &[], &f));
                black_box(r.ok());
            })
        }),
        ("expand process", {
            let f = f.clone();
            Box::new(move || black_box(e.table(&table(&ps, &[top], &f)).ok()).map_or((), |_| ()))
        }),
        ("expand stack node", {
            let f = f.clone();
            Box::new(move || {
                black_box(e.table(&table(&ps, &[top, node], &f)).ok()).map_or((), |_| ())
            })
        }),
        ("flame graph", {
            let f = f.clone();
            Box::new(move || {
                let req = FlameRequest {
                    filters: f.clone(),
                    min_fraction: 0.0005,
                    ..FlameRequest::default()
                };
                black_box(e.flame(&req).ok()).map_or((), |_| ())
            })
        }),
        ("flame graph by process", {
            let f = f.clone();
            Box::new(move || {
                let req = FlameRequest {
                    filters: f.clone(),
                    min_fraction: 0.0005,
                    per_process: true,
                    ..FlameRequest::default()
                };
                black_box(e.flame(&req).ok()).map_or((), |_| ())
            })
        }),
        ("butterfly module", {
            let f = f.clone();
            Box::new(move || {
                let req = ButterflyRequest {
                    target: ButterflyTarget::Module(module),
                    by: NeighborBy::Function,
                    filters: f.clone(),
                };
                black_box(e.butterfly(&req).ok()).map_or((), |_| ())
            })
        }),
        ("timeline 1000 bins", {
            let f = f.clone();
            Box::new(move || {
                let req = TimelineRequest {
                    range: f.range.unwrap_or(TimeRange {
                        start_ns: 0,
                        end_ns: end,
                    }),
                    bins: 1000,
                    by: SeriesBy::Process,
                    top: 10,
                    filters: f.clone(),
                };
                black_box(e.timeline(&req).ok()).map_or((), |_| ())
            })
        }),
    ]
}

/// A trace of `rows` File I/O creates in time order, the shape of
/// `etlscope synth bench --file-creates`: 8 processes, 1,000 threads,
/// `paths` file paths with skewed popularity, no sizes or durations.
pub fn file_io_trace(rows: usize, paths: usize, seed: u64) -> Trace {
    let mut r = Rng::new(seed);
    let mut t = Trace::default();
    let processes = 8;
    for i in 0..processes {
        let name = t.strings.intern(&format!("io{i}.exe"));
        t.processes
            .push(2000 + 4 * i as u32, name, model::processes::OPEN);
    }
    let threads = 1000;
    for i in 0..threads {
        t.threads.push(
            8 + 4 * i as u32,
            (i % processes) as u32,
            model::processes::OPEN,
        );
    }
    let names: Vec<StrId> = (0..paths.max(1))
        .map(|i| {
            t.strings
                .intern(&format!("C:\\data\\dir{}\\file{i}.bin", i % 97))
        })
        .collect();
    let f = &mut t.file_io;
    for k in 0..rows {
        let thread = r.skewed(threads) as u32;
        f.time.push(k as i64 * 100 + r.below(50) as i64);
        f.duration_ns.push(0);
        f.op.push(model::io::FileOp::Create);
        f.thread.push(thread);
        f.process.push(thread % processes as u32);
        f.path.push(names[r.skewed(names.len())]);
        f.size.push(0);
        f.offset.push(0);
        f.file_object.push(0xffff_0000 + k as u64);
        f.stack.push(NONE);
        f.from_kernel_file_provider.push(false);
    }
    t.info.duration_ns = rows as i64 * 100 + 100;
    t
}
