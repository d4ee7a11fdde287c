//! Acceptance: processes, threads and images of shutdown-perfdiag-kernel.etl
//! (Windows' own kernel logger, rundown at both ends, no samples) equal the
//! figures of the independent reference `tests/reference/model_reference.py`
//! (stdlib Python from ../shared/docs/etl-format.md sections C/E, written
//! without reading crates/model). The constants were derived with
//!     python3 tests/reference/model_reference.py rundown \
//!         ../shared/traces/shutdown-perfdiag-kernel.etl
//! and copied literally (the per-pid tables aggregate its thread and image
//! lists). Its 102 process instances also match the count in etl-format.md G.

mod common;

use model::processes::OPEN;
use model::Trace;
use std::collections::BTreeMap;
use std::sync::OnceLock;

#[path = "expected/shutdown_perfdiag.rs"]
mod expected;
use expected::*;

fn trace() -> Option<&'static Trace> {
    static T: OnceLock<Option<Trace>> = OnceLock::new();
    T.get_or_init(|| common::model_of("shutdown-perfdiag-kernel.etl"))
        .as_ref()
}

fn ns(t: &Trace, raw: Option<i64>) -> i64 {
    raw.map_or(OPEN, |ts| t.clock.to_ns(ts))
}

#[test]
fn process_instances_with_lifetimes() {
    let Some(t) = trace() else { return };
    let mut got: Vec<(u32, &str, i64, i64)> = (0..t.processes.len())
        .map(|i| {
            let p = &t.processes;
            (p.pid[i], t.strings.get(p.name[i]), p.start[i], p.end[i])
        })
        .collect();
    got.sort();
    let mut want: Vec<(u32, &str, i64, i64)> = PROCESSES
        .iter()
        .map(|&(pid, name, s, e)| (pid, name, ns(t, s), ns(t, e)))
        .collect();
    want.sort();
    assert_eq!(got, want);
}

#[test]
fn thread_instances_with_lifetimes() {
    let Some(t) = trace() else { return };
    assert_eq!(t.threads.len(), THREAD_INSTANCES);
    let mut got: BTreeMap<u32, (u32, u32, u32)> = BTreeMap::new();
    for i in 0..t.threads.len() {
        let pid = t.processes.pid[t.threads.process[i] as usize];
        let e = got.entry(pid).or_default();
        e.0 += 1;
        e.1 += (t.threads.start[i] != OPEN) as u32;
        e.2 += (t.threads.end[i] != OPEN) as u32;
    }
    let want: BTreeMap<u32, (u32, u32, u32)> = THREADS_PER_PID
        .iter()
        .map(|&(pid, n, s, e)| (pid, (n, s, e)))
        .collect();
    assert_eq!(got, want);
    // Spot checks from the reference's list: threads born and dead in the trace.
    for (tid, pid, s, e) in [
        (68, 428, 295_222_217_975, 295_222_333_167),
        (112, 428, 295_222_147_360, 295_222_168_702),
    ] {
        let found = (0..t.threads.len()).any(|i| {
            t.threads.tid[i] == tid
                && t.processes.pid[t.threads.process[i] as usize] == pid
                && t.threads.start[i] == t.clock.to_ns(s)
                && t.threads.end[i] == t.clock.to_ns(e)
        });
        assert!(found, "thread {tid} of {pid}");
    }
}

#[test]
fn image_instances_with_lifetimes() {
    let Some(t) = trace() else { return };
    assert_eq!(t.images.len(), IMAGE_INSTANCES);
    assert_eq!(
        t.images.kernel.iter().filter(|&&k| k).count(),
        KERNEL_IMAGES
    );
    let mut got: BTreeMap<u32, (u32, u32, u32)> = BTreeMap::new();
    for i in 0..t.images.len() {
        let pid = if t.images.kernel[i] {
            0
        } else {
            t.processes.pid[t.images.process[i] as usize]
        };
        let e = got.entry(pid).or_default();
        e.0 += 1;
        e.1 += (t.images.load[i] != OPEN) as u32;
        e.2 += (t.images.unload[i] != OPEN) as u32;
    }
    let want: BTreeMap<u32, (u32, u32, u32)> = IMAGES_PER_PID
        .iter()
        .map(|&(pid, n, l, u)| (pid, (n, l, u)))
        .collect();
    assert_eq!(got, want);
}

/// (pid, base, size, raw load or None, raw unload or None, path), spot checks
/// from the reference's list; the pcre.dll pair are two files with the same
/// name, size, checksum and rundown timestamp in two folders.
#[allow(clippy::type_complexity)]
const IMAGE_SPOTS: &[(u32, u64, u64, Option<i64>, Option<i64>, &str)] = &[
    (
        7064,
        0x75610000,
        0x5e000,
        Some(295_203_550_290),
        Some(295_205_499_310),
        r"\Device\HarddiskVolume3\Windows\SysWOW64\coml2.dll",
    ),
    (
        3856,
        0x7ff97d250000,
        0x146000,
        Some(295_205_045_423),
        Some(295_212_978_189),
        r"\Device\HarddiskVolume3\Windows\System32\wpnapps.dll",
    ),
    (
        2244,
        0x7ff983600000,
        0x67000,
        None,
        None,
        r"\Device\HarddiskVolume3\Program Files\VMware\VMware Tools\VMware VGAuth\pcre.dll",
    ),
    (
        2292,
        0x7ff982b90000,
        0x67000,
        None,
        Some(295_221_315_002),
        r"\Device\HarddiskVolume3\Program Files\VMware\VMware Tools\pcre.dll",
    ),
];

#[test]
fn image_spot_checks() {
    let Some(t) = trace() else { return };
    for &(pid, base, size, load, unload, path) in IMAGE_SPOTS {
        let rows: Vec<_> = (0..t.images.len())
            .filter(|&i| {
                t.images.base[i] == base && t.processes.pid[t.images.process[i] as usize] == pid
            })
            .map(|i| {
                let m = t.images.module[i] as usize;
                (
                    t.images.size[i],
                    t.images.load[i],
                    t.images.unload[i],
                    t.strings.get(t.modules.path[m]),
                )
            })
            .collect();
        assert_eq!(
            rows,
            vec![(size, ns(t, load), ns(t, unload), path)],
            "image {base:#x} of {pid}"
        );
    }
}
