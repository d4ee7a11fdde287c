//! `etlscope synth SCENARIO -o FILE`: write a synthetic trace with our own
//! writer. `explorer-overlay` is the committed demo trace (deterministic:
//! same seed, same bytes); `bench` makes benchmark traces of any size;
//! `hostile-names` has HTML for every string the UI shows (XSS test);
//! `switches` has context switches with stacks (CPU Usage (Precise));
//! `memory` has soft page faults and registry operations (Page Faults,
//! Registry); `dpc-isr` has DPCs and ISRs (DPC/ISR); `processor-frequency`
//! Kernel-Processor-Power frequency changes (Processor Frequency);
//! `cpu-idle-states` idle periods as context switches (CPU Idle States);
//! `win32k` focus changes and UI delays (Window in Focus, UI Delays);
//! `gpu` DxgKrnl DMA packets and presents (GPU Utilization, Frame Times).

use anyhow::Context;
use clap::{Args, Subcommand};
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

#[derive(Subcommand, Debug)]
pub enum Scenario {
    /// The demo: explorer.exe burning CPU in an Acronis shell extension.
    ExplorerOverlay {
        #[arg(short, long)]
        output: PathBuf,
        #[arg(long)]
        seed: Option<u64>,
        /// The same scenario after the shell extension is uninstalled
        /// (`traces/explorer-fixed.etl`): its samples idle, its file opens are gone.
        #[arg(long)]
        without_shell_extension: bool,
        /// The shell extension's CPU cost in thousandths of the demo's
        /// (1000: its 26,000 samples; at most 1500): builds whose cost drifts.
        #[arg(long, default_value_t = 1_000, value_parser = clap::value_parser!(u32).range(0..=1_500))]
        shell_extension_permille: u32,
        /// A trace this many times shorter than the demo's 25 s (at most
        /// 100): every count of samples and file opens divided by it.
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=100))]
        shorten: u32,
        /// Recorded this many days after the demo (2023-03-14T16:06:40Z):
        /// builds spread over time.
        #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=10_000))]
        days_later: u32,
    },
    /// Sampled-CPU benchmark trace: rundown, then samples with stacks.
    Bench(BenchArgs),
    /// Every string the UI shows is HTML with inline script (XSS test).
    HostileNames {
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Context switches with stacks, 1 ms apart (CPU Usage (Precise)).
    Switches {
        #[arg(short, long)]
        output: PathBuf,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long, default_value_t = 2_000)]
        switches: usize,
    },
    /// Heap events at scale, allocs with stacks (the heap benchmark).
    HeapBench {
        #[arg(short, long)]
        output: PathBuf,
        #[arg(long, default_value_t = 10_000_000)]
        events: u64,
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Soft page faults of every kind and registry operations on keys the
    /// KCB rundown names (Page Faults, Registry); marks with `--mark`.
    Memory {
        #[arg(short, long)]
        output: PathBuf,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long, default_value_t = 1_000)]
        faults: usize,
        /// A mark (`xperf -m LABEL`) by a.exe's first thread, repeatable:
        /// spread evenly over the faults' span, in order.
        #[arg(long = "mark", value_name = "LABEL")]
        marks: Vec<String>,
    },
    /// DPCs and ISRs of three drivers on four CPUs, some ISRs nested in
    /// DPCs, a few over 1 ms (DPC/ISR).
    DpcIsr {
        #[arg(short, long)]
        output: PathBuf,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long, default_value_t = 1_000)]
        runs: usize,
    },
    /// Three GUI processes whose threads take the focus in turn, and UI
    /// delays (Win32k FocusChange, MessageCheckDelay: Window in Focus, UI
    /// Delays).
    Win32k {
        #[arg(short, long)]
        output: PathBuf,
        #[arg(long, default_value_t = 100)]
        delays: usize,
    },
    /// A game, a browser and the compositor on one adapter's 3D, Copy and
    /// Video Decode engines, and their presents (DxgKrnl DmaPacket,
    /// Present: GPU Utilization, Frame Times).
    Gpu {
        #[arg(short, long)]
        output: PathBuf,
        /// DMA packets per engine.
        #[arg(long, default_value_t = 300)]
        packets: usize,
        /// Presents per process.
        #[arg(long, default_value_t = 60)]
        frames: usize,
    },
    /// Idle periods of four CPUs as context switches to and from their
    /// idle thread, in C1-C3 (CPU Idle States).
    CpuIdleStates {
        #[arg(short, long)]
        output: PathBuf,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long, default_value_t = 1_000)]
        periods: usize,
    },
    /// Processor frequency changes (Kernel-Processor-Power
    /// ProcessorPerfStateChange) on four CPUs (Processor Frequency).
    ProcessorFrequency {
        #[arg(short, long)]
        output: PathBuf,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long, default_value_t = 1_000)]
        changes: usize,
    },
}

#[derive(Args, Debug)]
pub struct BenchArgs {
    #[arg(short, long)]
    output: PathBuf,
    /// Number of samples (ignored with --bytes).
    #[arg(long, default_value_t = 10_000)]
    samples: u64,
    /// Keep writing samples until the file reaches this many bytes.
    #[arg(long)]
    bytes: Option<u64>,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[arg(long, default_value_t = 8)]
    cpus: u16,
    /// Compress buffers (MS-XCA LZ77), as WPR does for large traces.
    #[arg(long)]
    compress: bool,
    #[arg(long, default_value_t = 2_000)]
    distinct_stacks: u32,
    #[arg(long, default_value_t = 64)]
    threads: u32,
    /// FileIo Create events after the samples (File I/O rows).
    #[arg(long, default_value_t = 0)]
    file_creates: u64,
    /// Distinct paths the creates open.
    #[arg(long, default_value_t = 10_000)]
    file_paths: u32,
}

pub fn run(scenario: Scenario) -> anyhow::Result<()> {
    let (path, summary) = match scenario {
        Scenario::ExplorerOverlay {
            output,
            seed,
            without_shell_extension,
            shell_extension_permille,
            shorten,
            days_later,
        } => {
            let mut params = synth::ExplorerParams {
                shell_extension: !without_shell_extension,
                shell_extension_permille,
                shorten,
                days_later,
                ..Default::default()
            };
            if let Some(s) = seed {
                params.seed = s;
            }
            let sink = create(&output)?;
            let (_, s) = synth::write_explorer_overlay(sink, &params)?;
            (output, s)
        }
        Scenario::Bench(a) => {
            let params = synth::BenchParams {
                seed: a.seed,
                cpus: a.cpus,
                compress: a.compress,
                samples: a.samples,
                distinct_stacks: a.distinct_stacks,
                threads: a.threads,
                file_creates: a.file_creates,
                file_paths: a.file_paths,
                ..synth::BenchParams::default()
            };
            let sink = create(&a.output)?;
            let (_, s) = match a.bytes {
                Some(b) => synth::write_bench_bytes(sink, &params, b)?,
                None => synth::write_bench(sink, &params)?,
            };
            (a.output, s)
        }
        Scenario::HostileNames { output } => {
            let (_, s) = synth::write_hostile_names(create(&output)?)?;
            (output, s)
        }
        Scenario::Switches {
            output,
            seed,
            switches,
        } => {
            let bytes = synth::switches::write_switches(seed, switches)?;
            std::fs::write(&output, &bytes)
                .with_context(|| format!("cannot write {}", output.display()))?;
            println!(
                "wrote {}: {switches} context switches, {} bytes",
                output.display(),
                bytes.len()
            );
            return Ok(());
        }
        Scenario::HeapBench {
            output,
            events,
            seed,
        } => {
            let (_, s) = synth::heap_bench::write_heap_bench(create(&output)?, events, seed)?;
            (output, s)
        }
        Scenario::Memory {
            output,
            seed,
            faults,
            marks,
        } => {
            let mut m = synth::memory_events::demo_memory_events(seed, faults);
            // The faults are 1 000 ticks (0.1 ms) apart from tick 10 000.
            let step = 1_000 * faults.max(1) as i64 / (marks.len() as i64 + 1);
            for (k, label) in marks.iter().enumerate() {
                let at = 10_000 + step * (k as i64 + 1);
                m.raw.push(synth::memory_events::mark(at, 100, 101, label));
            }
            let bytes = synth::memory_events::write_memory_events(&m)?;
            std::fs::write(&output, &bytes)
                .with_context(|| format!("cannot write {}", output.display()))?;
            println!(
                "wrote {}: {faults} page faults, {} registry events, {} marks, {} bytes",
                output.display(),
                m.registry.len(),
                marks.len(),
                bytes.len()
            );
            return Ok(());
        }
        Scenario::Win32k { output, delays } => {
            let m = synth::win32k::demo_win32k(delays);
            let bytes = synth::win32k::write_win32k(&m)?;
            std::fs::write(&output, &bytes)
                .with_context(|| format!("cannot write {}", output.display()))?;
            println!(
                "wrote {}: {} focus changes, {} UI delays, {} bytes",
                output.display(),
                m.focus.len(),
                m.delays.len(),
                bytes.len()
            );
            return Ok(());
        }
        Scenario::Gpu {
            output,
            packets,
            frames,
        } => {
            let m = synth::gpu::demo_gpu(packets, frames);
            let bytes = synth::gpu::write_gpu(&m)?;
            std::fs::write(&output, &bytes)
                .with_context(|| format!("cannot write {}", output.display()))?;
            println!(
                "wrote {}: {} DMA packets, {} presents, {} bytes",
                output.display(),
                m.packets.len(),
                m.presents.len(),
                bytes.len()
            );
            return Ok(());
        }
        Scenario::CpuIdleStates {
            output,
            seed,
            periods,
        } => {
            let m = synth::idle_states::demo_idle(seed, periods);
            let bytes = synth::idle_states::write_idle(&m)?;
            std::fs::write(&output, &bytes)
                .with_context(|| format!("cannot write {}", output.display()))?;
            println!(
                "wrote {}: {} context switches, {} bytes",
                output.display(),
                m.switches.len(),
                bytes.len()
            );
            return Ok(());
        }
        Scenario::ProcessorFrequency {
            output,
            seed,
            changes,
        } => {
            let m = synth::processor_power::demo_power(seed, changes);
            let bytes = synth::processor_power::write_power(&m)?;
            std::fs::write(&output, &bytes)
                .with_context(|| format!("cannot write {}", output.display()))?;
            println!(
                "wrote {}: {} frequency changes, {} bytes",
                output.display(),
                m.changes.len(),
                bytes.len()
            );
            return Ok(());
        }
        Scenario::DpcIsr { output, seed, runs } => {
            let m = synth::dpc_isr::demo_dpc_isr(seed, runs);
            let bytes = synth::dpc_isr::write_dpc_isr(&m)?;
            std::fs::write(&output, &bytes)
                .with_context(|| format!("cannot write {}", output.display()))?;
            println!(
                "wrote {}: {} DPCs and ISRs, {} bytes",
                output.display(),
                m.runs.len(),
                bytes.len()
            );
            return Ok(());
        }
    };
    println!(
        "wrote {}: {} events in {} buffers, {} bytes",
        path.display(),
        summary.events,
        summary.buffers,
        summary.bytes
    );
    Ok(())
}

fn create(path: &Path) -> anyhow::Result<BufWriter<File>> {
    let f = File::create(path).with_context(|| format!("cannot create {}", path.display()))?;
    Ok(BufWriter::new(f))
}
