//! Zip containers built at test time (never committed).

#![allow(dead_code)]

use std::io::{Cursor, Write};
use std::path::Path;
use zip::write::SimpleFileOptions;
use zip::CompressionMethod;

/// A zip of (member name, bytes, deflated?) entries.
pub fn zip_of(members: &[(&str, &[u8], bool)]) -> Vec<u8> {
    let mut w = zip::ZipWriter::new(Cursor::new(Vec::new()));
    for (name, bytes, deflate) in members {
        let method = if *deflate {
            CompressionMethod::Deflated
        } else {
            CompressionMethod::Stored
        };
        let opts = SimpleFileOptions::default()
            .compression_method(method)
            .large_file(bytes.len() as u64 >= u32::MAX as u64);
        w.start_file(*name, opts).unwrap();
        w.write_all(bytes).unwrap();
    }
    w.finish().unwrap().into_inner()
}

/// A zip with one deflated member of `len` zero bytes, written in chunks so
/// the test never holds the inflated data.
pub fn zeros_zip(name: &str, len: u64) -> Vec<u8> {
    let mut w = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let opts = SimpleFileOptions::default().compression_method(CompressionMethod::Deflated);
    w.start_file(name, opts).unwrap();
    let chunk = vec![0u8; 1 << 20];
    let mut left = len;
    while left > 0 {
        let n = left.min(chunk.len() as u64) as usize;
        w.write_all(&chunk[..n]).unwrap();
        left -= n as u64;
    }
    w.finish().unwrap().into_inner()
}

/// Overwrite the 32-bit uncompressed (`compressed == false`) or compressed
/// size of every member, in its local header and central directory entry:
/// how a zip bomb lies about its sizes.
pub fn patch_sizes(zip: &mut [u8], value: u32, compressed: bool) {
    // Local header: sizes at +18 (compressed) / +22; central: +20 / +24.
    let (local, central) = if compressed { (18, 20) } else { (22, 24) };
    let mut i = 0;
    while i + 4 <= zip.len() {
        let at = match &zip[i..i + 4] {
            b"PK\x03\x04" => Some(i + local),
            b"PK\x01\x02" => Some(i + central),
            _ => None,
        };
        if let Some(at) = at {
            if at + 4 <= zip.len() {
                zip[at..at + 4].copy_from_slice(&value.to_le_bytes());
            }
        }
        i += 1;
    }
}

pub fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap()
}
