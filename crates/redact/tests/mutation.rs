//! Mutation test of the rewriter: a trace written here (user folders and
//! command lines in many events, compressed or not) damaged in many ways
//! (flipped bytes, zeroed and 0xFF ranges, truncation, wrong event sizes)
//! over fixed seeds. Redacting a damaged copy never panics; a copy written
//! holds no `\Users\ann\` and no argument of the command line; a damaged
//! event that hides an original makes a refusal with its buffer's offset.

mod fuzz_harness;

use etl::writer::{EtlWriter, EventHeaderFields, Record, WriterConfig};
use etl::Guid;
use std::io::Cursor;
use testdata::Rng;

const USER_PATH: &str = "C:\\Users\\ann\\Documents\\report.docx";
const COMMAND_LINE: &str = "C:\\Tools\\sync.exe --token=s3cr3t-v4lue --verbose";

fn wide(s: &str) -> Vec<u8> {
    s.encode_utf16()
        .flat_map(u16::to_le_bytes)
        .chain([0, 0])
        .collect()
}

/// A trace of `n` events, each a u32 then both strings (UTF-16), on 2 CPUs.
fn trace(n: u32, compress: bool) -> Vec<u8> {
    let config = WriterConfig {
        cpus: 2,
        buffer_size: 4096,
        compress,
        ..WriterConfig::default()
    };
    let mut w = EtlWriter::new(Cursor::new(Vec::new()), config).unwrap();
    for i in 0..n {
        let mut payload = i.to_le_bytes().to_vec();
        payload.extend(wide(USER_PATH));
        payload.extend(wide(COMMAND_LINE));
        let h = EventHeaderFields {
            provider: Guid::from_u128(0x1234_5678_9abc_def0_1234_5678_9abc_def0),
            id: 7,
            pid: 100 + i % 3,
            tid: 200 + i % 5,
            ..EventHeaderFields::default()
        };
        let ts = 1_000_000_100 + i64::from(i) * 1000;
        w.write((i % 2) as u16, &Record::event(ts, h, &payload))
            .unwrap();
    }
    w.finish().unwrap().0.into_inner()
}

/// Whether `s` is in `bytes` as UTF-16LE text, any case.
fn holds(bytes: &[u8], s: &str) -> bool {
    let needle: Vec<u8> = s
        .to_ascii_lowercase()
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    bytes
        .windows(needle.len())
        .any(|w| w.to_ascii_lowercase() == needle)
}

#[test]
fn an_undamaged_trace_is_redacted_whole() {
    for compress in [false, true] {
        let input = trace(300, compress);
        let out = fuzz_harness::redact(&input)
            .expect("a trace")
            .expect("redacted");
        let copy = &out[0].1;
        assert!(holds(&input, "\\Users\\ann\\") || compress);
        for gone in ["\\users\\ann\\", "s3cr3t-v4lue", "--token=", "--verbose"] {
            assert!(!holds(copy, gone), "{gone} left (compress {compress})");
        }
        // The image and the file's extension stay.
        assert!(holds(copy, "C:\\Tools\\sync.exe "));
        assert!(holds(copy, ".docx"));
    }
}

/// Damage `bytes` one way, chosen by `rng`.
fn damage(bytes: &mut Vec<u8>, rng: &mut Rng) {
    let len = bytes.len() as u64;
    let at = (rng.next_u64() % len) as usize;
    match rng.next_u64() % 5 {
        0 => bytes[at] ^= 1 << (rng.next_u64() % 8),
        1 => {
            let end = (at + 1 + (rng.next_u64() % 64) as usize).min(bytes.len());
            bytes[at..end].fill(0);
        }
        2 => {
            let end = (at + 1 + (rng.next_u64() % 64) as usize).min(bytes.len());
            bytes[at..end].fill(0xFF);
        }
        3 => bytes.truncate(at.max(1)),
        _ => {
            // An event's size field (u16 at its start) made absurd.
            let v = (rng.next_u64() % 0x10000) as u16;
            if at + 2 <= bytes.len() {
                bytes[at..at + 2].copy_from_slice(&v.to_le_bytes());
            }
        }
    }
}

#[test]
fn damaged_traces_never_panic_and_never_leave_what_was_found() {
    let mut written = 0;
    let mut refused = 0;
    for compress in [false, true] {
        let input = trace(200, compress);
        for seed in 0..80u64 {
            let mut rng = Rng::new(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ u64::from(compress));
            let mut bytes = input.clone();
            for _ in 0..1 + rng.next_u64() % 3 {
                damage(&mut bytes, &mut rng);
            }
            match fuzz_harness::redact(&bytes) {
                Some(Ok(out)) => {
                    written += 1;
                    for (_, copy) in &out {
                        assert!(
                            !holds(copy, "s3cr3t-v4lue"),
                            "seed {seed} compress {compress}: an argument left"
                        );
                    }
                }
                Some(Err(_)) => refused += 1,
                None => {}
            }
        }
    }
    eprintln!("{written} damaged copies redacted, {refused} refused");
    assert!(written > 50, "{written}");
}

#[test]
fn an_original_the_walk_cannot_reach_refuses_the_copy_with_its_buffer() {
    let mut bytes = trace(200, false);
    let file = etl::EtlFile::from_bytes(bytes.clone()).unwrap();
    // The second data buffer: its first event's size made too large for
    // the buffer, so the walk stops there and its events stay unread.
    let b = file.buffers()[2];
    let first_event = b.offset as usize + etl::buffer::BUFFER_HEADER_SIZE;
    bytes[first_event..first_event + 2].copy_from_slice(&0xFFF0u16.to_le_bytes());
    let err = fuzz_harness::redact(&bytes)
        .expect("a trace")
        .expect_err("refused");
    assert_eq!(err.offset, b.offset, "{err}");
    assert!(err.to_string().contains("nothing is written"), "{err}");
}
