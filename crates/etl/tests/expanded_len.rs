//! What a read costs, for the server's admission control: the trace's bytes
//! with compressed buffers counted at the size they decompress to. Checked
//! against the decompressed buffers themselves on a real compressed trace
//! (PerfView's, 359 compressed buffers) and an uncompressed one.

mod common;
mod expected;

use common::{real_trace, real_traces_dir};
use etl::buffer::BUFFER_HEADER_SIZE;
use etl::{EtlFile, ProfileMix};

/// Each buffer as reading it takes: header and decompressed events, or its
/// bytes in the file when those are more (an uncompressed buffer's fill).
fn decompressed_total(f: &EtlFile) -> u64 {
    let mut scratch = Vec::new();
    f.buffers()
        .iter()
        .map(|b| {
            let events = f.buffer_data(b, &mut scratch).map_or(0, |d| d.len());
            let stored = u64::from(b.header.buffer_size);
            if b.header.is_compressed() {
                ((BUFFER_HEADER_SIZE + events) as u64).max(stored)
            } else {
                stored
            }
        })
        .sum()
}

#[test]
fn expanded_len_counts_compressed_buffers_decompressed() {
    let Some(dir) = real_traces_dir() else { return };
    for (name, compressed) in [
        ("perfview-net452-x64.etl", true),
        ("shutdown-perfdiag-kernel.etl", false),
    ] {
        let path = real_trace(&dir, name);
        let f = EtlFile::open(&path).unwrap();
        // Bytes outside any buffer (none in these files, but counted as they are).
        let on_disk = f.file_len();
        let in_buffers: u64 = f
            .buffers()
            .iter()
            .map(|b| u64::from(b.header.buffer_size))
            .sum();
        let want = decompressed_total(&f) + (on_disk - in_buffers);
        assert_eq!(f.expanded_len(), want, "{name}");
        if compressed {
            assert!(want > on_disk * 2, "{name}: {want} vs {on_disk} on disk");
        } else {
            // The header buffer and any tail outside the buffers are as on disk.
            assert_eq!(want, on_disk, "{name}");
        }
        // The probe sees only the first 4 MiB: its ratio is an estimate, near the whole's.
        let p = EtlFile::probe(&path).unwrap();
        let (got, want) = (p.expanded_len as f64, want as f64);
        assert!(
            (got / want - 1.0).abs() < 0.25,
            "{name}: probe {got} vs {want}"
        );
    }
}

/// Admission control counts samples and stack walks by number: the mix of a
/// whole file counts exactly the SampledProfile (0x0F2E) and StackWalk
/// (0x1820) events the independent Python census found, in every real trace.
#[test]
fn profile_mix_counts_the_samples_and_stack_walks_of_the_census() {
    let Some(dir) = real_traces_dir() else { return };
    let mut with_samples = 0;
    for e in expected::TRACES {
        let f = EtlFile::open(&real_trace(&dir, e.file)).unwrap();
        let mut scratch = Vec::new();
        let read: u64 = f
            .buffers()
            .iter()
            .map(|b| f.buffer_data(b, &mut scratch).map_or(0, |d| d.len() as u64))
            .sum();
        let want: u64 = e
            .kernel_hooks
            .iter()
            .filter(|(_, hook, _)| matches!(hook, 0x0F2E | 0x1820))
            .map(|(_, _, n)| n)
            .sum();
        let mix = ProfileMix::of(&f);
        let got = (mix.events_per_byte * read as f64).round() as u64;
        assert_eq!(got, want, "{}", e.file);
        assert!((0.0..=1.0).contains(&mix.byte_share), "{}", e.file);
        assert_eq!(mix.byte_share > 0.0, want > 0, "{}", e.file);
        with_samples += usize::from(want > 0);
    }
    // perfview-net452-x64.etl: 79,528 samples and 252 stack walks.
    assert!(with_samples >= 1, "{with_samples} traces with samples");
}
