//! Synthetic ETL traces for benchmarks and tests, written with
//! `etl::writer`. Everything is deterministic from a seed.
//!
//! - [`kernel`]: payload encoders for the kernel events a sampled-CPU trace
//!   holds (process, thread and image rundown, SampledProfile, StackWalk),
//!   with the layouts of the format notes, section C;
//! - [`model`]: a machine to trace (processes, threads, images, stacks);
//! - [`bench`]: the `bench` scenario: rundown, then samples with stacks,
//!   either a fixed number or until the file reaches a size;
//! - [`explorer`]: the `explorer-overlay` demo scenario (see its docs);
//! - [`events`]: payloads the demo adds (stack keys, FileIo, image info);
//! - [`image_samples`]: one process sampled inside one image whose PDB
//!   identity the trace records (for symbol tests);
//! - [`switches`]: context switches with stacks (CPU Usage (Precise));
//! - [`heap_bench`]: heap events at scale (the heap benchmark);
//! - [`memory_events`]: soft page faults and registry operations from a
//!   list (Page Faults, Registry);
//! - [`dpc_isr`]: DPC and ISR events from a list (DPC/ISR);
//! - [`processor_power`]: processor frequency changes from a list
//!   (Processor Frequency);
//! - [`idle_states`]: idle periods as context switches from a list
//!   (CPU Idle States);
//! - [`win32k`]: focus changes and UI delays from a list (Window in
//!   Focus, UI Delays);
//! - [`gpu`]: DxgKrnl DMA packets and presents from a list (GPU
//!   Utilization, Frame Times);
//! - [`hostile_names`]: every string the UI shows is HTML with inline
//!   script (for the test that the UI renders trace text as text).

pub mod bench;
pub mod dpc_isr;
pub mod events;
pub mod explorer;
pub mod gpu;
pub mod heap_bench;
pub mod hostile_names;
pub mod idle_states;
pub mod image_samples;
pub mod kernel;
pub mod memory_events;
pub mod model;
pub mod prng;
pub mod processor_power;
pub mod switches;
pub mod win32k;

pub use bench::{write_bench, write_bench_bytes, BenchParams};
pub use explorer::{write_explorer_overlay, ExplorerParams};
pub use hostile_names::write_hostile_names;
pub use model::Model;
