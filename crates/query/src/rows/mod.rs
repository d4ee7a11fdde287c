//! Row tables (Processes, Threads, Images, File I/O, Disk I/O, CPU Usage
//! (Precise), Generic Events) grouped level by level as WPA shows them:
//! the table and its requests (`table`), the keys of its columns (`keys`),
//! the fast flat levels (`level`, `dense`) and the graph above a level
//! (`graph`).

pub(crate) mod dense;
pub mod graph;
pub(crate) mod group;
pub(crate) mod keys;
pub(crate) mod level;
pub(crate) mod outstanding;
pub mod table;
pub(crate) mod time_average;
