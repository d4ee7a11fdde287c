//! The reader against the real traces in `../shared/traces/`, with expected
//! values derived independently of this crate: the Python reference decoder
//! (`python3 tests/reference/etl_census.py`, see `expected/mod.rs`), the
//! PyPI peer `etl-parser` where it agrees, the anchors of issue 2, and a hand
//! decode of the log-file header with `xxd`.

mod common;
mod expected;

use common::{real_trace, real_traces_dir};
use etl::census::Census;
use etl::{EtlFile, HeaderType};
use expected::{Expected, TRACES};
use std::collections::{BTreeMap, HashSet};

type Counts = BTreeMap<String, u64>;

fn open(e: &Expected) -> Option<EtlFile> {
    let dir = real_traces_dir()?;
    let path = real_trace(&dir, e.file);
    Some(EtlFile::open(&path).unwrap_or_else(|err| panic!("{}: {err}", e.file)))
}

fn add(m: &mut Counts, k: String, v: u64) {
    *m.entry(k).or_default() += v;
}

/// Counts gathered from the event views themselves, per buffer then merged.
#[derive(Default)]
struct EventCounts {
    header_types: Counts,
    /// "header_type hook".
    hooks_by_header: Counts,
    /// "guid opcode" for full/instance headers.
    provider_opcodes: Counts,
    /// "guid id" for EventHeader events.
    provider_event_ids: Counts,
    header_buffer_events: u64,
}

fn count_events(file: &EtlFile) -> EventCounts {
    let parts = file.par_map_buffers(|r| {
        let b = r.expect("buffer decodes");
        let mut c = EventCounts::default();
        for ev in b.events() {
            let ev = ev.expect("event walks");
            if b.info.index == 0 {
                c.header_buffer_events += 1;
            }
            let ty = ev.header_type.name();
            add(&mut c.header_types, ty.to_string(), 1);
            if let Some(h) = ev.hook_id {
                add(&mut c.hooks_by_header, format!("{ty} {h:#06x}"), 1);
            } else {
                let g = ev.provider.expect("non-kernel events have a provider");
                match ev.header_type {
                    HeaderType::EventHeader32 | HeaderType::EventHeader64 => {
                        add(&mut c.provider_event_ids, format!("{g} {}", ev.event_id), 1)
                    }
                    _ => add(&mut c.provider_opcodes, format!("{g} {}", ev.opcode), 1),
                }
            }
        }
        c
    });
    let mut all = EventCounts::default();
    for p in parts {
        for (dst, src) in [
            (&mut all.header_types, p.header_types),
            (&mut all.hooks_by_header, p.hooks_by_header),
            (&mut all.provider_opcodes, p.provider_opcodes),
            (&mut all.provider_event_ids, p.provider_event_ids),
        ] {
            for (k, v) in src {
                add(dst, k, v);
            }
        }
        all.header_buffer_events += p.header_buffer_events;
    }
    all
}

#[test]
fn census_matches_the_reference_decoder() {
    for e in TRACES {
        let Some(file) = open(e) else { return };
        let c = Census::of(&file);
        let f = e.file;
        assert_eq!(c.skipped_buffers, 0, "{f}: skipped buffers");
        assert!(c.errors.is_empty(), "{f}: errors {:?}", c.errors);
        assert_eq!(c.buffers, e.buffers, "{f}: buffers");
        assert_eq!(
            c.compressed_buffers, e.compressed_buffers,
            "{f}: compressed"
        );
        assert_eq!(c.events, e.events, "{f}: events");
        assert_eq!(c.min_timestamp, Some(e.min_timestamp), "{f}: min ts");
        assert_eq!(c.max_timestamp, Some(e.max_timestamp), "{f}: max ts");

        let want_types: Counts = e
            .header_types
            .iter()
            .map(|(t, n)| (t.to_string(), *n))
            .collect();
        let got_types: Counts = c
            .header_types
            .iter()
            .map(|(t, n)| (t.to_string(), *n))
            .collect();
        assert_eq!(got_types, want_types, "{f}: header types");

        let mut want_hooks = Counts::new();
        for (_, h, n) in e.kernel_hooks {
            add(&mut want_hooks, format!("{h:#06x}"), *n);
        }
        let got_hooks: Counts = c
            .kernel_hooks
            .iter()
            .map(|(h, n)| (format!("{h:#06x}"), *n))
            .collect();
        assert_eq!(got_hooks, want_hooks, "{f}: kernel hooks");

        let mut want_providers = Counts::new();
        let mut want_ids = Counts::new();
        for (g, id, n) in e.provider_opcodes.iter().chain(e.provider_event_ids) {
            add(&mut want_providers, g.to_string(), *n);
            add(&mut want_ids, format!("{g} {id}"), *n);
        }
        let got_providers: Counts = c
            .providers
            .iter()
            .map(|(g, n)| (g.to_string(), *n))
            .collect();
        assert_eq!(got_providers, want_providers, "{f}: providers");
        let got_ids: Counts = c
            .provider_ids
            .iter()
            .map(|((g, id), n)| (format!("{g} {id}"), *n))
            .collect();
        assert_eq!(got_ids, want_ids, "{f}: provider ids");
    }
}

/// The same counts taken from the event views, split the way the reference
/// splits them: hooks per header type, opcodes of classic headers apart from
/// event ids of EventHeader events.
#[test]
fn event_views_match_the_reference_decoder() {
    for e in TRACES {
        let Some(file) = open(e) else { return };
        let got = count_events(&file);
        let f = e.file;
        let want_hooks: Counts = e
            .kernel_hooks
            .iter()
            .map(|(t, h, n)| (format!("{t} {h:#06x}"), *n))
            .collect();
        assert_eq!(got.hooks_by_header, want_hooks, "{f}: hooks by header");
        let want_ops: Counts = e
            .provider_opcodes
            .iter()
            .map(|(g, op, n)| (format!("{g} {op}"), *n))
            .collect();
        assert_eq!(got.provider_opcodes, want_ops, "{f}: opcodes");
        let want_ids: Counts = e
            .provider_event_ids
            .iter()
            .map(|(g, id, n)| (format!("{g} {id}"), *n))
            .collect();
        assert_eq!(got.provider_event_ids, want_ids, "{f}: event ids");
        assert_eq!(
            got.header_buffer_events, e.header_buffer_events,
            "{f}: header buffer events"
        );
    }
}

/// The anchors stated in issue 2 (and in ../shared/traces/README.md), kept
/// literally so they do not depend on the generated table.
#[test]
fn issue_anchors() {
    let Some(dir) = real_traces_dir() else { return };
    let x64 = EtlFile::open(&real_trace(&dir, "perfview-net452-x64.etl")).unwrap();
    let c = Census::of(&x64);
    assert_eq!((c.buffers, c.compressed_buffers), (360, 359));
    assert_eq!(c.events, 179_474);
    assert_eq!(c.kernel_hooks.get(&0x0f2e), Some(&79_528));
    let ktc = etl::Guid::parse("b3e675d7-2554-4f18-830b-2762732560de").unwrap();
    let op = |o: u16| c.provider_ids.get(&(ktc, o)).copied();
    assert_eq!(
        (op(0), op(36), op(64)),
        (Some(3_590), Some(3_534), Some(705))
    );

    let shut = EtlFile::open(&real_trace(&dir, "shutdown-perfdiag-kernel.etl")).unwrap();
    let c = Census::of(&shut);
    assert_eq!((c.buffers, c.compressed_buffers, c.events), (49, 0, 17_078));
    assert_eq!(c.kernel_hooks.get(&0x1403), Some(&6_745));
    let got = count_events(&shut);
    assert_eq!(got.hooks_by_header.get("perfinfo64 0x1403"), Some(&6_549));
    assert_eq!(got.hooks_by_header.get("system64 0x1403"), Some(&196));
}

/// TRACE_LOGFILE_HEADER fields decoded by hand with `xxd` on each file. The
/// header event is a 0x20-byte system header at 0x48, so the log-file header
/// starts at file offset 0x68: NumberOfProcessors u32 @0x74, BuffersWritten
/// u32 @0x8c, PointerSize u32 @0x94, EventsLost u32 @0x98 (3 in
/// amsi-manifest.etl: `00000098: 0300 0000`, 0 elsewhere); with P = 8, BootTime @0x160, PerfFreq
/// i64 @0x168, StartTime FILETIME @0x170, ReservedFlags (clock type) @0x178.
/// E.g. shutdown-perfdiag-kernel.etl:
///   00000074: 0200 0000            -> 2 CPUs
///   0000008c: 3100 0000            -> 49 buffers written
///   00000094: 0800 0000            -> pointer size 8
///   00000160: c0e6 7bfc 15ee d501 8096 9800 0000 0000  -> PerfFreq 10,000,000
///   00000170: 9e38 a1fc 15ee d501 0100 0000 ...        -> StartTime, clock 1
/// ISO strings: FILETIME converted with Python's datetime (truncated to µs).
#[test]
fn logfile_header_matches_hand_decode() {
    // (file, cpus, buffers written, pointer size, StartTime FILETIME, ISO)
    // PerfFreq is 10 MHz in these; the Windows 7 and Windows 10 16299 files
    // below have their machine's QPC frequency instead.
    const HAND: &[(&str, u32, u32, u32, i64, &str)] = &[
        (
            "amsi-manifest.etl",
            8,
            6,
            8,
            0x01d5_e590_8e63_0582,
            "2020-02-17T12:48:30.420313Z",
        ),
        (
            "lxcore-manifest.etl",
            6,
            3,
            8,
            0x01d6_59d6_ee63_9ce3,
            "2020-07-14T12:04:31.138736Z",
        ),
        (
            "perfview-gcevents.etl",
            8,
            5,
            8,
            0x01d9_560e_6e76_bcf5,
            "2023-03-14T00:46:36.694654Z",
        ),
        (
            "perfview-net452-x64.etl",
            8,
            360,
            8,
            0x01d6_653c_2e7a_9207,
            "2020-07-29T00:07:00.623616Z",
        ),
        (
            "perfview-primitive-types.etl",
            8,
            2,
            8,
            0x01d7_a58b_4c39_47ce,
            "2021-09-09T14:59:32.857851Z",
        ),
        (
            "perfview-selfdescribing-single.etl",
            12,
            3,
            8,
            0x01d8_54fd_67d2_4603,
            "2022-04-20T21:27:15.272243Z",
        ),
        (
            "shutdown-perfdiag-kernel.etl",
            2,
            49,
            8,
            0x01d5_ee15_fca1_389e,
            "2020-02-28T09:03:47.744579Z",
        ),
    ];
    // (file, cpus, buffers written, pointer size, StartTime, ISO, PerfFreq),
    // with P = 4 the BootTime/PerfFreq/StartTime block sits 8 bytes earlier:
    //   perfmon-win7-kernel-process.etl  00000074: 0200 0000 (2 CPUs)
    //     0000008c: b600 0000 (182)  00000094: 0800 0000 (P=8)
    //     00000168: PerfFreq `0832 2000` = 2,109,960; 00000170: StartTime
    //   sawbuck-win7-*.etl  00000074: 1000 0000 (16 CPUs)
    //     0000008c: 0300 0000 (3)  00000094: 0400 0000 (P=4)
    //     00000160: PerfFreq `9dac 2300` = 2,337,949; 00000168: StartTime
    //   ndf-eventlog-win10.etl  00000074: 0800 0000 (8)
    //     0000008c: 0600 0000 (6)  00000094: 0800 0000 (P=8)
    //     00000168: PerfFreq `fa9c 3500` = 3,513,594
    const HAND_QPC: &[(&str, u32, u32, u32, i64, &str, i64)] = &[
        (
            "ndf-eventlog-win10.etl",
            8,
            6,
            8,
            0x01d3_cff7_641c_3925,
            "2018-04-09T11:39:16.731933Z",
            3_513_594,
        ),
        (
            "perfmon-win7-kernel-process.etl",
            2,
            182,
            8,
            0x01cb_779c_9448_d78a,
            "2010-10-29T19:07:49.659636Z",
            2_109_960,
        ),
        (
            "sawbuck-win7-image-64bit.etl",
            16,
            3,
            4,
            0x01cc_08c8_66cc_331b,
            "2011-05-02T12:56:49.804162Z",
            2_337_949,
        ),
        (
            "sawbuck-win7-process-32bit.etl",
            16,
            3,
            4,
            0x01cc_08c8_69ed_2e36,
            "2011-05-02T12:56:55.053471Z",
            2_337_949,
        ),
    ];
    let Some(dir) = real_traces_dir() else { return };
    let all = HAND
        .iter()
        .map(|&(n, c, w, p, s, i)| (n, c, w, p, s, i, 10_000_000))
        .chain(HAND_QPC.iter().copied());
    for (name, cpus, written, ptr, start, iso, freq) in all {
        let file = EtlFile::open(&real_trace(&dir, name)).unwrap();
        let l = file.logfile().expect("log-file header");
        assert_eq!(l.number_of_processors, cpus, "{name}: cpus");
        assert_eq!(l.buffers_written, written, "{name}: BuffersWritten");
        assert_eq!(file.buffers().len() as u32, written, "{name}: buffer count");
        assert_eq!(l.pointer_size, ptr, "{name}: pointer size");
        assert_eq!(l.perf_freq, freq, "{name}: PerfFreq");
        assert_eq!(l.clock_type, 1, "{name}: clock type (QPC)");
        assert_eq!(l.start_time, start, "{name}: StartTime");
        assert_eq!(
            etl::logfile::filetime_to_iso8601(l.start_time),
            iso,
            "{name}"
        );
        assert_eq!(
            file.ticks_per_second(),
            freq as f64,
            "{name}: ticks per second"
        );
        let lost = if name == "amsi-manifest.etl" { 3 } else { 0 };
        assert_eq!(l.events_lost, lost, "{name}: EventsLost");
        assert_eq!(l.buffers_lost, 0, "{name}: BuffersLost");
    }
}

#[test]
fn ordered_iteration_yields_every_event_once_in_time_order() {
    for e in TRACES {
        let Some(file) = open(e) else { return };
        let f = e.file;
        let mut seen = HashSet::new();
        let mut last = i64::MIN;
        let mut out_of_order = 0u64;
        let diags = file.for_each_event_in_order(|ev| {
            assert!(
                seen.insert((ev.buffer_index, ev.offset_in_buffer)),
                "{f}: event at buffer {} +{:#x} yielded twice",
                ev.buffer_index,
                ev.offset_in_buffer
            );
            if ev.timestamp < last {
                out_of_order += 1;
            }
            last = ev.timestamp;
        });
        assert!(diags.is_empty(), "{f}: {diags:?}");
        assert_eq!(seen.len() as u64, e.events, "{f}: events yielded");
        assert_eq!(out_of_order, 0, "{f}: events out of timestamp order");
        assert_eq!(file.ts0(), e.min_timestamp, "{f}: ts0 is the first event");
    }
}

/// Each buffer's events, 8-aligned and back to back, end exactly where the
/// buffer says: SavedOffset (u32 at 0x04) for compressed buffers, FilledBytes
/// (u32 at 0x30, as dissect.etl reads it) for the others, read here from the
/// raw bytes (the reference decoder finds the same for every buffer).
#[test]
fn event_walk_ends_exactly_where_the_buffer_says() {
    for e in TRACES {
        let Some(file) = open(e) else { return };
        let f = e.file;
        let raw = file.raw_bytes();
        let u32_at = |o: usize| u32::from_le_bytes(raw[o..o + 4].try_into().unwrap()) as usize;
        let bad = file.par_map_buffers(|r| {
            let b = r.expect("buffer decodes");
            let at = b.info.offset as usize;
            let end = if b.info.header.is_compressed() {
                u32_at(at + 0x04)
            } else {
                u32_at(at + 0x30)
            };
            let want = end - 0x48;
            if b.data.len() != want {
                return Some(format!(
                    "buffer {}: {} data bytes",
                    b.info.index,
                    b.data.len()
                ));
            }
            let base = b.data.as_ptr() as usize;
            let mut next = 0usize;
            for ev in b.events() {
                let ev = ev.expect("event walks");
                let start = ev.offset_in_buffer as usize;
                if start != next {
                    return Some(format!(
                        "buffer {}: event at {start:#x}, expected {next:#x}",
                        b.info.index
                    ));
                }
                let end = ev.payload.as_ptr() as usize - base + ev.payload.len();
                next = (end + 7) & !7;
            }
            (next != want).then(|| {
                format!(
                    "buffer {}: walk ends at {next:#x} of {want:#x}",
                    b.info.index
                )
            })
        });
        let bad: Vec<_> = bad.into_iter().flatten().collect();
        assert!(bad.is_empty(), "{f}: {bad:?}");
    }
}

/// Every event's other header fields (pid, tid, version, level, task,
/// keyword, opcode, event id), its CPU, its extended item types and its
/// payload bytes, summed / CRC'd in file order, equal the reference's.
#[test]
fn event_fields_and_payloads_match_the_reference_decoder() {
    for e in TRACES {
        let Some(file) = open(e) else { return };
        let f = e.file;
        let w = &e.digest;
        let mut cpus = BTreeMap::new();
        let mut ext = BTreeMap::new();
        let (mut pid, mut tid, mut version, mut level) = (0u64, 0u64, 0u64, 0u64);
        let (mut task, mut keyword, mut opcode, mut event_id) = (0u64, 0u64, 0u64, 0u64);
        let mut bytes = 0u64;
        let mut crc = crc32fast::Hasher::new();
        let mut scratch = Vec::new();
        for info in file.buffers() {
            let data = file.buffer_data(info, &mut scratch).unwrap();
            let b = etl::BufferData { info, data };
            for ev in b.events() {
                let ev = ev.unwrap();
                *cpus.entry(ev.cpu).or_insert(0u64) += 1;
                pid = pid.wrapping_add(ev.pid.unwrap_or(0).into());
                tid = tid.wrapping_add(ev.tid.unwrap_or(0).into());
                version = version.wrapping_add(ev.version.into());
                level = level.wrapping_add(ev.level.into());
                task = task.wrapping_add(ev.task.into());
                keyword ^= ev.keyword;
                opcode = opcode.wrapping_add(ev.opcode.into());
                event_id = event_id.wrapping_add(ev.event_id.into());
                for item in ev.extended_items() {
                    *ext.entry(item.ext_type).or_insert(0u64) += 1;
                }
                bytes += ev.payload.len() as u64;
                crc.update(ev.payload);
            }
        }
        let want_cpus: BTreeMap<u16, u64> = w.events_per_cpu.iter().copied().collect();
        assert_eq!(cpus, want_cpus, "{f}: events per cpu");
        let want_ext: BTreeMap<u16, u64> = w.extended_items.iter().copied().collect();
        assert_eq!(ext, want_ext, "{f}: extended items");
        assert_eq!((pid, tid), (w.pid_sum, w.tid_sum), "{f}: pid, tid sums");
        assert_eq!(
            (version, level, task),
            (w.version_sum, w.level_sum, w.task_sum),
            "{f}: version, level, task sums"
        );
        assert_eq!(keyword, w.keyword_xor, "{f}: keyword xor");
        assert_eq!(
            (opcode, event_id),
            (w.opcode_sum, w.event_id_sum),
            "{f}: opcode, event id sums"
        );
        assert_eq!(bytes, w.payload_bytes, "{f}: payload bytes");
        assert_eq!(crc.finalize(), w.payload_crc32, "{f}: payload CRC-32");
    }
}
