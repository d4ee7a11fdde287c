#!/usr/bin/env python3
"""Print crates/etl/tests/expected/mod.rs from the reference census.

    python3 tests/reference/emit_rust_expected.py [TRACES_DIR] > crates/etl/tests/expected/mod.rs
    rustfmt --edition 2021 crates/etl/tests/expected/mod.rs
"""
import glob, json, os, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
TRACES = sys.argv[1] if len(sys.argv) > 1 else os.environ.get(
    "ETLSCOPE_REAL_TRACES", os.path.join(HERE, "..", "..", "..", "shared", "traces"))
files = sorted(glob.glob(os.path.join(TRACES, '*.etl')))
out = []
out.append('''//! Expected census of each real trace in `../shared/traces/`.
//!
//! Every number here comes from the independent stdlib-only Python decoder,
//! `python3 tests/reference/etl_census.py ../shared/traces/*.etl` (run from
//! the repository root), which was written from etl-format.md and the bytes,
//! not from this crate. Two PyPI decoders re-check it on every CI run
//! (`scripts/check-peers.py`): dissect.etl agrees on buffers, events,
//! min/max timestamps, pid/tid sums and events per header family for every
//! file; etl-parser agrees on every event, kernel hook, provider and
//! (provider, opcode / event id) count, the pid/tid sums and the payload
//! bytes and CRC-32 once the header buffer, which it skips, is set aside, on
//! the uncompressed files whose header buffer it can read (not the Windows 7
//! ones, whose SavedOffset 0 it cannot handle).
//! The log-file header fields were also checked by hand with `xxd` (see
//! `real_traces.rs`). Not a snapshot of this crate's output.

#![allow(dead_code)] // each test binary reads only some fields

pub struct Expected {
    pub file: &'static str,
    pub buffers: u32,
    pub compressed_buffers: u32,
    /// All events, the header buffer's included.
    pub events: u64,
    /// Events in the header buffer (etl-parser skips these).
    pub header_buffer_events: u64,
    pub min_timestamp: i64,
    pub max_timestamp: i64,
    /// (header type, count).
    pub header_types: &'static [(&'static str, u64)],
    /// (header type, kernel hook id, count) for system/compact/perfinfo headers.
    pub kernel_hooks: &'static [(&'static str, u16, u64)],
    /// (provider GUID, opcode, count) for full/instance trace headers.
    pub provider_opcodes: &'static [(&'static str, u16, u64)],
    /// (provider GUID, event id, count) for EventHeader events.
    pub provider_event_ids: &'static [(&'static str, u16, u64)],
    pub digest: Digest,
}

/// Other header fields and the payloads of all events, in file order.
/// Sums wrap at 2^64; pid/tid count 0 where the header has none (perfinfo).
pub struct Digest {
    /// (buffer processor index, events).
    pub events_per_cpu: &'static [(u16, u64)],
    pub pid_sum: u64,
    pub tid_sum: u64,
    pub version_sum: u64,
    pub level_sum: u64,
    pub task_sum: u64,
    pub keyword_xor: u64,
    pub opcode_sum: u64,
    pub event_id_sum: u64,
    /// (EventHeader extended item type, count).
    pub extended_items: &'static [(u16, u64)],
    pub payload_bytes: u64,
    /// CRC-32 (IEEE) of all payloads concatenated in file order.
    pub payload_crc32: u32,
}

pub const TRACES: &[Expected] = &[''')
for f in files:
    c = json.loads(subprocess.check_output(['python3', os.path.join(HERE, 'etl_census.py'), f]))
    assert not c['errors'] and c['buffers_ending_short_of_saved_offset'] == 0
    out.append('    Expected {')
    out.append(f'        file: "{c["file"]}",')
    out.append(f'        buffers: {c["buffers"]},')
    out.append(f'        compressed_buffers: {c["compressed_buffers"]},')
    out.append(f'        events: {c["events"]},')
    out.append(f'        header_buffer_events: {c["header_buffer_events"]},')
    out.append(f'        min_timestamp: {c["min_timestamp"]},')
    out.append(f'        max_timestamp: {c["max_timestamp"]},')
    out.append('        header_types: &[')
    for k, v in c['header_types'].items():
        out.append(f'            ("{k}", {v}),')
    out.append('        ],')
    out.append('        kernel_hooks: &[')
    for t, hooks in c['kernel_hooks_by_header'].items():
        for h, v in hooks.items():
            out.append(f'            ("{t}", {h}, {v}),')
    out.append('        ],')
    for key, name in (('provider_opcodes', 'provider_opcodes'), ('provider_event_ids', 'provider_event_ids')):
        out.append(f'        {name}: &[')
        for g, ids in c[key].items():
            for i, v in sorted(ids.items(), key=lambda kv: int(kv[0])):
                out.append(f'            ("{g}", {i}, {v}),')
        out.append('        ],')
    d = c['digest']
    m = (1 << 64) - 1
    out.append('        digest: Digest {')
    out.append('            events_per_cpu: &[' + ', '.join(f'({k}, {v})' for k, v in sorted(d['events_per_cpu'].items(), key=lambda kv: int(kv[0]))) + '],')
    for k in ('pid_sum', 'tid_sum', 'version_sum', 'level_sum', 'task_sum', 'keyword_xor', 'opcode_sum', 'event_id_sum'):
        out.append(f'            {k}: {d[k] & m},')
    out.append('            extended_items: &[' + ', '.join(f'({k}, {v})' for k, v in sorted(d['extended_items'].items(), key=lambda kv: int(kv[0]))) + '],')
    out.append(f'            payload_bytes: {d["payload_bytes"]},')
    out.append(f'            payload_crc32: {d["payload_crc32"]:#010x},')
    out.append('        },')
    out.append('    },')
out.append('];')

# Containers (PerfView .etl.zip, Visual Studio .diagsession): every .etl
# member, extracted with Python's zipfile, through the same census.
import tempfile, zipfile
out.append('')
out.append('/// (container, member, buffers, compressed buffers, events, max timestamp)')
out.append('/// for every `.etl` member of each zip container in the folder.')
out.append('pub const CONTAINER_MEMBERS: &[(&str, &str, u32, u32, u64, i64)] = &[')
containers = sorted(glob.glob(os.path.join(TRACES, '*.zip')) + glob.glob(os.path.join(TRACES, '*.diagsession')))
for path in containers:
    with zipfile.ZipFile(path) as z, tempfile.TemporaryDirectory() as tmp:
        for info in z.infolist():
            if not info.filename.lower().endswith('.etl'):
                continue
            member = os.path.join(tmp, 'member.etl')
            with open(member, 'wb') as f:
                f.write(z.read(info))
            c = json.loads(subprocess.check_output(['python3', os.path.join(HERE, 'etl_census.py'), member]))
            assert not c['errors']
            out.append(f'    ("{os.path.basename(path)}", "{info.filename}", {c["buffers"]}, '
                       f'{c["compressed_buffers"]}, {c["events"]}, {c["max_timestamp"]}),')
out.append('];')
print('\n'.join(out))
