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

    /// Take the pages of `bytes()[offset..offset + len]` out of this
    /// process's resident memory: a mapped file's pages stay in the page
    /// cache and are read in again if touched; owned bytes are kept. What a
    /// reader calls behind itself, so that a trace larger than memory does
    /// not count whole in the process's resident memory.
    pub fn done_with(&self, offset: usize, len: usize) {
        #[cfg(unix)]
        if let Source::Mapped(m) = self {
            let len = len.min(m.len().saturating_sub(offset));
            if len > 0 {
                // SAFETY: a read-only mapping of a file: its pages are read
                // again from the file when touched after this, unchanged.
                let _ = unsafe {
                    m.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, offset, len)
                };
            }
        }
        #[cfg(not(unix))]
        let _ = (offset, len);
    }

    pub fn bytes(&self) -> &[u8] {
        match self {
            Source::Mapped(m) => m,
            Source::Owned(v) => v,
        }
    }
}
