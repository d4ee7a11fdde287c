//! Acceptance: the model of perfview-net452-x64.etl equals the figures of the
//! independent reference `tests/reference/model_reference.py` (stdlib Python,
//! written from ../shared/docs/etl-format.md sections C/D/E on top of the
//! independent census reader, without reading crates/model).
//!
//! The constants below were derived with
//!     python3 tests/reference/model_reference.py samples \
//!         ../shared/traces/perfview-net452-x64.etl
//! and copied literally. PerfView's own decode of this trace (microsoft/perfview
//! src/TraceEvent/TraceEvent.Tests/inputs/net.4.5.2.x64.baseline.txt, read, not
//! copied) agrees where it overlaps: it counts 6,320 "PerfInfo/Sample" events,
//! which is exactly the reference's count under TraceLog's rule (drop tid 0
//! samples unless they execute a DPC/ISR); its Thread/Start times for tids
//! 3680, 3656, 3664 and 3668 equal the thread starts below; and its Image/Load
//! events of Test.x64.exe (3676) show the same bases and sizes
//! (0x550000/32,768, ntdll 0x7f9d02f0000/1,826,816, mscoree 0x7f9c06c0000/454,656,
//! kernel32 0x7f9cf590000/1,269,760) and ntdll's PDB GUID 6048fdb6-2dcd-41c1-8...

mod common;

use model::processes::OPEN;
use model::Trace;
use std::collections::BTreeMap;
use std::sync::OnceLock;

#[path = "expected/perfview_net452.rs"]
mod expected;
use expected::*;

/// The model is built once and shared by the tests of this file.
fn trace() -> Option<&'static Trace> {
    static T: OnceLock<Option<Trace>> = OnceLock::new();
    T.get_or_init(|| common::model_of("perfview-net452-x64.etl"))
        .as_ref()
}

#[test]
fn process_instances() {
    let Some(t) = trace() else { return };
    let mut got: Vec<(u32, &str, i64, i64)> = (0..t.processes.len())
        .map(|i| {
            let p = &t.processes;
            (p.pid[i], t.strings.get(p.name[i]), p.start[i], p.end[i])
        })
        .collect();
    got.sort();
    let ns = |raw: Option<i64>| raw.map_or(OPEN, |ts| t.clock.to_ns(ts));
    let mut want: Vec<(u32, &str, i64, i64)> = PROCESSES
        .iter()
        .map(|&(pid, name, s, e)| (pid, name, ns(s), ns(e)))
        .collect();
    want.sort();
    assert_eq!(got, want);
}

#[test]
fn samples_per_process_and_thread() {
    let Some(t) = trace() else { return };
    assert_eq!(t.samples.len(), SAMPLES);
    let mut per_process: BTreeMap<String, u64> = BTreeMap::new();
    let mut per_thread: BTreeMap<(String, u32, i64), u64> = BTreeMap::new();
    for i in 0..t.samples.len() {
        let th = t.samples.thread(i) as usize;
        let label = t.process_label(t.threads.process[th]);
        *per_process.entry(label.clone()).or_default() += 1;
        *per_thread
            .entry((label, t.threads.tid[th], t.threads.start[th]))
            .or_default() += 1;
    }
    let want: BTreeMap<String, u64> = PER_PROCESS
        .iter()
        .map(|&(p, n)| (p.to_string(), n))
        .collect();
    assert_eq!(per_process, want);
    let want: BTreeMap<(String, u32, i64), u64> = PER_THREAD
        .iter()
        .map(|&(p, tid, start, n)| {
            let start = start.map_or(OPEN, |ts| t.clock.to_ns(ts));
            ((p.to_string(), tid, start), n)
        })
        .collect();
    assert_eq!(per_thread, want);
}

#[test]
fn samples_outside_every_lifetime_are_counted() {
    let Some(t) = trace() else { return };
    // The reference attributes them to the nearest lifetime of their tid, as
    // the model does; the model must count them as uncertain.
    assert_eq!(
        t.info.uncertain_samples,
        OUTSIDE_EVERY_LIFETIME.len() as u64
    );
    assert_eq!(t.info.unattributed_samples, 0);
    for &(ts, tid) in OUTSIDE_EVERY_LIFETIME {
        let ns = t.clock.to_ns(ts);
        let i = t.samples.time.partition_point(|&x| x < ns);
        let found = (i..t.samples.len())
            .take_while(|&i| t.samples.time[i] == ns)
            .any(|i| t.threads.tid[t.samples.thread(i) as usize] == tid);
        assert!(found, "sample at {ts} of tid {tid} is missing");
    }
}

#[test]
fn samples_with_stack() {
    let Some(t) = trace() else { return };
    assert_eq!(t.info.samples_with_stack, SAMPLES_WITH_STACK);
    assert_eq!(t.info.stack_key_refs_unresolved, 0);
    // Kernel-mode frames: in a kernel image, or a raw kernel address.
    let kernel_modules: std::collections::HashSet<u32> = (0..t.images.len())
        .filter(|&i| t.images.kernel[i])
        .map(|i| t.images.module[i])
        .collect();
    let is_kernel = |f: usize| {
        let m = t.frames.module[f];
        if m == model::NONE {
            model::ingest::is_kernel_address(t.frames.address[f], 8)
        } else {
            kernel_modules.contains(&m)
        }
    };
    let both = t
        .samples
        .stack
        .iter()
        .filter(|&&s| {
            let mut frames = t.stacks.frames_leaf_first(s);
            let leaf = frames.next().map(|f| f as usize);
            let root = frames.last().map(|f| f as usize);
            matches!((leaf, root), (Some(l), Some(r)) if is_kernel(l) && !is_kernel(r))
        })
        .count() as u64;
    assert_eq!(both, SAMPLES_WITH_KERNEL_AND_USER_HALVES);
}

/// An inline user-mode walk completes the kernel-only stacks logged before
/// it arrives: ordered by the walk's own time, not its target's.
#[test]
fn frames_over_all_samples() {
    let Some(t) = trace() else { return };
    let frames: u64 = t
        .samples
        .stack
        .iter()
        .map(|&s| t.stacks.depth[s as usize] as u64)
        .sum();
    assert_eq!(frames, FRAMES_OVER_ALL_SAMPLES);
}

#[test]
fn image_list_of_the_busiest_process() {
    let Some(t) = trace() else { return };
    let s = |id| t.strings.get(id);
    let p = (0..t.processes.len())
        .find(|&i| t.process_label(i as u32) == "Test.x64.exe (3676)")
        .expect("Test.x64.exe (3676)") as u32;
    let mut rows: Vec<usize> = (0..t.images.len())
        .filter(|&i| t.images.process[i] == p && !t.images.kernel[i])
        .collect();
    rows.sort_by_key(|&i| (t.images.base[i], t.images.load[i]));
    let got: Vec<_> = rows
        .iter()
        .map(|&i| {
            let m = t.images.module[i] as usize;
            let opt = |id| Some(s(id)).filter(|v| !v.is_empty());
            (
                t.images.base[i],
                t.images.size[i],
                s(t.images.path[i]),
                opt(t.modules.file_version[m]),
                opt(t.modules.product_name[m]),
                t.modules.pdb_guid[m].map(|g| g.to_string()),
                t.modules.pdb_age[m],
                s(t.modules.pdb_name[m]),
            )
        })
        .collect();
    let want: Vec<_> = TOP_IMAGES
        .iter()
        .map(|&(b, n, path, fv, pn, guid, age, pdb)| {
            (b, n, path, fv, pn, Some(guid.to_string()), age, pdb)
        })
        .collect();
    assert_eq!(got, want);
    assert_eq!(t.info.image_info_unmatched, KTC_UNMATCHED);
}

/// Module paths are shown in DOS form, as WPA shows them, mapped with the
/// trace's own SysConfig SystemPaths event (payload, hand-decoded UTF-16:
/// "C:\Windows\system32", "C:\Windows\"), while each load keeps the path it
/// recorded.
#[test]
fn module_paths_are_dos_paths_from_the_traces_system_paths() {
    let Some(t) = trace() else { return };
    let recorded = r"\SystemRoot\System32\drivers\VMBusHID.sys";
    let image = (0..t.images.len())
        .find(|&i| t.strings.get(t.images.path[i]) == recorded)
        .expect("VMBusHID.sys");
    let m = t.images.module[image] as usize;
    assert_eq!(
        t.strings.get(t.modules.path[m]),
        r"C:\Windows\System32\drivers\VMBusHID.sys"
    );
    // No module path keeps an NT prefix the trace maps.
    for m in 0..t.modules.len() {
        let p = t.strings.get(t.modules.path[m]).to_ascii_lowercase();
        assert!(!p.starts_with(r"\systemroot\"), "{p}");
        assert!(!p.starts_with(r"\??\"), "{p}");
    }
}

#[test]
fn file_versions_paired_by_timestamp_alone() {
    let Some(t) = trace() else { return };
    for &(path, version) in FILE_VERSIONS_BY_TIME_ONLY {
        // The reference names images by the path their load recorded.
        let image = (0..t.images.len())
            .find(|&i| t.strings.get(t.images.path[i]) == path)
            .unwrap_or_else(|| panic!("no image {path}"));
        let m = t.images.module[image] as usize;
        assert_eq!(t.strings.get(t.modules.file_version[m]), version, "{path}");
    }
}

#[test]
fn managed_leaf_frames_carry_method_names() {
    let Some(t) = trace() else { return };
    let p = (0..t.processes.len())
        .find(|&i| t.process_label(i as u32) == "Test.x64.exe (3676)")
        .expect("Test.x64.exe (3676)") as u32;
    let mut total = 0u64;
    let mut named = 0u64;
    for i in 0..t.samples.len() {
        if t.threads.process[t.samples.thread(i) as usize] != p {
            continue;
        }
        total += 1;
        let leaf = t.stacks.frame[t.samples.stack[i] as usize] as usize;
        if t.frames.func[leaf] != model::NONE {
            named += 1;
        }
    }
    eprintln!(
        "Test.x64.exe: {named} of {total} samples ({:.1}%) have a named leaf frame",
        100.0 * named as f64 / total as f64
    );
    assert_eq!(total, 5_129);
    assert_eq!(named, TOP_SAMPLES_IN_CLR_METHODS);
}

/// PerfInfo CollectionStart/End (0x0F49/0x0F4A) carry NewInterval 10,000
/// (100 ns units) for source 0, the timer: 1 ms per sample (PerfView's
/// baseline shows the same CollectionStart: SampleSource=0; NewInterval=10,000).
#[test]
fn sample_weight_is_the_profile_interval() {
    let Some(t) = trace() else { return };
    assert_eq!(t.samples.interval_source, "SampledProfile interval events");
    assert!((0..t.samples.len()).all(|i| t.samples.weight_ns(i) == 1_000_000));
}

fn fnv1a64(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Every frame of every sample: its image and RVA (or raw address) and its
/// place in the stack, against the reference's census of the same frames.
#[test]
fn frames_of_every_sample() {
    let Some(t) = trace() else { return };
    let mut per_module: BTreeMap<String, u64> = BTreeMap::new();
    let mut digest = 0u64;
    let mut labels = Vec::new();
    for i in 0..t.samples.len() {
        labels.clear();
        for f in t.stacks.frames_leaf_first(t.samples.stack[i]) {
            let f = f as usize;
            let m = t.frames.module[f];
            let a = t.frames.address[f];
            let (module, label) = if m == model::NONE {
                (String::new(), format!("{a:#x}"))
            } else {
                let name = t.strings.get(t.modules.name[m as usize]).to_lowercase();
                let label = format!("{name}!{a:#x}");
                (name, label)
            };
            *per_module.entry(module).or_default() += 1;
            labels.push(label);
        }
        digest = digest.wrapping_add(fnv1a64(&labels.join(";")));
    }
    let want: BTreeMap<String, u64> = FRAMES_PER_MODULE
        .iter()
        .map(|&(m, n)| (m.to_string(), n))
        .collect();
    assert_eq!(per_module, want);
    assert_eq!(digest, STACK_DIGEST);
}

/// The samples whose stack depends on ordering inline walks by their own
/// time: each gets the user half logged when its thread left the kernel
/// (model_reference.py explains it with tid 3780's events), so its stack
/// runs from a kernel leaf to a user root.
#[test]
fn order_sensitive_samples_get_the_user_half_of_their_stay_in_the_kernel() {
    let Some(t) = trace() else { return };
    let kernel_modules: std::collections::HashSet<u32> = (0..t.images.len())
        .filter(|&i| t.images.kernel[i])
        .map(|i| t.images.module[i])
        .collect();
    let kernel = |f: u32| {
        let m = t.frames.module[f as usize];
        if m == model::NONE {
            model::ingest::is_kernel_address(t.frames.address[f as usize], 8)
        } else {
            kernel_modules.contains(&m)
        }
    };
    for &(ts, tid) in SAMPLES_SENSITIVE_TO_INLINE_WALK_ORDER {
        let i = (0..t.samples.len())
            .find(|&i| {
                t.samples.time[i] == t.clock.to_ns(ts)
                    && t.threads.tid[t.samples.thread(i) as usize] == tid
            })
            .unwrap_or_else(|| panic!("sample ({ts}, {tid})"));
        let frames: Vec<u32> = t.stacks.frames_leaf_first(t.samples.stack[i]).collect();
        let (leaf, root) = (frames[0], frames[frames.len() - 1]);
        assert!(
            kernel(leaf) && !kernel(root),
            "({ts}, {tid}): {} frames",
            frames.len()
        );
    }
}

#[test]
fn samples_with_two_or_more_frames() {
    let Some(t) = trace() else { return };
    let deep = t
        .samples
        .stack
        .iter()
        .filter(|&&s| t.stacks.depth[s as usize] >= 2)
        .count() as u64;
    assert_eq!(deep, SAMPLES_WITH_TWO_OR_MORE_FRAMES);
}
