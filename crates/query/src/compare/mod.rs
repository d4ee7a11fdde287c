//! Comparison of two traces' tables: rows matched by the text of their
//! keys (`by_text`), or, on CPU Usage (Sampled) process, module, function,
//! thread and stack columns, by ids (`ids`).

pub mod by_text;
pub mod ids;

pub use by_text::{compare, identity, keep_largest_changes, CompareRow, CompareTable, Normalize};
