//! The columnar trace model: every table a view of etlscope reads, built
//! from the events of an `.etl` file in one parallel pass plus sequential
//! joins. Tables are structs of `Vec`s indexed by row; strings are `StrId`s
//! into one interner; stacks are a prefix tree. See `ingest` for how.

mod cell_text;
pub mod cpu_precise;
pub mod dpc_isr;
pub mod frames;
pub mod funcs;
pub mod generic;
pub mod gpu;
pub mod heap;
pub mod idle_states;
pub mod images;
pub mod ingest;
pub mod io;
pub mod memory;
pub mod network;
pub mod power;
pub mod processes;
pub mod progress;
pub mod regions;
pub mod registry;
pub mod samples;
pub mod stacks;
pub mod strings;
pub mod system_config;
pub mod threads;
pub mod time;
pub mod virtual_alloc;
pub mod win32k;

pub use images::NONE;
pub use ingest::{build, build_with_progress, build_with_steps};

use etl::Diagnostic;

/// What the trace says about itself, and how complete our reading was.
#[derive(Debug, Clone, Default)]
pub struct TraceInfo {
    pub cpus: u32,
    pub pointer_size: u32,
    pub os_version: String,
    /// ISO 8601 UTC of time zero.
    pub start_time: String,
    /// The recording machine's time zone: minutes to add to its local time to
    /// get UTC (the log-file header's TIME_ZONE_INFORMATION.Bias; 0 unknown).
    pub timezone_bias_minutes: i32,
    /// From time zero to the last event.
    pub duration_ns: i64,
    /// When the first event other than the session's own bookkeeping
    /// happened, in ns from time zero: where the timeline starts (a boot-time
    /// logger's header can be hours earlier).
    pub events_start_ns: i64,
    pub events: u64,
    pub buffers: u32,
    pub skipped_buffers: u32,
    pub lost_events: u64,
    /// Buffers lost per the log-file header.
    pub lost_buffers: u64,
    /// Indexes of buffers whose header flags say events were lost (EVENTS_LOST).
    pub buffers_with_lost_events: Vec<u32>,
    /// CSwitch / ReadyThread / I/O / generic events whose thread id matched
    /// no thread instance (their thread column is `NONE`).
    pub unattributed_events: u64,
    /// Samples whose thread had no thread event; attributed to an "Unknown" process.
    pub unattributed_samples: u64,
    /// Samples attributed to the nearest lifetime of their tid (outside every lifetime).
    pub uncertain_samples: u64,
    pub samples_with_stack: u64,
    pub stack_key_refs_unresolved: u64,
    pub image_info_unmatched: u32,
    /// Events nothing decodes (etl's `coverage`, what `etlscope info`
    /// reports as `decoding.hex_only_events`).
    pub hex_only_events: u64,
    pub diagnostics: Vec<Diagnostic>,
}

#[derive(Debug, Default, Clone)]
pub struct Trace {
    pub clock: time::Clock,
    pub info: TraceInfo,
    pub strings: strings::StringTable,
    pub processes: processes::ProcessTable,
    pub threads: threads::ThreadTable,
    pub modules: images::ModuleTable,
    pub images: images::ImageTable,
    pub frames: frames::FrameTable,
    pub funcs: funcs::FuncTable,
    pub stacks: stacks::StackTable,
    pub samples: samples::SampleTable,
    pub cswitches: cpu_precise::ContextSwitchTable,
    pub ready_threads: cpu_precise::ReadyThreadTable,
    pub file_io: io::FileIoTable,
    pub disk_io: io::DiskIoTable,
    pub hard_faults: io::HardFaultTable,
    pub network: network::NetworkTable,
    pub page_faults: memory::PageFaultTable,
    pub registry: registry::RegistryTable,
    pub commits: virtual_alloc::CommitTable,
    pub heap: heap::HeapTable,
    pub dpc_isr: dpc_isr::DpcIsrTable,
    pub frequency: power::FrequencyTable,
    pub idle_states: idle_states::IdleStateTable,
    pub focus: win32k::FocusTable,
    pub ui_delays: win32k::UiDelayTable,
    pub gpu: gpu::GpuTable,
    pub frame_times: gpu::FrameTimeTable,
    pub generic: generic::GenericEventTable,
    /// Instances of the regions file in use (`--regions`, the library's).
    pub regions: regions::RegionTable,
    /// `xperf -m` / `wpr -marker` marks.
    pub marks: regions::MarkTable,
    pub system_config: system_config::SystemConfig,
}

impl Default for time::Clock {
    fn default() -> Self {
        time::Clock {
            ts0: 0,
            ticks_per_second: 10_000_000,
            start_filetime: 0,
        }
    }
}

impl Trace {
    /// Field names and values of generic row `row`, decoded on demand.
    pub fn generic_fields(&self, row: usize) -> Vec<(String, String)> {
        self.generic.fields(row)
    }

    /// Display name of a process row: `name (pid)`, as WPA shows it.
    pub fn process_label(&self, p: u32) -> String {
        let i = p as usize;
        match self.processes.pid.get(i) {
            Some(pid) => format!("{} ({})", self.strings.get(self.processes.name[i]), pid),
            None => "Unknown".into(),
        }
    }

    /// `module!function` once named (managed code outside every image: the
    /// module of its function), else `module!0xRVA` or `0xADDRESS`.
    pub fn frame_label(&self, f: u32) -> String {
        let i = f as usize;
        let (Some(&m), Some(&a)) = (self.frames.module.get(i), self.frames.address.get(i)) else {
            return "?".into();
        };
        // A frame or module row the tables lack (a damaged or hand-built
        // trace) reads as unnamed rather than panicking.
        let module = self
            .modules
            .name
            .get(m as usize)
            .map(|&n| self.strings.get(n));
        let func = self.frames.func.get(i).copied().unwrap_or(NONE);
        if let Some(&name) = self.funcs.name.get(func as usize) {
            let name = self.strings.get(name);
            // Managed code outside every image: the module its function names.
            let module = module.or_else(|| {
                let m = *self.funcs.module.get(func as usize)?;
                Some(self.strings.get(*self.modules.name.get(m as usize)?))
            });
            return match module {
                None => name.to_string(),
                Some(module) => format!("{module}!{name}"),
            };
        }
        match module {
            None => format!("{a:#x}"),
            Some(module) => format!("{module}!{a:#x}"),
        }
    }
}

impl Trace {
    /// Approximate heap bytes held by the model (for the server's memory budget).
    pub fn heap_bytes(&self) -> usize {
        let s = &self.samples;
        let st = &self.stacks;
        let f = &self.frames;
        s.time.capacity() * 8
            + s.thread_cpu.capacity() * 4
            + s.stack.capacity() * 4
            + st.heap_bytes()
            + f.heap_bytes()
            + self.strings.heap_bytes()
            + self.generic.heap_bytes()
            + self.funcs.heap_bytes()
            + (self.processes.len() + self.threads.len() + self.images.len() + self.modules.len())
                * 128
            + (self.cswitches.len() + self.ready_threads.len()) * 48
            + (self.file_io.len() + self.disk_io.len() + self.hard_faults.len()) * 64
            + self.network.len() * 40
            + (self.page_faults.len() + self.registry.len()) * 48
            + (self.commits.len() + self.heap.len()) * 64
            + self.dpc_isr.len() * 48
            + self.frequency.len() * 32
            + self.idle_states.len() * 24
            + (self.focus.len() + self.ui_delays.len()) * 40
            + self.gpu.len() * 56
            + self.frame_times.len() * 32
    }
}

impl Trace {
    /// Name frames (from PDBs): `names` holds (frame row, function name).
    /// Frames of one module with one name share a function row.
    pub fn apply_names<'a>(&mut self, names: impl IntoIterator<Item = (u32, &'a str)>) -> usize {
        let mut n = 0;
        for (row, name) in names {
            let r = row as usize;
            let Some(&m) = self.frames.module.get(r) else {
                continue;
            };
            let s = self.strings.intern(name);
            self.frames.func[r] = self.funcs.intern(m, s);
            n += 1;
        }
        n
    }
}
