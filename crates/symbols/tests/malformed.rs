//! Malformed PDBs never panic, hang or get used: truncations and byte
//! flips of the fixture PDB, plus the inputs fuzzing found
//! (tests/fuzz_regressions/), go through load + lookups under a watchdog.

mod common;

use common::*;
use std::sync::mpsc;
use std::time::Duration;
use symbols::Pdb;

/// Load `bytes` and, when it loads, look up every fixture function.
fn exercise(bytes: Vec<u8>, rvas: &[u32]) -> bool {
    match Pdb::from_bytes(bytes) {
        Ok(mut pdb) => {
            for &r in rvas {
                let _ = pdb.lookup(r);
            }
            let _ = pdb.function_count();
            true
        }
        Err(e) => {
            assert!(!e.to_string().is_empty());
            false
        }
    }
}

/// Run `f` on another thread; fail if it takes longer than `limit`.
fn within<T: Send + 'static>(limit: Duration, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(limit)
        .expect("malformed PDB handling hung or panicked")
}

/// Deterministic xorshift, so failures reproduce.
fn rng(mut s: u64) -> impl FnMut() -> u64 {
    move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    }
}

fn quiet_panics() {
    // Parser panics are caught by `Pdb`; keep their messages out of the log.
    std::panic::set_hook(Box::new(|_| {}));
}

#[test]
fn truncated_fixture_pdbs() {
    quiet_panics();
    let pdb = std::fs::read(fixtures().join("fixture.pdb")).unwrap();
    let rvas: Vec<u32> = probes(&expected_functions("fixture.functions.txt"))
        .iter()
        .map(|p| p.0)
        .collect();
    let loaded = within(Duration::from_secs(120), move || {
        let mut loaded = 0;
        // Every block boundary and a few bytes either side of it.
        for len in (0..pdb.len())
            .step_by(4096)
            .flat_map(|b| [b, b + 1, b + 31, b + 4095])
        {
            if exercise(pdb[..len.min(pdb.len())].to_vec(), &rvas) {
                loaded += 1;
            }
        }
        loaded
    });
    eprintln!("truncations that still loaded: {loaded}");
}

#[test]
fn flipped_bytes_in_fixture_pdbs() {
    quiet_panics();
    let pdb = std::fs::read(fixtures().join("fixture.pdb")).unwrap();
    let rvas: Vec<u32> = probes(&expected_functions("fixture.functions.txt"))
        .iter()
        .map(|p| p.0)
        .collect();
    let (loaded, total) = within(Duration::from_secs(240), move || {
        let mut next = rng(0x9e37_79b9_7f4a_7c15);
        let mut loaded = 0;
        let total = 1500;
        for i in 0..total {
            let mut m = pdb.clone();
            // 1 to 8 flips; half the cases aim at the first blocks (MSF
            // header, stream directory), where damage reaches furthest.
            let flips = 1 + (next() % 8) as usize;
            for _ in 0..flips {
                let span = if i % 2 == 0 { 3 * 4096 } else { m.len() };
                let at = (next() as usize) % span.min(m.len());
                m[at] ^= 1 << (next() % 8);
            }
            if exercise(m, &rvas) {
                loaded += 1;
            }
        }
        (loaded, total)
    });
    eprintln!("mutants that still loaded: {loaded} of {total}");
}

/// A regression input: `.bin` as is, or `.patch` (written by
/// fuzz/keep_findings.py): `base PATH` under fixtures/symbols, then
/// `OFFSET NEWBYTE` hex lines.
fn regression_input(path: &std::path::Path) -> Vec<u8> {
    if path.extension().is_some_and(|e| e == "patch") {
        let text = std::fs::read_to_string(path).unwrap();
        let mut lines = text.lines();
        let base = lines.next().unwrap().strip_prefix("base ").unwrap();
        let mut bytes = std::fs::read(fixtures().join(base)).unwrap();
        for l in lines {
            let (off, b) = l.split_once(' ').unwrap();
            bytes[usize::from_str_radix(off, 16).unwrap()] = u8::from_str_radix(b, 16).unwrap();
        }
        bytes
    } else {
        std::fs::read(path).unwrap()
    }
}

#[test]
fn fuzz_regressions() {
    quiet_panics();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_regressions");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    files.sort();
    let n = files.len();
    assert!(n > 0, "no fuzz regressions in {}", dir.display());
    let rvas: Vec<u32> = probes(&expected_functions("fixture.functions.txt"))
        .iter()
        .map(|p| p.0)
        .collect();
    let loaded = within(Duration::from_secs(60), move || {
        files
            .iter()
            .filter(|f| exercise(regression_input(f), &rvas))
            .count()
    });
    eprintln!("fuzz regressions replayed: {n}, of which {loaded} loaded");
}
