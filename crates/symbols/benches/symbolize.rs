//! Symbol benchmarks (docs/BENCHMARKS.md, "Symbols"):
//! - loading `CppCon.pdb` (shared symbols folder);
//! - 100k lookups right after load: in CppCon.pdb (its .text has only 4093
//!   bytes, so the 100k cycle through them) and 100k *distinct* addresses in
//!   the 4000-function PDB made by `fixtures/symbols/build_many.sh`;
//! - the whole `Symbolizer` path (find + load + 100k frames) on that PDB.
//!
//! Missing inputs are skipped with a notice.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use std::path::{Path, PathBuf};
use std::time::Duration;
use symbols::{Pdb, PdbIdentity, Progress, SymbolPath, Symbolizer, SymbolizerConfig};

fn cppcon() -> Option<PathBuf> {
    let dir = std::env::var_os("ETLSCOPE_SHARED_SYMBOLS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../../shared/symbols"
            ))
        });
    let p = dir.join("CppCon.pdb");
    if p.is_file() {
        Some(p)
    } else {
        eprintln!("!!!!! skipping CppCon benchmarks: {} missing", p.display());
        None
    }
}

fn many_dir() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/symbols-bench");
    if dir.join("many.pdb").is_file() {
        Some(dir)
    } else {
        eprintln!("!!!!! skipping many.pdb benchmarks: run fixtures/symbols/build_many.sh first");
        None
    }
}

/// RVAs of every code byte of the functions listed in a `*.functions.txt`.
fn code_bytes(functions: &Path) -> Vec<u32> {
    let text = std::fs::read_to_string(functions).unwrap();
    let mut v = Vec::new();
    for l in text.lines() {
        let mut p = l.split(' ');
        let rva = u32::from_str_radix(p.next().unwrap(), 16).unwrap();
        let size: u32 = p.next().unwrap().parse().unwrap();
        v.extend(rva..rva + size);
    }
    v.sort_unstable();
    v.dedup();
    v
}

/// 100k addresses: all distinct when `pool` has that many, shuffled.
fn hundred_k(pool: &[u32]) -> Vec<u32> {
    let mut s = 0x2545_f491_4f6c_dd1d_u64;
    let mut v: Vec<u32> = pool.iter().copied().cycle().take(100_000).collect();
    for i in (1..v.len()).rev() {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        v.swap(i, (s % (i as u64 + 1)) as usize);
    }
    v
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("symbols");
    g.sample_size(10)
        .measurement_time(Duration::from_secs(5))
        .warm_up_time(Duration::from_secs(1));
    if let Some(p) = cppcon() {
        g.bench_function("load CppCon.pdb", |b| b.iter(|| Pdb::open(&p).unwrap()));
        let text = code_bytes(
            &Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../fixtures/symbols/cppcon.functions.txt"),
        );
        let addrs = hundred_k(&text);
        g.bench_function("CppCon.pdb: 100k lookups after load (4093 distinct)", |b| {
            b.iter_batched(
                || Pdb::open(&p).unwrap(),
                |mut pdb| addrs.iter().filter(|&&a| pdb.lookup(a).is_some()).count(),
                BatchSize::PerIteration,
            )
        });
    }
    if let Some(dir) = many_dir() {
        let pdb_path = dir.join("many.pdb");
        g.bench_function("load many.pdb (4000 functions)", |b| {
            b.iter(|| Pdb::open(&pdb_path).unwrap())
        });
        let pool = code_bytes(&dir.join("many.functions.txt"));
        assert!(
            pool.len() >= 100_000,
            "many.pdb has {} code bytes",
            pool.len()
        );
        let addrs = hundred_k(&pool);
        g.bench_function("many.pdb: 100k distinct lookups after load", |b| {
            b.iter_batched(
                || Pdb::open(&pdb_path).unwrap(),
                |mut pdb| {
                    let n = addrs.iter().filter(|&&a| pdb.lookup(a).is_some()).count();
                    assert_eq!(n, addrs.len());
                },
                BatchSize::PerIteration,
            )
        });
        // The Symbolizer path: 100k frames of one module, found in a plain folder.
        let (guid, age) = Pdb::read_identity(&pdb_path).unwrap();
        let id = PdbIdentity::new("many.pdb", guid, age);
        let mut strings = model::strings::StringTable::default();
        let mut modules = model::images::ModuleTable::default();
        let (n, pth) = (strings.intern("many.dll"), strings.intern("many.dll"));
        let m = modules.push(n, pth, 0, 0, 0);
        modules.pdb_guid[m as usize] = Some(id.guid);
        modules.pdb_age[m as usize] = id.age;
        modules.pdb_name[m as usize] = strings.intern(&id.name);
        let mut frames = model::frames::FrameTable::default();
        for &a in &addrs {
            frames.intern_module_frame(m, u64::from(a));
        }
        g.bench_function("Symbolizer: find + load many.pdb + 100k frames", |b| {
            b.iter(|| {
                let s = Symbolizer::new(SymbolizerConfig::new(SymbolPath::parse(
                    dir.to_str().unwrap(),
                )));
                let out = s.symbolize(&modules, &frames, &strings, &Progress::default());
                assert_eq!(out.frames.len(), 100_000);
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
