//! Sample stacks in traces written with our own writer, for 32- and 64-bit
//! pointers: every stack form the kernel logs (inline StackWalk, cached keys
//! with kernel and user halves, a user half logged once on the thread's exit
//! from the kernel) and wrap-around orders (a stack event in a buffer that
//! precedes its sample's, a stack key deleted and then reused).
//!
//! Expected stacks are the addresses this file writes, mapped to
//! (module, RVA) through the image layout declared here, independently of
//! the model's own image and stack code. Payload layouts: etl-format.md C.5.

use etl::writer::{EtlWriter, KernelHeader, Record, WriterConfig};
use etl::EtlFile;
use model::{Trace, NONE};
use std::collections::BTreeMap;
use std::io::Cursor;
use synth::kernel::{self, hooks, versions, ImageFields, ProcessFields, ThreadFields};

const STACK_WALK: u16 = 0x1820;
const KEY_DELETE: u16 = 0x1823;
const KEY_RUNDOWN: u16 = 0x1824;
const KEY_KERNEL: u16 = 0x1825;
const KEY_USER: u16 = 0x1826;

const APP_PID: u32 = 1000;
const OTHER_PID: u32 = 2000;
const SYSTEM_PID: u32 = 4;
/// Threads of app.exe: 1001 (inline, keys, wrap-around), 1002 and 1003
/// (kernel excursions completed on exit).
const T1: u32 = 1001;
const T2: u32 = 1002;
const T3: u32 = 1003;
const OTHER_TID: u32 = 2001;
const SYSTEM_TID: u32 = 4005;

/// A frame as the test expects it: an image's file name and RVA, or a raw
/// address no image covers.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Frame {
    Module(String, u64),
    Raw(u64),
}

/// (ticks after ts0, tid) of each sample -> its stack, leaf first.
type Expected = BTreeMap<(i64, u32), Vec<Frame>>;

/// An image of the layout: owning pid (0 = kernel, seen by every process).
struct Img {
    pid: u32,
    name: &'static str,
    base: u64,
    size: u64,
}

/// Addresses for one pointer size. app.exe (pid 1000) and other.exe
/// (pid 2000) sit at the same base, so a user address means a different
/// module in each process.
struct Layout {
    p: u8,
    kernel: u64,
    app: u64,
    ntdll: u64,
    /// Inside no image (e.g. JIT code).
    raw: u64,
    images: Vec<Img>,
}

impl Layout {
    fn new(p: u8) -> Layout {
        let (kernel, app, ntdll, raw) = if p == 8 {
            (
                0xFFFF_F802_1000_0000u64,
                0x0000_7FF6_1000_0000u64,
                0x0000_7FFA_2000_0000u64,
                0x0000_0200_0000_1234u64,
            )
        } else {
            (0x8040_0000, 0x0040_0000, 0x7700_0000, 0x0500_1234)
        };
        let images = vec![
            Img {
                pid: 0,
                name: "ntoskrnl.exe",
                base: kernel,
                size: 0x100_0000,
            },
            Img {
                pid: APP_PID,
                name: "app.exe",
                base: app,
                size: 0x10_0000,
            },
            Img {
                pid: APP_PID,
                name: "ntdll.dll",
                base: ntdll,
                size: 0x20_0000,
            },
            Img {
                pid: OTHER_PID,
                name: "other.exe",
                base: app,
                size: 0x10_0000,
            },
            Img {
                pid: OTHER_PID,
                name: "ntdll.dll",
                base: ntdll,
                size: 0x20_0000,
            },
        ];
        Layout {
            p,
            kernel,
            app,
            ntdll,
            raw,
            images,
        }
    }

    fn k(&self, rva: u64) -> u64 {
        self.kernel + rva
    }
    fn a(&self, rva: u64) -> u64 {
        self.app + rva
    }
    fn n(&self, rva: u64) -> u64 {
        self.ntdll + rva
    }

    /// What `addr` means in `pid`: its own images first, then the kernel's.
    fn frame(&self, pid: u32, addr: u64) -> Frame {
        let hit = |i: &&Img| addr >= i.base && addr - i.base < i.size;
        self.images
            .iter()
            .filter(|i| i.pid == pid)
            .find(hit)
            .or_else(|| self.images.iter().filter(|i| i.pid == 0).find(hit))
            .map_or(Frame::Raw(addr), |i| {
                Frame::Module(i.name.into(), addr - i.base)
            })
    }
}

fn ptr(p: u8, v: u64, out: &mut Vec<u8>) {
    if p == 4 {
        out.extend_from_slice(&(v as u32).to_le_bytes());
    } else {
        out.extend_from_slice(&v.to_le_bytes());
    }
}

/// The writer plus the stacks each sample should end up with.
struct Scenario {
    l: Layout,
    w: EtlWriter<Cursor<Vec<u8>>>,
    ts0: i64,
    pid_of: BTreeMap<u32, u32>,
    expected: Expected,
}

impl Scenario {
    fn new(p: u8) -> Scenario {
        let config = WriterConfig {
            pointer_size: p,
            cpus: 2,
            // Small buffers: several per CPU, so events cross buffers.
            buffer_size: 2048,
            logger_name: "etlscope acceptance writer".into(),
            log_file_name: "acceptance-writer.etl".into(),
            ..WriterConfig::default()
        };
        let ts0 = config.ts0;
        let w = EtlWriter::new(Cursor::new(Vec::new()), config).unwrap();
        let pid_of = [
            (T1, APP_PID),
            (T2, APP_PID),
            (T3, APP_PID),
            (OTHER_TID, OTHER_PID),
            (SYSTEM_TID, SYSTEM_PID),
        ]
        .into();
        let mut s = Scenario {
            l: Layout::new(p),
            w,
            ts0,
            pid_of,
            expected: BTreeMap::new(),
        };
        s.rundown();
        s
    }

    fn put(&mut self, cpu: u16, ts: i64, hook: u16, version: u16, payload: &[u8]) {
        let rec = Record::perfinfo(self.ts0 + ts, hook, version, payload);
        self.w.write(cpu, &rec).unwrap();
    }

    fn rundown(&mut self) {
        let p = self.l.p;
        let procs = [
            (SYSTEM_PID, "System"),
            (APP_PID, "app.exe"),
            (OTHER_PID, "other.exe"),
        ];
        for (i, (pid, name)) in procs.into_iter().enumerate() {
            let pl = kernel::process(
                p,
                &ProcessFields {
                    unique_process_key: self.l.kernel - 0x10_0000 + 0x1000 * i as u64,
                    pid,
                    parent_pid: 4,
                    session_id: 1,
                    directory_table_base: 0x1AD000,
                    image_file_name: name,
                    command_line: name,
                },
            );
            self.put(0, 10, hooks::PROCESS_DC_START, versions::PROCESS, &pl);
        }
        let threads: Vec<(u32, u32)> = self.pid_of.iter().map(|(&t, &p)| (t, p)).collect();
        for (tid, pid) in threads {
            let pl = kernel::thread(
                p,
                &ThreadFields {
                    pid,
                    tid,
                    stack_base: self.l.k(0x80_0000),
                    stack_limit: self.l.k(0x7F_0000),
                    start_addr: self.l.n(0x1840),
                    win32_start_addr: self.l.a(0x1000),
                    teb_base: 0x7FFD_0000,
                    base_priority: 8,
                },
            );
            let h = KernelHeader {
                hook_id: hooks::THREAD_DC_START,
                version: versions::THREAD,
                pid,
                tid,
            };
            self.w
                .write(0, &Record::system(self.ts0 + 20, h, &pl))
                .unwrap();
        }
        for i in 0..self.l.images.len() {
            let img = &self.l.images[i];
            let pl = kernel::image(
                p,
                &ImageFields {
                    base: img.base,
                    size: img.size,
                    pid: img.pid,
                    checksum: 0x1234,
                    time_date_stamp: 0x5000_0000,
                    file_name: &format!(r"C:\Windows\System32\{}", img.name),
                },
            );
            self.put(0, 30, hooks::IMAGE_DC_START, versions::IMAGE, &pl);
        }
    }

    /// A SampledProfile at `ts` on `tid`; `stack` (leaf first) is what the
    /// model must show for it.
    fn sample(&mut self, cpu: u16, ts: i64, tid: u32, ip: u64, stack: &[u64]) {
        let pl = kernel::sampled_profile(self.l.p, ip, tid, 0);
        self.put(
            cpu,
            ts,
            hooks::SAMPLED_PROFILE,
            versions::SAMPLED_PROFILE,
            &pl,
        );
        let pid = self.pid_of[&tid];
        let frames = stack.iter().map(|&a| self.l.frame(pid, a)).collect();
        assert!(self.expected.insert((ts, tid), frames).is_none());
    }

    /// Inline StackWalk logged at `ts` for the event at `event_ts`.
    fn walk(&mut self, cpu: u16, ts: i64, event_ts: i64, tid: u32, frames: &[u64]) {
        let pl = kernel::stack_walk(
            self.l.p,
            self.ts0 + event_ts,
            self.pid_of[&tid],
            tid,
            frames,
        );
        self.put(cpu, ts, STACK_WALK, 2, &pl);
    }

    /// StackKeyKernel / StackKeyUser reference (etl-format C.5).
    fn key_ref(&mut self, cpu: u16, ts: i64, user: bool, event_ts: i64, tid: u32, key: u64) {
        let mut pl = Vec::new();
        pl.extend_from_slice(&(self.ts0 + event_ts).to_le_bytes());
        pl.extend_from_slice(&self.pid_of[&tid].to_le_bytes());
        pl.extend_from_slice(&tid.to_le_bytes());
        ptr(self.l.p, key, &mut pl);
        let hook = if user { KEY_USER } else { KEY_KERNEL };
        self.put(cpu, ts, hook, 2, &pl);
    }

    /// KeyDelete / KeyRundown definition: key, then frames leaf first.
    fn key_def(&mut self, cpu: u16, ts: i64, hook: u16, key: u64, frames: &[u64]) {
        let mut pl = Vec::new();
        ptr(self.l.p, key, &mut pl);
        for &f in frames {
            ptr(self.l.p, f, &mut pl);
        }
        self.put(cpu, ts, hook, 2, &pl);
    }

    fn finish(self) -> (Vec<u8>, Expected) {
        let (cursor, _) = self.w.finish().unwrap();
        (cursor.into_inner(), self.expected)
    }
}

/// Writes every case; returns the trace and the expected stack of each sample.
fn write_trace(p: u8) -> (Vec<u8>, Expected) {
    let mut s = Scenario::new(p);
    let l = Layout::new(p);
    let user_a = [l.a(0x1500), l.a(0x1000), l.n(0x1840)];
    let user_b = [l.a(0x2510), l.n(0x1840)];
    let kern_a = [l.k(0x1100), l.k(0x2200)];
    let kern_b = [l.k(0x3300), l.k(0x4400), l.k(0x5500)];
    let cat = |k: &[u64], u: &[u64]| -> Vec<u64> { k.iter().chain(u).copied().collect() };

    // (1) Inline StackWalk with the whole stack, kernel frames first.
    let whole = cat(&kern_a, &user_a);
    s.sample(0, 1000, T1, whole[0], &whole);
    s.walk(0, 1002, 1000, T1, &whole);
    // User-mode sample, user frames only.
    s.sample(0, 1100, T1, user_b[0], &user_b);
    s.walk(0, 1102, 1100, T1, &user_b);
    // The same user addresses in other.exe mean other.exe frames; a frame
    // outside every image stays a raw address.
    let with_raw = [l.raw, l.a(0x2510), l.n(0x1840)];
    s.sample(0, 1200, OTHER_TID, l.raw, &with_raw);
    s.walk(0, 1202, 1200, OTHER_TID, &with_raw);
    // A System thread: a kernel-only stack no user half ever completes.
    s.sample(0, 1300, SYSTEM_TID, kern_b[0], &kern_b);
    s.walk(0, 1302, 1300, SYSTEM_TID, &kern_b);

    // (2) Cached keys: kernel and user references now, definitions at the
    // end (rundown). The user key has the kernel key's value: separate tables.
    const K1: u64 = 0x51;
    const U2: u64 = 0x52;
    s.sample(0, 2000, T1, kern_a[0], &cat(&kern_a, &user_a));
    s.key_ref(0, 2001, false, 2000, T1, K1);
    s.key_ref(0, 2002, true, 2000, T1, K1);
    // The same keys again: the same stack.
    s.sample(0, 2100, T1, kern_a[0], &cat(&kern_a, &user_a));
    s.key_ref(0, 2101, false, 2100, T1, K1);
    s.key_ref(0, 2102, true, 2100, T1, K1);
    // User half only.
    s.sample(0, 2200, T3, user_b[0], &user_b);
    s.key_ref(0, 2201, true, 2200, T3, U2);

    // (3) Kernel excursions of T2 (keys) and T3 (inline): kernel-only
    // samples, then one user half logged on the way out under the first
    // sample's timestamp; it completes every one of them.
    const K3: u64 = 0x53;
    const K4: u64 = 0x54;
    const U5: u64 = 0x55;
    s.sample(0, 3000, T2, kern_a[0], &cat(&kern_a, &user_b));
    s.key_ref(0, 3001, false, 3000, T2, K3);
    s.sample(0, 3100, T2, kern_b[0], &cat(&kern_b, &user_b));
    s.key_ref(0, 3101, false, 3100, T2, K4);
    s.key_ref(0, 3150, true, 3000, T2, U5);
    s.sample(0, 3300, T3, kern_b[0], &cat(&kern_b, &user_a));
    s.walk(0, 3302, 3300, T3, &kern_b);
    s.sample(0, 3400, T3, kern_a[0], &cat(&kern_a, &user_a));
    s.walk(0, 3402, 3400, T3, &kern_a);
    s.walk(0, 3450, 3300, T3, &user_a);
    // Back in user mode: its own stack, nothing inherited.
    s.sample(0, 3500, T2, user_a[0], &user_a);
    s.walk(0, 3502, 3500, T2, &user_a);
    // Mixed forms: an inline kernel half completed by a user key on exit,
    // and a kernel key completed by an inline user half on exit.
    s.sample(0, 3600, T2, kern_b[0], &cat(&kern_b, &user_b));
    s.walk(0, 3602, 3600, T2, &kern_b);
    s.key_ref(0, 3650, true, 3600, T2, U5);
    s.sample(0, 3700, T3, kern_a[0], &cat(&kern_a, &user_b));
    s.key_ref(0, 3701, false, 3700, T3, K3);
    s.walk(0, 3750, 3700, T3, &user_b);
    // Two threads sampled at the same time on two CPUs: told apart by thread.
    s.sample(0, 3800, T1, kern_a[0], &cat(&kern_a, &user_a));
    s.sample(1, 3800, T2, user_b[0], &user_b);
    s.walk(1, 3801, 3800, T2, &user_b);
    s.walk(0, 3802, 3800, T1, &cat(&kern_a, &user_a));

    // (4) Wrap-around. The sample sits on CPU 1, its StackWalk on CPU 0,
    // whose buffer is flushed at once: the stack precedes its sample's
    // buffer in the file.
    s.flush(0);
    let whole_b = cat(&kern_b, &user_b);
    s.sample(1, 4000, T1, whole_b[0], &whole_b);
    s.walk(0, 4002, 4000, T1, &whole_b);
    s.flush(0);
    // Keys deleted, then reused with other frames: each reference resolves
    // to the next definition at or after it. The deletions go to CPU 0,
    // flushed before CPU 1's references.
    const K6: u64 = 0x56;
    const U6: u64 = 0x56;
    s.sample(1, 4100, T1, kern_a[0], &cat(&kern_a, &user_a));
    s.key_ref(1, 4101, false, 4100, T1, K6);
    s.key_ref(1, 4102, true, 4100, T1, U6);
    s.key_def(0, 4150, KEY_DELETE, K6, &kern_a);
    s.key_def(0, 4150, KEY_DELETE, U6, &user_a);
    s.flush(0);
    s.sample(1, 4200, T1, kern_b[0], &cat(&kern_b, &user_b));
    s.key_ref(1, 4201, false, 4200, T1, K6);
    s.key_ref(1, 4202, true, 4200, T1, U6);
    // A definition at the very timestamp of its reference still counts.
    const K7: u64 = 0x57;
    s.sample(1, 4300, SYSTEM_TID, kern_a[0], &kern_a);
    s.key_ref(1, 4301, false, 4300, SYSTEM_TID, K7);
    s.key_def(0, 4301, KEY_DELETE, K7, &kern_a);
    // Another process: its stack on CPU 0, flushed before the sample's buffer.
    s.sample(1, 4400, OTHER_TID, user_b[0], &[l.a(0x2510), l.n(0x1840)]);
    s.walk(0, 4401, 4400, OTHER_TID, &user_b);
    s.flush(0);

    // Samples without a stack: the IP alone is the stack.
    s.sample(1, 5000, T1, l.a(0x1600), &[l.a(0x1600)]);
    s.sample(1, 5100, OTHER_TID, l.raw, &[l.raw]);
    s.sample(1, 5150, OTHER_TID, l.a(0x1600), &[l.a(0x1600)]);
    s.sample(1, 5200, SYSTEM_TID, l.k(0x3300), &[l.k(0x3300)]);

    // Key rundown at the end of the trace: the keys still cached.
    s.key_def(0, 9000, KEY_RUNDOWN, K1, &kern_a);
    s.key_def(0, 9000, KEY_RUNDOWN, K1, &user_a);
    s.key_def(0, 9000, KEY_RUNDOWN, U2, &user_b);
    s.key_def(0, 9000, KEY_RUNDOWN, K3, &kern_a);
    s.key_def(0, 9000, KEY_RUNDOWN, K4, &kern_b);
    s.key_def(0, 9000, KEY_RUNDOWN, U5, &user_b);
    s.key_def(0, 9000, KEY_RUNDOWN, K6, &kern_b);
    s.key_def(0, 9000, KEY_RUNDOWN, U6, &user_b);
    s.finish()
}

impl Scenario {
    fn flush(&mut self, cpu: u16) {
        self.w.flush_cpu(cpu).unwrap();
    }
}

/// Buffer index of the event with `hook` at `ticks` after ts0.
fn buffer_of(file: &EtlFile, hook: u16, ticks: i64) -> usize {
    let ts = file.ts0() + ticks;
    let mut scratch = Vec::new();
    for (i, info) in file.buffers().iter().enumerate() {
        let data = file.buffer_data(info, &mut scratch).unwrap();
        if (etl::BufferData { info, data })
            .events()
            .any(|e| e.is_ok_and(|e| e.hook_id == Some(hook) && e.timestamp == ts))
        {
            return i;
        }
    }
    panic!("no event {hook:#x} at {ticks}");
}

/// The model's stack of sample `i`, leaf first, as `Frame`s.
fn model_stack(t: &Trace, i: usize) -> Vec<Frame> {
    t.stacks
        .frames_leaf_first(t.samples.stack[i])
        .map(|f| {
            let (m, a) = (t.frames.module[f as usize], t.frames.address[f as usize]);
            if m == NONE {
                Frame::Raw(a)
            } else {
                Frame::Module(t.strings.get(t.modules.name[m as usize]).into(), a)
            }
        })
        .collect()
}

fn check(p: u8) {
    let (bytes, expected) = write_trace(p);
    let file = EtlFile::from_bytes(bytes).unwrap();
    assert_eq!(file.logfile().unwrap().pointer_size, u32::from(p));
    // The writer put samples and stacks in several buffers of both CPUs.
    assert!(
        file.buffers().len() >= 5,
        "{} buffers",
        file.buffers().len()
    );
    // Wrap-around as written: the StackWalk of the sample at 4000 and the
    // KeyDelete at 4150 sit in buffers before those of the sample and of the
    // references (4101) they belong to.
    let sample = hooks::SAMPLED_PROFILE;
    assert!(buffer_of(&file, STACK_WALK, 4002) < buffer_of(&file, sample, 4000));
    assert!(buffer_of(&file, KEY_DELETE, 4150) < buffer_of(&file, KEY_KERNEL, 4101));
    let t = model::build(&file);
    assert_eq!(t.info.pointer_size, u32::from(p));
    assert_eq!(t.samples.len(), expected.len());
    assert_eq!(t.info.unattributed_samples, 0);
    assert_eq!(t.info.stack_key_refs_unresolved, 0);
    let mut got = BTreeMap::new();
    for i in 0..t.samples.len() {
        assert_ne!(t.samples.stack[i], NONE, "sample {i} has no stack");
        // 1 tick = 100 ns (10^7 ticks per second).
        let ticks = t.samples.time[i] / 100;
        let tid = t.threads.tid[t.samples.thread(i) as usize];
        got.insert((ticks, tid), model_stack(&t, i));
    }
    for (key, want) in &expected {
        assert_eq!(got.get(key), Some(want), "p={p} sample (ts, tid) = {key:?}");
    }
    // Every sample but the four without a stack walk joined a stack.
    assert_eq!(t.info.samples_with_stack, expected.len() as u64 - 4);
    eprintln!(
        "p={p}: {} buffers, {} samples ({} with a walked stack), {} stack nodes, {} frames",
        file.buffers().len(),
        t.samples.len(),
        t.info.samples_with_stack,
        t.stacks.len(),
        t.frames.len()
    );
}

#[test]
fn stacks_of_a_64_bit_writer_trace() {
    check(8);
}

#[test]
fn stacks_of_a_32_bit_writer_trace() {
    check(4);
}

/// Random events of every stack form on both CPUs, written in time order per
/// CPU (so stacks and samples land in buffers of either order).
fn random_trace(p: u8, seed: u64) -> Vec<u8> {
    let mut rng = testdata::Rng::new(seed);
    let mut s = Scenario::new(p);
    let l = Layout::new(p);
    let tids = [T1, T2, T3, OTHER_TID, SYSTEM_TID];
    let kernel: Vec<u64> = (0..6).map(|i| l.k(0x1000 * (i + 1))).collect();
    let user: Vec<u64> = (0..6)
        .map(|i| match i % 3 {
            0 => l.a(0x100 * (i + 1)),
            1 => l.n(0x100 * (i + 1)),
            _ => l.raw + i,
        })
        .collect();
    let pick = |rng: &mut testdata::Rng, from: &[u64]| -> Vec<u64> {
        (0..1 + rng.below(3)).map(|_| rng.pick(from)).collect()
    };
    // (ts, cpu, what): written sorted by time.
    enum Ev {
        Sample(u32, u64),
        Walk(i64, u32, Vec<u64>),
        Ref(bool, i64, u32, u64),
        Def(u64, Vec<u64>),
    }
    let mut evs: Vec<(i64, u16, Ev)> = Vec::new();
    let mut ts = 1000;
    // Per thread: a kernel excursion's first event waiting for its user half.
    let mut excursion: BTreeMap<u32, i64> = BTreeMap::new();
    for _ in 0..400 {
        ts += 1 + rng.below_u64(4) as i64;
        let tid = rng.pick(&tids);
        let cpu = rng.below(2) as u16;
        let other = rng.below(2) as u16;
        let later = ts + 1 + rng.below_u64(30) as i64;
        let k = pick(&mut rng, &kernel);
        let u = pick(&mut rng, &user);
        evs.push((ts, cpu, Ev::Sample(tid, k[0])));
        match rng.below(5) {
            0 => evs.push((ts + 1, other, Ev::Walk(ts, tid, [k, u].concat()))),
            1 => {
                // Kernel half now; the user half once, on the way out.
                let first = *excursion.entry(tid).or_insert(ts);
                evs.push((ts + 1, cpu, Ev::Walk(ts, tid, k)));
                if rng.below(2) == 0 {
                    excursion.remove(&tid);
                    evs.push((later, other, Ev::Walk(first, tid, u)));
                }
            }
            2 | 3 => {
                // Cached keys from a small set: deleted and reused.
                let (kk, uk) = (rng.below_u64(3), 100 + rng.below_u64(3));
                evs.push((ts + 1, cpu, Ev::Ref(false, ts, tid, kk)));
                evs.push((ts + 1, cpu, Ev::Ref(true, ts, tid, uk)));
                evs.push((later, other, Ev::Def(kk, k)));
                evs.push((later + 1, other, Ev::Def(uk, u)));
            }
            _ => {}
        }
    }
    evs.sort_by_key(|e| e.0);
    for (ts, cpu, e) in evs {
        match e {
            Ev::Sample(tid, ip) => {
                let pl = kernel::sampled_profile(p, ip, tid, 0);
                let v = versions::SAMPLED_PROFILE;
                s.put(cpu, ts, hooks::SAMPLED_PROFILE, v, &pl);
            }
            Ev::Walk(event_ts, tid, f) => s.walk(cpu, ts, event_ts, tid, &f),
            Ev::Ref(user, event_ts, tid, key) => s.key_ref(cpu, ts, user, event_ts, tid, key),
            Ev::Def(key, f) => s.key_def(cpu, ts, KEY_DELETE, key, &f),
        }
    }
    s.finish().0
}

/// The build (buffers folded as they are read, stacks found by a sweep in
/// time order) gives every sample the stack, thread and time that the
/// reference build (every buffer's batch merged at the end, a binary search
/// over all stack parts per sample) gives, on random traces of both pointer
/// sizes with every stack form, key reuse and stacks in earlier buffers.
#[test]
fn sweep_build_matches_the_reference_build_on_random_traces() {
    for seed in 0..12u64 {
        let p = if seed % 2 == 0 { 8 } else { 4 };
        let file = EtlFile::from_bytes(random_trace(p, seed)).unwrap();
        let (new, old) = (model::build(&file), model::ingest::build_reference(&file));
        assert_eq!(new.samples.len(), old.samples.len());
        assert!(
            old.info.samples_with_stack > 100,
            "seed {seed}: too few stacks"
        );
        assert_eq!(new.info.samples_with_stack, old.info.samples_with_stack);
        assert_eq!(
            new.info.stack_key_refs_unresolved,
            old.info.stack_key_refs_unresolved
        );
        assert_eq!(new.stacks.len(), old.stacks.len());
        assert_eq!(new.frames.len(), old.frames.len());
        for i in 0..new.samples.len() {
            assert_eq!(new.samples.time[i], old.samples.time[i]);
            assert_eq!(new.samples.thread(i), old.samples.thread(i));
            assert_eq!(
                new.samples.stack[i], old.samples.stack[i],
                "seed {seed} sample {i}"
            );
            assert_eq!(model_stack(&new, i), model_stack(&old, i));
        }
    }
}

#[path = "common/live_check.rs"]
mod live_check;

/// Live snapshots every few events, each extending the previous one's stack
/// parts and sample join, equal from-scratch builds of the same events, on
/// writer traces with every stack form: key definitions that come after
/// their references (so a reference waits unresolved across snapshots),
/// user halves logged on the exit from the kernel, keys reused.
#[test]
fn incremental_snapshots_equal_from_scratch_builds_on_writer_traces() {
    let mut traces: Vec<Vec<u8>> = vec![write_trace(8).0, write_trace(4).0];
    traces.extend((0..6u64).map(|seed| random_trace(if seed % 2 == 0 { 8 } else { 4 }, seed)));
    for (n, bytes) in traces.into_iter().enumerate() {
        let file = EtlFile::from_bytes(bytes).unwrap();
        let events = model::build(&file).info.events;
        for every in [7, events / 6 + 1] {
            let r = live_check::incremental_equals_from_scratch(&file, every);
            assert_eq!(
                r.stack_parts, r.snapshots,
                "trace {n}, every {every}: {r:?}"
            );
        }
    }
}

/// The same on bench-shaped traces of both pointer sizes, large enough for
/// the sample join to run in several blocks, with stacks first seen in one
/// process and met again in others (found from the memo of a user half).
#[test]
fn sweep_build_matches_the_reference_build_across_join_blocks_and_processes() {
    for (seed, p) in [(3u64, 8u8), (4, 4)] {
        let params = synth::bench::BenchParams {
            seed,
            pointer_size: p,
            samples: 150_000,
            distinct_stacks: 3_000,
            threads: 40,
            processes: 12,
            ..Default::default()
        };
        let (cur, _) =
            synth::bench::write_bench(std::io::Cursor::new(Vec::new()), &params).unwrap();
        let file = EtlFile::from_bytes(cur.into_inner()).unwrap();
        let (new, old) = (model::build(&file), model::ingest::build_reference(&file));
        assert_eq!(new.samples.len(), old.samples.len());
        assert!(new.samples.len() > 140_000, "seed {seed}: too few samples");
        assert_eq!(new.info.samples_with_stack, old.info.samples_with_stack);
        assert_eq!(new.stacks.len(), old.stacks.len());
        assert_eq!(new.frames.len(), old.frames.len());
        assert_eq!(new.samples.time, old.samples.time, "seed {seed}");
        assert_eq!(new.samples.stack, old.samples.stack, "seed {seed}");
        assert_eq!(new.stacks.parent, old.stacks.parent, "seed {seed}");
        assert_eq!(new.stacks.frame, old.stacks.frame, "seed {seed}");
        assert_eq!(new.frames.module, old.frames.module, "seed {seed}");
        assert_eq!(new.frames.address, old.frames.address, "seed {seed}");
        for i in (0..new.samples.len()).step_by(97) {
            assert_eq!(new.samples.thread(i), old.samples.thread(i));
        }
    }
}
