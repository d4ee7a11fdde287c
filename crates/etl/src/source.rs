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
        // SAFETY: the file is opened read-only. A mapping faults if another
        // process truncates the file while it is read. The server's uploads
        // are never written again once renamed into place; a file served by
        // reference is the user's, so the server checks its size against the
        // one recorded when it was added before every read (store.rs,
        // `changed_since_added`) and refuses a changed file. What remains is a
        // truncation during the seconds of one read, which only the user's own
        // action on their own file can cause.
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
