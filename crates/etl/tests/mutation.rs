//! Mutation test: damages each real trace in many ways (truncation, flipped
//! bytes, zeroed or 0xFF ranges, absurd buffer sizes and SavedOffsets,
//! corrupt event sizes) over a fixed set of seeds, and reads every damaged
//! copy the way `etlscope info` and the ordered iterator do.
//!
//! It checks that reading never panics, ends within a time bound, names a
//! file offset inside the file in every error, and that damage to one byte
//! of an uncompressed buffer costs at most that buffer's events: the others
//! are still read. Expected counts come from reading the undamaged file.
//!
//! Traces come from `ETLSCOPE_REAL_TRACES` (default `../shared/traces` from
//! the repository root). Self-contained on purpose: no shared test helpers.

use etl::census::Census;
use etl::walk::BufferEvents;
use etl::{Diagnostic, Error, EtlFile};
use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Seeds per trace and mutation kind. A trace with megabytes of compressed
/// buffers costs seconds per read in a debug build, so it gets fewer, to keep
/// the test near a minute on two cores.
fn seeds(base: &Baseline) -> u64 {
    let heavy = base.compressed_bytes > 1 << 20;
    match (cfg!(debug_assertions), heavy) {
        (true, true) => 2,
        (true, false) => 12,
        (false, true) => 8,
        (false, false) => 48,
    }
}

/// One read of a damaged file must end within this.
const TIME_BOUND: Duration = Duration::from_secs(if cfg!(debug_assertions) { 30 } else { 5 });

use testdata::real_traces_dir as traces_dir;
use testdata::Rng;

fn trace_files() -> Vec<(String, Vec<u8>)> {
    let Some(dir) = traces_dir() else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "etl"))
        .collect();
    paths.sort();
    assert!(!paths.is_empty(), "no .etl files in {}", dir.display());
    paths
        .into_iter()
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect()
}

/// The same damage on every run: SplitMix64 from a mixed seed.
fn rng(seed: u64) -> Rng {
    Rng::new(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xD1B5_4A32_D192_ED03)
}

/// What the undamaged file holds, to aim damage and to compare against.
struct Baseline {
    len: usize,
    /// (offset, BufferSize, compressed, events) per buffer.
    buffers: Vec<(usize, u32, bool, u64)>,
    /// File offsets of event headers in uncompressed buffers, and where each
    /// one's u16 size field sits.
    event_sizes: Vec<usize>,
    events: u64,
    compressed_bytes: usize,
}

fn baseline(bytes: &[u8]) -> Baseline {
    let file = EtlFile::from_bytes(bytes.to_vec()).unwrap();
    let census = Census::of(&file);
    assert!(census.errors.is_empty(), "undamaged trace reports errors");
    let per_buffer = file.par_map_buffers(|r| r.unwrap().events().count() as u64);
    let mut event_sizes = Vec::new();
    for b in file.buffers().iter().filter(|b| !b.header.is_compressed()) {
        let data = &bytes[b.data_range()];
        for e in BufferEvents::new(data, 0, 0) {
            let e = e.unwrap();
            let at = b.offset as usize + 0x48 + e.offset_in_buffer as usize;
            // Kernel headers keep the size in their second u16, others in the first.
            event_sizes.push(at + if e.header_type.is_kernel() { 4 } else { 0 });
        }
    }
    Baseline {
        len: bytes.len(),
        buffers: file
            .buffers()
            .iter()
            .zip(&per_buffer)
            .map(|(b, &n)| {
                let h = &b.header;
                (b.offset as usize, h.buffer_size, h.is_compressed(), n)
            })
            .collect(),
        event_sizes,
        events: census.events,
        compressed_bytes: file
            .buffers()
            .iter()
            .filter(|b| b.header.is_compressed())
            .map(|b| b.header.buffer_size as usize)
            .sum(),
    }
}

#[derive(Debug, Clone, Copy)]
enum Mutation {
    Truncate {
        at: usize,
    },
    FlipBytes {
        seed: u64,
        count: usize,
    },
    Fill {
        start: usize,
        len: usize,
        byte: u8,
    },
    BufferSize {
        buffer: usize,
        value: u32,
    },
    SavedOffset {
        buffer: usize,
        value: u32,
    },
    EventSize {
        at: usize,
        value: u16,
    },
    /// One byte of one uncompressed buffer (header included) XORed.
    OneByteInBuffer {
        buffer: usize,
        at: usize,
        xor: u8,
    },
}

impl fmt::Display for Mutation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self:?}")
    }
}

const KINDS: usize = 8;

/// Absurd, zero and tiny values for a buffer's size fields.
const SIZE_VALUES: [u32; 8] = [0, 1, 0x47, 0x48, 0x49, 0xFFFF_FFFF, 0x7FFF_FFFF, 64 << 20];

fn choose(kind: usize, rng: &mut Rng, base: &Baseline) -> Option<Mutation> {
    let n = base.len;
    let buffer = rng.below(base.buffers.len());
    Some(match kind {
        0 => Mutation::Truncate { at: rng.below(n) },
        1 => Mutation::FlipBytes {
            seed: rng.next_u64(),
            count: 1 + rng.below(16),
        },
        2 => {
            let start = rng.below(n);
            Mutation::Fill {
                start,
                len: 1 + rng.below(4096.min(n - start)),
                byte: rng.pick(&[0x00, 0xFF]),
            }
        }
        3 => Mutation::BufferSize {
            buffer,
            value: if rng.below(4) == 0 {
                rng.next_u64() as u32
            } else {
                rng.pick(&SIZE_VALUES)
            },
        },
        4 => Mutation::SavedOffset {
            buffer,
            value: if rng.below(4) == 0 {
                rng.next_u64() as u32
            } else {
                rng.pick(&SIZE_VALUES)
            },
        },
        5 => {
            if base.event_sizes.is_empty() {
                return None;
            }
            let random = rng.next_u64() as u16;
            Mutation::EventSize {
                at: rng.pick(&base.event_sizes),
                value: rng.pick(&[0, 1, 7, 8, 0x17, 0xFFFF, random]),
            }
        }
        _ => {
            // Not the header buffer: without its log-file header event the
            // file is refused as a whole, by design.
            let candidates: Vec<usize> = (1..base.buffers.len())
                .filter(|&i| !base.buffers[i].2 && base.buffers[i].3 > 0)
                .collect();
            if candidates.is_empty() {
                return None;
            }
            let buffer = rng.pick(&candidates);
            let (off, size, _, _) = base.buffers[buffer];
            // Kind 7 aims at the 0x48-byte buffer header, kind 6 anywhere.
            let span = if kind == 7 { 0x48 } else { size as usize };
            Mutation::OneByteInBuffer {
                buffer,
                at: off + rng.below(span),
                xor: 1 + rng.below(255) as u8,
            }
        }
    })
}

fn apply(m: Mutation, bytes: &mut Vec<u8>, base: &Baseline) {
    let put32 = |bytes: &mut Vec<u8>, at: usize, v: u32| {
        bytes[at..at + 4].copy_from_slice(&v.to_le_bytes());
    };
    match m {
        Mutation::Truncate { at } => bytes.truncate(at),
        Mutation::FlipBytes { seed, count } => {
            let mut r = rng(seed);
            for _ in 0..count {
                let at = r.below(bytes.len());
                bytes[at] ^= 1 + r.below(255) as u8;
            }
        }
        Mutation::Fill { start, len, byte } => bytes[start..start + len].fill(byte),
        Mutation::BufferSize { buffer, value } => put32(bytes, base.buffers[buffer].0, value),
        Mutation::SavedOffset { buffer, value } => put32(bytes, base.buffers[buffer].0 + 4, value),
        Mutation::EventSize { at, value } => {
            bytes[at..at + 2].copy_from_slice(&value.to_le_bytes());
        }
        Mutation::OneByteInBuffer { at, xor, .. } => bytes[at] ^= xor,
    }
}

/// Read a damaged file like `etlscope info` + the ordered iterator. Returns
/// the events the census counted (0 when the file was refused).
fn read_damaged(bytes: Vec<u8>, what: &str) -> u64 {
    let len = bytes.len() as u64;
    let check = |d: &Diagnostic| {
        assert!(
            d.offset <= len,
            "{what}: offset {:#x} past the file: {d}",
            d.offset
        );
        assert!(!d.message.is_empty(), "{what}: empty diagnostic");
    };
    let start = Instant::now();
    let result = catch_unwind(AssertUnwindSafe(|| match EtlFile::from_bytes(bytes) {
        Ok(file) => {
            let census = Census::of(&file);
            let mut ordered = 0u64;
            let diags = file.for_each_event_in_order(|e| {
                ordered += 1;
                std::hint::black_box(e.payload.len());
            });
            census.errors.iter().for_each(check);
            diags.iter().for_each(check);
            assert_eq!(
                census.events, ordered,
                "{what}: census and ordered merge disagree"
            );
            Ok(census.events)
        }
        Err(e) => Err(e),
    }));
    let took = start.elapsed();
    assert!(took < TIME_BOUND, "{what}: reading took {took:?}");
    match result {
        Ok(Ok(events)) => events,
        Ok(Err(Error::NotEtl { offset, message })) => {
            assert!(
                offset <= len,
                "{what}: refusal offset {offset:#x} past the file"
            );
            assert!(!message.is_empty());
            0
        }
        Ok(Err(e)) => panic!("{what}: unexpected error kind: {e}"),
        Err(_) => panic!("{what}: the reader panicked (see above)"),
    }
}

#[test]
fn damaged_real_traces_read_cleanly() {
    let files = trace_files();
    let started = Instant::now();
    let mut reads = 0u64;
    let mut refused = 0u64;
    for (name, bytes) in &files {
        let base = baseline(bytes);
        for kind in 0..KINDS {
            for seed in 0..seeds(&base) {
                let mut rng = rng((kind as u64) << 32 | seed);
                let Some(m) = choose(kind, &mut rng, &base) else {
                    continue;
                };
                let mut damaged = bytes.clone();
                apply(m, &mut damaged, &base);
                let what = format!("{name} seed {seed}: {m}");
                let events = read_damaged(damaged, &what);
                reads += 1;
                refused += u64::from(events == 0 && base.events > 0);
                if let Mutation::OneByteInBuffer { buffer, .. } = m {
                    let lost_at_most = base.buffers[buffer].3;
                    assert!(
                        events + lost_at_most >= base.events,
                        "{what}: read {events} of {} events; one damaged buffer holds only {lost_at_most}",
                        base.events
                    );
                }
            }
        }
    }
    eprintln!(
        "mutation: {} traces, {reads} damaged reads ({refused} refused as a whole) in {:?}",
        files.len(),
        started.elapsed()
    );
}

/// A multi-file trace (the four `.etl` members of `vs-dotnetcore31.diagsession`
/// given as separate files, as `etlscope open a.etl b.etl ...` reads them):
/// damage to one file costs at most that file's events, the other files'
/// events are all still read, and reading never panics or hangs.
#[test]
fn a_damaged_file_of_a_multi_file_trace_costs_only_its_events() {
    let Some(dir) = traces_dir() else { return };
    let zip = std::fs::read(dir.join("vs-dotnetcore31.diagsession")).unwrap();
    let members = etl::container::extract_etls(&zip, etl::container::ZipLimits::default()).unwrap();
    let tmp = testdata::TempDir::new("mutation-multi");
    let files: Vec<(PathBuf, Vec<u8>)> = members
        .into_iter()
        .enumerate()
        .map(|(i, (name, bytes))| {
            let bytes = bytes.unwrap_or_else(|e| panic!("{name}: {e}"));
            (tmp.write(&format!("m{i}.etl"), &bytes), bytes)
        })
        .collect();
    let paths: Vec<&std::path::Path> = files.iter().map(|(p, _)| p.as_path()).collect();
    // Events per file, by the file's name (a refused file has no member).
    let per_file = |f: &EtlFile| -> std::collections::BTreeMap<String, u64> {
        let c = Census::of(f);
        f.members()
            .iter()
            .map(|m| m.name.clone())
            .zip(c.events_per_member)
            .collect()
    };
    let whole = per_file(&EtlFile::open_many(&paths).unwrap());
    assert_eq!(whole.len(), files.len());
    let mut reads = 0;
    for (victim, (path, bytes)) in files.iter().enumerate() {
        let base = baseline(bytes);
        for kind in 0..KINDS {
            for seed in 0..2 {
                let mut rng = rng(0x3000 | (kind as u64) << 32 | seed | (victim as u64) << 8);
                let Some(m) = choose(kind, &mut rng, &base) else {
                    continue;
                };
                let mut damaged = bytes.clone();
                apply(m, &mut damaged, &base);
                std::fs::write(path, &damaged).unwrap();
                let what = format!("member {victim} seed {seed}: {m}");
                let start = Instant::now();
                let census = catch_unwind(AssertUnwindSafe(|| {
                    EtlFile::open_many(&paths).map(|f| per_file(&f))
                }))
                .unwrap_or_else(|_| panic!("{what}: the reader panicked"));
                assert!(
                    start.elapsed() < TIME_BOUND,
                    "{what}: took {:?}",
                    start.elapsed()
                );
                let census =
                    census.unwrap_or_else(|e| panic!("{what}: the whole trace refused: {e}"));
                let victim_name = whole.keys().find(|n| n.contains(&format!("m{victim}.etl")));
                for (name, &want) in &whole {
                    let got = census.get(name).copied().unwrap_or(0);
                    // The damaged file's own count is whatever survived.
                    if Some(name) != victim_name {
                        assert_eq!(got, want, "{what}: undamaged file {name}");
                    }
                }
                reads += 1;
            }
        }
        std::fs::write(path, bytes).unwrap();
    }
    eprintln!("mutation (multi-file): {reads} damaged reads of 4 files");
}
