//! The bench scenario read back with etl's reader. Payload fields are decoded
//! here at the offsets of the format notes (section C), independently of
//! synth's encoders, and compared with the model the trace was built from.

use etl::census::Census;
use etl::{BufferData, EtlFile};
use std::collections::HashMap;
use std::io::Cursor;
use synth::model::Model;
use synth::{write_bench, write_bench_bytes, BenchParams};

fn u32_at(b: &[u8], o: usize) -> u32 {
    u32::from_le_bytes(b[o..o + 4].try_into().unwrap())
}
fn u64_at(b: &[u8], o: usize) -> u64 {
    u64::from_le_bytes(b[o..o + 8].try_into().unwrap())
}
fn ptr_at(b: &[u8], o: usize, p: usize) -> u64 {
    if p == 4 {
        u32_at(b, o) as u64
    } else {
        u64_at(b, o)
    }
}
fn utf16z(b: &[u8]) -> String {
    let units: Vec<u16> = b
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .take_while(|&u| u != 0)
        .collect();
    String::from_utf16(&units).unwrap()
}

fn params(pointer_size: u8, compress: bool) -> BenchParams {
    BenchParams {
        pointer_size,
        compress,
        cpus: 4,
        samples: 3000,
        distinct_stacks: 300,
        threads: 24,
        processes: 3,
        modules: 16,
        buffer_size: 16 * 1024,
        ..BenchParams::default()
    }
}

fn bytes_of(p: &BenchParams) -> Vec<u8> {
    write_bench(Cursor::new(Vec::new()), p)
        .unwrap()
        .0
        .into_inner()
}

#[test]
fn counts_payloads_and_stacks_match_the_model() {
    for ps in [4u8, 8] {
        for compress in [false, true] {
            let p = params(ps, compress);
            let model = Model::new(&p.model_params());
            let file = EtlFile::from_bytes(bytes_of(&p)).unwrap();
            let c = Census::of(&file);
            assert!(c.errors.is_empty(), "{:?}", c.errors);
            assert_eq!(c.skipped_buffers, 0);
            let users = model.processes.len() as u64 - 2;
            let hooks = [
                (0x0000u16, 1u64),
                (0x0303, model.processes.len() as u64),
                (0x0503, model.threads.len() as u64 + p.cpus as u64),
                (
                    0x1403,
                    model.kernel_images.len() as u64 + users * model.user_images.len() as u64,
                ),
                (0x0F2E, p.samples),
                (0x1820, p.samples),
            ];
            assert_eq!(c.kernel_hooks, hooks.into_iter().collect());
            if compress {
                assert_eq!(c.compressed_buffers, c.buffers - 1);
            }

            // Decode payloads at the documented offsets.
            let pz = ps as usize;
            let mut samples: HashMap<(i64, u32, u16), u64> = HashMap::new();
            let mut stacks: Vec<(i64, u32, u16, Vec<u64>)> = Vec::new();
            let mut image_names = Vec::new();
            let mut scratch = Vec::new();
            for info in file.buffers() {
                let data = file.buffer_data(info, &mut scratch).unwrap();
                for e in (BufferData { info, data }).events() {
                    let e = e.unwrap();
                    let pl = e.payload;
                    assert_eq!(e.pointer_size, ps);
                    match e.hook_id {
                        Some(0x0F2E) => {
                            assert_eq!(pl.len(), pz + 8);
                            let tid = u32_at(pl, pz);
                            let ip = ptr_at(pl, 0, pz);
                            samples.insert((e.timestamp, tid, e.cpu), ip);
                        }
                        Some(0x1820) => {
                            let ts = u64_at(pl, 0) as i64;
                            let tid = u32_at(pl, 12);
                            let frames = (16..pl.len()).step_by(pz).map(|o| ptr_at(pl, o, pz));
                            stacks.push((ts, tid, e.cpu, frames.collect()));
                        }
                        Some(0x1403) => {
                            // FileName at HostOffset(44, 3).
                            image_names.push(utf16z(&pl[44 + 3 * (pz - 4)..]));
                            let base = ptr_at(pl, 0, pz);
                            let size = ptr_at(pl, pz, pz);
                            let img = model.image_of(base).unwrap();
                            assert_eq!((img.base, img.size), (base, size));
                        }
                        Some(0x0503) => assert_eq!(pl.len(), 8 + 7 * pz + 8),
                        Some(0x0303) => {
                            // v4: UserSID at 2P+20 = TOKEN_USER (2P) + SID (8 + 4n).
                            let sid = 2 * pz + 20 + 2 * pz;
                            let n = pl[sid + 1] as usize;
                            let name = &pl[sid + 8 + 4 * n..];
                            let end = name.iter().position(|&b| b == 0).unwrap();
                            let pid = u32_at(pl, pz);
                            let q = model.processes.iter().find(|q| q.pid == pid).unwrap();
                            assert_eq!(std::str::from_utf8(&name[..end]).unwrap(), q.name);
                            let cmd = utf16z(&name[end + 1..]);
                            assert_eq!(cmd, q.command_line);
                        }
                        _ => {}
                    }
                }
            }
            assert_eq!(stacks.len(), samples.len());
            for (ts, tid, cpu, frames) in &stacks {
                // The stack joins its sample by (timestamp, thread) on the same CPU.
                let ip = samples[&(*ts, *tid, *cpu)];
                assert_eq!(frames.first(), Some(&ip));
                for f in frames {
                    assert!(model.image_of(*f).is_some(), "frame {f:#x} in no image");
                    if ps == 4 {
                        assert!(*f <= u32::MAX as u64);
                    }
                }
            }
            for img in model.kernel_images.iter().chain(&model.user_images) {
                assert!(image_names.contains(&img.name));
            }
            // Time order per CPU holds, so the ordered merge sees every event.
            let mut n = 0u64;
            let mut last = i64::MIN;
            assert!(file
                .for_each_event_in_order(|e| {
                    assert!(e.timestamp >= last);
                    last = e.timestamp;
                    n += 1;
                })
                .is_empty());
            assert_eq!(n, c.events);
        }
    }
}

#[test]
fn deterministic_from_the_seed() {
    let p = params(8, true);
    assert_eq!(bytes_of(&p), bytes_of(&p));
    let other = BenchParams {
        seed: 2,
        ..p.clone()
    };
    assert_ne!(bytes_of(&p), bytes_of(&other));
}

#[test]
fn byte_target_is_met_without_overshooting_much() {
    for compress in [false, true] {
        let p = BenchParams {
            compress,
            ..params(8, compress)
        };
        let target = 3 << 20;
        let (cur, s) = write_bench_bytes(Cursor::new(Vec::new()), &p, target).unwrap();
        let len = cur.into_inner().len() as u64;
        assert_eq!(len, s.bytes);
        assert!(len >= target, "{len}");
        // At most one more buffer per CPU is flushed at the end.
        assert!(
            len <= target + (p.cpus as u64 + 1) * p.buffer_size as u64,
            "{len}"
        );
    }
}

#[test]
fn file_creates_come_after_the_samples_from_model_threads() {
    let p = BenchParams {
        file_creates: 5000,
        file_paths: 50,
        ..params(8, false)
    };
    let model = Model::new(&p.model_params());
    let file = EtlFile::from_bytes(bytes_of(&p)).unwrap();
    let c = Census::of(&file);
    assert!(c.errors.is_empty(), "{:?}", c.errors);
    assert_eq!(c.kernel_hooks.get(&0x0440), Some(&5000));
    let (mut last_sample, mut first_create) = (i64::MIN, i64::MAX);
    let mut paths = std::collections::BTreeSet::new();
    let mut scratch = Vec::new();
    for info in file.buffers() {
        let data = file.buffer_data(info, &mut scratch).unwrap();
        for e in (BufferData { info, data }).events() {
            let e = e.unwrap();
            match e.hook_id {
                Some(0x0F2E) => last_sample = last_sample.max(e.timestamp),
                Some(0x0440) => {
                    first_create = first_create.min(e.timestamp);
                    // Create v3 (format notes): IRP, FileObject (P each), TTID, options,
                    // attributes, share access (u32 each), then the path.
                    let pl = e.payload;
                    let ttid = u32_at(pl, 16);
                    assert!(model.threads.iter().any(|t| t.tid == ttid), "thread {ttid}");
                    let path = utf16z(&pl[32..]);
                    assert!(
                        path.starts_with("\\Device\\HarddiskVolume3\\bench\\"),
                        "{path}"
                    );
                    paths.insert(path);
                }
                _ => {}
            }
        }
    }
    assert!(first_create > last_sample);
    assert!(
        paths.len() <= 50 && paths.len() > 1,
        "{} paths",
        paths.len()
    );
}
