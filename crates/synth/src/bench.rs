//! The `bench` scenario: a sampled-CPU kernel trace. Rundown (process,
//! thread and image DCStart) on CPU 0, then SampledProfile events on every
//! CPU at a fixed interval, each followed by its StackWalk event.

use crate::kernel::{self, hooks, versions, ImageFields, ProcessFields, ThreadFields};
use crate::model::{Model, ModelParams, SYSTEM_PID};
use crate::prng::Rng;
use etl::writer::{EtlWriter, KernelHeader, Record, WriteSummary, WriterConfig};
use std::io::{self, Seek, Write};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BenchParams {
    pub seed: u64,
    pub pointer_size: u8,
    pub compress: bool,
    pub cpus: u16,
    pub buffer_size: u32,
    /// Samples written by `write_bench` (`write_bench_bytes` ignores it).
    pub samples: u64,
    pub distinct_stacks: u32,
    pub threads: u32,
    pub processes: u32,
    pub modules: u32,
    pub max_stack_depth: u32,
    /// QPC ticks between two samples of one CPU (10,000 = 1 ms at 10 MHz).
    pub sample_interval: i64,
    /// Share of samples (in percent) that hit the idle thread.
    pub idle_percent: u8,
    /// FileIo Create events written after the samples (File I/O rows for benchmarks).
    pub file_creates: u64,
    /// Distinct paths those creates open.
    pub file_paths: u32,
}

impl Default for BenchParams {
    fn default() -> Self {
        BenchParams {
            seed: 1,
            pointer_size: 8,
            compress: false,
            cpus: 8,
            buffer_size: 64 * 1024,
            samples: 10_000,
            distinct_stacks: 2_000,
            threads: 64,
            processes: 6,
            modules: 40,
            max_stack_depth: 40,
            sample_interval: 10_000,
            idle_percent: 10,
            file_creates: 0,
            file_paths: 10_000,
        }
    }
}

impl BenchParams {
    pub fn model_params(&self) -> ModelParams {
        ModelParams {
            seed: self.seed,
            pointer_size: self.pointer_size,
            processes: self.processes,
            threads: self.threads,
            modules: self.modules,
            distinct_stacks: self.distinct_stacks,
            max_stack_depth: self.max_stack_depth,
        }
    }

    pub fn writer_config(&self) -> WriterConfig {
        WriterConfig {
            pointer_size: self.pointer_size,
            compress: self.compress,
            cpus: self.cpus,
            buffer_size: self.buffer_size,
            logger_name: "etlscope synth bench".into(),
            log_file_name: "bench.etl".into(),
            ..WriterConfig::default()
        }
    }
}

/// Writes the scenario's events, one call at a time.
pub struct BenchGenerator<'m> {
    model: &'m Model,
    params: BenchParams,
    rng: Rng,
    /// Next sample number; sample k goes to CPU k % cpus.
    next_sample: u64,
    /// Timestamp of the first sample round (after the rundown).
    samples_start: i64,
}

impl<'m> BenchGenerator<'m> {
    pub fn new(model: &'m Model, params: &BenchParams) -> Self {
        BenchGenerator {
            model,
            params: params.clone(),
            rng: Rng::new(params.seed ^ 0x7361_6d70_6c65),
            next_sample: 0,
            samples_start: 0,
        }
    }

    pub fn samples_written(&self) -> u64 {
        self.next_sample
    }

    /// Process, thread and image DCStart events, on CPU 0.
    pub fn rundown<W: Write + Seek>(&mut self, w: &mut EtlWriter<W>) -> io::Result<()> {
        let p = self.params.pointer_size;
        let m = self.model;
        let mut ts = w.config().ts0 + 100;
        let mut tick = || {
            ts += 7;
            ts
        };
        for q in &m.processes {
            let pl = kernel::process(
                p,
                &ProcessFields {
                    unique_process_key: q.key,
                    pid: q.pid,
                    parent_pid: q.parent_pid,
                    session_id: if q.pid <= 4 { u32::MAX } else { 1 },
                    directory_table_base: 0x1AD000 + q.key % 0x10_0000 * 0x1000,
                    image_file_name: &q.name,
                    command_line: &q.command_line,
                },
            );
            let rec = Record::perfinfo(tick(), hooks::PROCESS_DC_START, versions::PROCESS, &pl);
            w.write(0, &rec)?;
        }
        let idle = (0..self.params.cpus).map(|_| (0u32, 0u32));
        let all = idle.chain(m.threads.iter().map(|t| (t.pid, t.tid)));
        for (i, (pid, tid)) in all.enumerate() {
            let region: u64 = if p == 8 {
                0xFFFF_9000_0000_0000
            } else {
                0x9000_0000
            };
            let stack_base = region + 0x6000 * (i as u64 % 0x1000);
            let start = m.kernel_images.first().map_or(0, |k| k.base + 0x2000);
            let pl = kernel::thread(
                p,
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
                        0x7FFD_0000 - 0x1000 * (i as u64 % 0x1000)
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
            w.write(0, &Record::system(tick(), h, &pl))?;
        }
        let user_pids = m.processes.iter().skip(2).map(|q| q.pid);
        let loads = m
            .kernel_images
            .iter()
            .map(|i| (0u32, i))
            .chain(user_pids.flat_map(|pid| m.user_images.iter().map(move |i| (pid, i))));
        for (pid, img) in loads {
            let pl = kernel::image(
                p,
                &ImageFields {
                    base: img.base,
                    size: img.size,
                    pid,
                    checksum: img.checksum,
                    time_date_stamp: img.time_date_stamp,
                    file_name: &img.name,
                },
            );
            let rec = Record::perfinfo(tick(), hooks::IMAGE_DC_START, versions::IMAGE, &pl);
            w.write(0, &rec)?;
        }
        self.samples_start = tick() + self.params.sample_interval;
        Ok(())
    }

    /// FileIo Create number `k` of a user thread (skewed: a few threads open most files), on
    /// CPU k % cpus, 10 µs apart after the last sample round; popular paths are opened often.
    pub fn file_create<W: Write + Seek>(&mut self, w: &mut EtlWriter<W>, k: u64) -> io::Result<()> {
        let cpus = self.params.cpus.max(1) as u64;
        let cpu = (k % cpus) as u16;
        let rounds = self.next_sample.div_ceil(cpus) as i64 + 1;
        let ts = self.samples_start
            + rounds * self.params.sample_interval
            + (k / cpus) as i64 * 100
            + cpu as i64 * 7;
        let m = self.model;
        let (pid, tid) = match m.threads.len() {
            0 => (SYSTEM_PID, 8),
            n => {
                let t = &m.threads[self.rng.skewed(n as u64) as usize];
                (t.pid, t.tid)
            }
        };
        let n = self.rng.hot(u64::from(self.params.file_paths.max(1)));
        let path = format!("\\Device\\HarddiskVolume3\\bench\\d{}\\f{n}.dat", n % 100);
        let pl = crate::events::file_create(
            self.params.pointer_size,
            0xFFFF_B20C_1000_0000 + k * 0x1A0,
            0xFFFF_B20C_8000_0000 + n * 0x150,
            tid,
            &path,
        );
        let h = KernelHeader {
            hook_id: crate::events::hooks::FILEIO_CREATE,
            version: 3,
            pid,
            tid,
        };
        w.write(cpu, &Record::system(ts, h, &pl))
    }

    /// One SampledProfile and its StackWalk, on the next CPU in turn.
    pub fn sample<W: Write + Seek>(&mut self, w: &mut EtlWriter<W>) -> io::Result<()> {
        let p = self.params.pointer_size;
        let cpus = self.params.cpus.max(1) as u64;
        let k = self.next_sample;
        self.next_sample += 1;
        let cpu = (k % cpus) as u16;
        // Fixed interval per CPU, CPUs a little out of phase.
        let ts =
            self.samples_start + (k / cpus) as i64 * self.params.sample_interval + cpu as i64 * 37;
        let m = self.model;
        let idle = self.rng.below(100) < self.params.idle_percent as u64;
        let (pid, tid, kernel_only) = if idle || m.threads.is_empty() {
            (0, 0, true)
        } else {
            let t = &m.threads[self.rng.skewed(m.threads.len() as u64) as usize];
            (t.pid, t.tid, t.kernel_only)
        };
        let stack = if kernel_only {
            self.rng.hot(m.first_user_stack as u64) as usize
        } else {
            m.first_user_stack + self.rng.hot((m.stacks.len() - m.first_user_stack) as u64) as usize
        };
        let frames = &m.stacks[stack].frames;
        let ip = frames.first().copied().unwrap_or(0);
        let pl = kernel::sampled_profile(p, ip, tid, 0);
        let rec = Record::perfinfo(ts, hooks::SAMPLED_PROFILE, versions::SAMPLED_PROFILE, &pl);
        w.write(cpu, &rec)?;
        let pl = kernel::stack_walk(p, ts, pid, tid, frames);
        let rec = Record::perfinfo(ts + 2, hooks::STACK_WALK, versions::STACK_WALK, &pl);
        w.write(cpu, &rec)
    }
}

/// Write the scenario with `params.samples` samples.
pub fn write_bench<W: Write + Seek>(
    sink: W,
    params: &BenchParams,
) -> io::Result<(W, WriteSummary)> {
    let model = Model::new(&params.model_params());
    let mut w = EtlWriter::new(sink, params.writer_config())?;
    let mut g = BenchGenerator::new(&model, params);
    g.rundown(&mut w)?;
    for _ in 0..params.samples {
        g.sample(&mut w)?;
    }
    for k in 0..params.file_creates {
        g.file_create(&mut w, k)?;
    }
    w.finish()
}

/// Write the scenario with as many samples as it takes for the file to
/// reach `target_bytes` (it ends at most one buffer per CPU beyond).
pub fn write_bench_bytes<W: Write + Seek>(
    sink: W,
    params: &BenchParams,
    target_bytes: u64,
) -> io::Result<(W, WriteSummary)> {
    let model = Model::new(&params.model_params());
    let mut w = EtlWriter::new(sink, params.writer_config())?;
    let mut g = BenchGenerator::new(&model, params);
    g.rundown(&mut w)?;
    while w.bytes_written() < target_bytes {
        g.sample(&mut w)?;
    }
    w.finish()
}
