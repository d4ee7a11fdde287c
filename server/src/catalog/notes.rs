//! Notes on views (issue 40): text a teammate attached to a trace and a view
//! state (the UI's URL query), with author and time. Kept in the catalog so
//! every replica of a team server sees the same notes; each engine
//! implements `NoteStore` in its own file (`sqlite/notes.rs`, `postgres/notes.rs`).

use serde::Serialize;

#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Note {
    /// 32 hex digits, random.
    pub id: String,
    /// The trace's id.
    pub trace: String,
    /// Plain text with light formatting (the UI renders it as text nodes).
    pub text: String,
    /// The view it was written on: the UI's query string, without '?'.
    pub view: String,
    /// The display name the writer gave ("" when none).
    pub author: String,
    /// A hash of the token that wrote it on a token server ("" otherwise):
    /// who may edit it besides the holder of its key. Never sent out.
    #[serde(skip)]
    pub author_token: String,
    /// SHA-256 (hex) of the note's edit key, which only its writer got.
    #[serde(skip)]
    pub key_hash: String,
    pub created_at: String,
    pub updated_at: String,
}

/// What the catalog keeps about notes.
pub trait NoteStore {
    /// Add `n` unless its trace already has `max_per_trace` notes (false then).
    fn insert_note(&self, n: &Note, max_per_trace: u64) -> anyhow::Result<bool>;
    /// The trace's notes, oldest first.
    fn notes(&self, trace: &str) -> anyhow::Result<Vec<Note>>;
    fn note(&self, id: &str) -> anyhow::Result<Option<Note>>;
    /// Replace the text, view, author and update time of note `n.id`; false if it is gone.
    fn update_note(&self, n: &Note) -> anyhow::Result<bool>;
    /// Whether there was a note `id` to delete.
    fn delete_note(&self, id: &str) -> anyhow::Result<bool>;
    /// Remove a (deleted) trace's notes.
    fn delete_notes_of(&self, trace: &str) -> anyhow::Result<()>;
    /// (trace, notes) for every trace that has any.
    fn note_counts(&self) -> anyhow::Result<Vec<(String, u64)>>;
}
