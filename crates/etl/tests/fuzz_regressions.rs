//! Replays every input under `tests/fuzz-regressions/<target>/` through the
//! same code as its `cargo fuzz` target (`fuzz_harness`). Each file is a
//! minimised input that once crashed, hung or exhausted memory; the test
//! passes when every one of them now ends cleanly and quickly.

mod fuzz_harness;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Generous for a debug build; a regression that hangs fails here.
const PER_INPUT: Duration = Duration::from_secs(20);

fn inputs(target: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fuzz-regressions")
        .join(target);
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    v.retain(|p| p.extension().is_some_and(|x| x == "bin"));
    v.sort();
    v
}

fn replay(target: &str, run: fn(&[u8])) {
    let files = inputs(target);
    for path in &files {
        let data = std::fs::read(path).unwrap();
        let start = Instant::now();
        run(&data);
        let took = start.elapsed();
        assert!(
            took < PER_INPUT,
            "{}: took {took:?}, over {PER_INPUT:?}",
            path.display()
        );
    }
    eprintln!("fuzz regressions {target}: {} inputs replayed", files.len());
}

#[test]
fn etl_file_regressions() {
    replay("etl_file", fuzz_harness::etl_file);
}

#[test]
fn buffer_events_regressions() {
    replay("buffer_events", fuzz_harness::buffer_events);
}

#[test]
fn xca_regressions() {
    replay("xca", fuzz_harness::xca);
}

#[test]
fn container_regressions() {
    replay("container", fuzz_harness::container);
}

#[test]
fn schema_payload_regressions() {
    replay("schema_payload", fuzz_harness::schema_payload);
}

/// Every schema of our tables on random and truncated payloads: the fuzz
/// target's code over a fixed set of seeds, so CI covers each table line.
#[test]
fn schema_payload_on_random_bytes() {
    let n = etl::decode::schema::SchemaRegistry::new().len();
    let mut rng = testdata::Rng::new(13);
    for row in 0..n {
        for _ in 0..8 {
            let len = rng.below(600);
            let mut data = vec![(row >> 8) as u8 & 0x7f, row as u8];
            data.extend(rng.bytes(len));
            fuzz_harness::schema_payload(&data);
            // The same with the other pointer size.
            if let Some(b) = data.first_mut() {
                *b ^= 0x80;
            }
            fuzz_harness::schema_payload(&data);
        }
    }
}

#[test]
fn schema_pack_regressions() {
    replay("schema_pack", fuzz_harness::schema_pack);
}

/// Mutations of real inputs (the built-in pack, the seed manifests and
/// packs): bytes flipped, lines dropped, doubled or swapped, text cut
/// short. Each must read or fail naming a line, never panic.
#[test]
fn schema_pack_mutations() {
    let mut seeds: Vec<Vec<u8>> = inputs("schema_pack")
        .iter()
        .map(|p| std::fs::read(p).unwrap())
        .collect();
    // The first 400 lines of the built-in pack (a whole provider and more).
    let builtin: String = etl::decode::schema::packs::BUILTIN_TEXT
        .lines()
        .take(400)
        .map(|l| format!("{l}\n"))
        .collect();
    seeds.push(builtin.into_bytes());
    assert!(seeds.len() >= 3, "seed inputs missing");
    let mut rng = testdata::Rng::new(34);
    for seed in &seeds {
        for _ in 0..150 {
            let mut d = seed.clone();
            match rng.below(5) {
                0 => {
                    for _ in 0..1 + rng.below(4) {
                        let i = rng.below(d.len().max(1));
                        if let Some(b) = d.get_mut(i) {
                            *b = rng.pick(b"<>\"'=/\t\n\\@0x9 ");
                        }
                    }
                }
                1 => d.truncate(rng.below(d.len().max(1))),
                _ => {
                    let mut lines: Vec<&[u8]> = d.split(|&b| b == b'\n').collect();
                    let i = rng.below(lines.len());
                    let j = rng.below(lines.len());
                    match rng.below(3) {
                        0 => {
                            lines.remove(i);
                        }
                        1 => lines.insert(i, lines[j]),
                        _ => lines.swap(i, j),
                    }
                    d = lines.join(&b'\n');
                }
            }
            fuzz_harness::schema_pack(&d);
        }
    }
}

/// Every schema of the built-in pack on random payloads: decoding never
/// panics or reads past the payload.
#[test]
fn builtin_pack_schemas_on_random_bytes() {
    use etl::decode::schema::{packs, SchemaRegistry};
    let mut reg = SchemaRegistry::default();
    let first = reg.len() as u32;
    reg.add_pack(packs::builtin(), packs::Source::BuiltIn);
    assert!(reg.len() > 4000, "{}", reg.len());
    let mut rng = testdata::Rng::new(35);
    for row in first..reg.len() as u32 {
        for ptr in [4, 8] {
            let len = rng.below(200);
            let payload = rng.bytes(len);
            if let Some(Ok((_, used))) = reg.decode_measured(row, &payload, ptr) {
                assert!(used <= payload.len());
            }
        }
    }
}

#[test]
fn lznt1_regressions() {
    replay("lznt1", fuzz_harness::lznt1);
}

/// The LZNT1 decompressor on random bytes behind valid-looking chunk headers.
#[test]
fn lznt1_on_random_bytes() {
    let mut rng = testdata::Rng::new(7);
    for _ in 0..2000 {
        let size = 1 + rng.below(300);
        let flags = if rng.below(2) == 0 { 0xB000u16 } else { 0x3000 };
        let mut data = (flags | (size as u16 - 1)).to_le_bytes().to_vec();
        let extra = rng.below(8);
        data.extend(rng.bytes(size + extra));
        fuzz_harness::lznt1(&data);
    }
}
