//! The `explorer-overlay` scenario: a synthetic trace modelling the
//! published investigation of explorer.exe burning CPU when a monitor is
//! plugged in (an Acronis shell extension, tishell64, walking the process
//! list for every overlay icon). Figures it reproduces, 1 kHz sampling on
//! 4 CPUs:
//!
//! - 7.0-23.0 s: 42,300 explorer samples, 20,191 of them under
//!   `windows.storage.dll!CFSFolder::_GetOverlayInfo`; 19,400 of those in
//!   tishell64_26_0_39450.dll, which calls `kernel32!CreateToolhelp32Snapshot`
//!   (3,100) and `kernel32!Process32NextW` (6,600); 6,600 more samples with
//!   the extension on the stack elsewhere (26,000 in all);
//! - 370 images in explorer.exe, 11 without a FileVersion event (10
//!   Microsoft DLLs and the shell extension); all with DbgID_RSDS;
//! - 5,902 file creates by explorer, 4,663 (79%) of ti_managers_proxy.dll.
//!
//! Stacks are cached keys (definitions rundown at the end, references
//! after each event), as WPR records them, which keeps the file small.
//! Everything derives from the seed: same seed, same bytes.

mod images;
pub mod pdbs;
mod stacks;

use crate::events::{
    self, hooks as ev_hooks, ktc_opcodes, sysconfig_opcodes, KERNEL_TRACE_CONTROL, SYSCONFIG,
};
use crate::kernel::{self, hooks, versions, ImageFields, ProcessFields, ThreadFields};
use crate::prng::Rng;
use etl::writer::{ClassicHeader, EtlWriter, KernelHeader, Record, WriteSummary, WriterConfig};
use images::{ImageSpec, Images};
pub use images::{ACRONIS_DIR, PROXY_DLL, SHELL_EXTENSION, UNVERSIONED_MICROSOFT};
use stacks::{Stack, StackBuilder, Work};
use std::collections::HashMap;
use std::io::{self, Seek, Write};

pub const CPUS: u16 = 4;
/// Samples are taken at 1 ms, 2 ms, ... up to (not including) this.
pub const TRACE_MS: u64 = 25_000;
pub const WINDOW_MS: (u64, u64) = (7_000, 23_000);
const TICKS_PER_MS: i64 = 10_000;

/// Samples per kind of work inside the window (4 CPUs x 16,000 ms).
const WINDOW_WORK: [(Work, u32); 11] = [
    (Work::OverlaySnapshot, 3_100),
    (Work::OverlayProcessNext, 6_600),
    (Work::OverlayExtension, 9_700),
    (Work::OverlayShellOnly, 791),
    (Work::ExtensionElsewhere, 6_600),
    (Work::ExplorerOther, 15_509),
    (Work::Dwm, 2_400),
    (Work::Edge, 2_900),
    (Work::Svchost, 300),
    (Work::SystemWorker, 600),
    // With the idle rest: 64,000 slots in all.
    (Work::Idle, 15_500),
];
pub const PROXY_OPENS: u32 = 4_663;
/// ti_managers_proxy.dll as FileIo names it (the image event's path is
/// `ACRONIS_DIR` + `PROXY_DLL`).
const PROXY_NT_PATH: &str =
    r"\Device\HarddiskVolume3\Program Files (x86)\Acronis\TrueImageHome\ti_managers_proxy.dll";
pub const OTHER_EXPLORER_OPENS: u32 = 1_239;
const EDGE_OPENS: u32 = 240;

const EXPLORER_PID: u32 = 6_148;
const IDLE_PID: u32 = 0;
const SYSTEM_PID: u32 = 4;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExplorerParams {
    pub seed: u64,
    /// False: the same scenario after the shell extension is uninstalled
    /// (`traces/explorer-fixed.etl`): its CPU work (every stack with
    /// tishell64 on it) idles instead and its ti_managers_proxy.dll opens
    /// are gone; everything else, drawn from the same seed, stays as it is.
    pub shell_extension: bool,
    /// The shell extension's CPU cost in the window, in thousandths of the
    /// demo's (1000: its 26,000 samples; 1500 at most): each kind of its
    /// work gets `n * permille / 1000` samples (rounded down), the rest of
    /// the slots idle. Library tests write builds whose cost drifts.
    pub shell_extension_permille: u32,
    /// 1: the demo's 25 s. n: a trace n times shorter (at most
    /// `MAX_SHORTEN`): its length, the window and every count of samples
    /// and file opens divided by n (rounded down); processes and images
    /// stay. Library tests write many builds quickly.
    pub shorten: u32,
    /// The recording's start, this many days after the demo's
    /// (2023-03-14T16:06:40Z): builds recorded day after day spread over
    /// the Across traces page's time axis.
    pub days_later: u32,
}

/// The most `shorten` can ask: a 250 ms trace.
pub const MAX_SHORTEN: u32 = 100;

/// The most `shell_extension_permille` can ask: the window's slots.
pub const MAX_SHELL_EXTENSION_PERMILLE: u32 = 1_500;

impl Default for ExplorerParams {
    fn default() -> Self {
        ExplorerParams {
            seed: 0x5EED_0E7A,
            shell_extension: true,
            shell_extension_permille: 1_000,
            shorten: 1,
            days_later: 0,
        }
    }
}

/// Samples with the shell extension on the stack (all in explorer.exe,
/// all in the window) at its cost `permille` in a trace `shorten` times
/// shorter: 26,000 at 1000 and 1.
pub fn shell_extension_samples(permille: u32, shorten: u32) -> u32 {
    let d = divisor(shorten);
    WINDOW_WORK
        .iter()
        .filter(|(w, _)| is_extension_work(*w))
        .map(|&(w, _)| window_samples(w, permille, d))
        .sum()
}

/// `shorten` as the writer uses it.
fn divisor(shorten: u32) -> u32 {
    shorten.clamp(1, MAX_SHORTEN)
}

/// Samples of `work` in the window at the extension's cost `permille`, in
/// a trace `d` times shorter.
fn window_samples(work: Work, permille: u32, d: u32) -> u32 {
    let n = WINDOW_WORK
        .iter()
        .find(|(w, _)| *w == work)
        .map_or(0, |&(_, n)| n / d);
    if is_extension_work(work) {
        let p = permille.min(MAX_SHELL_EXTENSION_PERMILLE);
        (u64::from(n) * u64::from(p) / 1000) as u32
    } else {
        n
    }
}

/// The work the shell extension does (its samples and file opens).
fn is_extension_work(w: Work) -> bool {
    matches!(
        w,
        Work::OverlaySnapshot
            | Work::OverlayProcessNext
            | Work::OverlayExtension
            | Work::ExtensionElsewhere
            | Work::OpenProxy
    )
}

/// A day in FILETIME's 100 ns units.
const DAY: i64 = 864_000_000_000;

/// The most `days_later` can ask: about 27 years.
pub const MAX_DAYS_LATER: u32 = 10_000;

fn writer_config(days_later: u32) -> WriterConfig {
    let later = i64::from(days_later.min(MAX_DAYS_LATER)) * DAY;
    WriterConfig {
        pointer_size: 8,
        cpus: CPUS,
        buffer_size: 64 * 1024,
        compress: false,
        // 2023-03-14T16:06:40Z
        start_time: 133_232_836_000_000_000 + later,
        boot_time: 133_232_800_000_000_000 + later,
        cpu_speed_mhz: 2_995,
        logger_name: "etlscope synth explorer-overlay".into(),
        log_file_name: "explorer-overlay.etl".into(),
        ..WriterConfig::default()
    }
}

struct ProcessSpec {
    pid: u32,
    name: &'static str,
    command_line: &'static str,
    tids: Vec<u32>,
}

fn processes(rng: &mut Rng) -> Vec<ProcessSpec> {
    let mut tid = 100u32;
    let mut tids = |n: usize, rng: &mut Rng| -> Vec<u32> {
        (0..n)
            .map(|_| {
                tid += 4 * (1 + rng.below(40) as u32);
                tid
            })
            .collect()
    };
    vec![
        (IDLE_PID, "Idle", "", 0),
        (SYSTEM_PID, "System", "", 14),
        (EXPLORER_PID, "explorer.exe", r"C:\Windows\Explorer.EXE", 68),
        (1_196, "dwm.exe", r#""dwm.exe""#, 12),
        (
            9_412,
            "msedge.exe",
            r#""C:\Program Files (x86)\Microsoft\Edge\Application\msedge.exe" --type=renderer"#,
            24,
        ),
        (
            2_288,
            "svchost.exe",
            r"C:\Windows\system32\svchost.exe -k netsvcs -p",
            8,
        ),
    ]
    .into_iter()
    .map(|(pid, name, command_line, n)| ProcessSpec {
        pid,
        name,
        command_line,
        tids: tids(n, rng),
    })
    .collect()
}

/// Cached stack keys: one definition per distinct half, rundown at the end.
#[derive(Default)]
struct KeyCache {
    index: HashMap<(bool, Vec<u64>), u64>,
    /// (kernel?, key, frames leaf first), in first-use order.
    defs: Vec<(bool, u64, Vec<u64>)>,
}

impl KeyCache {
    fn key(&mut self, kernel: bool, root_first: &[u64]) -> u64 {
        let leaf_first: Vec<u64> = root_first.iter().rev().copied().collect();
        let n = self.defs.len() as u64;
        *self
            .index
            .entry((kernel, leaf_first.clone()))
            .or_insert_with(|| {
                let key = if kernel {
                    0xFFFF_C60E_0000_0000 + n * 0x40
                } else {
                    0xFFFF_C60F_0000_0000 + n * 0x40
                };
                self.defs.push((kernel, key, leaf_first));
                key
            })
    }
}

/// One file create: who, which (numbers its IRP and file object), what.
struct Open {
    pid: u32,
    tid: u32,
    n: u64,
    path: &'static str,
    work: Work,
}

struct Gen<'a, W: Write + Seek> {
    w: EtlWriter<W>,
    rng: Rng,
    stacks: StackBuilder<'a>,
    keys: KeyCache,
    ts0: i64,
}

impl<W: Write + Seek> Gen<'_, W> {
    /// An event's stack: kernel half then user half, as key references.
    fn stack_refs(&mut self, cpu: u16, ts: i64, pid: u32, tid: u32, s: &Stack) -> io::Result<()> {
        for (kernel, frames, hook, at) in [
            (true, &s.kernel, ev_hooks::STACK_KEY_KERNEL, 1),
            (false, &s.user, ev_hooks::STACK_KEY_USER, 2),
        ] {
            if frames.is_empty() {
                continue;
            }
            let key = self.keys.key(kernel, frames);
            let pl = events::stack_key_reference(8, ts, pid, tid, key);
            self.w
                .write(cpu, &Record::perfinfo(ts + at, hook, 2, &pl))?;
        }
        Ok(())
    }

    fn sample(&mut self, cpu: u16, ts: i64, pid: u32, tid: u32, work: Work) -> io::Result<()> {
        let s = self.stacks.stack(work, &mut self.rng);
        let ip = s
            .kernel
            .last()
            .or(s.user.last())
            .copied()
            .unwrap_or(0xFFFF_F805_4A21_3000);
        let pl = kernel::sampled_profile(8, ip, tid, 0);
        let rec = Record::perfinfo(ts, hooks::SAMPLED_PROFILE, versions::SAMPLED_PROFILE, &pl);
        self.w.write(cpu, &rec)?;
        self.stack_refs(cpu, ts, pid, tid, &s)
    }

    fn create(&mut self, cpu: u16, ts: i64, o: &Open) -> io::Result<()> {
        let (pid, tid, n) = (o.pid, o.tid, o.n);
        let pl = events::file_create(
            8,
            0xFFFF_B20C_1000_0000 + n * 0x1A0,
            0xFFFF_B20C_8000_0000 + n * 0x150,
            tid,
            o.path,
        );
        let h = KernelHeader {
            hook_id: ev_hooks::FILEIO_CREATE,
            version: 3,
            pid,
            tid,
        };
        self.w.write(cpu, &Record::system(ts, h, &pl))?;
        let s = self.stacks.stack(o.work, &mut self.rng);
        self.stack_refs(cpu, ts, pid, tid, &s)
    }

    /// Image DCStart plus KernelTraceControl ImageID, DbgID_RSDS and (when
    /// versioned) FileVersion, all at the image event's timestamp.
    fn image(&mut self, ts: i64, pid: u32, i: &ImageSpec) -> io::Result<()> {
        let pl = kernel::image(
            8,
            &ImageFields {
                base: i.base,
                size: i.size,
                pid,
                checksum: i.checksum,
                time_date_stamp: i.time_date_stamp,
                file_name: &i.path,
            },
        );
        self.w.write(
            0,
            &Record::perfinfo(ts, hooks::IMAGE_DC_START, versions::IMAGE, &pl),
        )?;
        let ktc = |opcode: u8| ClassicHeader {
            guid: KERNEL_TRACE_CONTROL,
            opcode,
            level: 0,
            version: 2,
            pid,
            tid: 0,
        };
        let pl = events::image_id(8, i.base, i.size, pid, i.time_date_stamp, i.file_name());
        self.w
            .write(0, &Record::full(ts, ktc(ktc_opcodes::IMAGE_ID), &pl))?;
        let pl = events::dbg_id_rsds(8, i.base, pid, i.pdb_guid, i.pdb_age, &i.pdb_name);
        self.w
            .write(0, &Record::full(ts, ktc(ktc_opcodes::DBG_ID_RSDS), &pl))?;
        if i.versioned {
            let (name, v) = i.version();
            let pl = events::file_version(i.size as u32, i.time_date_stamp, &v.info(&name));
            self.w
                .write(0, &Record::full(ts, ktc(ktc_opcodes::FILE_VERSION), &pl))?;
        }
        Ok(())
    }
}

/// Write the scenario to `sink`.
pub fn write_explorer_overlay<W: Write + Seek>(
    sink: W,
    params: &ExplorerParams,
) -> io::Result<(W, WriteSummary)> {
    let mut rng = Rng::new(params.seed);
    let imgs = Images::new(&mut rng);
    let procs = processes(&mut rng);
    let config = writer_config(params.days_later);
    let ts0 = config.ts0;
    let mut g = Gen {
        w: EtlWriter::new(sink, config)?,
        rng: Rng::new(params.seed ^ 0x6578_706c_6f72),
        stacks: StackBuilder {
            explorer: &imgs.explorer,
            kernel: &imgs.kernel,
            others: &imgs.others,
        },
        keys: KeyCache::default(),
        ts0,
    };
    rundown(&mut g, &procs, &imgs)?;
    let d = divisor(params.shorten);
    samples(
        &mut g,
        &procs,
        params.shell_extension,
        params.shell_extension_permille,
        d,
    )?;
    finish_rundown(&mut g, d)?;
    g.w.finish()
}

fn rundown<W: Write + Seek>(
    g: &mut Gen<'_, W>,
    procs: &[ProcessSpec],
    imgs: &Images,
) -> io::Result<()> {
    let mut ts = g.ts0 + 100;
    let pl = events::profile_interval(10_000);
    g.w.write(
        0,
        &Record::perfinfo(ts, ev_hooks::PROFILE_INTERVAL_START, 3, &pl),
    )?;
    for (i, p) in procs.iter().enumerate() {
        ts += 1;
        let key = 0xFFFF_A08C_0000_0000 + 0x1_0000 * i as u64;
        let pl = kernel::process(
            8,
            &ProcessFields {
                unique_process_key: key,
                pid: p.pid,
                parent_pid: if p.pid <= SYSTEM_PID { 0 } else { 1_032 },
                session_id: if p.pid <= SYSTEM_PID { u32::MAX } else { 1 },
                directory_table_base: 0x1AD000 + 0x10_0000 * i as u64,
                image_file_name: p.name,
                command_line: p.command_line,
            },
        );
        g.w.write(
            0,
            &Record::perfinfo(ts, hooks::PROCESS_DC_START, versions::PROCESS, &pl),
        )?;
    }
    let idle = (0..CPUS).map(|_| (IDLE_PID, 0u32));
    let threads: Vec<(u32, u32)> = idle
        .chain(
            procs
                .iter()
                .flat_map(|p| p.tids.iter().map(move |&t| (p.pid, t))),
        )
        .collect();
    let start = imgs.kernel.first().map_or(0, |k| k.base + 0x2_1000);
    for (i, &(pid, tid)) in threads.iter().enumerate() {
        ts += 1;
        let stack_base = 0xFFFF_8A0D_0000_0000 + 0x6000 * i as u64;
        let pl = kernel::thread(
            8,
            &ThreadFields {
                pid,
                tid,
                stack_base,
                stack_limit: stack_base - 0x6000,
                start_addr: start,
                win32_start_addr: start,
                teb_base: if pid == 0 {
                    0
                } else {
                    0x9A_0000_0000 + 0x2000 * i as u64
                },
                base_priority: 8,
            },
        );
        let h = KernelHeader {
            hook_id: hooks::THREAD_DC_START,
            version: versions::THREAD,
            pid,
            tid,
        };
        g.w.write(0, &Record::system(ts, h, &pl))?;
    }
    for k in &imgs.kernel {
        ts += 1;
        g.image(ts, 0, k)?;
    }
    for i in &imgs.explorer {
        ts += 1;
        g.image(ts, EXPLORER_PID, i)?;
    }
    for (name, list) in &imgs.others {
        let pid = procs.iter().find(|p| p.name == *name).map_or(0, |p| p.pid);
        for i in list {
            ts += 1;
            g.image(ts, pid, i)?;
        }
    }
    Ok(())
}

/// The window (ms) of a trace `d` times shorter.
fn window_ms(d: u32) -> (u64, u64) {
    (WINDOW_MS.0 / u64::from(d), WINDOW_MS.1 / u64::from(d))
}

/// The work of every (ms, CPU) slot inside the window, shuffled.
fn window_plan(rng: &mut Rng, permille: u32, d: u32) -> Vec<Work> {
    let mut v: Vec<Work> = WINDOW_WORK
        .iter()
        .flat_map(|&(w, _)| std::iter::repeat_n(w, window_samples(w, permille, d) as usize))
        .collect();
    let (from, to) = window_ms(d);
    let slots = ((to - from) * CPUS as u64) as usize;
    v.resize(slots, Work::Idle);
    for i in (1..v.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        v.swap(i, j);
    }
    v
}

/// Outside the window explorer is quiet and the rest idles on.
fn quiet_work(rng: &mut Rng) -> Work {
    match rng.below(1000) {
        0..=59 => Work::ExplorerOther,
        60..=99 => Work::Dwm,
        100..=159 => Work::Edge,
        160..=164 => Work::Svchost,
        165..=174 => Work::SystemWorker,
        _ => Work::Idle,
    }
}

/// File creates: (ms, pid, which create, path, work), in time order.
fn create_plan(rng: &mut Rng, d: u32) -> Vec<(u64, u32, u64, &'static str, Work)> {
    // NT paths, as FileIo records them; SysConfig's VolumeMapping maps
    // `\Device\HarddiskVolume3` to `C:`.
    const OTHER_PATHS: [&str; 6] = [
        r"\Device\HarddiskVolume3\Users\demo\Desktop\desktop.ini",
        r"\Device\HarddiskVolume3\Users\Public\Desktop\desktop.ini",
        r"\Device\HarddiskVolume3\Users\demo\AppData\Local\Microsoft\Windows\Explorer\thumbcache_idx.db",
        r"\Device\HarddiskVolume3\Users\demo\AppData\Local\Microsoft\Windows\Explorer\iconcache_32.db",
        r"\Device\HarddiskVolume3\Users\demo\AppData\Roaming\Microsoft\Windows\Recent\AutomaticDestinations",
        r"\Device\HarddiskVolume3\Windows\System32\imageres.dll",
    ];
    let proxy = PROXY_NT_PATH;
    let (proxy_opens, edge_opens) = (PROXY_OPENS / d, EDGE_OPENS / d);
    let total = proxy_opens + OTHER_EXPLORER_OPENS / d;
    let mut kinds: Vec<bool> = (0..total).map(|i| i < proxy_opens).collect();
    for i in (1..kinds.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        kinds.swap(i, j);
    }
    let window = window_ms(d);
    let span = window.1 - window.0;
    let mut v: Vec<_> = kinds
        .iter()
        .enumerate()
        .map(|(i, &is_proxy)| {
            let ms = window.0 + i as u64 * span / total as u64;
            if is_proxy {
                (ms, EXPLORER_PID, i as u64, proxy, Work::OpenProxy)
            } else {
                let p = OTHER_PATHS[rng.below(OTHER_PATHS.len() as u64) as usize];
                (ms, EXPLORER_PID, i as u64, p, Work::OpenOther)
            }
        })
        .collect();
    for i in 0..edge_opens {
        let ms = 2_000 / u64::from(d) + u64::from(i) * 90;
        let p = r"\Device\HarddiskVolume3\Users\demo\AppData\Local\Microsoft\Edge\User Data\Default\Cache\Cache_Data\index";
        v.push((ms, 9_412, u64::from(total + i), p, Work::Edge));
    }
    v.sort_by_key(|c| (c.0, c.2));
    v
}

fn samples<W: Write + Seek>(
    g: &mut Gen<'_, W>,
    procs: &[ProcessSpec],
    shell_extension: bool,
    permille: u32,
    d: u32,
) -> io::Result<()> {
    let mut plan_rng = Rng::new(g.rng.next_u64());
    let window = window_plan(&mut plan_rng, permille, d);
    let creates = create_plan(&mut plan_rng, d);
    let window_ms = window_ms(d);
    let tids = |name: &str| -> &[u32] {
        procs
            .iter()
            .find(|p| p.name == name)
            .map_or(&[], |p| &p.tids)
    };
    let explorer = tids("explorer.exe");
    // The UI thread, then 40 busy workers; the rest of explorer's threads wait.
    let ui = explorer.first().copied().unwrap_or(0);
    let workers: &[u32] = explorer.get(1..41).unwrap_or(&[]);
    let mut next_create = 0;
    let mut in_window = 0usize;
    let mut used: Vec<u32> = Vec::with_capacity(CPUS as usize);
    for ms in 1..TRACE_MS / u64::from(d) {
        let tick_ts = g.ts0 + ms as i64 * TICKS_PER_MS;
        used.clear();
        for cpu in 0..CPUS {
            let work = if (window_ms.0..window_ms.1).contains(&ms) {
                in_window += 1;
                window.get(in_window - 1).copied().unwrap_or(Work::Idle)
            } else {
                quiet_work(&mut plan_rng)
            };
            // Without the extension its work idles; the plan (and the random
            // draws below) stay as they are, so the rest is unchanged.
            let work = if !shell_extension && is_extension_work(work) {
                Work::Idle
            } else {
                work
            };
            let (pid, pool): (u32, &[u32]) = match work {
                Work::Idle => (IDLE_PID, &[]),
                Work::Dwm => (1_196, tids("dwm.exe")),
                Work::Edge => (9_412, tids("msedge.exe")),
                Work::Svchost => (2_288, tids("svchost.exe")),
                Work::SystemWorker => (SYSTEM_PID, tids("System")),
                Work::ExplorerOther | Work::ExtensionElsewhere if !used.contains(&ui) => {
                    (EXPLORER_PID, std::slice::from_ref(&ui))
                }
                _ => (EXPLORER_PID, workers),
            };
            let tid = if pool.is_empty() {
                0
            } else {
                // A thread runs on one CPU at a time.
                let mut t = pool[plan_rng.below(pool.len() as u64) as usize];
                for _ in 0..8 {
                    if !used.contains(&t) {
                        break;
                    }
                    t = pool[plan_rng.below(pool.len() as u64) as usize];
                }
                t
            };
            used.push(tid);
            g.sample(cpu, tick_ts + cpu as i64 * 37, pid, tid, work)?;
        }
        while let Some(&(at, pid, n, path, work)) = creates.get(next_create) {
            if at != ms {
                break;
            }
            next_create += 1;
            if !shell_extension && is_extension_work(work) {
                continue;
            }
            let cpu = (n % CPUS as u64) as u16;
            let pool = if pid == EXPLORER_PID {
                workers
            } else {
                tids("msedge.exe")
            };
            let tid = pool
                .get((n % pool.len().max(1) as u64) as usize)
                .copied()
                .unwrap_or(0);
            let open = Open {
                pid,
                tid,
                n,
                path,
                work,
            };
            g.create(cpu, tick_ts + 5_000 + cpu as i64, &open)?;
        }
    }
    Ok(())
}

/// End of trace: interval rundown, stack key definitions, file names.
fn finish_rundown<W: Write + Seek>(g: &mut Gen<'_, W>, d: u32) -> io::Result<()> {
    let mut ts = g.ts0 + (TRACE_MS / u64::from(d)) as i64 * TICKS_PER_MS;
    let pl = events::profile_interval(10_000);
    g.w.write(
        0,
        &Record::perfinfo(ts, ev_hooks::PROFILE_INTERVAL_END, 3, &pl),
    )?;
    let defs = std::mem::take(&mut g.keys.defs);
    for (i, (_, key, frames)) in defs.iter().enumerate() {
        ts += 1;
        let pl = events::stack_key_definition(8, *key, frames);
        let cpu = (i % CPUS as usize) as u16;
        g.w.write(
            cpu,
            &Record::perfinfo(ts, ev_hooks::STACK_KEY_RUNDOWN, 2, &pl),
        )?;
    }
    let files = [
        PROXY_NT_PATH,
        r"\Device\HarddiskVolume3\Users\demo\Desktop\desktop.ini",
    ];
    for (j, path) in files.iter().enumerate() {
        ts += 1;
        let pl = events::file_rundown(8, 0xFFFF_B20D_0000_0000 + 0x40 * j as u64, path);
        let h = KernelHeader {
            hook_id: ev_hooks::FILEIO_RUNDOWN,
            version: 2,
            pid: SYSTEM_PID,
            tid: 0,
        };
        g.w.write(0, &Record::system(ts, h, &pl))?;
    }
    // SysConfig rundown, as xperf appends it when merging.
    let sysconfig = |opcode: u8| ClassicHeader {
        guid: SYSCONFIG,
        opcode,
        level: 0,
        version: 2,
        pid: SYSTEM_PID,
        tid: 0,
    };
    ts += 1;
    let pl = events::system_paths(r"C:\Windows\system32", r"C:\Windows\");
    let h = sysconfig(sysconfig_opcodes::SYSTEM_PATHS);
    g.w.write(0, &Record::full(ts, h, &pl))?;
    ts += 1;
    let pl = events::volume_mapping(r"\Device\HarddiskVolume3", "C:");
    let h = sysconfig(sysconfig_opcodes::VOLUME_MAPPING);
    g.w.write(0, &Record::full(ts, h, &pl))?;
    Ok(())
}
