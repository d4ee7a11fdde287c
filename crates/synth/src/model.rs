//! The machine a synthetic trace describes: processes, threads, loaded
//! images and a pool of call stacks whose frames fall inside the images.

use crate::prng::Rng;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Process {
    pub pid: u32,
    pub parent_pid: u32,
    /// EPROCESS address (UniqueProcessKey).
    pub key: u64,
    pub name: String,
    pub command_line: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Thread {
    pub pid: u32,
    pub tid: u32,
    /// Kernel-only threads (System process) sample kernel stacks only.
    pub kernel_only: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Image {
    pub base: u64,
    pub size: u64,
    pub kernel: bool,
    pub name: String,
    pub time_date_stamp: u32,
    pub checksum: u32,
}

impl Image {
    pub fn contains(&self, addr: u64) -> bool {
        addr >= self.base && addr - self.base < self.size
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stack {
    /// Addresses, leaf first.
    pub frames: Vec<u64>,
    /// Every frame is in a kernel image.
    pub kernel_only: bool,
}

/// Knobs of the model (a subset of `BenchParams`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModelParams {
    pub seed: u64,
    pub pointer_size: u8,
    /// User processes (Idle and System come on top).
    pub processes: u32,
    /// Threads of System and the user processes (idle threads come on top).
    pub threads: u32,
    /// Loaded images, kernel and user.
    pub modules: u32,
    pub distinct_stacks: u32,
    pub max_stack_depth: u32,
}

#[derive(Debug, Clone)]
pub struct Model {
    pub pointer_size: u8,
    /// Idle (pid 0), System (pid 4), then user processes.
    pub processes: Vec<Process>,
    pub threads: Vec<Thread>,
    /// Kernel images (pid 0 in rundown, mapped in every process).
    pub kernel_images: Vec<Image>,
    /// User images, loaded at the same base in every user process.
    pub user_images: Vec<Image>,
    /// Kernel-only stacks first, then user stacks (some with a kernel part).
    pub stacks: Vec<Stack>,
    /// Index of the first user stack in `stacks`.
    pub first_user_stack: usize,
}

pub const SYSTEM_PID: u32 = 4;

const KERNEL_NAMES: &[&str] = &[
    "ntoskrnl.exe",
    "hal.dll",
    "ntfs.sys",
    "tcpip.sys",
    "ndis.sys",
    "fltmgr.sys",
    "win32kbase.sys",
    "dxgkrnl.sys",
    "storport.sys",
    "acpi.sys",
];
const USER_NAMES: &[&str] = &[
    "ntdll.dll",
    "kernel32.dll",
    "kernelbase.dll",
    "ucrtbase.dll",
    "user32.dll",
    "gdi32.dll",
    "combase.dll",
    "rpcrt4.dll",
    "sechost.dll",
    "msvcp140.dll",
];
const PROCESS_NAMES: &[&str] = &[
    "app.exe",
    "svchost.exe",
    "explorer.exe",
    "msedge.exe",
    "devenv.exe",
    "MsMpEng.exe",
];

impl Model {
    pub fn new(p: &ModelParams) -> Model {
        let mut rng = Rng::new(p.seed ^ 0x6d6f_6465_6c00);
        let wide = p.pointer_size == 8;
        let processes = make_processes(p, &mut rng, wide);
        let threads = make_threads(p, &mut rng, &processes);
        let kernel_count = (p.modules / 4).clamp(1, p.modules.max(1));
        let user_count = p.modules.saturating_sub(kernel_count).max(1);
        let (kbase, ubase) = if wide {
            (0xFFFF_F802_1000_0000u64, 0x0000_7FF8_0000_0000u64)
        } else {
            (0x8040_0000u64, 0x1000_0000u64)
        };
        let kernel_images = make_images(&mut rng, kernel_count, kbase, true);
        let user_images = make_images(&mut rng, user_count, ubase, false);
        let kernel_stacks = (p.distinct_stacks / 4).max(1);
        let user_stacks = p.distinct_stacks.saturating_sub(kernel_stacks).max(1);
        let depth = p.max_stack_depth.max(2);
        let mut stacks = Vec::with_capacity((kernel_stacks + user_stacks) as usize);
        for _ in 0..kernel_stacks {
            let n = rng.range(2, depth as u64) as usize;
            let frames = (0..n).map(|_| frame_in(&mut rng, &kernel_images)).collect();
            stacks.push(Stack {
                frames,
                kernel_only: true,
            });
        }
        let first_user_stack = stacks.len();
        for _ in 0..user_stacks {
            let n = rng.range(2, depth as u64) as usize;
            let kernel_part = if rng.below(3) == 0 {
                rng.range(1, (n as u64 / 2).max(1)) as usize
            } else {
                0
            };
            let mut frames: Vec<u64> = (0..n)
                .map(|i| {
                    if i < kernel_part {
                        frame_in(&mut rng, &kernel_images)
                    } else {
                        frame_in(&mut rng, &user_images)
                    }
                })
                .collect();
            // Threads start in ntdll: the root frames are in the first images.
            if let (Some(last), Some(ntdll)) = (frames.last_mut(), user_images.first()) {
                *last = ntdll.base + 0x1840;
            }
            stacks.push(Stack {
                frames,
                kernel_only: false,
            });
        }
        Model {
            pointer_size: p.pointer_size,
            processes,
            threads,
            kernel_images,
            user_images,
            stacks,
            first_user_stack,
        }
    }

    /// The image holding `addr`, kernel or user.
    pub fn image_of(&self, addr: u64) -> Option<&Image> {
        self.kernel_images
            .iter()
            .chain(&self.user_images)
            .find(|i| i.contains(addr))
    }
}

fn make_processes(p: &ModelParams, rng: &mut Rng, wide: bool) -> Vec<Process> {
    let key_base = if wide {
        0xFFFF_A000_0000_0000
    } else {
        0x8500_0000
    };
    let mut v = vec![
        Process {
            pid: 0,
            parent_pid: 0,
            key: key_base,
            name: "Idle".into(),
            command_line: String::new(),
        },
        Process {
            pid: SYSTEM_PID,
            parent_pid: 0,
            key: key_base + 0x1000,
            name: "System".into(),
            command_line: String::new(),
        },
    ];
    for i in 0..p.processes {
        let name = PROCESS_NAMES[i as usize % PROCESS_NAMES.len()];
        let pid = 1000 + 4 * i + 4 * rng.below(4) as u32 * p.processes;
        v.push(Process {
            pid,
            parent_pid: SYSTEM_PID,
            key: key_base + 0x2000 + 0x1000 * i as u64,
            name: name.to_string(),
            command_line: format!("C:\\Program Files\\Synth\\{name} --instance {i}"),
        });
    }
    v
}

fn make_threads(p: &ModelParams, rng: &mut Rng, processes: &[Process]) -> Vec<Thread> {
    let user: Vec<u32> = processes.iter().skip(2).map(|q| q.pid).collect();
    let mut tid = 8u32;
    (0..p.threads.max(1))
        .map(|i| {
            tid += 4 * (1 + rng.below(8) as u32);
            // One thread in eight belongs to System (kernel worker threads).
            let (pid, kernel_only) = if i % 8 == 0 || user.is_empty() {
                (SYSTEM_PID, true)
            } else {
                (user[i as usize % user.len()], false)
            };
            Thread {
                pid,
                tid,
                kernel_only,
            }
        })
        .collect()
}

fn make_images(rng: &mut Rng, n: u32, base: u64, kernel: bool) -> Vec<Image> {
    let names = if kernel { KERNEL_NAMES } else { USER_NAMES };
    let mut at = base;
    (0..n)
        .map(|i| {
            let size = 0x1_0000 * rng.range(1, 32);
            let known = names[i as usize % names.len()];
            let name = if (i as usize) < names.len() {
                known.to_string()
            } else {
                let stem = known.split('.').next().unwrap_or("mod");
                format!("{stem}{i}.{}", if kernel { "sys" } else { "dll" })
            };
            let dir = if kernel {
                "\\SystemRoot\\system32\\drivers\\"
            } else {
                "\\Device\\HarddiskVolume2\\Windows\\System32\\"
            };
            let img = Image {
                base: at,
                size,
                kernel,
                name: format!("{dir}{name}"),
                time_date_stamp: 0x5000_0000 + rng.below(0x1000_0000) as u32,
                checksum: rng.next_u64() as u32,
            };
            // Leave a gap so no frame can be ambiguous.
            at += size + 0x1_0000;
            img
        })
        .collect()
}

fn frame_in(rng: &mut Rng, images: &[Image]) -> u64 {
    let Some(img) = images.get(rng.skewed(images.len() as u64) as usize) else {
        return 0;
    };
    img.base + 0x1000 + rng.below(img.size - 0x1000)
}
