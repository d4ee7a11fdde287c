//! Adding local files to the library by reference (`etlscope open`,
//! `etlscope serve FILE`): the catalog keeps their absolute paths, sizes and
//! modification times, never a copy.

use crate::catalog::{MemberFile, TraceEntry};
use crate::store::{now_rfc3339, Store};
use anyhow::{bail, Context};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// The files of one trace as absolute paths, each checked to be a readable
/// trace by its header alone (no hashing: this runs before the server listens).
pub fn check_local(paths: &[PathBuf]) -> anyhow::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for p in paths {
        files.push(
            std::fs::canonicalize(p).with_context(|| format!("cannot open {}", p.display()))?,
        );
    }
    check_readable(&files)?;
    Ok(files)
}

/// Add the files of one trace (one file, or several read as one trace),
/// as `check_local` returned them, by reference. One file gets the id an
/// upload of it would get (the first 128 bits of its SHA-256); several get
/// an id from their sorted hashes, so the same files in any order are the
/// same trace. Hashing reads every byte: the server runs it next to the
/// trace's read (`Store::open_local`), not before it listens.
pub fn register_checked(store: &Store, abs: &[PathBuf]) -> anyhow::Result<TraceEntry> {
    let mut files: Vec<(PathBuf, [u8; 32], u64)> = Vec::new();
    let mut members = Vec::new();
    for p in abs {
        // Its time before the hash: a write while it is hashed moves it, so
        // the trace is then refused as changed rather than read as hashed.
        let meta = std::fs::metadata(p).with_context(|| format!("cannot open {}", p.display()))?;
        let (hash, size) = hash_file(p)?;
        files.push((p.clone(), hash, size));
        members.push(MemberFile {
            size,
            ..MemberFile::of(p, &meta)
        });
    }
    let id = match files.as_slice() {
        [(_, h, _)] => hex(&h[..16]),
        _ => {
            let mut hashes: Vec<[u8; 32]> = files.iter().map(|f| f.1).collect();
            hashes.sort_unstable();
            let mut h = Sha256::new();
            h.update(b"etlscope: one trace of several files\n");
            for x in &hashes {
                h.update(x);
            }
            hex(&h.finalize()[..16])
        }
    };
    let Some((first, _, _)) = files.first() else {
        bail!("no trace file given");
    };
    let size = files.iter().map(|f| f.2).fold(0, u64::saturating_add);
    if let Some(e) = store.catalog.get(&id)? {
        // Opened again: the same content (the same id), maybe moved or
        // touched since; its files are these now. An upload stays one.
        if store.owned_path(&e).is_some() || e.files() == members {
            return Ok(e);
        }
        let e = TraceEntry {
            file_name: first.to_string_lossy().into_owned(),
            size,
            members,
            ..e
        };
        store.catalog.set_files(&e)?;
        return Ok(e);
    }
    let name_of = |p: &Path| {
        p.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let name = match files.len() {
        1 => name_of(first),
        n => format!("{} (+{} files)", name_of(first), n - 1),
    };
    let e = TraceEntry {
        id,
        name,
        size,
        file_name: first.to_string_lossy().into_owned(),
        uploaded_at: now_rfc3339(),
        uploader: "local".into(),
        notes: String::new(),
        status: "pending".into(),
        error: String::new(),
        members,
        redacted_from: String::new(),
    };
    store.catalog.insert(&e)?;
    Ok(e)
}

/// One file must be a readable trace. Of several, an unreadable one is
/// read as a member that costs only its own events (the ingest names it),
/// as long as one of them is readable.
fn check_readable(files: &[PathBuf]) -> anyhow::Result<()> {
    let mut first_error = None;
    let mut readable = 0;
    for p in files {
        match etl::EtlFile::probe(p) {
            Ok(_) => readable += 1,
            Err(e) => {
                if files.len() > 1 {
                    eprintln!(
                        "etlscope: {} is not a readable trace ({e}); the others are read without it",
                        p.display()
                    );
                }
                first_error.get_or_insert((p.clone(), e));
            }
        }
    }
    match first_error {
        Some((p, e)) if readable == 0 => {
            Err(e).with_context(|| format!("{} is not a readable trace", p.display()))
        }
        _ => Ok(()),
    }
}

/// SHA-256 of the file, mapped rather than read: the hash runs beside the
/// trace's read on the same cores, and a `read` copies every byte once more.
fn hash_file(path: &Path) -> anyhow::Result<([u8; 32], u64)> {
    let source = etl::source::Source::map(path)
        .with_context(|| format!("cannot open {}", path.display()))?;
    let bytes = source.bytes();
    let mut h = Sha256::new();
    const CHUNK: usize = 64 << 20;
    for (i, chunk) in bytes.chunks(CHUNK).enumerate() {
        h.update(chunk);
        // Hashed pages leave the process's resident memory (the page cache
        // keeps them for the read): a trace larger than memory is not
        // resident whole twice, once for the hash and once for the read.
        source.done_with(i * CHUNK, chunk.len());
    }
    Ok((h.finalize().into(), bytes.len() as u64))
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|b| format!("{b:02x}")).collect()
}
