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

fn trace() -> Option<&'static Trace> {
    static T: OnceLock<Option<Trace>> = OnceLock::new();
    T.get_or_init(|| common::model_of("shutdown-perfdiag-kernel.etl"))
        .as_ref()
}

fn ns(t: &Trace, raw: Option<i64>) -> i64 {
    raw.map_or(OPEN, |ts| t.clock.to_ns(ts))
}

/// (pid, name, raw start or None = alive at trace start, raw end or None = alive at trace end).
const PROCESSES: &[(u32, &str, Option<i64>, Option<i64>)] = &[
    (0, "Idle", None, None),
    (4, "System", None, None),
    (8, "WmiPrvSE.exe", None, None),
    (88, "Registry", None, None),
    (256, "RuntimeBroker.exe", None, Some(295216022585)),
    (348, "smss.exe", None, None),
    (428, "csrss.exe", None, None),
    (496, "svchost.exe", None, Some(295226128242)),
    (496, "svchost.exe", None, Some(295245400111)),
    (504, "wininit.exe", None, None),
    (516, "csrss.exe", None, None),
    (520, "svchost.exe", None, None),
    (600, "services.exe", None, None),
    (608, "winlogon.exe", None, None),
    (644, "lsass.exe", None, None),
    (680, "svchost.exe", None, None),
    (720, "svchost.exe", None, None),
    (736, "fontdrvhost.exe", None, None),
    (744, "fontdrvhost.exe", None, None),
    (756, "TiWorker.exe", None, Some(295219902167)),
    (764, "svchost.exe", None, None),
    (872, "svchost.exe", None, None),
    (956, "dwm.exe", None, None),
    (964, "LogonUI.exe", None, None),
    (1040, "svchost.exe", None, None),
    (1128, "svchost.exe", None, None),
    (1348, "svchost.exe", None, Some(295227562267)),
    (1348, "svchost.exe", None, Some(295245416108)),
    (1408, "svchost.exe", None, None),
    (1484, "svchost.exe", None, Some(295220744108)),
    (1520, "WinStore.App.exe", None, Some(295207676953)),
    (1612, "vmacthlp.exe", None, None),
    (1688, "MemCompression", None, None),
    (1736, "svchost.exe", None, None),
    (1776, "svchost.exe", None, None),
    (1828, "svchost.exe", None, None),
    (1852, "svchost.exe", None, Some(295225664588)),
    (1908, "svchost.exe", None, Some(295226110168)),
    (1976, "spoolsv.exe", None, None),
    (2016, "svchost.exe", None, None),
    (2100, "browser_broker.exe", None, Some(295203420821)),
    (2140, "svchost.exe", None, Some(295222390277)),
    (2212, "Sysmon64.exe", None, None),
    (2244, "VGAuthService.exe", None, None),
    (2292, "vmtoolsd.exe", None, Some(295221348306)),
    (2744, "SkypeBackgroundHost.exe", None, Some(295209140521)),
    (2860, "dllhost.exe", None, None),
    (2960, "unsecapp.exe", None, None),
    (3400, "Microsoft.Photos.exe", None, Some(295209536212)),
    (3488, "msdtc.exe", None, Some(295224272277)),
    (3580, "sihost.exe", None, Some(295213564097)),
    (3588, "svchost.exe", None, Some(295218639329)),
    (3624, "SkypeApp.exe", None, Some(295208815594)),
    (3632, "taskhostw.exe", None, Some(295214155126)),
    (3856, "explorer.exe", None, Some(295212990238)),
    (3856, "explorer.exe", None, Some(295245450076)),
    (3884, "Calculator.exe", None, Some(295207796663)),
    (4148, "svchost.exe", None, Some(295217019271)),
    (4212, "SearchIndexer.exe", None, Some(295230046911)),
    (
        4456,
        "StartMenuExperienceHost.exe",
        None,
        Some(295209804937),
    ),
    (4528, "RuntimeBroker.exe", None, Some(295215760632)),
    (4636, "TrustedInstaller.exe", None, Some(295219973243)),
    (4660, "SearchUI.exe", None, Some(295208579625)),
    (4668, "RuntimeBroker.exe", None, Some(295215935077)),
    (4820, "RuntimeBroker.exe", None, Some(295215885414)),
    (4908, "svchost.exe", None, None),
    (4960, "ApplicationFrameHost.exe", None, Some(295213489206)),
    (4992, "MicrosoftEdge.exe", None, Some(295207367070)),
    (4992, "MicrosoftEdge.exe", None, Some(295245450151)),
    (5140, "SgrmBroker.exe", None, Some(295224857140)),
    (5168, "YourPhone.exe", None, Some(295209384634)),
    (5296, "WmiPrvSE.exe", None, None),
    (5360, "svchost.exe", None, Some(295223782261)),
    (5384, "RuntimeBroker.exe", None, Some(295213413477)),
    (5532, "RuntimeBroker.exe", None, Some(295215753715)),
    (5548, "svchost.exe", None, Some(295225593606)),
    (5628, "MicrosoftEdgeSH.exe", None, Some(295207771474)),
    (5636, "MicrosoftEdgeCP.exe", None, Some(295207311696)),
    (5648, "MsMpEng.exe", None, Some(295232612819)),
    (5648, "MsMpEng.exe", None, Some(295245455556)),
    (5696, "svchost.exe", None, Some(295224994934)),
    (5852, "ctfmon.exe", None, Some(295213385383)),
    (5888, "TabTip.exe", None, Some(295206226066)),
    (5984, "LockApp.exe", None, Some(295207312381)),
    (6048, "RuntimeBroker.exe", None, Some(295216099310)),
    (6172, "RuntimeBroker.exe", None, Some(295215853751)),
    (6192, "RuntimeBroker.exe", None, Some(295215790678)),
    (6508, "RuntimeBroker.exe", None, Some(295215816713)),
    (6572, "SystemSettings.exe", None, Some(295207669433)),
    (6584, "RuntimeBroker.exe", None, Some(295215807749)),
    (6780, "SecurityHealthSystray.exe", None, Some(295203281733)),
    (6832, "YourPhoneServer.exe", None, Some(295203837713)),
    (6840, "SecurityHealthService.exe", None, Some(295220439689)),
    (6920, "vmtoolsd.exe", None, Some(295205911763)),
    (7064, "OneDrive.exe", None, Some(295205504914)),
    (7412, "RuntimeBroker.exe", None, Some(295215956923)),
    (7420, "RuntimeBroker.exe", None, Some(295215802765)),
    (7488, "backgroundTaskHost.exe", None, Some(295208457984)),
    (7652, "backgroundTaskHost.exe", None, Some(295207733530)),
    (7968, "svchost.exe", None, Some(295221310899)),
    (8116, "NisSrv.exe", None, None),
    (8176, "TabTip.exe", None, Some(295206282238)),
];

/// Thread instances per owning pid: (pid, instances, started in the trace, ended in the trace).
const THREADS_PER_PID: &[(u32, u32, u32, u32)] = &[
    (0, 1, 0, 0),
    (4, 127, 15, 8),
    (8, 11, 1, 1),
    (88, 4, 0, 0),
    (256, 8, 0, 8),
    (348, 2, 0, 0),
    (428, 86, 74, 74),
    (496, 30, 2, 30),
    (504, 6, 1, 0),
    (516, 76, 64, 64),
    (520, 73, 15, 36),
    (600, 26, 20, 1),
    (608, 8, 3, 2),
    (644, 11, 4, 1),
    (680, 21, 3, 11),
    (720, 18, 3, 11),
    (736, 5, 0, 0),
    (744, 5, 0, 0),
    (756, 4, 1, 4),
    (764, 40, 17, 2),
    (872, 13, 1, 1),
    (956, 15, 1, 1),
    (964, 25, 1, 0),
    (1040, 20, 4, 8),
    (1128, 31, 7, 8),
    (1348, 20, 4, 20),
    (1408, 24, 6, 6),
    (1484, 5, 1, 5),
    (1520, 21, 0, 21),
    (1612, 2, 1, 1),
    (1688, 62, 0, 52),
    (1736, 4, 2, 1),
    (1776, 10, 1, 1),
    (1828, 6, 1, 1),
    (1852, 11, 4, 11),
    (1908, 9, 3, 9),
    (1976, 8, 1, 1),
    (2016, 16, 3, 1),
    (2100, 2, 0, 2),
    (2140, 13, 1, 13),
    (2212, 8, 2, 1),
    (2244, 3, 1, 1),
    (2292, 10, 0, 10),
    (2744, 4, 0, 4),
    (2860, 13, 3, 1),
    (2960, 3, 1, 1),
    (3400, 16, 0, 16),
    (3488, 11, 2, 11),
    (3580, 21, 4, 21),
    (3588, 17, 1, 17),
    (3624, 15, 0, 15),
    (3632, 9, 1, 9),
    (3856, 50, 7, 50),
    (3884, 22, 0, 22),
    (4148, 8, 5, 8),
    (4212, 22, 4, 22),
    (4456, 14, 1, 14),
    (4528, 6, 1, 6),
    (4636, 6, 0, 6),
    (4660, 28, 0, 28),
    (4668, 11, 0, 11),
    (4820, 7, 1, 7),
    (4908, 5, 2, 1),
    (4960, 14, 9, 14),
    (4992, 34, 0, 34),
    (5140, 4, 1, 4),
    (5168, 14, 0, 14),
    (5296, 5, 1, 1),
    (5360, 9, 3, 9),
    (5384, 3, 2, 3),
    (5532, 3, 2, 3),
    (5548, 12, 5, 12),
    (5628, 9, 0, 9),
    (5636, 16, 0, 16),
    (5648, 25, 3, 25),
    (5696, 9, 1, 9),
    (5852, 8, 0, 8),
    (5888, 6, 0, 6),
    (5984, 11, 0, 11),
    (6048, 10, 0, 10),
    (6172, 6, 0, 6),
    (6192, 3, 1, 3),
    (6508, 4, 0, 4),
    (6572, 19, 0, 19),
    (6584, 5, 1, 5),
    (6780, 1, 0, 1),
    (6832, 4, 0, 4),
    (6840, 8, 1, 8),
    (6920, 6, 0, 6),
    (7064, 27, 2, 27),
    (7412, 6, 4, 6),
    (7420, 6, 0, 6),
    (7488, 11, 0, 11),
    (7652, 12, 0, 12),
    (7968, 17, 9, 17),
    (8116, 7, 4, 1),
    (8176, 10, 0, 10),
];

/// Image instances per owning pid (0 = kernel images): (pid, instances, loaded in the trace, unloaded in the trace).
const IMAGES_PER_PID: &[(u32, u32, u32, u32)] = &[
    (0, 196, 0, 3),
    (4, 3, 0, 0),
    (8, 65, 0, 0),
    (256, 63, 0, 63),
    (348, 2, 0, 0),
    (428, 21, 0, 0),
    (496, 64, 0, 64),
    (504, 32, 0, 0),
    (516, 20, 0, 0),
    (520, 243, 13, 26),
    (600, 25, 1, 0),
    (608, 69, 12, 8),
    (644, 89, 6, 1),
    (680, 78, 0, 10),
    (720, 60, 1, 23),
    (736, 7, 0, 0),
    (744, 7, 0, 0),
    (756, 44, 0, 44),
    (764, 100, 0, 0),
    (872, 53, 0, 0),
    (956, 84, 0, 1),
    (964, 152, 0, 1),
    (1040, 96, 0, 7),
    (1128, 117, 0, 7),
    (1348, 83, 2, 83),
    (1408, 86, 0, 1),
    (1484, 49, 0, 49),
    (1520, 181, 0, 181),
    (1612, 31, 0, 0),
    (1736, 53, 0, 0),
    (1776, 55, 0, 0),
    (1828, 31, 0, 0),
    (1852, 43, 0, 43),
    (1908, 35, 3, 35),
    (1976, 76, 0, 0),
    (2016, 58, 0, 0),
    (2140, 90, 0, 90),
    (2212, 58, 0, 0),
    (2244, 52, 0, 0),
    (2292, 101, 0, 101),
    (2744, 29, 0, 29),
    (2860, 51, 0, 0),
    (2960, 24, 0, 0),
    (3400, 146, 0, 146),
    (3488, 49, 0, 49),
    (3580, 82, 0, 82),
    (3588, 158, 0, 158),
    (3624, 103, 0, 103),
    (3632, 42, 0, 42),
    (3856, 250, 3, 250),
    (3884, 96, 0, 96),
    (4148, 52, 0, 52),
    (4212, 65, 0, 65),
    (4456, 113, 0, 113),
    (4528, 67, 0, 67),
    (4636, 23, 0, 23),
    (4660, 193, 0, 193),
    (4668, 56, 0, 56),
    (4820, 84, 0, 84),
    (4908, 52, 0, 0),
    (4960, 61, 0, 61),
    (4992, 138, 0, 138),
    (5140, 20, 1, 20),
    (5168, 145, 0, 145),
    (5296, 43, 0, 0),
    (5360, 49, 24, 49),
    (5384, 58, 0, 58),
    (5532, 31, 0, 31),
    (5548, 50, 1, 50),
    (5628, 52, 0, 52),
    (5636, 84, 0, 84),
    (5648, 100, 0, 100),
    (5696, 41, 0, 41),
    (5852, 43, 0, 43),
    (5888, 64, 0, 64),
    (5984, 102, 0, 102),
    (6048, 86, 0, 86),
    (6172, 49, 0, 49),
    (6192, 77, 0, 77),
    (6508, 78, 0, 78),
    (6572, 152, 0, 152),
    (6584, 39, 0, 39),
    (6840, 70, 0, 70),
    (6920, 115, 0, 115),
    (7064, 171, 1, 171),
    (7412, 58, 0, 58),
    (7420, 33, 0, 33),
    (7488, 63, 0, 63),
    (7652, 63, 0, 63),
    (7968, 76, 0, 76),
    (8116, 44, 0, 0),
    (8176, 54, 4, 54),
];

const THREAD_INSTANCES: usize = 1532;
const IMAGE_INSTANCES: usize = 6816;
const KERNEL_IMAGES: usize = 196;

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
