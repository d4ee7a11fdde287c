//! On real traces: the KernelTraceControl events PerfView/xperf wrote are
//! byte for byte what our encoders write for the same identity (decoded
//! from those very events), and copying a real trace through
//! `merge_identities` keeps its model intact.

use etl::decode::{decode, Decoded, KERNEL_TRACE_CONTROL};
use etl::EtlFile;
use pe::ktc::{events_for, LoadedImage};
use pe::{Identity, PdbRecord, VersionStrings};
use std::io::Cursor;

fn open(name: &str) -> Option<EtlFile> {
    let Some(dir) = testdata::real_traces_dir() else {
        testdata::skip(name);
        return None;
    };
    Some(EtlFile::open(&dir.join(name)).unwrap())
}

fn identity(tds: u32) -> Identity {
    Identity {
        time_date_stamp: tds,
        size_of_image: 0,
        checksum: 0,
        pdb: None,
        version: None,
    }
}

/// (events of each opcode compared, of which byte-identical), and the
/// FileVersion events equal up to FileId and ProgramId.
fn compare_ktc(f: &EtlFile) -> ([(u32, u32); 3], u32) {
    let mut counts = [(0u32, 0u32); 3];
    let mut but_ids = 0;
    f.for_each_event_in_order(|e| {
        if e.provider != Some(KERNEL_TRACE_CONTROL) {
            return;
        }
        let Some(Ok(d)) = decode(e) else { return };
        let image = |base, size, pid, path| LoadedImage {
            timestamp: e.timestamp,
            base,
            size,
            pid,
            pointer_size: e.pointer_size,
            path,
        };
        let (slot, ours) = match &d {
            Decoded::ImageId(i) => {
                let img = image(i.image_base, i.image_size, i.pid, &i.original_file_name);
                (0, events_for(&img, &identity(i.time_date_stamp)).remove(0))
            }
            Decoded::DbgId(d) if !d.il => {
                let img = image(d.image_base, 0, d.pid, "x.dll");
                let mut id = identity(0);
                id.pdb = Some(PdbRecord {
                    guid: d.guid,
                    age: d.age,
                    path: d.pdb_file_name.clone(),
                });
                (1, events_for(&img, &id).remove(1))
            }
            Decoded::FileVersion(v) => {
                let img = image(0, u64::from(v.image_size), 0, "x.dll");
                let mut id = identity(v.time_date_stamp);
                id.version = Some(VersionStrings {
                    file_version: v.file_version.clone(),
                    product_version: v.product_version.clone(),
                    product_name: v.product_name.clone(),
                    company_name: v.company_name.clone(),
                    file_description: v.file_description.clone(),
                    original_file_name: v.original_file_name.clone(),
                    bin_file_version: v.bin_file_version.clone(),
                    language: v.ver_language.clone(),
                });
                (2, events_for(&img, &id).remove(1))
            }
            _ => return,
        };
        counts[slot].0 += 1;
        // Newer xperf fills FileId and ProgramId (AmCache hashes), the last
        // two strings; ours leaves them empty (two UTF-16 NULs, 4 bytes).
        if let Decoded::FileVersion(v) = &d {
            let head = ours.payload.len() - 4;
            if !v.file_id.is_empty() && e.payload.get(..head) == ours.payload.get(..head) {
                but_ids += 1;
            }
        }
        let rec = ours.record(&image(0, 0, e.pid.unwrap_or(0), "x.dll"));
        let etl::writer::Header::Full(h) = rec.header else {
            panic!("KernelTraceControl events are classic events")
        };
        if ours.payload == e.payload
            && ours.opcode == e.opcode
            && (h.version, h.level) == (e.version, e.level)
        {
            counts[slot].1 += 1;
        } else if counts[slot].0 - counts[slot].1 <= 1 {
            eprintln!(
                "differs: opcode {} version {} vs ours {}, level {} vs {}",
                e.opcode, e.version, h.version, e.level, h.level
            );
        }
    });
    (counts, but_ids)
}

#[test]
fn perfview_ktc_events_equal_ours_byte_for_byte() {
    let Some(f) = open("perfview-net452-x64.etl") else {
        return;
    };
    let (c, _) = compare_ktc(&f);
    // The census of ../shared/traces/README.md: ImageId 3,590, DbgID_RSDS
    // 3,534, FileVersion 705.
    assert_eq!(c, [(3590, 3590), (3534, 3534), (705, 705)]);
}

#[test]
fn visual_studios_ktc_events_equal_ours_byte_for_byte() {
    let Some(f) = open("vs-dotnetcore31.diagsession") else {
        return;
    };
    let (c, but_ids) = compare_ktc(&f);
    let [image_id, dbg_id, file_version] = c;
    assert_eq!(image_id, (15423, 15423));
    assert_eq!(dbg_id, (15076, 15076));
    // 77 of its 2,605 FileVersion events carry FileId/ProgramId, which we
    // do not compute; the rest of those 77 equals ours.
    assert_eq!(file_version, (2605, 2528));
    assert_eq!(but_ids, 77);
}

/// Copy a real trace through the merge with no image files at hand: the
/// model of the copy equals the original's.
fn copy_keeps_model(name: &str) {
    let Some(f) = open(name) else { return };
    let before = model::build(&f);
    let (out, s) = pe::merge_identities(&f, Cursor::new(Vec::new()), |_| None).unwrap();
    assert_eq!(s.events_added, 0);
    assert_eq!(s.bad_buffers, 0);
    let copy = EtlFile::from_bytes(out.into_inner()).unwrap();
    let after = model::build(&copy);
    assert_eq!(after.info.events, before.info.events, "{name}");
    assert_eq!(after.info.duration_ns, before.info.duration_ns, "{name}");
    assert_eq!(after.samples.len(), before.samples.len(), "{name}");
    assert_eq!(after.processes.len(), before.processes.len(), "{name}");
    assert_eq!(after.images.len(), before.images.len(), "{name}");
    assert_eq!(after.modules.pdb_guid, before.modules.pdb_guid, "{name}");
    assert_eq!(after.stacks.len(), before.stacks.len(), "{name}");
    assert!(s.image_events > 0, "{name}");
}

#[test]
fn copying_perfviews_compressed_trace_keeps_its_model() {
    copy_keeps_model("perfview-net452-x64.etl");
}

#[test]
fn copying_windows_shutdown_trace_keeps_its_model() {
    copy_keeps_model("shutdown-perfdiag-kernel.etl");
}
