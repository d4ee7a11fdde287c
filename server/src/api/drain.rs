//! A request refused before its body was read gets the body read and
//! dropped first, up to a bound. Closing a connection with unread bytes
//! makes the kernel reset it, and a client still sending (a browser's
//! upload, or nginx streaming a body through to a replica) then sees the
//! reset (nginx: 502) instead of the answer.

use axum::body::Body;
use axum::http::{header, HeaderMap};
use futures_util::StreamExt;
use std::time::Duration;

/// Most bytes read to be dropped; a longer body is left unread (the
/// connection may then be reset, as before).
const MAX_BYTES: u64 = 8 << 20;
/// Longest time spent on it.
const MAX_TIME: Duration = Duration::from_secs(2);

/// Read and drop `body`, when its declared length is within the bound.
pub async fn drain(headers: &HeaderMap, body: Body) {
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_none_or(|n| n == 0 || n > MAX_BYTES) {
        return;
    }
    let mut stream = body.into_data_stream();
    let mut read = 0u64;
    let until = tokio::time::Instant::now() + MAX_TIME;
    while read < MAX_BYTES {
        match tokio::time::timeout_at(until, stream.next()).await {
            Ok(Some(Ok(chunk))) => read += chunk.len() as u64,
            _ => break,
        }
    }
}
