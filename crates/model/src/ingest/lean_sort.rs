//! Sorting and freeing the build's largest record lists (a sample's stack
//! parts: one or two per sample) without a second copy of them. Rayon's
//! stable sort takes a buffer as large as the list; at 80M samples the
//! arrivals' and the parts' buffers were the build's peak (2.6 GB of 7.1).

use rayon::prelude::*;

/// A record with room (in what was padding) for its position in its list.
pub(super) trait Sequenced {
    fn set_seq(&mut self, seq: u32);
    fn seq(&self) -> u32;
}

/// `v.par_sort_by_key(key)` (stable: equal keys keep their order) without
/// its buffer: each record's position breaks ties in an in-place unstable
/// sort, which orders them as the stable sort does. A list longer than
/// `u32::MAX` takes the stable sort.
pub(super) fn sort_stable_in_place<T, K>(v: &mut [T], key: impl Fn(&T) -> K + Sync)
where
    T: Sequenced + Send,
    K: Ord,
{
    if u32::try_from(v.len()).is_err() {
        v.par_sort_by_key(key);
        return;
    }
    v.par_iter_mut()
        .enumerate()
        .for_each(|(i, r)| r.set_seq(i as u32));
    v.par_sort_unstable_by(|a, b| key(a).cmp(&key(b)).then(a.seq().cmp(&b.seq())));
}

/// Give the memory pages wholly inside `v[..upto]` back to the system: the
/// caller never reads those records again (on Linux they read as zeros,
/// which must be a valid `T`; elsewhere nothing happens). What a list read
/// once from front to back frees as it goes, instead of at its end.
pub(super) fn release_prefix<T: Copy>(v: &mut [T], upto: usize) {
    #[cfg(target_os = "linux")]
    {
        let upto = upto.min(v.len());
        // SAFETY: sysconf only reads a constant of the system.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        let Ok(page) = usize::try_from(page) else {
            return;
        };
        if page == 0 {
            return;
        }
        let start = v.as_mut_ptr() as usize;
        let end = start + upto * std::mem::size_of::<T>();
        let from = start.next_multiple_of(page);
        let to = end / page * page;
        if to > from {
            // SAFETY: [from, to) lies inside `v`'s own allocation, which the
            // exclusive borrow says nothing else reads or writes now; the
            // pages read as zeros afterwards (MADV_DONTNEED on private
            // memory), a valid `T` for the plain records passed here.
            unsafe {
                libc::madvise(from as *mut libc::c_void, to - from, libc::MADV_DONTNEED);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (v, upto);
}

/// Append `src` to `dst` (each record through `f`), giving `src`'s pages
/// back as they are copied instead of when it is dropped, so that the two
/// are not both whole at once. `dst` grows to its exact size.
pub(super) fn append_releasing<T: Copy>(dst: &mut Vec<T>, mut src: Vec<T>, f: impl Fn(T) -> T) {
    dst.reserve_exact(src.len());
    read_releasing(&mut src, |chunk| dst.extend(chunk.iter().map(|&r| f(r))));
}

/// Hand `v` to `read` front to back, a chunk at a time, giving each chunk's
/// pages back once it is read (`release_prefix`): for a list read once.
pub(super) fn read_releasing<T: Copy>(v: &mut [T], mut read: impl FnMut(&[T])) {
    let mut done = 0;
    while done < v.len() {
        let end = (done + RELEASE_EVERY).min(v.len());
        read(v.get(done..end).unwrap_or_default());
        release_prefix(v, end);
        done = end;
    }
}

/// Records copied or read between two releases of the pages behind them.
const RELEASE_EVERY: usize = 1 << 20;

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Clone, Copy, PartialEq)]
    struct R {
        key: u8,
        id: u32,
        seq: u32,
    }
    impl Sequenced for R {
        fn set_seq(&mut self, seq: u32) {
            self.seq = seq;
        }
        fn seq(&self) -> u32 {
            self.seq
        }
    }

    #[test]
    fn orders_as_the_stable_sort() {
        // Many ties, in an order the unstable sort alone would shuffle.
        let mut v: Vec<R> = (0..200_000u32)
            .map(|id| R {
                key: (id.wrapping_mul(2_654_435_761) >> 29) as u8,
                id,
                seq: 0,
            })
            .collect();
        let mut stable = v.clone();
        stable.sort_by_key(|r| r.key);
        sort_stable_in_place(&mut v, |r| r.key);
        let ids = |v: &[R]| v.iter().map(|r| (r.key, r.id)).collect::<Vec<_>>();
        assert_eq!(ids(&v), ids(&stable));
    }

    #[test]
    fn appending_while_releasing_copies_every_record() {
        let mut dst: Vec<u64> = (0..10).collect();
        let src: Vec<u64> = (10..3_000_000).collect();
        append_releasing(&mut dst, src, |r| r * 2);
        assert_eq!(dst.len(), 3_000_000);
        assert!(dst[..10].iter().copied().eq(0..10));
        assert!(dst[10..].iter().copied().eq((10..3_000_000).map(|r| r * 2)));
    }

    #[test]
    fn a_released_prefix_reads_as_zeros_and_the_rest_is_kept() {
        let mut v: Vec<u64> = (1..=1_000_000).collect();
        release_prefix(&mut v, 600_000);
        assert!(v[600_000..].iter().zip(600_001..).all(|(&a, b)| a == b));
        #[cfg(target_os = "linux")]
        assert_eq!(v[300_000], 0);
        // Past the end: only what is inside the list.
        let mut w: Vec<u64> = (1..=1_000_000).collect();
        release_prefix(&mut w, usize::MAX);
        assert_eq!(w.len(), 1_000_000);
    }
}
