//! Absurd buffer sizes. Compressed buffers whose headers claim absurd
//! decompressed sizes must cost neither a 64 MiB allocation each nor one per
//! CPU stream of the ordered merge: they are skipped with a diagnostic naming
//! their offset. An uncompressed buffer whose BufferSize is damaged must not
//! swallow or lose the buffers after it.
//! The files are built by hand here (no real trace needed).

use etl::census::Census;
use etl::EtlFile;
use std::time::{Duration, Instant};

const HEADER: usize = 0x48;

/// A buffer header: size, SavedOffset, flags, processor index.
fn buffer_header(size: u32, saved: u32, flags: u16, cpu: u16, buffer_type: u16) -> Vec<u8> {
    let mut h = vec![0u8; HEADER];
    h[0..4].copy_from_slice(&size.to_le_bytes());
    h[4..8].copy_from_slice(&saved.to_le_bytes());
    h[0x28..0x2A].copy_from_slice(&cpu.to_le_bytes());
    h[0x34..0x36].copy_from_slice(&flags.to_le_bytes());
    h[0x36..0x38].copy_from_slice(&buffer_type.to_le_bytes());
    h
}

/// A System64 event with no payload.
fn system64_event(hook: u16) -> Vec<u8> {
    let mut ev = vec![0u8; 0x20];
    ev[0..2].copy_from_slice(&2u16.to_le_bytes()); // version
    ev[2] = 0x02; // HeaderType System64
    ev[3] = 0xC0; // marker flags
    ev[4..6].copy_from_slice(&0x20u16.to_le_bytes()); // size
    ev[6..8].copy_from_slice(&hook.to_le_bytes());
    ev
}

/// Header buffer whose only event is a System64 event with hook 0x0000 (the
/// log-file header event; its payload is left empty).
fn header_buffer() -> Vec<u8> {
    let size = (HEADER + 0x20) as u32;
    let mut b = buffer_header(size, size, 0, 0, 4);
    b.extend(system64_event(0));
    b
}

/// A `size`-byte buffer (header included) with one event, as in a
/// live session: fixed size, 0xFF fill after SavedOffset.
fn fixed_buffer(size: usize, buffer_type: u16, hook: u16) -> Vec<u8> {
    let saved = (HEADER + 0x20) as u32;
    let mut b = buffer_header(size as u32, saved, 0, 0, buffer_type);
    b.extend(system64_event(hook));
    b.resize(size, 0xFF);
    b
}

#[test]
fn damaged_buffer_size_in_a_fixed_size_file_loses_no_other_buffer() {
    const SIZE: usize = 0x200;
    let mut file = fixed_buffer(SIZE, 4, 0);
    for hook in 1..=4 {
        file.extend(fixed_buffer(SIZE, 0, hook));
    }
    // Buffer 2's size damaged: swallowing buffers 3 and 4, then running past
    // the end of the file (which used to drop every buffer after it).
    for claimed in [3 * SIZE as u32, 0x0100_0200] {
        let mut damaged = file.clone();
        damaged[2 * SIZE..2 * SIZE + 4].copy_from_slice(&claimed.to_le_bytes());
        let f = EtlFile::from_bytes(damaged).unwrap();
        let census = Census::of(&f);
        assert_eq!(
            (census.buffers, census.events),
            (5, 5),
            "claimed {claimed:#x}"
        );
        let d = &f.diagnostics()[0];
        assert_eq!(d.offset, 2 * SIZE as u64, "{d}");
        assert!(d.message.contains("BufferSize is damaged"), "{d}");
    }
}

#[test]
fn absurd_saved_offsets_on_compressed_buffers_are_skipped_cheaply() {
    const N: u16 = 2000;
    let mut file = header_buffer();
    // Each buffer: 8 bytes of "compressed" data (all-literal flags) claiming
    // to expand to 64 MiB, each on its own CPU so the ordered merge would
    // hold one decompressed buffer per stream.
    for cpu in 0..N {
        let data = [0xFF, 0xFF, 0xFF, 0xFF, 1, 2, 3, 4];
        let size = (HEADER + data.len()) as u32;
        file.extend(buffer_header(size, 64 << 20, 0x40, cpu + 1, 0));
        file.extend_from_slice(&data);
    }
    let start = Instant::now();
    let f = EtlFile::from_bytes(file).unwrap();
    let census = Census::of(&f);
    let mut events = 0u64;
    let diags = f.for_each_event_in_order(|_| events += 1);
    let took = start.elapsed();

    assert_eq!(census.buffers, u32::from(N) + 1);
    assert_eq!(census.skipped_buffers, u32::from(N));
    assert_eq!((census.events, events), (1, 1));
    assert_eq!(diags.len(), usize::from(N));
    let first = &diags[0];
    assert_eq!(first.offset, (HEADER + 0x20) as u64, "{first}");
    assert!(first.message.contains("over the 128x limit"), "{first}");
    assert!(took < Duration::from_secs(10), "took {took:?}");
}

#[test]
fn non_etl_bytes_are_refused_at_offset_zero() {
    let text = b"this is not a trace, just some text that is long enough to fill a buffer header";
    for bytes in [Vec::new(), text.to_vec(), vec![0u8; 4096], vec![0xFF; 4096]] {
        match EtlFile::from_bytes(bytes.clone()) {
            Err(etl::Error::NotEtl { offset, message }) => {
                assert_eq!(offset, 0, "{message}");
            }
            Err(e) => panic!("{} bytes: unexpected error {e}", bytes.len()),
            Ok(_) => panic!("{} bytes accepted as a trace", bytes.len()),
        }
    }
}
