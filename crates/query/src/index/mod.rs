//! What an `Engine` precomputes once per trace: function keys, the call
//! tree, the key columns of CPU Usage (Sampled), the samples sorted by
//! thread and by call node, per-bucket totals, stable identities for
//! links, and the live trace's index extended from the previous one.

pub mod call_tree;
mod child_nodes;
pub mod columns;
pub mod funcs;
pub mod live;
pub mod stable_ids;
pub(crate) mod totals;
pub(crate) mod views;
