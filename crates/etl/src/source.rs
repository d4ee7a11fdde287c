//! The bytes of a trace: a memory-mapped file, or bytes extracted from a container.

use std::fs::File;
use std::path::Path;

pub enum Source {
    Mapped(memmap2::Mmap),
    Owned(Vec<u8>),
}

impl Source {
    pub fn map(path: &Path) -> std::io::Result<Source> {
        let file = File::open(path)?;
        let len = file.metadata()?.len();
        if len == 0 {
            return Ok(Source::Owned(Vec::new()));
        }
        // SAFETY: the file is opened read-only; like every mmap user we accept
        // that a concurrent writer truncating it could fault. Traces are
        // immutable once written (uploads are renamed into place).
        let map = unsafe { memmap2::Mmap::map(&file)? };
        Ok(Source::Mapped(map))
    }

    pub fn bytes(&self) -> &[u8] {
        match self {
            Source::Mapped(m) => m,
            Source::Owned(v) => v,
        }
    }
}
