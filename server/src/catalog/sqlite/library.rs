//! Trace summaries in the SQLite catalog (tables `library_*`, migration 8).
//! Queries run on a connection of their own, opened read-only on the file
//! with crates/sql's guards and an authorizer that reads the library
//! tables only.

use super::super::library::{LibraryStore, Summary};
use super::SqliteCatalog;
use crate::library::schema;
use rusqlite::params_from_iter;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

impl LibraryStore for SqliteCatalog {
    fn put_summary(&self, s: &Summary) -> anyhow::Result<()> {
        let mut conn = self
            .conn
            .lock()
            .map_err(|_| anyhow::anyhow!("catalog lock poisoned"))?;
        let tx = conn.transaction()?;
        for t in schema::TABLES {
            tx.execute(
                &format!("DELETE FROM {} WHERE trace = ?1", t.name),
                [&s.trace],
            )?;
        }
        for (t, rows) in &s.tables {
            let marks: Vec<String> = (1..=t.columns.len()).map(|i| format!("?{i}")).collect();
            let mut st = tx.prepare(&format!(
                "INSERT INTO {} VALUES ({})",
                t.name,
                marks.join(", ")
            ))?;
            for r in rows {
                st.execute(params_from_iter(r.iter()))?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    fn summaries(&self) -> anyhow::Result<Vec<(String, i64)>> {
        self.with(|c| {
            let mut st = c.prepare("SELECT trace, summary_version FROM library_traces")?;
            let rows = st.query_map([], |r| {
                Ok((r.get(0)?, r.get::<_, Option<i64>>(1)?.unwrap_or(0)))
            })?;
            rows.collect()
        })
    }

    fn library_query(
        &self,
        sql: &str,
        limits: &::sql::Limits,
        cancel: &Arc<AtomicBool>,
    ) -> Result<::sql::Answer, ::sql::SqlError> {
        let Some(path) = &self.path else {
            return Err(::sql::SqlError::new(
                ::sql::ErrorKind::Internal,
                "an in-memory catalog has no file to query",
            ));
        };
        ::sql::query_file(path, schema::is_table, sql, limits, cancel)
    }
}
