//! The one pass over the samples every CPU Usage (Sampled) query makes:
//! the filters (`filter`), the compiled per-thread/CPU/stack lookups
//! (`plan`), the parallel pass itself (`pass`), and its cancellation.

pub mod cancel;
pub mod filter;
pub(crate) mod pass;
pub(crate) mod plan;
pub(crate) mod prefetch;
