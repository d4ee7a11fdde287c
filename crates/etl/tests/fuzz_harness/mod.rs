//! What each `cargo fuzz` target does with its input. Shared (by `#[path]`)
//! between the fuzz targets in `fuzz/` and `tests/fuzz_regressions.rs`, so a
//! committed regression input replays exactly the code path that failed.
//!
//! Each function must end normally for every input: a panic, hang or
//! unbounded allocation is a bug in the reader.

#![allow(dead_code)]

use etl::census::Census;
use etl::container::{self, ZipLimits};
use etl::walk::{parse_event, BufferEvents};
use etl::{EtlFile, Event, HeaderType};
use std::hint::black_box;

/// Largest output size the `xca` target asks for.
pub const XCA_MAX_OUTPUT: usize = 1 << 20;

/// Every header type byte the reader knows.
pub const HEADER_TYPES: [u8; 13] = [
    0x01, 0x02, 0x03, 0x04, 0x0A, 0x0B, 0x0F, 0x10, 0x11, 0x12, 0x13, 0x14, 0x15,
];

/// Read every field of an event, its extended items and stack frames, so that
/// lazy accessors run too. Returns a checksum to keep the work observable.
pub fn touch_event(e: &Event<'_>) -> u64 {
    let mut h = e.timestamp as u64 ^ u64::from(e.cpu) ^ e.keyword;
    h ^= u64::from(e.pid.unwrap_or(0)) ^ u64::from(e.tid.unwrap_or(0));
    h ^= u64::from(e.hook_id.unwrap_or(0)) ^ u64::from(e.event_id) ^ u64::from(e.opcode);
    h ^= u64::from(e.version) ^ u64::from(e.level) ^ u64::from(e.task) ^ u64::from(e.flags);
    h ^= u64::from(e.pointer_size) ^ u64::from(e.channel) ^ u64::from(e.offset_in_buffer);
    h ^= e.provider.map_or(0, |g| g.to_string().len() as u64);
    h ^= e.activity_id.map_or(0, |g| g.to_string().len() as u64);
    h ^= e.payload.iter().map(|&b| u64::from(b)).sum::<u64>();
    h ^= u64::from(e.group().unwrap_or(0));
    for item in e.extended_items() {
        h ^= u64::from(item.ext_type) ^ item.data.len() as u64;
        h ^= item.stack_match_id().unwrap_or(0);
        if let Some(frames) = item.stack_frames() {
            h ^= frames.len() as u64;
            h ^= frames.iter().fold(0, |a, f| a ^ f);
            h ^= frames.get(0).unwrap_or(0) ^ frames.get(frames.len()).unwrap_or(0);
        }
    }
    h
}

/// `etl_file`: bytes -> EtlFile -> Census -> every event in time order -> log-file header.
pub fn etl_file(data: &[u8]) {
    let Ok(file) = EtlFile::from_bytes(data.to_vec()) else {
        return;
    };
    let census = Census::of(&file);
    let len = file.file_len();
    for d in file.diagnostics().iter().chain(&census.errors) {
        assert!(d.offset <= len, "diagnostic offset past the file: {d}");
    }
    black_box(census.duration_s(&file));
    let mut ordered = 0u64;
    let mut sum = 0u64;
    let diags = file.for_each_event_in_order(|e| {
        ordered += 1;
        sum ^= touch_event(e);
    });
    for d in &diags {
        assert!(d.offset <= len, "diagnostic offset past the file: {d}");
    }
    black_box(sum);
    // The census and the ordered merge walk the same buffers with the same
    // walker and stop at the same damage, so they must count the same events.
    assert_eq!(census.events, ordered, "census and ordered merge disagree");
    if let Some(l) = file.logfile() {
        black_box(l.ticks_per_second());
        black_box(etl::logfile::filetime_to_iso8601(l.start_time));
        black_box(etl::logfile::filetime_to_iso8601(l.end_time));
        black_box(etl::logfile::filetime_to_iso8601(l.boot_time));
    }
    black_box(etl::LogfileHeader::parse(data));
}

/// `buffer_events`: bytes as one decompressed event area, walked to the end;
/// then the same bytes decoded as one event of each header type.
pub fn buffer_events(data: &[u8]) {
    let mut sum = 0u64;
    let mut last_pos = 0usize;
    let mut it = BufferEvents::new(data, 3, 1);
    while let Some(r) = it.next() {
        match r {
            Ok(e) => {
                sum ^= touch_event(&e);
                assert!(it.position() > last_pos, "walker did not advance");
                last_pos = it.position();
            }
            Err(w) => {
                assert!(w.offset <= data.len(), "error offset past the data");
                sum ^= w.message.len() as u64;
            }
        }
    }
    for b in HEADER_TYPES {
        let Some(ht) = HeaderType::from_byte(b) else {
            continue;
        };
        if let Ok(e) = parse_event(data, ht, 0, 0, 0) {
            sum ^= touch_event(&e);
        }
    }
    black_box(sum);
}

/// `xca`: the first 4 bytes choose the output size (at most 1 MiB), the rest
/// is compressed input.
pub fn xca(data: &[u8]) {
    let (size, input) = match data {
        [a, b, c, d, rest @ ..] => (
            u32::from_le_bytes([*a, *b, *c, *d]) as usize % (XCA_MAX_OUTPUT + 1),
            rest,
        ),
        _ => (0, data),
    };
    let mut out = vec![0u8; size];
    match etl::xca::decompress(input, &mut out) {
        Ok(n) => {
            assert!(n <= size, "decompressor reports more output than room");
            // Differential check against the spec's byte-at-a-time loop.
            let mut reference = vec![0u8; size];
            let m = xca_reference(input, &mut reference);
            assert!(
                m >= n,
                "reference decoder stopped at {m}, the fast one made {n}"
            );
            assert!(
                out[..n] == reference[..n],
                "output differs from the reference"
            );
        }
        Err(e) => {
            assert!(
                e.input_offset <= input.len() + 8,
                "error offset far past input"
            );
            black_box(e.to_string());
        }
    }
}

/// `container`: bytes behind a zip local-file signature -> .etl extraction
/// (the largest member, then every member of a multi-file trace), with the
/// default and with tight limits, then the file as a whole.
pub fn container(data: &[u8]) {
    let mut bytes = b"PK\x03\x04".to_vec();
    bytes.extend_from_slice(data);
    let tight = ZipLimits {
        max_uncompressed: 1 << 20,
        max_ratio: 10,
    };
    for limits in [ZipLimits::default(), tight] {
        if let Ok((name, etl)) = container::extract_etl(&bytes, limits) {
            assert!(etl.len() as u64 <= limits.max_uncompressed);
            black_box(name);
        }
        // Members together stay within what one member may take.
        if let Ok(members) = container::extract_etls(&bytes, limits) {
            let total: u64 = members
                .iter()
                .filter_map(|(_, r)| r.as_ref().ok())
                .map(|b| b.len() as u64)
                .sum();
            assert!(total <= limits.max_uncompressed, "members over the limit");
        }
    }
    etl_file(&bytes);
}

/// MS-XCA 2.4 "Plain LZ77 Decompression", transcribed literally, with
/// bounds checks that stop decoding. Returns the bytes produced.
fn xca_reference(input: &[u8], out: &mut [u8]) -> usize {
    let (mut ip, mut op) = (0usize, 0usize);
    let (mut flags, mut flag_count) = (0u32, 0u32);
    let mut last_half_byte = 0usize;
    let byte = |p: usize| input.get(p).map(|&b| b as usize);
    let word = |p: usize| Some(byte(p)? | byte(p + 1)? << 8);
    loop {
        if flag_count == 0 {
            let (Some(lo), Some(hi)) = (word(ip), word(ip + 2)) else {
                return op;
            };
            flags = (lo | hi << 16) as u32;
            ip += 4;
            flag_count = 32;
        }
        flag_count -= 1;
        if flags & (1 << flag_count) == 0 {
            let (Some(b), Some(slot)) = (byte(ip), out.get_mut(op)) else {
                return op;
            };
            *slot = b as u8;
            ip += 1;
            op += 1;
            continue;
        }
        if ip == input.len() {
            return op;
        }
        let Some(m) = word(ip) else { return op };
        ip += 2;
        let mut len = m % 8;
        let offset = m / 8 + 1;
        if len == 7 {
            if last_half_byte == 0 {
                let Some(b) = byte(ip) else { return op };
                len = b % 16;
                last_half_byte = ip;
                ip += 1;
            } else {
                let Some(b) = byte(last_half_byte) else {
                    return op;
                };
                len = b / 16;
                last_half_byte = 0;
            }
            if len == 15 {
                let Some(b) = byte(ip) else { return op };
                len = b;
                ip += 1;
                if len == 255 {
                    let Some(w) = word(ip) else { return op };
                    len = w;
                    ip += 2;
                    if len == 0 {
                        let (Some(lo), Some(hi)) = (word(ip), word(ip + 2)) else {
                            return op;
                        };
                        len = lo | hi << 16;
                        ip += 4;
                    }
                    if len < 15 + 7 {
                        return op;
                    }
                    len -= 15 + 7;
                }
                len += 15;
            }
            len += 7;
        }
        len += 3;
        for _ in 0..len {
            if offset > op || op >= out.len() {
                return op;
            }
            out[op] = out[op - offset];
            op += 1;
        }
    }
}

/// `schema_payload`: the first two bytes choose one schema of our tables
/// (CLR, kernel, KernelTraceControl, SysConfig, Kernel-Process; low 15
/// bits) and the pointer size (top bit), the rest is its payload: decoding never panics, and a
/// decode that succeeds reads no more than the payload.
pub fn schema_payload(data: &[u8]) {
    let reg = etl::decode::schema::SchemaRegistry::new();
    let (pick, ptr, payload) = match data {
        [a, b, rest @ ..] => (
            usize::from(a & 0x7f) << 8 | usize::from(*b),
            if a & 0x80 == 0 { 8 } else { 4 },
            rest,
        ),
        _ => return,
    };
    if reg.is_empty() {
        return;
    }
    let row = (pick % reg.len()) as u32;
    if let Some(Ok((fields, used))) = reg.decode_measured(row, payload, ptr) {
        assert!(used <= payload.len(), "read past the payload");
        black_box(fields.len());
    }
}

/// `schema_pack`: any bytes as a schema pack and as an instrumentation
/// manifest. Neither reader panics; an error names a line of the input; a
/// pack that reads writes back to the same pack; a manifest that converts
/// gives a pack that reads back; every schema decodes a payload cut from
/// the input without reading past it.
pub fn schema_pack(data: &[u8]) {
    use etl::decode::schema::{manifest_file, pack, SchemaRegistry};
    let text = String::from_utf8_lossy(data);
    let lines = text.lines().count().max(1);
    let mut packs = Vec::new();
    match pack::parse(&text) {
        Ok(p) => {
            assert_eq!(
                pack::parse(&pack::write(&p)).as_ref(),
                Ok(&p),
                "pack round trip"
            );
            packs.push(p);
        }
        Err(e) => assert!(e.line >= 1 && e.line <= lines + 1, "pack error line {e}"),
    }
    match manifest_file::convert(&text, "fuzz") {
        Ok(c) => {
            let back = pack::parse(&pack::write(&c.pack));
            assert_eq!(back.as_ref(), Ok(&c.pack), "manifest pack round trip");
            packs.push(c.pack);
        }
        Err(e) => assert!(
            e.line >= 1 && e.line <= lines + 1,
            "manifest error line {e}"
        ),
    }
    for p in &packs {
        let mut reg = SchemaRegistry::default();
        let before = reg.len() as u32;
        reg.add_pack(p, etl::decode::schema::packs::Source::User);
        let tail = data.get(data.len() / 2..).unwrap_or(&[]);
        for row in before..(reg.len() as u32).min(before + 64) {
            for ptr in [4, 8] {
                if let Some(Ok((fields, used))) = reg.decode_measured(row, tail, ptr) {
                    assert!(used <= tail.len(), "read past the payload");
                    black_box(fields.len());
                }
            }
        }
    }
}

/// `lznt1`: any bytes through the LZNT1 decompressor (WinSAT's XML): it
/// never panics and never returns more than its limit.
pub fn lznt1(data: &[u8]) {
    const LIMIT: usize = 1 << 16;
    if let Some(out) = etl::decode::lznt1::decompress(data, LIMIT) {
        assert!(out.len() <= LIMIT, "output past the limit");
        black_box(out.len());
    }
}
