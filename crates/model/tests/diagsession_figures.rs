//! The figures of `vs-dotnetcore31.diagsession` (250 processes, 15,103 image
//! loads: ../shared/traces/README.md, from PerfView) explained from the
//! trace's own kernel and KernelTraceControl events, read here with a naive
//! decode of their payloads (Process v4: UniqueProcessKey u64 at 0,
//! ProcessId u32 at 8; Image v3: ImageBase u64 at 0, ImageSize at 8,
//! ProcessId u32 at 16; DbgID_RSDS: ImageBase u64, ProcessId u32, GUID, Age)
//! rather than with our decoders, then compared with the model.

mod common;

use etl::{EtlFile, Guid};
use std::collections::{HashMap, HashSet};
use testdata::real_traces_dir;

const KTC: Guid = Guid::from_u128(0xb3e675d7_2554_4f18_830b_2762732560de);

fn u32_at(p: &[u8], at: usize) -> u32 {
    let b: [u8; 4] = p[at..at + 4].try_into().unwrap();
    u32::from_le_bytes(b)
}

fn u64_at(p: &[u8], at: usize) -> u64 {
    let b: [u8; 8] = p[at..at + 8].try_into().unwrap();
    u64::from_le_bytes(b)
}

#[derive(Default)]
struct Raw {
    /// (pid, UniqueProcessKey) per process hook.
    processes: HashMap<u16, HashSet<(u32, u64)>>,
    /// (pid, base) per image hook.
    images: HashMap<u16, HashSet<(u32, u64)>>,
    /// (pid, base) -> PDB GUID of DbgID_RSDS; (pid, base) of opcode 32.
    rsds: HashMap<(u32, u64), Guid>,
    no_debug_record: HashSet<(u32, u64)>,
}

fn raw() -> Option<Raw> {
    let path = real_traces_dir()?.join("vs-dotnetcore31.diagsession");
    let file = EtlFile::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut r = Raw::default();
    file.for_each_event_in_order(|e| {
        let p = e.payload;
        match (e.hook_id, e.provider) {
            (Some(h @ (0x0301..=0x0304 | 0x0327)), _) if e.header_type.is_kernel() => {
                let key = (u32_at(p, 8), u64_at(p, 0));
                r.processes.entry(h).or_default().insert(key);
            }
            (Some(h @ (0x030A | 0x1402..=0x1404)), _) if e.header_type.is_kernel() => {
                let key = (u32_at(p, 16), u64_at(p, 0));
                r.images.entry(h).or_default().insert(key);
            }
            (_, Some(g)) if g == KTC && e.opcode == 36 => {
                let guid: [u8; 16] = p[12..28].try_into().unwrap();
                r.rsds
                    .insert((u32_at(p, 8), u64_at(p, 0)), Guid::from_bytes_le(guid));
            }
            (_, Some(g)) if g == KTC && e.opcode == 32 => {
                r.no_debug_record.insert((u32_at(p, 8), u64_at(p, 0)));
            }
            _ => {}
        }
    });
    Some(r)
}

#[test]
fn processes_and_image_loads_from_the_kernel_member() {
    let (Some(r), Some(t)) = (raw(), common::model_of("vs-dotnetcore31.diagsession")) else {
        return;
    };
    let set =
        |m: &HashMap<u16, HashSet<(u32, u64)>>, h: u16| m.get(&h).cloned().unwrap_or_default();

    // Processes: 223 in the start rundown (DCStart), 18 started during the
    // trace, 9 Defunct (exited, still referenced): 250. The end rundown
    // (DCStop, 223) and the 3 Stop events describe processes among those.
    let (dc_start, start, defunct) = (
        set(&r.processes, 0x0303),
        set(&r.processes, 0x0301),
        set(&r.processes, 0x0327),
    );
    assert_eq!((dc_start.len(), start.len(), defunct.len()), (223, 18, 9));
    let all: HashSet<_> = dc_start
        .iter()
        .chain(&start)
        .chain(&defunct)
        .copied()
        .collect();
    assert_eq!(all.len(), 250);
    assert!(set(&r.processes, 0x0304).is_subset(&all));
    assert!(set(&r.processes, 0x0302).is_subset(&start));
    assert_eq!(t.processes.len(), all.len());

    // Image loads: the start rundown (DCStart, 187: the System process's
    // drivers only), 87 loads during the trace, and the end rundown's
    // (DCStop) images not already counted (14,829 of 15,017): 15,103.
    let (dc_start, load, dc_end, unload) = (
        set(&r.images, 0x1403),
        set(&r.images, 0x030A),
        set(&r.images, 0x1404),
        set(&r.images, 0x1402),
    );
    assert_eq!(
        (dc_start.len(), load.len(), dc_end.len()),
        (187, 87, 15_017)
    );
    let loads: HashSet<_> = dc_start
        .iter()
        .chain(&load)
        .chain(&dc_end)
        .copied()
        .collect();
    assert_eq!(loads.len(), 187 + 87 + 14_829);
    // 57 of the 143 unloads are of images loaded before the trace began in
    // processes the start rundown did not list: no load, no image row.
    let unload_only: HashSet<_> = unload.difference(&loads).copied().collect();
    assert_eq!(unload_only.len(), 57);
    let model: HashSet<(u32, u64)> = (0..t.images.len())
        .map(|i| {
            (
                t.processes.pid[t.images.process[i] as usize],
                t.images.base[i],
            )
        })
        .collect();
    assert_eq!(t.images.len(), 15_103);
    assert_eq!(model, loads);
}

#[test]
fn pdb_identities_join_across_members() {
    let (Some(r), Some(t)) = (raw(), common::model_of("vs-dotnetcore31.diagsession")) else {
        return;
    };
    // The image events are in diaghub.kernel.1.etl, their DbgID_RSDS records
    // in diaghub.etl: 14,752 of the 15,103 images have one (same process and
    // base), 343 have KernelTraceControl's "no debug record" event (opcode
    // 32) instead, 8 have neither.
    let (mut with_pdb, mut none, mut neither) = (0, 0, 0);
    for i in 0..t.images.len() {
        let key = (
            t.processes.pid[t.images.process[i] as usize],
            t.images.base[i],
        );
        let ours = t.modules.pdb_guid[t.images.module[i] as usize];
        match r.rsds.get(&key) {
            Some(g) => {
                with_pdb += 1;
                assert_eq!(ours, Some(*g), "{key:x?}");
            }
            None if r.no_debug_record.contains(&key) => none += 1,
            None => neither += 1,
        }
    }
    assert_eq!((with_pdb, none, neither), (14_752, 343, 8));
    let ours = (0..t.images.len())
        .filter(|&i| t.modules.pdb_guid[t.images.module[i] as usize].is_some())
        .count();
    assert_eq!(ours, 14_752);
}
