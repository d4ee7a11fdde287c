//! `.etl.zip` (PerfView) and `.diagsession` (Visual Studio) containers: zip
//! archives holding one or more .etl files. Extraction is bounded so a zip
//! bomb cannot exhaust memory.

use crate::error::Error;
use std::io::Read;

/// Limits applied when extracting an .etl from a zip.
#[derive(Debug, Clone, Copy)]
pub struct ZipLimits {
    /// Largest extracted .etl accepted.
    pub max_uncompressed: u64,
    /// Largest uncompressed/compressed ratio accepted (zip bomb guard).
    pub max_ratio: u64,
}

impl Default for ZipLimits {
    fn default() -> Self {
        ZipLimits {
            max_uncompressed: 16 << 30,
            max_ratio: 200,
        }
    }
}

pub fn is_zip(bytes: &[u8]) -> bool {
    bytes.starts_with(b"PK\x03\x04") || bytes.starts_with(b"PK\x05\x06")
}

/// Extract the largest `.etl` member of a zip archive.
pub fn extract_etl(bytes: &[u8], limits: ZipLimits) -> Result<(String, Vec<u8>), Error> {
    let mut best: Option<(String, Vec<u8>)> = None;
    let mut first_error = None;
    for (name, r) in extract_etls(bytes, limits)? {
        match r {
            Ok(b) if best.as_ref().is_none_or(|x| b.len() > x.1.len()) => best = Some((name, b)),
            Ok(_) => {}
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    best.ok_or_else(|| first_error.unwrap_or_else(|| Error::Container("no .etl file".into())))
}

/// One member of a container, or why it could not be extracted.
pub type Member<T> = (String, Result<T, Error>);

/// Extract every `.etl` member of a zip archive into memory, in archive
/// order: the files of one recording (a `.diagsession` holds the kernel
/// session, the relogged KernelTraceControl session and the user sessions).
/// A member that cannot be extracted (damaged, over the limits) is returned
/// as its error; the others still are.
pub fn extract_etls(bytes: &[u8], limits: ZipLimits) -> Result<Vec<Member<Vec<u8>>>, Error> {
    extract_etls_to(bytes, limits, |_, _| Ok(Vec::new()))
}

/// Inflate every `.etl` member as a stream into the writer `open(i, name)`
/// makes for it (a file, typically: memory stays bounded whatever a member's
/// size). Members together are held to the limits one member would be.
pub fn extract_etls_to<W: std::io::Write>(
    bytes: &[u8],
    limits: ZipLimits,
    mut open: impl FnMut(usize, &str) -> std::io::Result<W>,
) -> Result<Vec<Member<W>>, Error> {
    let cerr = |m: String| Error::Container(m);
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes))
        .map_err(|e| cerr(format!("unreadable zip archive: {e}")))?;
    let mut members = Vec::new();
    for i in 0..zip.len() {
        let Ok(f) = zip.by_index_raw(i) else { continue };
        let name = f.name().map(|n| n.to_string()).unwrap_or_default();
        if name.to_ascii_lowercase().ends_with(".etl") {
            members.push((i, name));
        }
    }
    if members.is_empty() {
        return Err(cerr("the archive holds no .etl file".into()));
    }
    let mut budget = limits.max_uncompressed;
    let mut out = Vec::with_capacity(members.len());
    for (n, (index, name)) in members.into_iter().enumerate() {
        let r = open(n, &name)
            .map_err(|e| cerr(format!("cannot extract {name}: {e}")))
            .and_then(|mut w| {
                let written = extract_one(
                    &mut zip,
                    index,
                    &name,
                    bytes.len(),
                    (budget, limits.max_ratio),
                    u64::MAX,
                    &mut w,
                )?
                .0;
                budget -= written;
                Ok(w)
            });
        out.push((name, r));
    }
    Ok(out)
}

/// A member's name, declared size and first bytes (or why they could not be had).
pub type Probed = (String, u64, Result<Vec<u8>, Error>);

/// Every `.etl` member's name and declared size, with its first `prefix`
/// bytes (or why they could not be had): enough to tell whether the archive
/// holds a trace, and how large, without inflating it. The declared size
/// bounds what inflating a member can yield (see `extract_one`).
pub fn probe_etls(bytes: &[u8], limits: ZipLimits, prefix: u64) -> Result<Vec<Probed>, Error> {
    let cerr = |m: String| Error::Container(m);
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes))
        .map_err(|e| cerr(format!("unreadable zip archive: {e}")))?;
    let mut out = Vec::new();
    for i in 0..zip.len() {
        let Ok(f) = zip.by_index_raw(i) else { continue };
        let name = f.name().map(|n| n.to_string()).unwrap_or_default();
        if !name.to_ascii_lowercase().ends_with(".etl") {
            continue;
        }
        let declared = f.size();
        drop(f);
        let mut head = Vec::new();
        let r = extract_one(
            &mut zip,
            i,
            &name,
            bytes.len(),
            (limits.max_uncompressed, limits.max_ratio),
            prefix,
            &mut head,
        )
        .map(|_| head);
        out.push((name, declared, r));
    }
    if out.is_empty() {
        return Err(cerr("the archive holds no .etl file".into()));
    }
    Ok(out)
}

/// Inflate one member (at most `stop_after` bytes of it) into `out`; the
/// bytes written and the member's declared size. `limits` is the budget
/// left and the largest ratio.
fn extract_one(
    zip: &mut zip::ZipArchive<std::io::Cursor<&[u8]>>,
    index: usize,
    name: &str,
    archive_len: usize,
    (budget, max_ratio): (u64, u64),
    stop_after: u64,
    out: &mut impl std::io::Write,
) -> Result<(u64, u64), Error> {
    let cerr = |m: String| Error::Container(m);
    let mut f = zip
        .by_index(index)
        .map_err(|e| cerr(format!("cannot read {name}: {e}")))?;
    let declared = f.size();
    // The declared compressed size is as untrusted as the rest: no member
    // holds more compressed bytes than the archive itself.
    let compressed = f.compressed_size().clamp(1, archive_len.max(1) as u64);
    let cap = budget.min(compressed.saturating_mul(max_ratio).max(1 << 20));
    if declared > cap {
        return Err(cerr(format!(
            "{name} would expand to {declared} bytes from {compressed}: over the limit of {cap}"
        )));
    }
    // Never trust the declared size: copy at most cap + 1 bytes, in chunks.
    let written = std::io::copy(&mut (&mut f).take((cap + 1).min(stop_after)), out)
        .map_err(|e| cerr(format!("cannot extract {name}: {e}")))?;
    if written > cap {
        return Err(cerr(format!(
            "{name} expands past the limit of {cap} bytes (zip bomb?)"
        )));
    }
    Ok((written, declared))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declared_compressed_size_is_bounded_by_the_archive() {
        // A stored 64-byte member whose headers claim 4 GiB compressed and
        // uncompressed (made with Python's zipfile, sizes patched by hand).
        // Trusting the compressed size let the 200x ratio pass and reserved 4 GiB.
        let mut zip = b"PK\x03\x04".to_vec();
        zip.extend_from_slice(include_bytes!(
            "../tests/fuzz-regressions/container/declared-size-over-archive.bin"
        ));
        match extract_etl(&zip, ZipLimits::default()) {
            Err(Error::Container(m)) => assert!(m.contains("over the limit of 1048576"), "{m}"),
            other => panic!("expected a limit error, got {:?}", other.map(|r| r.0)),
        }
    }

    fn bomb(file: &[u8]) -> String {
        let mut zip = b"PK\x03\x04".to_vec();
        zip.extend_from_slice(file);
        match extract_etl(&zip, ZipLimits::default()) {
            Err(Error::Container(m)) => m,
            other => panic!("expected a zip bomb error, got {:?}", other.map(|r| r.0)),
        }
    }

    #[test]
    fn zip_bombs_are_refused() {
        // 8 MiB of zeros deflated to 8 KiB (Python zipfile, level 9): a 1000x
        // ratio, refused from the declared size before inflating anything.
        let m = bomb(include_bytes!(
            "../tests/fuzz-regressions/container/zip-bomb-8mib-zeros.bin"
        ));
        assert!(m.contains("over the limit"), "{m}");
        // The same archive declaring 100 bytes: inflating stops there (the zip
        // crate checks the declared size; our cap would stop it next).
        let m = bomb(include_bytes!(
            "../tests/fuzz-regressions/container/zip-bomb-declares-100-bytes.bin"
        ));
        assert!(m.contains("declared") || m.contains("limit"), "{m}");
    }
}
