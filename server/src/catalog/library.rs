//! Trace summaries for library queries (issue 38): what each engine keeps
//! in the `library_*` tables (`library/schema.rs` declares them) and how a
//! read-only query over them runs. Each engine implements `LibraryStore`
//! in its own file (`sqlite/library.rs`, `postgres/library.rs`).

use crate::library::schema::Table;
use rusqlite::types::Value;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// One trace's summary: rows for each library table, in the declared
/// column order (`library_traces` holds exactly one).
#[derive(Debug, Clone, Default)]
pub struct Summary {
    pub trace: String,
    pub tables: Vec<(&'static Table, Vec<Vec<Value>>)>,
}

pub trait LibraryStore {
    /// Replace trace `s.trace`'s summary with `s`, as one step.
    fn put_summary(&self, s: &Summary) -> anyhow::Result<()>;
    /// (trace id, summary_version) of every summarized trace.
    fn summaries(&self) -> anyhow::Result<Vec<(String, i64)>>;
    /// One read-only statement over the library tables (and nothing else)
    /// within `limits`; `cancel` set by another thread stops it.
    fn library_query(
        &self,
        sql: &str,
        limits: &::sql::Limits,
        cancel: &Arc<AtomicBool>,
    ) -> Result<::sql::Answer, ::sql::SqlError>;
}
