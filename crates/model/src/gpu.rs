//! GPU Utilization and Frame Times, from Microsoft-Windows-DxgKrnl's events
//! as its manifest gives them (our built-in schema pack, from the Windows 10
//! manifests TDH reconstructs; ids and versions as PresentMon's
//! `PresentData/ETW/Microsoft_Windows_DxgKrnl.h` names them):
//!
//! - Device Start/DCStart (27/29 v1: Pointer hProcessId, Pointer
//!   pDxgAdapter, UInt32 ClientType, Pointer hDevice, ...) and Stop (28):
//!   which adapter a device is on;
//! - Context Start/DCStart (30/32: Pointer hDevice, UInt32 NodeOrdinal, 7
//!   UInt32s, Pointer hContext, ...) and Stop (31): the device and node
//!   (engine) of a context; Start is logged by the process that creates it;
//! - NodeMetadata (250: Pointer pDxgAdapter, UInt32 NodeOrdinal, UInt32
//!   EngineType, UnicodeString FriendlyName): the engine's name;
//! - QueuePacket Start (178: Pointer hContext, UInt32 PacketType, UInt32
//!   SubmitSequence, ...), logged by the submitting process: the process of
//!   a context created before the trace (its DCStart is the rundown's);
//! - DmaPacket Start (175 v1: Pointer hContext, Pointer
//!   hQueuePacketContext, UInt32 PacketType, UInt64 uliSubmissionId, UInt32
//!   ulQueueSubmitSequence, ...): a DMA packet queued to the engine's
//!   hardware queue;
//! - DmaPacket Info (177 v1: Pointer hContext, UInt32 PacketType, UInt64
//!   uliCompletionId, UInt32 ulQueueSubmitSequence, UInt32 InterruptType,
//!   ...): its completion interrupt (InterruptType 1, DMA_COMPLETED);
//! - Present (184 v0/v1: UInt32 hContext, Pointer hWindow, ...), logged on
//!   the presenting thread.
//!
//! A DMA packet runs from when it reaches the head of its engine's queue
//! (its DmaPacket Start, or the previous packet's completion on that
//! engine when later) to its completion: the model of GPUView and of
//! PresentMon's `GpuTrace.cpp` (an engine is busy while it processes a DMA
//! packet, as the Concurrency Visualizer's GPU Activity documents). The
//! events stay in Generic Events as well.

use etl::Guid;

/// Microsoft-Windows-DxgKrnl.
pub const DXGKRNL: Guid = Guid::from_u128(0x802ec45a_1e99_4b83_9920_87c98277ba9d);
pub const DEVICE_START: u16 = 27;
pub const DEVICE_STOP: u16 = 28;
pub const DEVICE_DC_START: u16 = 29;
pub const CONTEXT_START: u16 = 30;
pub const CONTEXT_STOP: u16 = 31;
pub const CONTEXT_DC_START: u16 = 32;
pub const DMA_PACKET_START: u16 = 175;
pub const DMA_PACKET_INFO: u16 = 177;
pub const QUEUE_PACKET_START: u16 = 178;
pub const PRESENT: u16 = 184;
pub const NODE_METADATA: u16 = 250;
/// DmaPacket Info's InterruptType for a completed packet.
pub const DMA_COMPLETED: u32 = 1;

/// DXGK_ENGINE (NodeMetadata's EngineType) as the DDK names it.
pub fn engine_type_name(t: u32) -> &'static str {
    match t {
        0 => "Other",
        1 => "3D",
        2 => "Video Decode",
        3 => "Video Encode",
        4 => "Video Processing",
        5 => "Scene Assembly",
        6 => "Copy",
        7 => "Overlay",
        8 => "Crypto",
        _ => "Unknown",
    }
}

/// DmaPacket's PacketType (DXGKETW_DMA_PACKET_TYPE).
pub fn dma_packet_type_name(t: u32) -> &'static str {
    match t {
        0 => "Render",
        1 => "Client Paging",
        2 => "System Paging",
        3 => "Preemption",
        _ => "Other",
    }
}

/// One row per DMA packet the GPU ran: from the head of its engine's queue
/// to its completion.
#[derive(Debug, Clone, Default)]
pub struct GpuTable {
    /// ns since trace start, sorted.
    pub start: Vec<i64>,
    pub end: Vec<i64>,
    /// DmaPacket Start: when it was queued to the engine.
    pub queued: Vec<i64>,
    /// Process row of the context (`NONE` when unknown) and its pid
    /// (`u32::MAX` when unknown).
    pub process: Vec<u32>,
    pub pid: Vec<u32>,
    /// Index into `engines`.
    pub engine: Vec<u32>,
    pub context: Vec<u64>,
    pub sequence: Vec<u32>,
    pub packet_type: Vec<u32>,
    /// Each engine the rows name: adapter index (GPU), node ordinal, name.
    pub engines: Vec<Engine>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Engine {
    /// The adapter's index, by first appearance in the trace.
    pub gpu: u32,
    pub node: u32,
    /// NodeMetadata's FriendlyName, else its engine type, else "Node N".
    pub name: String,
}

impl GpuTable {
    pub fn len(&self) -> usize {
        self.start.len()
    }
    pub fn is_empty(&self) -> bool {
        self.start.is_empty()
    }
}

/// One row per frame: from a present of a window to the next present of the
/// same process and window.
#[derive(Debug, Clone, Default)]
pub struct FrameTimeTable {
    /// The previous present, ns since trace start.
    pub start: Vec<i64>,
    /// This present, sorted.
    pub end: Vec<i64>,
    pub process: Vec<u32>,
    pub tid: Vec<u32>,
    pub window: Vec<u64>,
}

impl FrameTimeTable {
    pub fn len(&self) -> usize {
        self.end.len()
    }
    pub fn is_empty(&self) -> bool {
        self.end.is_empty()
    }
}
