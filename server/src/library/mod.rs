//! The library (issue 38, "Across traces"): at ingest each trace writes a
//! small summary into the catalog's `library_*` tables (`schema`, made
//! from the loaded model by the query engine the tables use: `summary`);
//! traces added before get theirs in the background at start (`sweep`).
//! `etlscope sql --library` and `POST /api/sql` query them read-only
//! (`catalog::LibraryStore::library_query`). docs/guide/sql.md, "Library".

pub mod schema;
pub mod summary;
pub mod sweep;

#[cfg(test)]
mod tests;
