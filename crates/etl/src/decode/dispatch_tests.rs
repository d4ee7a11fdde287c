//! Tests of the dispatcher: header kinds, Kernel-File versions, and noise.

use super::test_util::{classic_event, event_header_event, ext_items, kernel_event, utf16z};
use super::*;

/// A tiny deterministic byte generator (xorshift) for robustness checks.
fn noise(seed: u64, len: usize) -> Vec<u8> {
    let mut x = seed | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

#[test]
fn compact_headers_dispatch_like_system_headers() {
    let mut b = Vec::new();
    b.extend(0x8000_1000u32.to_le_bytes());
    b.extend(7u32.to_le_bytes());
    b.extend(1u16.to_le_bytes());
    b.extend(0u16.to_le_bytes());
    let mut ev = kernel_event(0x0F2E, 2, 4, &b);
    ev.header_type = HeaderType::Compact32;
    match decode(&ev) {
        Some(Ok(Decoded::SampledProfile(s))) => {
            assert_eq!((s.instruction_pointer, s.tid), (0x8000_1000, 7))
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn kernel_file_events_use_the_fileio_v3_layouts() {
    let mut b = Vec::new();
    for v in [0x10u64, 0x20] {
        b.extend(v.to_le_bytes());
    }
    for v in [5u32, 0x40, 0x80, 7] {
        b.extend(v.to_le_bytes());
    }
    b.extend(utf16z(r"\Device\HarddiskVolume2\x"));
    let ev = event_header_event(KERNEL_FILE, 12, 1, 8, &[], &b);
    match decode_measured(&ev) {
        Some(Ok((Decoded::FileIoCreate(c), used))) => {
            assert_eq!(
                (c.irp, c.file_object, c.ttid, c.share_access),
                (0x10, 0x20, 5, 7)
            );
            assert_eq!(used, b.len());
        }
        other => panic!("{other:?}"),
    }
    let unknown = event_header_event(KERNEL_FILE, 99, 1, 8, &[], &b);
    assert!(decode(&unknown).is_none());
}

/// Field orders from the manifest templates CleanupArgs (v0), ReadArgs_V1
/// and DeletePathArgs_V1.
#[test]
fn kernel_file_versions_pick_the_layout() {
    let mut b = Vec::new();
    for v in [0x10u64, 44, 0x20, 0x30] {
        b.extend(v.to_le_bytes()); // Irp, ThreadId (pointer), FileObject, FileKey
    }
    let ev = event_header_event(KERNEL_FILE, 14, 0, 8, &[], &b);
    match decode_measured(&ev) {
        Some(Ok((Decoded::FileIoSimpleOp(c), 32))) => {
            assert_eq!(
                (c.irp, c.ttid, c.file_object, c.file_key),
                (0x10, 44, 0x20, 0x30)
            )
        }
        other => panic!("{other:?}"),
    }

    let mut b = Vec::new();
    b.extend(512u64.to_le_bytes());
    for v in [0x10u32, 0x20, 0x30, 44, 4096, 0x900, 7] {
        b.extend(v.to_le_bytes()); // 32-bit pointers, then thread, size, flags, extra
    }
    let ev = event_header_event(KERNEL_FILE, 15, 1, 4, &[], &b);
    match decode_measured(&ev) {
        Some(Ok((Decoded::FileIoReadWrite(r), 36))) => {
            assert_eq!(
                (r.offset, r.irp, r.file_object, r.file_key),
                (512, 0x10, 0x20, 0x30)
            );
            assert_eq!(
                (r.ttid, r.io_size, r.io_flags, r.extra_flags),
                (44, 4096, 0x900, Some(7))
            );
        }
        other => panic!("{other:?}"),
    }

    let mut b = Vec::new();
    for v in [0x10u64, 0x20, 0x30, 0x40] {
        b.extend(v.to_le_bytes()); // Irp, FileObject, FileKey, ExtraInformation
    }
    b.extend(44u32.to_le_bytes());
    b.extend(13u32.to_le_bytes());
    b.extend(utf16z(r"\Device\HarddiskVolume2\old.txt"));
    let ev = event_header_event(KERNEL_FILE, 26, 1, 8, &[], &b);
    match decode_measured(&ev) {
        Some(Ok((Decoded::FileIoPathOp(p), n))) => {
            assert_eq!(n, b.len());
            assert_eq!(p.kind, fileio::FilePathOpKind::DeletePath);
            assert_eq!(
                (p.irp, p.file_object, p.file_key, p.extra_info),
                (0x10, 0x20, 0x30, 0x40)
            );
            assert_eq!((p.ttid, p.info_class), (44, 13));
            assert_eq!(p.file_path, r"\Device\HarddiskVolume2\old.txt");
        }
        other => panic!("{other:?}"),
    }
}

/// Random and truncated payloads of every decoded kind never panic.
#[test]
fn malformed_payloads_never_panic() {
    let hooks: Vec<u16> = [
        0x0301u16, 0x0302, 0x0303, 0x0304, 0x0327, 0x0501, 0x0503, 0x0548, 0x0524, 0x0532, 0x140A,
        0x030A, 0x1402, 0x1421, 0x0F2E, 0x0F48, 0x0F49, 0x1820, 0x1822, 0x1823, 0x1825, 0x1826,
        0x0400, 0x0424, 0x0440, 0x0441, 0x0443, 0x0445, 0x0448, 0x044C, 0x010A, 0x010C, 0x010E,
        0x0220, 0x0B0A, 0x0B0C, 0x060A, 0x060C, 0x0611, 0x061B, 0x080B, 0x081A, 0x020A, 0x020F,
        0x090B, 0x0910, 0x0916, 0x0F32, 0x0F42, 0x0F43, 0x0F44, 0x0F45, 0x0262, 0x0263, 0x1021,
        0x1022, 0x1023, 0x1024,
    ]
    .to_vec();
    for (i, &h) in hooks.iter().enumerate() {
        for len in 0..96 {
            let b = noise((i * 1000 + len) as u64 + 1, len);
            for v in 0..6 {
                for p in [4, 8] {
                    let _ = decode_measured(&kernel_event(h, v, p, &b));
                }
            }
        }
    }
    for op in [0u8, 33, 35, 36, 37, 38, 64] {
        for len in 0..64 {
            let b = noise(op as u64 * 77 + len as u64, len);
            let _ = decode(&classic_event(KERNEL_TRACE_CONTROL, op, 2, 8, &b));
            let _ = decode(&classic_event(SYSCONFIG, op, 0, 4, &b));
        }
    }
    for id in [141u16, 143, 144, 152, 153, 154] {
        for len in 0..80 {
            let b = noise(id as u64 + len as u64, len);
            let _ = decode(&event_header_event(CLR_RUNTIME, id, 2, 8, &[], &b));
            let _ = decode(&event_header_event(CLR_RUNDOWN, id, 1, 8, &[], &b));
        }
    }
    for id in 10u16..=30 {
        for len in 0..80 {
            let b = noise(u64::from(id) * 31 + len as u64, len);
            for (v, p) in [(0u8, 4u8), (0, 8), (1, 4), (1, 8)] {
                let _ = decode(&event_header_event(KERNEL_FILE, id, v, p, &[], &b));
            }
        }
    }
    // TraceLogging metadata and payloads made of noise.
    for seed in 0..2000u64 {
        let len = (seed % 60) as usize;
        let mut meta = ((len + 2) as u16).to_le_bytes().to_vec();
        meta.extend(noise(seed, len));
        let ext = ext_items(&[(crate::extended::ext_type::EVENT_SCHEMA_TL, &meta)]);
        let payload = noise(seed + 9, (seed % 40) as usize);
        let _ = decode(&event_header_event(
            crate::Guid::default(),
            1,
            0,
            8,
            &ext,
            &payload,
        ));
    }
}
