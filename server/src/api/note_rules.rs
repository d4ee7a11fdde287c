//! What a note may be and who may change it (issue 40). Limits: the text's
//! size (`--max-note-kb`), notes per trace (`--notes-per-trace`, 507 beyond)
//! and writes per client and minute (`--notes-per-minute`, 429 beyond).
//! The author rule: a note is changed or deleted by the browser that wrote
//! it (it got the note's edit key, kept only as a hash here) or, on a token
//! server, by any holder of the token it was written with.

use super::error::ApiError;
use super::link_limits::{LinkGuard, LinkLimits, MAX_TARGET_BYTES};
use super::state::AppState;
use crate::catalog::Note;
use axum::http::{HeaderMap, StatusCode};
use sha2::{Digest, Sha256};
use std::net::IpAddr;
use std::time::{Duration, Instant};

pub const DEFAULT_MAX_NOTE_KIB: usize = 64;
/// The largest `--max-note-kb`: a note is a remark, not a document.
pub const MAX_NOTE_KIB: usize = 1024;
pub const DEFAULT_NOTES_PER_TRACE: u64 = 1000;
pub const DEFAULT_NOTES_PER_MINUTE: u32 = 30;
/// Longest display name of an author, in characters.
pub const MAX_AUTHOR_CHARS: usize = 80;
/// The header that carries a note's edit key.
pub const KEY_HEADER: &str = "x-etlscope-note-key";

#[derive(Debug, Clone)]
pub struct NoteLimits {
    /// Longest text, in bytes (UTF-8).
    pub max_text_bytes: usize,
    /// Most notes on one trace.
    pub per_trace: u64,
    /// Notes one client may write (create or edit) per minute, and in one burst.
    pub per_minute: u32,
}

impl Default for NoteLimits {
    fn default() -> Self {
        NoteLimits {
            max_text_bytes: DEFAULT_MAX_NOTE_KIB << 10,
            per_trace: DEFAULT_NOTES_PER_TRACE,
            per_minute: DEFAULT_NOTES_PER_MINUTE,
        }
    }
}

impl NoteLimits {
    /// The largest request body read: the text JSON-escaped at worst
    /// (`\uXXXX`, 6 bytes a byte), a view as long as a link, the author.
    pub fn max_body_bytes(&self) -> usize {
        self.max_text_bytes
            .saturating_mul(6)
            .saturating_add(MAX_TARGET_BYTES)
            .saturating_add(4096)
    }
}

/// The limits and each client's write allowance (the short links' bucket).
#[derive(Debug)]
pub struct NoteGuard {
    pub limits: NoteLimits,
    rate: LinkGuard,
}

impl NoteGuard {
    pub fn new(limits: NoteLimits) -> NoteGuard {
        let rate = LinkGuard::new(LinkLimits {
            per_minute: limits.per_minute,
            ..LinkLimits::default()
        });
        NoteGuard { limits, rate }
    }

    /// One write from `client`, or how long until it may write.
    pub fn take(&self, client: IpAddr) -> Result<(), Duration> {
        self.rate.take(client, Instant::now())
    }
}

/// 413 for a text over the limit; 400 for an empty one or one with control
/// characters other than line breaks and tabs.
pub fn check_text(text: &str, max_bytes: usize) -> Result<(), ApiError> {
    if text.len() > max_bytes {
        return Err(ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "note_too_large",
            format!(
                "the note is {} bytes, more than {max_bytes} (--max-note-kb {})",
                text.len(),
                max_bytes >> 10
            ),
        ));
    }
    if text.trim().is_empty() {
        return Err(ApiError::bad_request("the note is empty"));
    }
    if text
        .chars()
        .any(|c| c.is_control() && !matches!(c, '\n' | '\r' | '\t'))
    {
        return Err(ApiError::bad_request(
            "the note has a control character (only line breaks and tabs are kept)",
        ));
    }
    Ok(())
}

/// The display name, trimmed: at most MAX_AUTHOR_CHARS, no control characters.
pub fn check_author(author: &str) -> Result<String, ApiError> {
    let a = author.trim();
    if a.chars().count() > MAX_AUTHOR_CHARS {
        return Err(ApiError::bad_request(format!(
            "the author's name is longer than {MAX_AUTHOR_CHARS} characters"
        )));
    }
    if a.chars().any(char::is_control) {
        return Err(ApiError::bad_request(
            "the author's name has a control character",
        ));
    }
    Ok(a.to_string())
}

/// The view must be one a link could keep: `/t/TRACE?VIEW` a view of this app.
pub fn check_view(trace: &str, view: &str) -> Result<(), ApiError> {
    let view = view.strip_prefix('?').unwrap_or(view);
    super::links::valid_target(&format!("/t/{trace}?{view}"), MAX_TARGET_BYTES)
        .map_err(|e| ApiError::bad_request(format!("bad view: {e}")))
}

/// Who holds `token`, as kept with a note: a hash, never the token itself.
pub fn token_identity(token: &str) -> String {
    hex(&Sha256::digest(
        format!("etlscope note author\0{token}").as_bytes(),
    ))[..32]
        .to_string()
}

/// The identity of the writer on a token server ("" on one without).
pub fn writer_identity(app: &AppState) -> String {
    app.config
        .token
        .as_deref()
        .map(token_identity)
        .unwrap_or_default()
}

pub fn key_hash(key: &str) -> String {
    hex(&Sha256::digest(key.as_bytes()))
}

/// A new note's id (creation time in ms, then random: ids sort by
/// creation) and its edit key (128 random bits), from the OS generator.
pub fn new_id_and_key() -> anyhow::Result<(String, String)> {
    let mut random = [0u8; 26];
    getrandom::fill(&mut random).map_err(|e| anyhow::anyhow!("no random numbers: {e}"))?;
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64);
    let id = format!("{:012x}{}", ms & 0xffff_ffff_ffff, &hex(&random[..10]));
    Ok((id, hex(&random[10..])))
}

/// Whether the token-holding requester wrote `n` (on a token server).
pub fn written_by_token(app: &AppState, headers: &HeaderMap, n: &Note) -> bool {
    app.config.token.is_some()
        && !n.author_token.is_empty()
        && app.authorized(headers)
        && n.author_token == writer_identity(app)
}

/// The author rule: the note's key, or the token it was written with.
pub fn may_change(app: &AppState, headers: &HeaderMap, n: &Note) -> bool {
    let by_key = headers
        .get(KEY_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .is_some_and(|k| {
            !k.is_empty() && !n.key_hash.is_empty() && same(&key_hash(k), &n.key_hash)
        });
    by_key || written_by_token(app, headers, n)
}

fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_sort_by_creation_and_keys_differ() {
        let (a, ka) = new_id_and_key().unwrap();
        std::thread::sleep(Duration::from_millis(2));
        let (b, kb) = new_id_and_key().unwrap();
        assert!(crate::upload::valid_id(&a) && crate::upload::valid_id(&b));
        assert!(a < b);
        assert_ne!(ka, kb);
        assert_eq!(ka.len(), 32);
    }

    #[test]
    fn text_rules() {
        assert!(check_text("a\n\tb", 10).is_ok());
        assert_eq!(check_text("abc", 2).unwrap_err().status, 413);
        assert_eq!(check_text("  \n", 10).unwrap_err().status, 400);
        assert_eq!(check_text("a\u{0}b", 10).unwrap_err().status, 400);
        assert!(check_author(&"x".repeat(MAX_AUTHOR_CHARS + 1)).is_err());
        assert_eq!(check_author("  ann ").unwrap(), "ann");
    }
}
