//! Plain records extracted from events in the parallel pass, before the
//! sequential passes that need time order (lifetimes, stack joins).
//! Times are raw timestamps here; builders convert them with the clock.

use rayon::slice::ParallelSliceMut;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lifetime {
    Start,
    End,
    /// Alive when the trace started (rundown at start).
    DcStart,
    /// Alive when the trace ended (rundown at end).
    DcEnd,
    /// Exited before the trace but still referenced.
    Defunct,
}

#[derive(Debug, Clone)]
pub struct ProcessRec {
    pub ts: i64,
    pub kind: Lifetime,
    pub pid: u32,
    pub parent_pid: u32,
    pub session: u32,
    pub exit_status: i32,
    pub unique_key: u64,
    pub name: String,
    pub command_line: String,
}

#[derive(Debug, Clone)]
pub struct ThreadRec {
    pub ts: i64,
    pub kind: Lifetime,
    pub pid: u32,
    pub tid: u32,
    pub start_address: u64,
    pub name: Option<String>,
}

/// A thread's name (ThreadSetName), from `ts` on.
#[derive(Debug, Clone)]
pub struct ThreadNameRec {
    pub ts: i64,
    pub pid: u32,
    pub tid: u32,
    pub name: String,
}

/// A JIT-compiled method's code range (CLR method load / rundown).
#[derive(Debug, Clone)]
pub struct ClrMethodRec {
    pub ts: i64,
    pub pid: u32,
    /// The managed module (a `ClrModuleRec` of the same process) it belongs to.
    pub module_id: u64,
    pub start: u64,
    pub size: u32,
    pub namespace: String,
    pub name: String,
    pub signature: String,
}

/// A managed module's files (CLR module load / rundown): names the module
/// of JIT-compiled code that no image covers.
#[derive(Debug, Clone)]
pub struct ClrModuleRec {
    pub ts: i64,
    pub pid: u32,
    pub module_id: u64,
    pub il_path: String,
    /// The NGEN image, empty when the module runs from IL.
    pub native_path: String,
}

#[derive(Debug, Clone)]
pub struct ImageRec {
    pub ts: i64,
    /// Start = load, End = unload, DcStart / DcEnd = rundown.
    pub kind: Lifetime,
    pub pid: u32,
    pub base: u64,
    pub size: u64,
    pub checksum: u32,
    pub timestamp: u32,
    pub path: String,
}

/// KernelTraceControl ImageID / DbgID_RSDS / FileVersion, joined to the image
/// event with the same timestamp.
#[derive(Debug, Clone)]
pub enum ImageInfoRec {
    Id {
        ts: i64,
        pid: u32,
        base: u64,
        size: u64,
        original_file_name: String,
    },
    Rsds {
        ts: i64,
        pid: u32,
        base: u64,
        guid: etl::Guid,
        age: u32,
        pdb: String,
    },
    FileVersion {
        ts: i64,
        size: u64,
        timestamp: u32,
        fields: Box<FileVersionFields>,
    },
}

#[derive(Debug, Clone, Default)]
pub struct FileVersionFields {
    pub original_file_name: String,
    pub file_description: String,
    pub file_version: String,
    pub product_name: String,
    pub company_name: String,
    pub product_version: String,
}

/// Sort samples by time (stable: of equal times, in arrival order). Apart
/// from `Batch::sort_by_time`: the build sorts them once the inline stacks
/// have become parts, so that the sort's copy of the samples never comes
/// on top of both.
pub fn sort_samples_by_time(samples: &mut [SampleRec]) {
    samples.par_sort_by_key(|r| r.ts);
}

#[derive(Debug, Clone, Copy)]
pub struct SampleRec {
    pub ts: i64,
    pub tid: u32,
    pub cpu: u16,
    pub ip: u64,
}

/// A stack fragment attached to the event at (event_ts, tid).
#[derive(Debug, Clone, Copy)]
pub struct InlineStackRec {
    /// Time of the StackWalk event itself (it can arrive after its target).
    pub ts: i64,
    pub event_ts: i64,
    pub pid: u32,
    pub tid: u32,
    /// Row in the batch's `FragmentSet` (leaf-first addresses).
    pub fragment: u32,
}

/// A reference to a cached stack key (StackKeyKernel / StackKeyUser).
#[derive(Debug, Clone, Copy)]
pub struct StackKeyRefRec {
    /// Time of the reference event itself (definitions come at or after it).
    pub ts: i64,
    pub event_ts: i64,
    pub pid: u32,
    pub tid: u32,
    pub key: u64,
    pub user: bool,
}

/// A cached stack key's frames (KeyDelete / KeyRundown).
#[derive(Debug, Clone, Copy)]
pub struct StackKeyDefRec {
    pub ts: i64,
    pub key: u64,
    /// Row in the batch's `FragmentSet`.
    pub fragment: u32,
}

pub use super::fragments::FragmentSet;

#[derive(Debug, Clone, Copy)]
pub struct IntervalRec {
    pub ts: i64,
    /// 100-ns units.
    pub interval: u32,
}

/// Lifetimes from the Microsoft-Windows-Kernel-Process manifest provider,
/// kept apart from the kernel logger's: traces with both (PerfView enables
/// the provider beside the kernel logger) would otherwise count each process
/// twice. They fill a table only when the kernel logger said nothing of it.
#[derive(Debug, Default, Clone)]
pub struct ManifestLifetimes {
    pub processes: Vec<ProcessRec>,
    pub threads: Vec<ThreadRec>,
    pub images: Vec<ImageRec>,
}

/// Everything one buffer contributed.
#[derive(Debug, Default, Clone)]
pub struct Batch {
    pub manifest_lifetimes: ManifestLifetimes,
    pub processes: Vec<ProcessRec>,
    pub threads: Vec<ThreadRec>,
    pub thread_names: Vec<ThreadNameRec>,
    pub images: Vec<ImageRec>,
    pub image_info: Vec<ImageInfoRec>,
    pub samples: Vec<SampleRec>,
    pub inline_stacks: Vec<InlineStackRec>,
    pub key_refs: Vec<StackKeyRefRec>,
    pub key_defs: Vec<StackKeyDefRec>,
    pub intervals: Vec<IntervalRec>,
    pub clr_methods: Vec<ClrMethodRec>,
    pub clr_modules: Vec<ClrModuleRec>,
    pub cswitches: Vec<CSwitchRec>,
    pub readies: Vec<ReadyRec>,
    pub file_names: Vec<FileNameRec>,
    pub file_ops: Vec<FileOpRec>,
    pub file_op_ends: Vec<FileOpEndRec>,
    pub disk: Vec<DiskRec>,
    pub disk_inits: Vec<DiskInitRec>,
    pub hard_faults: Vec<HardFaultRec>,
    pub dpc_isr: Vec<DpcIsrRec>,
    pub net: Vec<NetRec>,
    pub page_faults: Vec<PageFaultRec>,
    pub registry: Vec<RegistryRec>,
    pub virtual_allocs: Vec<VirtualAllocRec>,
    pub heap: Vec<HeapRec>,
    pub path_maps: Vec<PathMapRec>,
    /// SysConfig rundown events with their timestamps.
    pub sysconfig: Vec<(i64, super::sysconfig::SysConfigRec)>,
    pub generic: Vec<GenericRec>,
    /// Payload bytes of `generic` records: one chunk per buffer, moved (not
    /// copied) when batches merge.
    pub arenas: Vec<Vec<u8>>,
    pub schemas: BlobSet,
    /// Provider names from TraceLogging provider traits, first seen wins.
    pub provider_names: rustc_hash::FxHashMap<etl::Guid, String>,
    pub fragments: FragmentSet,
    pub events: u64,
    pub max_ts: Option<i64>,
    /// Earliest event that is not session bookkeeping (see collect.rs).
    pub min_ts: Option<i64>,
    /// Buffers that could not be decoded at all.
    pub failed_buffers: u32,
    pub diagnostics: Vec<etl::Diagnostic>,
    /// Buffers (`BufferInfo::index`) holding an event no typed decoder
    /// read: only these can hold events that stay hex (`hex_only_in`).
    pub hex_candidates: Vec<u32>,
    /// What the trace's schema registry is made of (for the hex-only
    /// count, without reading the file again).
    pub registry_sources: etl::decode::schema::coverage::RegistrySources,
}

impl Batch {
    /// Release the slack of the payload chunks and the stack fragments,
    /// which grow as buffers are appended.
    pub fn shrink_payloads(&mut self) {
        for a in &mut self.arenas {
            a.shrink_to_fit();
        }
        self.fragments.shrink_to_fit();
    }

    /// Release the slack of every record list once the read is done: grown
    /// as buffers were appended, they hold up to twice their records while
    /// the joins make their own copies.
    pub fn shrink_to_fit(&mut self) {
        self.shrink_payloads();
        self.processes.shrink_to_fit();
        self.threads.shrink_to_fit();
        self.thread_names.shrink_to_fit();
        self.images.shrink_to_fit();
        self.image_info.shrink_to_fit();
        self.samples.shrink_to_fit();
        self.inline_stacks.shrink_to_fit();
        self.key_refs.shrink_to_fit();
        self.key_defs.shrink_to_fit();
        self.intervals.shrink_to_fit();
        self.clr_methods.shrink_to_fit();
        self.clr_modules.shrink_to_fit();
        self.cswitches.shrink_to_fit();
        self.readies.shrink_to_fit();
        self.file_names.shrink_to_fit();
        self.file_ops.shrink_to_fit();
        self.file_op_ends.shrink_to_fit();
        self.disk.shrink_to_fit();
        self.disk_inits.shrink_to_fit();
        self.hard_faults.shrink_to_fit();
        self.dpc_isr.shrink_to_fit();
        self.net.shrink_to_fit();
        self.page_faults.shrink_to_fit();
        self.registry.shrink_to_fit();
        self.virtual_allocs.shrink_to_fit();
        self.heap.shrink_to_fit();
        self.path_maps.shrink_to_fit();
        self.sysconfig.shrink_to_fit();
        self.generic.shrink_to_fit();
    }

    /// Append `other` (a later buffer) to `self`.
    pub fn extend(&mut self, other: Batch) {
        let m = other.manifest_lifetimes;
        self.manifest_lifetimes.processes.extend(m.processes);
        self.manifest_lifetimes.threads.extend(m.threads);
        self.manifest_lifetimes.images.extend(m.images);
        self.processes.extend(other.processes);
        self.threads.extend(other.threads);
        self.thread_names.extend(other.thread_names);
        self.clr_methods.extend(other.clr_methods);
        self.clr_modules.extend(other.clr_modules);
        self.images.extend(other.images);
        self.image_info.extend(other.image_info);
        // The lists of every sample: grown to the size they need, not by
        // doubling (batches merge pairwise, the last merge is the largest).
        // The other's pages are freed as they are copied: at the last merge
        // it holds half of them, which came on top of the whole.
        super::lean_sort::append_releasing(&mut self.samples, other.samples, |r| r);
        // Re-number the other batch's fragments into ours.
        let remap = self.fragments.absorb(&other.fragments);
        let map = |id: u32| remap.get(id as usize).copied().unwrap_or(u32::MAX);
        super::lean_sort::append_releasing(
            &mut self.inline_stacks,
            other.inline_stacks,
            |mut r| {
                r.fragment = map(r.fragment);
                r
            },
        );
        self.key_refs.extend(other.key_refs);
        self.file_ops
            .extend(other.file_ops.into_iter().map(|mut r| {
                r.ext_stack = r.ext_stack.map(map);
                r
            }));
        let schema_map: Vec<u32> = other
            .schemas
            .list
            .iter()
            .map(|b| self.schemas.intern(b))
            .collect();
        let chunk_base = self.arenas.len() as u32;
        self.arenas.extend(other.arenas);
        self.generic.extend(other.generic.into_iter().map(|mut r| {
            r.ext_stack = r.ext_stack.map(map);
            r.schema = r.schema.and_then(|s| schema_map.get(s as usize).copied());
            r.payload_chunk += chunk_base;
            r
        }));
        for (g, n) in other.provider_names {
            self.provider_names.entry(g).or_insert(n);
        }
        self.cswitches.extend(other.cswitches);
        self.readies.extend(other.readies);
        self.file_names.extend(other.file_names);
        self.file_op_ends.extend(other.file_op_ends);
        self.disk.extend(other.disk);
        self.disk_inits.extend(other.disk_inits);
        self.hard_faults.extend(other.hard_faults);
        self.dpc_isr.extend(other.dpc_isr);
        self.net.extend(other.net);
        self.page_faults.extend(other.page_faults);
        self.registry.extend(other.registry);
        self.virtual_allocs.extend(other.virtual_allocs);
        self.heap.extend(other.heap);
        self.path_maps.extend(other.path_maps);
        self.sysconfig.extend(other.sysconfig);

        self.key_defs
            .extend(other.key_defs.into_iter().map(|mut r| {
                r.fragment = map(r.fragment);
                r
            }));
        self.intervals.extend(other.intervals);
        self.events += other.events;
        self.max_ts = self.max_ts.max(other.max_ts);
        self.min_ts = match (self.min_ts, other.min_ts) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        self.failed_buffers += other.failed_buffers;
        self.diagnostics.extend(other.diagnostics);
        self.hex_candidates.extend(other.hex_candidates);
        self.registry_sources.extend(other.registry_sources);
    }

    /// Take the Kernel-Process lifetimes for each table the kernel logger
    /// left empty (processes, threads and images each on their own).
    pub fn adopt_manifest_lifetimes(&mut self) {
        let m = std::mem::take(&mut self.manifest_lifetimes);
        if self.processes.is_empty() {
            self.processes = m.processes;
        }
        if self.threads.is_empty() {
            self.threads = m.threads;
        }
        if self.images.is_empty() {
            self.images = m.images;
        }
    }

    /// Stable sort of every record list but the samples (`sort_samples_by_time`)
    /// by timestamp: ties keep file order (rayon's parallel sort is stable).
    pub fn sort_by_time(&mut self) {
        self.processes.par_sort_by_key(|r| r.ts);
        self.sysconfig.par_sort_by_key(|r| r.0);
        self.threads.par_sort_by_key(|r| r.ts);
        self.thread_names.par_sort_by_key(|r| r.ts);
        self.clr_methods.par_sort_by_key(|r| r.ts);
        self.clr_modules.par_sort_by_key(|r| r.ts);
        self.images.par_sort_by_key(|r| r.ts);
        self.key_refs.par_sort_by_key(|r| r.ts);
        self.key_defs.par_sort_by_key(|r| r.ts);
        self.intervals.par_sort_by_key(|r| r.ts);
        self.cswitches.par_sort_by_key(|r| r.ts);
        self.readies.par_sort_by_key(|r| r.ts);
        self.file_names.par_sort_by_key(|r| r.ts);
        self.file_ops.par_sort_by_key(|r| r.ts);
        self.file_op_ends.par_sort_by_key(|r| r.ts);
        self.disk.par_sort_by_key(|r| r.ts);
        self.disk_inits.par_sort_by_key(|r| r.ts);
        self.hard_faults.par_sort_by_key(|r| r.ts);
        self.dpc_isr.par_sort_by_key(|r| r.ts);
        self.net.par_sort_by_key(|r| r.ts);
        self.page_faults.par_sort_by_key(|r| r.ts);
        self.registry.par_sort_by_key(|r| r.ts);
        self.virtual_allocs.par_sort_by_key(|r| r.ts);
        self.heap.par_sort_by_key(|r| r.ts);
        self.generic.par_sort_by_key(|r| r.ts);
    }
}

/// CSwitch (0x0524): the CPU switched from `old_tid` to `new_tid`.
#[derive(Debug, Clone, Copy)]
pub struct CSwitchRec {
    pub ts: i64,
    pub cpu: u16,
    pub c: etl::decode::CSwitch,
}

/// ReadyThread (0x0532): `readying_tid` (the header's thread) readied `c.readied_tid`.
#[derive(Debug, Clone, Copy)]
pub struct ReadyRec {
    pub ts: i64,
    pub cpu: u16,
    pub readying_tid: u32,
    pub c: etl::decode::ReadyThread,
}

/// A name for a file key or file object (FileIo name events, creates).
#[derive(Debug, Clone)]
pub struct FileNameRec {
    pub ts: i64,
    pub key: u64,
    pub path: String,
}

/// One file operation (kernel FileIo or Microsoft-Windows-Kernel-File).
#[derive(Debug, Clone)]
pub struct FileOpRec {
    pub ts: i64,
    pub op: crate::io::FileOp,
    /// Thread that issued it (payload TTID, else header tid).
    pub tid: u32,
    /// Header tid: stacks walked by the kernel attach by (time, this).
    pub header_tid: Option<u32>,
    /// Header pid when the header has one.
    pub pid: Option<u32>,
    pub irp: u64,
    pub file_object: u64,
    pub file_key: u64,
    pub size: u64,
    pub offset: u64,
    /// Path carried by the event itself (Create's OpenPath, path operations).
    pub path: Option<String>,
    /// Stack from the event's extended data (row in the batch's `FragmentSet`).
    pub ext_stack: Option<u32>,
    pub kernel_file_provider: bool,
}

/// FileIo OperationEnd: completes the operation with the same IRP.
#[derive(Debug, Clone, Copy)]
pub struct FileOpEndRec {
    pub ts: i64,
    pub irp: u64,
    pub extra_info: u64,
}

/// Disk I/O completion (0x010A / 0x010B / flush 0x010E).
#[derive(Debug, Clone, Copy)]
pub struct DiskRec {
    pub ts: i64,
    pub kind: crate::io::DiskOp,
    pub header_tid: Option<u32>,
    pub issuing_tid: Option<u32>,
    pub disk: u32,
    pub size: u32,
    pub offset: u64,
    pub file_key: u64,
    pub irp: u64,
    /// I/O priority from the IRP flags.
    pub priority: u8,
    /// Ticks from issue to completion.
    pub response_ticks: Option<u64>,
}

/// Disk I/O init (0x010C / 0x010D / 0x010F): where the stack attaches.
#[derive(Debug, Clone, Copy)]
pub struct DiskInitRec {
    pub ts: i64,
    pub tid: u32,
    pub irp: u64,
}

#[derive(Debug, Clone, Copy)]
pub struct HardFaultRec {
    pub ts: i64,
    pub h: etl::decode::HardFault,
}

/// A DPC or ISR, on the CPU of its buffer (the PerfInfo header names no
/// thread).
#[derive(Debug, Clone, Copy)]
pub struct DpcIsrRec {
    pub ts: i64,
    pub cpu: u16,
    pub d: etl::decode::DpcIsr,
}

/// A soft page fault, on the thread its system header names.
#[derive(Debug, Clone, Copy)]
pub struct PageFaultRec {
    pub ts: i64,
    pub tid: u32,
    pub f: etl::decode::PageFault,
}

/// A registry event (operation or KCB name), on its header's thread.
#[derive(Debug, Clone)]
pub struct RegistryRec {
    pub ts: i64,
    pub tid: u32,
    pub r: etl::decode::Registry,
}

/// VirtualAlloc or VirtualFree, on the calling thread.
#[derive(Debug, Clone, Copy)]
pub struct VirtualAllocRec {
    pub ts: i64,
    pub tid: u32,
    pub v: etl::decode::VirtualAlloc,
}

/// A heap event of the process and thread its header names.
#[derive(Debug, Clone, Copy)]
pub struct HeapRec {
    pub ts: i64,
    pub pid: u32,
    pub tid: u32,
    pub e: etl::decode::HeapEvent,
}

/// A kernel TcpIp/UdpIp event.
#[derive(Debug, Clone, Copy)]
pub struct NetRec {
    pub ts: i64,
    pub n: etl::decode::NetEvent,
}

/// Where NT paths live as drive letters (SysConfig rundown).
#[derive(Debug, Clone)]
pub enum PathMapRec {
    /// VolumeMapping: NT prefix -> DOS prefix.
    Volume { nt: String, dos: String },
    /// SystemPaths: the Windows directory (for `\SystemRoot\`).
    WindowsDirectory(String),
}

/// An event no specialised table took. Its payload lives in the batch arena.
#[derive(Debug, Clone, Copy)]
pub struct GenericRec {
    pub ts: i64,
    pub provider: Option<etl::Guid>,
    pub kernel_group: Option<u8>,
    pub id: u16,
    pub opcode: u8,
    pub task: u16,
    pub level: u8,
    pub version: u8,
    pub keyword: u64,
    /// The header's pid.
    pub pid: Option<u32>,
    /// The process a kernel TcpIp/UdpIp payload names (its header has none).
    pub payload_pid: Option<u32>,
    pub tid: Option<u32>,
    pub cpu: u16,
    pub pointer_size: u8,
    /// `HeaderType::to_byte`, to decode known kinds again on demand.
    pub header_type: u8,
    /// Payload: `arenas[payload_chunk][payload_start..][..payload_len]`.
    pub payload_chunk: u32,
    pub payload_start: u32,
    pub payload_len: u32,
    /// Row in the batch's `BlobSet` of TraceLogging schemas.
    pub schema: Option<u32>,
    /// Stack from extended data (row in the batch's `FragmentSet`).
    pub ext_stack: Option<u32>,
    /// ActivityId and RelatedActivityId (extended data), when either is set.
    pub activity: Option<(Option<etl::Guid>, Option<etl::Guid>)>,
}

/// Distinct byte blobs (TraceLogging schemas), so each is kept once.
#[derive(Debug, Default, Clone)]
pub struct BlobSet {
    pub list: Vec<Box<[u8]>>,
    index: rustc_hash::FxHashMap<Box<[u8]>, u32>,
}

impl BlobSet {
    pub fn intern(&mut self, blob: &[u8]) -> u32 {
        if let Some(&id) = self.index.get(blob) {
            return id;
        }
        let id = self.list.len() as u32;
        self.list.push(blob.into());
        self.index.insert(blob.into(), id);
        id
    }
}
