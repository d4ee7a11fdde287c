//! Notes in the SQLite catalog (table `notes`, migration 7).

use super::super::notes::{Note, NoteStore};
use super::SqliteCatalog;
use rusqlite::{params, OptionalExtension};

const COLUMNS: &str =
    "id, trace, text, view, author, author_token, key_hash, created_at, updated_at";

fn row_to_note(r: &rusqlite::Row<'_>) -> rusqlite::Result<Note> {
    Ok(Note {
        id: r.get(0)?,
        trace: r.get(1)?,
        text: r.get(2)?,
        view: r.get(3)?,
        author: r.get(4)?,
        author_token: r.get(5)?,
        key_hash: r.get(6)?,
        created_at: r.get(7)?,
        updated_at: r.get(8)?,
    })
}

impl NoteStore for SqliteCatalog {
    fn insert_note(&self, n: &Note, max_per_trace: u64) -> anyhow::Result<bool> {
        let max = i64::try_from(max_per_trace).unwrap_or(i64::MAX);
        self.with(|c| {
            // One statement: the count and the insert see the same rows.
            c.execute(
                &format!(
                    "INSERT INTO notes ({COLUMNS})
                     SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9
                     WHERE (SELECT COUNT(*) FROM notes WHERE trace = ?2) < ?10"
                ),
                params![
                    n.id,
                    n.trace,
                    n.text,
                    n.view,
                    n.author,
                    n.author_token,
                    n.key_hash,
                    n.created_at,
                    n.updated_at,
                    max
                ],
            )
            .map(|rows| rows == 1)
        })
    }

    fn notes(&self, trace: &str) -> anyhow::Result<Vec<Note>> {
        self.with(|c| {
            let mut st = c.prepare(&format!(
                "SELECT {COLUMNS} FROM notes WHERE trace = ?1 ORDER BY id"
            ))?;
            let rows = st.query_map([trace], row_to_note)?;
            rows.collect()
        })
    }

    fn note(&self, id: &str) -> anyhow::Result<Option<Note>> {
        self.with(|c| {
            c.query_row(
                &format!("SELECT {COLUMNS} FROM notes WHERE id = ?1"),
                [id],
                row_to_note,
            )
            .optional()
        })
    }

    fn update_note(&self, n: &Note) -> anyhow::Result<bool> {
        self.with(|c| {
            c.execute(
                "UPDATE notes SET text = ?2, view = ?3, author = ?4, updated_at = ?5 WHERE id = ?1",
                params![n.id, n.text, n.view, n.author, n.updated_at],
            )
            .map(|rows| rows > 0)
        })
    }

    fn delete_note(&self, id: &str) -> anyhow::Result<bool> {
        self.with(|c| {
            c.execute("DELETE FROM notes WHERE id = ?1", [id])
                .map(|n| n > 0)
        })
    }

    fn delete_notes_of(&self, trace: &str) -> anyhow::Result<()> {
        self.with(|c| {
            c.execute("DELETE FROM notes WHERE trace = ?1", [trace])
                .map(|_| ())
        })
    }

    fn note_counts(&self) -> anyhow::Result<Vec<(String, u64)>> {
        self.with(|c| {
            let mut st =
                c.prepare("SELECT trace, COUNT(*) FROM notes GROUP BY trace ORDER BY trace")?;
            let rows = st.query_map([], |r| Ok((r.get(0)?, r.get::<_, i64>(1)?.max(0) as u64)))?;
            rows.collect()
        })
    }
}
