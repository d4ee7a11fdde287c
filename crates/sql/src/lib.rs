//! SQL over one loaded trace, the way Perfetto's trace processor works:
//! SQLite virtual tables over the in-memory model, nothing copied. One
//! table per WPA table (`cpu_sampled`, `file_io`, ...; columns generated
//! from the query crate's declarations, `schema`), the stacks' prefix tree
//! and its frames, the modules and the trace's summary (`lists`), and
//! `stack_contains` / `stack_text` (`functions`). Constraints on a
//! table's columns are applied by its scan (`pushdown`). Queries only
//! read and stop at their limits (`guard`). docs/guide/sql.md is the
//! user's guide.

mod functions;
mod grouped_scan;
mod guard;
mod list_table;
pub mod lists;
mod modules;
pub mod output;
mod pushdown;
mod run;
pub mod schema;
mod stacks;
mod trace_info;
mod trace_table;

pub use guard::{MAX_SQL_BYTES, MAX_VALUE_BYTES};
pub use run::{connect, query, query_file, Answer, ErrorKind, Limits, SqlError};

#[cfg(test)]
mod tests;
