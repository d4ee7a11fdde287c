//! Round trip: traces written by `etl::writer` read back through the reader
//! with every field and payload byte equal to what was written. The expected
//! values are the writer's inputs, so nothing here trusts either side's
//! interpretation of the format beyond "the same field comes back".

use etl::buffer::flags;
use etl::census::Census;
use etl::extended::ext_type;
use etl::writer::{
    ClassicHeader, EtlWriter, EventHeaderFields, ExtendedData, Header, InstanceInfo, KernelHeader,
    Record, WriterConfig,
};
use etl::{EtlFile, Event, Guid, HeaderType};
use std::collections::BTreeMap;
use std::io::Cursor;
use testdata::Rng;

/// Random events from the tests' one seeded PRNG.
trait RandomData {
    fn guid(&mut self) -> Guid;
}

impl RandomData for Rng {
    fn guid(&mut self) -> Guid {
        Guid::from_u128((self.next_u64() as u128) << 64 | self.next_u64() as u128)
    }
}

/// An event to write, owning its data.
#[derive(Clone, Debug)]
enum Kind {
    System(KernelHeader),
    Compact(KernelHeader),
    PerfInfo(KernelHeader),
    Full(ClassicHeader),
    Instance(ClassicHeader, InstanceInfo),
    Event {
        fields: EventHeaderFields<'static>,
        stack64: Option<Vec<u64>>,
        stack32: Option<Vec<u32>>,
        schema: Option<Vec<u8>>,
        related: Option<Guid>,
    },
}

#[derive(Clone, Debug)]
struct Spec {
    cpu: u16,
    ts: i64,
    kind: Kind,
    payload: Vec<u8>,
    pointer_size: Option<u8>,
}

impl Spec {
    fn ext_items(&self) -> Vec<ExtendedData<'_>> {
        let mut v = Vec::new();
        if let Kind::Event {
            stack64,
            stack32,
            schema,
            related,
            ..
        } = &self.kind
        {
            if let Some(g) = related {
                v.push(ExtendedData::RelatedActivityId(*g));
            }
            if let Some(s) = schema {
                v.push(ExtendedData::SchemaTl(s));
            }
            if let Some(f) = stack64 {
                v.push(ExtendedData::StackTrace64 {
                    match_id: 0,
                    frames: f,
                });
            }
            if let Some(f) = stack32 {
                v.push(ExtendedData::StackTrace32 {
                    match_id: 7,
                    frames: f,
                });
            }
        }
        v
    }

    fn write<W: std::io::Write + std::io::Seek>(&self, w: &mut EtlWriter<W>) {
        let items = self.ext_items();
        let header = match &self.kind {
            Kind::System(h) => Header::System(*h),
            Kind::Compact(h) => Header::Compact(*h),
            Kind::PerfInfo(h) => Header::PerfInfo(*h),
            Kind::Full(c) => Header::Full(*c),
            Kind::Instance(c, i) => Header::Instance(*c, *i),
            Kind::Event { fields, .. } => Header::Event(EventHeaderFields {
                extended: &items,
                ..*fields
            }),
        };
        let mut r = Record::new(self.ts, header, &self.payload);
        r.pointer_size = self.pointer_size;
        w.write(self.cpu, &r).unwrap();
    }

    fn check(&self, e: &Event<'_>, trace_ps: u8) {
        let ps = self.pointer_size.unwrap_or(trace_ps);
        let wide = ps == 8;
        let ctx = format!("{self:?} vs {e:?}");
        assert_eq!(e.timestamp, self.ts, "{ctx}");
        assert_eq!(e.cpu, self.cpu, "{ctx}");
        assert_eq!(e.payload, &self.payload[..], "{ctx}");
        assert_eq!(e.pointer_size, ps, "{ctx}");
        match &self.kind {
            Kind::System(h) | Kind::Compact(h) | Kind::PerfInfo(h) => {
                let want = match (&self.kind, wide) {
                    (Kind::System(_), false) => HeaderType::System32,
                    (Kind::System(_), true) => HeaderType::System64,
                    (Kind::Compact(_), false) => HeaderType::Compact32,
                    (Kind::Compact(_), true) => HeaderType::Compact64,
                    (_, false) => HeaderType::PerfInfo32,
                    (_, true) => HeaderType::PerfInfo64,
                };
                assert_eq!(e.header_type, want, "{ctx}");
                assert_eq!(e.hook_id, Some(h.hook_id), "{ctx}");
                assert_eq!(e.opcode, h.hook_id as u8, "{ctx}");
                if let Kind::PerfInfo(_) = self.kind {
                    assert_eq!(e.version, h.version & 0xFF, "{ctx}");
                    assert_eq!((e.pid, e.tid), (None, None), "{ctx}");
                } else {
                    assert_eq!(e.version, h.version, "{ctx}");
                    assert_eq!((e.pid, e.tid), (Some(h.pid), Some(h.tid)), "{ctx}");
                }
                assert_eq!(e.provider, None);
            }
            Kind::Full(c) | Kind::Instance(c, _) => {
                let want = match (&self.kind, wide) {
                    (Kind::Full(_), false) => HeaderType::Full32,
                    (Kind::Full(_), true) => HeaderType::Full64,
                    (_, false) => HeaderType::Instance32,
                    (_, true) => HeaderType::Instance64,
                };
                assert_eq!(e.header_type, want, "{ctx}");
                assert_eq!(e.provider, Some(c.guid), "{ctx}");
                assert_eq!(e.opcode, c.opcode, "{ctx}");
                assert_eq!(e.level, c.level, "{ctx}");
                assert_eq!(e.version, c.version, "{ctx}");
                assert_eq!((e.pid, e.tid), (Some(c.pid), Some(c.tid)), "{ctx}");
                assert_eq!(e.hook_id, None);
            }
            Kind::Event { fields: f, .. } => {
                let want = if wide {
                    HeaderType::EventHeader64
                } else {
                    HeaderType::EventHeader32
                };
                assert_eq!(e.header_type, want, "{ctx}");
                assert_eq!(e.provider, Some(f.provider), "{ctx}");
                assert_eq!(e.event_id, f.id, "{ctx}");
                assert_eq!(e.version, f.version as u16, "{ctx}");
                assert_eq!(e.channel, f.channel, "{ctx}");
                assert_eq!(e.level, f.level, "{ctx}");
                assert_eq!(e.opcode, f.opcode, "{ctx}");
                assert_eq!(e.task, f.task, "{ctx}");
                assert_eq!(e.keyword, f.keyword, "{ctx}");
                assert_eq!(e.activity_id, Some(f.activity_id), "{ctx}");
                assert_eq!((e.pid, e.tid), (Some(f.pid), Some(f.tid)), "{ctx}");
                let items = self.ext_items();
                assert_eq!(e.flags & 1 != 0, !items.is_empty(), "{ctx}");
                let got: Vec<_> = e.extended_items().collect();
                assert_eq!(got.len(), items.len(), "{ctx}");
                for (g, w) in got.iter().zip(&items) {
                    assert_eq!(g.ext_type, w.ext_type(), "{ctx}");
                    let mut data = Vec::new();
                    w.put_data(&mut data);
                    assert_eq!(g.data, &data[..], "{ctx}");
                    match w {
                        ExtendedData::StackTrace64 { frames, .. } => {
                            let f: Vec<u64> = g.stack_frames().unwrap().iter().collect();
                            assert_eq!(&f, frames);
                        }
                        ExtendedData::StackTrace32 { frames, match_id } => {
                            let f: Vec<u64> = g.stack_frames().unwrap().iter().collect();
                            let want: Vec<u64> = frames.iter().map(|&x| x as u64).collect();
                            assert_eq!(f, want);
                            assert_eq!(g.stack_match_id(), Some(*match_id));
                        }
                        _ => {}
                    }
                }
            }
        }
    }
}

fn random_spec(rng: &mut Rng, cpus: u16, ts: i64, max_payload: usize) -> Spec {
    let cpu = rng.below_u64(cpus as u64) as u16;
    let kh = |rng: &mut Rng| KernelHeader {
        hook_id: rng.next_u64() as u16,
        version: rng.below_u64(6) as u16,
        pid: rng.next_u64() as u32,
        tid: rng.next_u64() as u32,
    };
    let ch = |rng: &mut Rng| ClassicHeader {
        guid: rng.guid(),
        opcode: rng.next_u64() as u8,
        level: rng.below_u64(6) as u8,
        version: rng.below_u64(4) as u16,
        pid: rng.next_u64() as u32,
        tid: rng.next_u64() as u32,
    };
    let kind = match rng.below_u64(6) {
        0 => Kind::System(kh(rng)),
        1 => Kind::Compact(kh(rng)),
        2 => Kind::PerfInfo(kh(rng)),
        3 => Kind::Full(ch(rng)),
        4 => Kind::Instance(
            ch(rng),
            InstanceInfo {
                instance_id: rng.next_u64() as u32,
                parent_instance_id: rng.next_u64() as u32,
                parent_guid: rng.guid(),
            },
        ),
        _ => {
            let n64 = rng.below_u64(40) as usize;
            let n32 = rng.below_u64(40) as usize;
            let frames64: Vec<u64> = (0..n64).map(|_| rng.next_u64()).collect();
            let frames32: Vec<u32> = (0..n32).map(|_| rng.next_u64() as u32).collect();
            let schema_len = rng.below_u64(60) as usize;
            Kind::Event {
                fields: EventHeaderFields {
                    provider: rng.guid(),
                    id: rng.next_u64() as u16,
                    version: rng.next_u64() as u8,
                    channel: rng.next_u64() as u8,
                    level: rng.below_u64(6) as u8,
                    opcode: rng.next_u64() as u8,
                    task: rng.next_u64() as u16,
                    keyword: rng.next_u64(),
                    pid: rng.next_u64() as u32,
                    tid: rng.next_u64() as u32,
                    activity_id: rng.guid(),
                    ..Default::default()
                },
                stack64: (rng.below_u64(3) == 0).then_some(frames64),
                stack32: (rng.below_u64(4) == 0).then_some(frames32),
                schema: (rng.below_u64(4) == 0).then(|| rng.bytes(schema_len)),
                related: (rng.below_u64(4) == 0).then(|| rng.guid()),
            }
        }
    };
    let payload_len = match rng.below_u64(10) {
        0 => 0,
        1 => rng.below_u64(max_payload as u64) as usize,
        _ => rng.below_u64(64) as usize,
    };
    // Compressible payloads half of the time, so compressed buffers shrink.
    let payload = if rng.below_u64(2) == 0 {
        vec![rng.next_u64() as u8; payload_len]
    } else {
        rng.bytes(payload_len)
    };
    let pointer_size = match rng.below_u64(8) {
        0 => Some(4),
        1 => Some(8),
        _ => None,
    };
    Spec {
        cpu,
        ts,
        kind,
        payload,
        pointer_size,
    }
}

fn write_trace(config: &WriterConfig, specs: &[Spec]) -> Vec<u8> {
    let mut w = EtlWriter::new(Cursor::new(Vec::new()), config.clone()).unwrap();
    for s in specs {
        s.write(&mut w);
    }
    let (cur, summary) = w.finish().unwrap();
    let bytes = cur.into_inner();
    assert_eq!(summary.bytes, bytes.len() as u64);
    assert_eq!(summary.events, specs.len() as u64 + 1);
    bytes
}

/// Read the trace back and compare every event; returns the file.
fn read_and_check(config: &WriterConfig, specs: &[Spec], bytes: Vec<u8>) -> EtlFile {
    let file = EtlFile::from_bytes(bytes).unwrap();
    assert!(file.diagnostics().is_empty(), "{:?}", file.diagnostics());
    assert_eq!(file.skipped_buffers(), 0);
    let l = file.logfile().unwrap().clone();
    assert_eq!(l.pointer_size, config.pointer_size as u32);
    assert_eq!(l.number_of_processors, config.cpus as u32);
    assert_eq!(l.buffers_written as usize, file.buffers().len());
    assert_eq!(l.buffer_size, config.buffer_size);
    assert_eq!(l.perf_freq, config.perf_freq);
    assert_eq!(l.clock_type, 1);
    assert_eq!(l.is_compressed_mode(), config.compress);
    let max_ts = specs.iter().map(|s| s.ts).max().unwrap_or(config.ts0);
    assert_eq!(l.end_time, config.filetime_of(max_ts));
    assert_eq!(file.ts0(), config.ts0);

    // Buffer layout.
    let raw = file.raw_bytes().to_vec();
    for (i, b) in file.buffers().iter().enumerate() {
        let h = &b.header;
        assert_eq!(h.flags & flags::PROCESSOR_INDEX, flags::PROCESSOR_INDEX);
        assert_eq!(h.saved_offset % 8, 0);
        if i == 0 {
            assert_eq!(h.buffer_type, 4);
            assert!(!h.is_compressed());
            continue;
        }
        assert_eq!(h.buffer_type, 0);
        assert_eq!(h.is_compressed(), config.compress);
        if config.compress {
            assert_eq!(b.data_range().len() + 0x48, h.buffer_size as usize);
        } else {
            assert_eq!(h.buffer_size, config.buffer_size);
            let start = b.offset as usize + h.saved_offset as usize;
            let end = b.offset as usize + h.buffer_size as usize;
            assert!(raw[start..end].iter().all(|&x| x == 0xFF));
        }
    }

    // Every event, per CPU in file order = write order.
    let mut per_cpu: BTreeMap<u16, Vec<&Spec>> = BTreeMap::new();
    for s in specs {
        per_cpu.entry(s.cpu).or_default().push(s);
    }
    let mut next: BTreeMap<u16, usize> = BTreeMap::new();
    let mut scratch = Vec::new();
    let mut seen = 0usize;
    for info in file.buffers().iter().skip(1) {
        let data = file.buffer_data(info, &mut scratch).unwrap();
        let buf = etl::BufferData { info, data };
        for e in buf.events() {
            let e = e.unwrap();
            let k = next.entry(e.cpu).or_default();
            let want = per_cpu[&e.cpu][*k];
            want.check(&e, config.pointer_size);
            *k += 1;
            seen += 1;
        }
    }
    assert_eq!(seen, specs.len());

    // The time-ordered merge yields everything, sorted.
    let mut last = i64::MIN;
    let mut n = 0;
    let diags = file.for_each_event_in_order(|e| {
        assert!(e.timestamp >= last);
        last = e.timestamp;
        n += 1;
    });
    assert!(diags.is_empty());
    assert_eq!(n, specs.len() + 1);
    file
}

fn check_census(file: &EtlFile, config: &WriterConfig, specs: &[Spec]) {
    let c = Census::of(file);
    assert!(c.errors.is_empty(), "{:?}", c.errors);
    assert_eq!(c.events, specs.len() as u64 + 1);
    assert_eq!(c.buffers as usize, file.buffers().len());
    let data_buffers = file.buffers().len() as u32 - 1;
    assert_eq!(
        c.compressed_buffers,
        if config.compress { data_buffers } else { 0 }
    );
    let mut hooks: BTreeMap<u16, u64> = BTreeMap::new();
    let mut providers: BTreeMap<Guid, u64> = BTreeMap::new();
    hooks.insert(0, 1); // the log-file header event
    for s in specs {
        match &s.kind {
            Kind::System(h) | Kind::Compact(h) | Kind::PerfInfo(h) => {
                *hooks.entry(h.hook_id).or_default() += 1
            }
            Kind::Full(c) | Kind::Instance(c, _) => *providers.entry(c.guid).or_default() += 1,
            Kind::Event { fields, .. } => *providers.entry(fields.provider).or_default() += 1,
        }
    }
    assert_eq!(c.kernel_hooks, hooks);
    assert_eq!(c.providers, providers);
}

fn config(pointer_size: u8, compress: bool, cpus: u16, buffer_size: u32) -> WriterConfig {
    WriterConfig {
        pointer_size,
        compress,
        cpus,
        buffer_size,
        ..WriterConfig::default()
    }
}

#[test]
fn every_kind_round_trips_for_both_pointer_sizes_compressed_or_not() {
    for ps in [4u8, 8] {
        for compress in [false, true] {
            let cfg = config(ps, compress, 4, 8192);
            let mut rng = Rng::new(0x5eed_0000 + ps as u64 + compress as u64);
            let mut ts = cfg.ts0;
            let specs: Vec<Spec> = (0..3000)
                .map(|_| {
                    ts += rng.below_u64(1000) as i64;
                    random_spec(&mut rng, cfg.cpus, ts, 3000)
                })
                .collect();
            let bytes = write_trace(&cfg, &specs);
            // Same input, same bytes.
            assert_eq!(bytes, write_trace(&cfg, &specs));
            let file = read_and_check(&cfg, &specs, bytes);
            // Thousands of events in 8 KiB buffers: many cross into the next buffer.
            assert!(file.buffers().len() > 40, "{}", file.buffers().len());
            check_census(&file, &cfg, &specs);
        }
    }
}

#[test]
fn events_fill_buffers_exactly_and_spill_into_the_next() {
    for ps in [4u8, 8] {
        for compress in [false, true] {
            // 4104 - 0x48 = 4032: two 8-aligned halves of 2016 bytes.
            let cfg = config(ps, compress, 1, 4104);
            let cap = 4104 - 0x48;
            // Two events of exactly half the event area, then a third that
            // must go to a new buffer; then one event filling a whole buffer.
            let half = cap / 2 - 0x10;
            let full = cap - 0x10;
            let specs: Vec<Spec> = [half, half, 8, full, 1]
                .iter()
                .enumerate()
                .map(|(i, &n)| Spec {
                    cpu: 0,
                    ts: cfg.ts0 + i as i64,
                    kind: Kind::PerfInfo(KernelHeader {
                        hook_id: 0x0F2E,
                        version: 2,
                        pid: 0,
                        tid: 0,
                    }),
                    payload: vec![i as u8; n],
                    pointer_size: None,
                })
                .collect();
            let bytes = write_trace(&cfg, &specs);
            let file = read_and_check(&cfg, &specs, bytes);
            // header + [half, half] + [8] + [full] + [1]
            assert_eq!(file.buffers().len(), 5);
            assert_eq!(file.buffers()[1].header.saved_offset, 4104);
        }
    }
}

#[test]
fn oversized_events_and_bad_cpus_are_errors() {
    let cfg = config(8, false, 2, 4096);
    let mut w = EtlWriter::new(Cursor::new(Vec::new()), cfg).unwrap();
    let big = vec![0u8; 5000];
    let h = KernelHeader::default();
    assert!(w.write(0, &Record::system(1, h, &big)).is_err());
    assert!(w.write(2, &Record::system(1, h, &[])).is_err());
    assert!(w
        .write(0, &Record::system(1, h, &[]).with_pointer_size(5))
        .is_err());
    w.write(1, &Record::system(1, h, &[1, 2, 3])).unwrap();
    let (cur, s) = w.finish().unwrap();
    assert_eq!(s.events, 2);
    let file = EtlFile::from_bytes(cur.into_inner()).unwrap();
    assert_eq!(Census::of(&file).events, 2);
    assert!(WriterConfig {
        pointer_size: 6,
        ..WriterConfig::default()
    }
    .validate()
    .is_err());
}

#[test]
fn property_random_mixes_round_trip() {
    let mut meta = Rng::new(0xC0FF_EE00_1234);
    for round in 0..24 {
        let ps = if meta.below_u64(2) == 0 { 4 } else { 8 };
        let compress = meta.below_u64(2) == 0;
        let cpus = 1 + meta.below_u64(8) as u16;
        let buffer_size = 1024 * (1 + meta.below_u64(16) as u32);
        let cfg = config(ps, compress, cpus, buffer_size);
        let n = meta.below_u64(2000) as usize;
        let mut rng = Rng::new(meta.next_u64() | 1);
        let mut ts = cfg.ts0;
        let max_payload = (buffer_size as usize - 0x48 - 0x50 - 800).min(4000);
        let specs: Vec<Spec> = (0..n)
            .map(|_| {
                ts += rng.below_u64(50) as i64;
                random_spec(&mut rng, cpus, ts, max_payload)
            })
            .collect();
        let bytes = write_trace(&cfg, &specs);
        let file = read_and_check(&cfg, &specs, bytes);
        check_census(&file, &cfg, &specs);
        let _ = round;
    }
}

#[test]
fn extended_item_kinds_read_back_by_type() {
    let cfg = config(8, false, 1, 65536);
    let frames = [0xFFFF_F800_0000_1000u64, 0x7FF6_0000_2000];
    let frames32 = [0x7700_1000u32, 0x0040_1000];
    let related = Guid::parse("11111111-2222-3333-4444-555555555555").unwrap();
    let schema = [8u8, 0, 0, b'E', b'v', 0, 0, 0];
    let items = [
        ExtendedData::RelatedActivityId(related),
        ExtendedData::StackTrace64 {
            match_id: 0,
            frames: &frames,
        },
        ExtendedData::StackTrace32 {
            match_id: 3,
            frames: &frames32,
        },
        ExtendedData::SchemaTl(&schema),
    ];
    let fields = EventHeaderFields {
        provider: Guid::parse("edd08927-9cc4-4e65-b970-c2560fb5c289").unwrap(),
        id: 12,
        extended: &items,
        ..Default::default()
    };
    let mut w = EtlWriter::new(Cursor::new(Vec::new()), cfg.clone()).unwrap();
    w.write(0, &Record::event(cfg.ts0 + 5, fields, b"payload"))
        .unwrap();
    let (cur, _) = w.finish().unwrap();
    let file = EtlFile::from_bytes(cur.into_inner()).unwrap();
    let mut scratch = Vec::new();
    let info = file.buffers()[1];
    let data = file.buffer_data(&info, &mut scratch).unwrap();
    let e = etl::BufferData { info: &info, data }
        .events()
        .next()
        .unwrap()
        .unwrap();
    assert_eq!(e.payload, b"payload");
    let got: Vec<_> = e.extended_items().map(|i| i.ext_type).collect();
    assert_eq!(
        got,
        [
            ext_type::RELATED_ACTIVITYID,
            ext_type::STACK_TRACE64,
            ext_type::STACK_TRACE32,
            ext_type::EVENT_SCHEMA_TL
        ]
    );
    let it: Vec<_> = e.extended_items().collect();
    assert_eq!(it[0].data, related.to_bytes_le());
    assert_eq!(
        it[1].stack_frames().unwrap().iter().collect::<Vec<_>>(),
        frames
    );
    assert_eq!(it[3].data, schema);
}
