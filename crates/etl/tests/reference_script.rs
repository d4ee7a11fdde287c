//! Tests that run the Python reference decoder (tests/reference/etl_census.py)
//! at test time: the committed expected table must still be what it prints,
//! and the uncompressed copies it writes must read like the originals. Each
//! test skips loudly when python3 is not available (and fails under CI).

mod common;
mod expected;

use common::{real_trace, real_traces_dir, TempDir};
use etl::census::Census;
use etl::EtlFile;
use expected::TRACES;

const SCRIPT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/reference/etl_census.py"
);

/// The committed table still is what the committed reference script prints
/// (guards against hand edits of `expected/mod.rs`). Skipped without python3.
#[test]
fn reference_script_reproduces_the_table() {
    let Some(dir) = real_traces_dir() else { return };
    for e in TRACES {
        let path = real_trace(&dir, e.file);
        let Some(out) = testdata::python3(&[SCRIPT.as_ref(), path.as_os_str()]) else {
            return;
        };
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let f = e.file;
        assert_eq!(v["buffers"], e.buffers, "{f}");
        assert_eq!(v["compressed_buffers"], e.compressed_buffers, "{f}");
        assert_eq!(v["events"], e.events, "{f}");
        assert_eq!(v["min_timestamp"], e.min_timestamp, "{f}");
        assert_eq!(v["max_timestamp"], e.max_timestamp, "{f}");
        assert_eq!(v["errors"], serde_json::json!([]), "{f}");
        let d = &v["digest"];
        assert_eq!(d["payload_bytes"], e.digest.payload_bytes, "{f}");
        assert_eq!(d["payload_crc32"], e.digest.payload_crc32, "{f}");
        for (t, h, n) in e.kernel_hooks {
            assert_eq!(
                v["kernel_hooks_by_header"][t][format!("{h:#06x}")],
                *n,
                "{f}"
            );
        }
        for (g, op, n) in e.provider_opcodes {
            assert_eq!(v["provider_opcodes"][g][op.to_string()], *n, "{f}");
        }
        for (g, id, n) in e.provider_event_ids {
            assert_eq!(v["provider_event_ids"][g][id.to_string()], *n, "{f}");
        }
        // ... and the table leaves no event out.
        let listed: u64 = e.kernel_hooks.iter().map(|x| x.2).sum::<u64>()
            + e.provider_opcodes.iter().map(|x| x.2).sum::<u64>()
            + e.provider_event_ids.iter().map(|x| x.2).sum::<u64>();
        assert_eq!(listed, e.events, "{f}: events listed in the table");
    }
}

/// The compressed traces rewritten uncompressed by the Python reference
/// (`--decompress-to`: BufferSize = SavedOffset, no 0xFF tail) read with the
/// same events and payloads and no compressed buffer. Skipped without python3.
#[test]
fn decompressed_copies_written_by_the_reference_read_the_same() {
    let Some(dir) = real_traces_dir() else { return };
    let tmp = TempDir::new("decompressed");
    for e in TRACES.iter().filter(|e| e.compressed_buffers > 0) {
        let path = real_trace(&dir, e.file);
        let args = [
            SCRIPT.as_ref(),
            "--decompress-to".as_ref(),
            tmp.0.as_os_str(),
            path.as_os_str(),
        ];
        let Some(out) = testdata::python3(&args) else {
            return;
        };
        assert!(out.status.success(), "{}: reference failed", e.file);
        let file = EtlFile::open(&tmp.0.join(e.file)).unwrap();
        let c = Census::of(&file);
        let f = e.file;
        assert_eq!(c.skipped_buffers, 0, "{f}");
        assert!(c.errors.is_empty(), "{f}: {:?}", c.errors);
        assert_eq!((c.buffers, c.compressed_buffers), (e.buffers, 0), "{f}");
        assert_eq!(c.events, e.events, "{f}");
        let mut crc = crc32fast::Hasher::new();
        let n = file.for_each_event_in_order(|_| ()).len();
        assert_eq!(n, 0, "{f}: ordered walk diagnostics");
        let mut scratch = Vec::new();
        for info in file.buffers() {
            let data = file.buffer_data(info, &mut scratch).unwrap();
            for ev in (etl::BufferData { info, data }).events() {
                crc.update(ev.unwrap().payload);
            }
        }
        assert_eq!(
            crc.finalize(),
            e.digest.payload_crc32,
            "{f}: payload CRC-32"
        );
    }
}
