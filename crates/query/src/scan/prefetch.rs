//! A hint to start loading a cache line that a loop will soon write: the
//! per-key records of a level with many keys are read in random order, one
//! cache miss per row, and asking a few rows ahead overlaps those misses.

/// Rows ahead of the current one whose record is asked for.
pub(crate) const AHEAD: usize = 16;

/// Asks the CPU to load `value`'s cache line (a hint: never faults, and
/// does nothing on targets without one).
#[inline(always)]
pub(crate) fn prefetch<T>(value: &T) {
    // SAFETY: every x86_64 CPU has SSE, and a prefetch only hints: it
    // reads nothing the program sees and never faults.
    #[cfg(target_arch = "x86_64")]
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
            (value as *const T).cast(),
        );
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}
