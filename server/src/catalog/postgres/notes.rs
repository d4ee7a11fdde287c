//! Notes in the PostgreSQL catalog (table `notes`, migration 4).

use super::super::notes::{Note, NoteStore};
use super::{s, PgCatalog};
use tokio_postgres::Row;

fn row_to_note(r: &Row) -> Note {
    Note {
        id: r.get(0),
        trace: r.get(1),
        text: r.get(2),
        view: r.get(3),
        author: r.get(4),
        author_token: r.get(5),
        key_hash: r.get(6),
        created_at: r.get(7),
        updated_at: r.get(8),
    }
}

impl NoteStore for PgCatalog {
    fn insert_note(&self, n: &Note, max_per_trace: u64) -> anyhow::Result<bool> {
        let max = i64::try_from(max_per_trace).unwrap_or(i64::MAX);
        // One statement; replicas inserting at the same moment may each
        // see the count before the other's row (at most one more each).
        let rows = self.execute(
            "INSERT INTO notes (id, trace, text, view, author, author_token, key_hash, created_at, updated_at)
             SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9
             WHERE (SELECT COUNT(*) FROM notes WHERE trace = $2) < $10",
            vec![
                s(&n.id),
                s(&n.trace),
                s(&n.text),
                s(&n.view),
                s(&n.author),
                s(&n.author_token),
                s(&n.key_hash),
                s(&n.created_at),
                s(&n.updated_at),
                Box::new(max),
            ],
        )?;
        Ok(rows == 1)
    }

    fn notes(&self, trace: &str) -> anyhow::Result<Vec<Note>> {
        let rows = self.rows(
            "SELECT id, trace, text, view, author, author_token, key_hash, created_at, updated_at
             FROM notes WHERE trace = $1 ORDER BY id COLLATE \"C\"",
            vec![s(trace)],
        )?;
        Ok(rows.iter().map(row_to_note).collect())
    }

    fn note(&self, id: &str) -> anyhow::Result<Option<Note>> {
        let rows = self.rows(
            "SELECT id, trace, text, view, author, author_token, key_hash, created_at, updated_at
             FROM notes WHERE id = $1",
            vec![s(id)],
        )?;
        Ok(rows.first().map(row_to_note))
    }

    fn update_note(&self, n: &Note) -> anyhow::Result<bool> {
        let rows = self.execute(
            "UPDATE notes SET text = $2, view = $3, author = $4, updated_at = $5 WHERE id = $1",
            vec![
                s(&n.id),
                s(&n.text),
                s(&n.view),
                s(&n.author),
                s(&n.updated_at),
            ],
        )?;
        Ok(rows > 0)
    }

    fn delete_note(&self, id: &str) -> anyhow::Result<bool> {
        Ok(self.execute("DELETE FROM notes WHERE id = $1", vec![s(id)])? > 0)
    }

    fn delete_notes_of(&self, trace: &str) -> anyhow::Result<()> {
        self.execute("DELETE FROM notes WHERE trace = $1", vec![s(trace)])?;
        Ok(())
    }

    fn note_counts(&self) -> anyhow::Result<Vec<(String, u64)>> {
        let rows = self.rows(
            "SELECT trace, COUNT(*) FROM notes GROUP BY trace ORDER BY trace COLLATE \"C\"",
            Vec::new(),
        )?;
        Ok(rows
            .iter()
            .map(|r| (r.get(0), u64::try_from(r.get::<_, i64>(1)).unwrap_or(0)))
            .collect())
    }
}
