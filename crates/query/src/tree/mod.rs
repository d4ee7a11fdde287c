//! Views of the call tree of the samples: flame graphs, butterflies
//! (callers and callees, flat and as trees), inclusive counts per process
//! and the function and module name search.

pub mod butterfly;
pub mod butterfly_tree;
pub mod flame;
pub(crate) mod inclusive_by_process;
pub mod name_search;
pub(crate) mod node_self_view;
