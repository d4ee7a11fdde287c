//! The first step of every upload (traces, PDBs): check the token, then
//! stream the body into a temporary file under the size limit.

use super::error::{ApiError, ApiResult};
use super::state::AppState;
use crate::upload::{self, Received, UploadError};
use axum::body::Body;
use axum::http::{HeaderMap, StatusCode};
use futures_util::StreamExt;

impl From<UploadError> for ApiError {
    fn from(e: UploadError) -> ApiError {
        match e {
            UploadError::TooLarge { limit } => ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                "too_large",
                format!("the upload exceeds this server's limit of {limit} bytes"),
            ),
            UploadError::Timeout => ApiError::new(
                StatusCode::REQUEST_TIMEOUT,
                "timeout",
                "the upload stalled: no data for too long",
            ),
            UploadError::NoSpace(m) => {
                ApiError::new(StatusCode::INSUFFICIENT_STORAGE, "insufficient_storage", m)
            }
            UploadError::Io(m) => ApiError::internal(m),
            UploadError::Client(m) => ApiError::bad_request(m),
            UploadError::Unavailable(m) => ApiError::unavailable(m),
        }
    }
}

/// 401 without the token, then 413 for a declared length over the limit.
pub fn require_auth(app: &AppState, headers: &HeaderMap) -> ApiResult<()> {
    if !app.authorized(headers) {
        return Err(ApiError::unauthorized());
    }
    check_declared_length(app, headers)
}

/// 413 before a byte of the body is read (so hyper never sends
/// `100 Continue`) when its declared length is over the limit.
pub fn check_declared_length(app: &AppState, headers: &HeaderMap) -> ApiResult<()> {
    let limit = app.config.max_upload_bytes;
    let declared = headers
        .get(axum::http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .map(|v| v.trim().parse::<u64>().unwrap_or(u64::MAX));
    match declared {
        Some(n) if n > limit => Err(UploadError::TooLarge { limit }.into()),
        _ => Ok(()),
    }
}

/// The body streamed into a temporary file; 413 over the size limit.
pub async fn receive(app: &AppState, body: Body) -> ApiResult<Received> {
    let limit = app.config.max_upload_bytes;
    let stream = body.into_data_stream().map(|chunk| {
        chunk.map_err(|e| {
            let e = e.into_inner();
            if e.is::<tower_http::timeout::TimeoutError>() {
                UploadError::Timeout
            } else {
                UploadError::Client(format!("upload interrupted: {e}"))
            }
        })
    });
    Ok(upload::receive(stream, &app.store.tmp_dir(), limit).await?)
}
