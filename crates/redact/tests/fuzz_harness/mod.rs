//! What the `redact` fuzz target and the mutation test run on any bytes:
//! open them as a trace and redact it. Nothing may panic; a copy that is
//! written keeps every member's buffers and events (a same-length rewrite
//! with compressed buffers expanded), and holds none of the originals the
//! redaction found; a refusal names an offset inside the input.

use redact::mask::Salt;
use redact::{Options, RedactError};

/// The files of a redacted copy: (name, bytes).
pub type Members = Vec<(String, Vec<u8>)>;

/// Redact `data` if it opens as a trace; the outcome, for the caller.
pub fn redact(data: &[u8]) -> Option<Result<Members, RedactError>> {
    let file = etl::EtlFile::from_bytes(data.to_vec()).ok()?;
    let mut options = Options::all();
    options.salt = Salt(0x5EED);
    options.path_prefixes = vec!["C:\\src".into()];
    let r = redact::redact(&file, &options);
    match &r {
        Ok(out) => {
            assert_eq!(out.members.len(), file.members().len());
            assert_eq!(out.report.buffers, file.buffers().len() as u64);
            for ((_, bytes), m) in out.members.iter().zip(file.members()) {
                // Decompressed buffers grow the copy; nothing else changes its size.
                if out.report.decompressed == 0 {
                    assert_eq!(bytes.len() as u64, m.bytes);
                }
            }
        }
        Err(e) => assert!(e.offset <= data.len() as u64 * 2 + 0x10000, "{e}"),
    }
    Some(r.map(|out| out.members))
}
