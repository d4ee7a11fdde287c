//! The mark of a redacted copy, so that a server run with
//! `--require-redacted` can tell the redactor's output from any other trace.
//!
//! It is written at the very end of the first buffer (in the first
//! `SEARCHED` buffers) with room after its events: bytes between a buffer's
//! used length (SavedOffset / Offset) and its BufferSize are fill that no
//! reader walks (the header buffer, which holds only the log-file header
//! event, always has kilobytes of it). No event, size or offset changes.
//! The mark says "written by etlscope redact"; it is not a signature: it
//! keeps an unredacted trace from being uploaded by mistake, not a holder of
//! the upload token who forges it on purpose.

use etl::buffer::{BufferHeader, BUFFER_HEADER_SIZE};

/// 32 bytes, written as they are.
pub const MARK: &[u8; 32] = b"etlscope redacted copy, v1\0\0\0\0\0\0";

/// Buffers looked at for room, from the first.
const SEARCHED: usize = 8;

/// The first bytes of a file that [`is_marked`] needs to see: enough for
/// `SEARCHED` buffers of the largest size ETW writes (1 MiB, plus slack).
pub const HEAD_BYTES: usize = SEARCHED * (1 << 20) + (64 << 10);

/// Where the mark goes in `bytes` (a member as written: buffers from offset
/// 0): the end of the first buffer, of the first `SEARCHED`, with room.
fn place(bytes: &[u8]) -> Option<usize> {
    let mut at = 0usize;
    for _ in 0..SEARCHED {
        let h = BufferHeader::parse(bytes.get(at..)?)?;
        let size = h.buffer_size as usize;
        if size < BUFFER_HEADER_SIZE {
            return None;
        }
        let used = h.used_bytes() as usize;
        if !h.is_compressed() && used.max(BUFFER_HEADER_SIZE) + MARK.len() <= size {
            return Some(at + size - MARK.len());
        }
        at = at.checked_add(size)?;
    }
    None
}

/// Write the mark into `bytes`; false when no buffer of the first
/// `SEARCHED` has room (the copy is still redacted, only not marked).
pub fn stamp(bytes: &mut [u8]) -> bool {
    match place(bytes).and_then(|at| bytes.get_mut(at..at + MARK.len())) {
        Some(slot) => {
            slot.copy_from_slice(MARK);
            true
        }
        None => false,
    }
}

/// Whether the file starting with `head` carries the mark where [`stamp`]
/// writes it.
pub fn is_marked(head: &[u8]) -> bool {
    place(head)
        .and_then(|at| head.get(at..at + MARK.len()))
        .is_some_and(|b| b == MARK)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn buffer(size: u32, used: u32) -> Vec<u8> {
        let mut b = vec![0xFFu8; size as usize];
        b[..BUFFER_HEADER_SIZE].fill(0);
        b[0..4].copy_from_slice(&size.to_le_bytes());
        b[4..8].copy_from_slice(&used.to_le_bytes());
        b[0x30..0x34].copy_from_slice(&used.to_le_bytes());
        b
    }

    #[test]
    fn stamped_is_marked_and_plain_is_not() {
        let mut f = buffer(4096, 600);
        f.extend(buffer(4096, 4096));
        assert!(!is_marked(&f));
        assert!(stamp(&mut f));
        assert!(is_marked(&f));
        assert_eq!(&f[4096 - 32..4096], MARK);
    }

    #[test]
    fn a_full_first_buffer_puts_it_in_the_next() {
        let mut f = buffer(512, 500);
        f.extend(buffer(4096, 100));
        assert!(stamp(&mut f));
        assert_eq!(&f[512 + 4096 - 32..], MARK);
        assert!(is_marked(&f));
    }

    #[test]
    fn garbage_and_short_input_are_not_marked() {
        assert!(!is_marked(&[]));
        assert!(!is_marked(&[0u8; 10]));
        assert!(!is_marked(&[0xFFu8; 100_000]));
        let mut f = buffer(4096, 600);
        f.truncate(2000);
        assert!(!stamp(&mut f));
        assert!(!is_marked(&f));
    }
}
