//! Admission control: an ingest starts only when the memory it will need
//! fits under `--memory-budget-mb` next to the traces held and the ingests
//! already running. Otherwise least recently used traces are dropped from
//! memory first, and when that is not enough the ingest waits for a running
//! one to finish. A trace that cannot fit even alone is refused, with the
//! figures. The estimate is a fixed part plus the trace's size with
//! compressed buffers counted decompressed, samples and stack walks counted
//! by number (docs/BENCHMARKS.md, "ingest": at 80M samples the anonymous
//! peak until ready was 5.53 GB, 34.6 bytes per such event, where 3/4 of
//! the trace's 19.3 GB said 14.5 GB).

use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::Duration;

/// What any read needs besides its trace's share (tables, threads, the first buffers).
const FIXED: u64 = 64 << 20;

/// What the build keeps per sample or stack walk (their records, then the
/// sample's columns and stack parts): 5.53 GB at the peak for the 160M of
/// the 80M-sample bench trace is 34.6 bytes each, the server's own included.
const PER_PROFILE_EVENT: f64 = 36.0;

/// Memory an ingest of a trace of `expanded_bytes` (compressed buffers counted
/// at their decompressed size) whose events are `mix` is expected to need:
/// the fixed part, `PER_PROFILE_EVENT` per sample and stack walk, and 3/4
/// of the other events' bytes.
pub fn ingest_estimate(expanded_bytes: u64, mix: etl::ProfileMix) -> u64 {
    let bytes = expanded_bytes as f64;
    // Not a number (never from a probe): every byte counted as before.
    let share = if mix.byte_share.is_nan() {
        0.0
    } else {
        mix.byte_share.clamp(0.0, 1.0)
    };
    let per_byte = if mix.events_per_byte.is_nan() {
        0.0
    } else {
        mix.events_per_byte.max(0.0)
    };
    let other = bytes * (1.0 - share) * 0.75;
    let profile = bytes * per_byte * PER_PROFILE_EVENT;
    // Saturating: f64 to u64 conversion clamps.
    FIXED.saturating_add((other + profile) as u64)
}

/// The refusal for a trace that cannot fit at all.
pub fn too_big_message(need: u64, budget: u64) -> String {
    format!(
        "reading this trace needs about {} MiB, more than the server's memory budget of {} MiB (--memory-budget-mb)",
        need.div_ceil(1 << 20),
        budget >> 20
    )
}

/// Memory promised to running ingests, and a bell rung when some is returned.
#[derive(Default)]
pub struct Reservations {
    reserved: Mutex<u64>,
    freed: Condvar,
}

/// What `Reservations::admit` needs to know about the traces held.
pub trait Held {
    /// Bytes of the traces held in memory.
    fn held_bytes(&self) -> u64;
    /// Drop the least recently used trace from memory; false when none is left.
    fn evict_one(&self) -> bool;
}

impl Reservations {
    fn lock(&self) -> MutexGuard<'_, u64> {
        self.reserved.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Block until `need` bytes fit under `budget`; returns a guard that
    /// returns them on drop. `gave_up` is polled while waiting (a deleted
    /// trace stops waiting). None if it gave up.
    pub fn admit<'a>(
        &'a self,
        need: u64,
        budget: u64,
        held: &dyn Held,
        gave_up: &dyn Fn() -> bool,
    ) -> Option<Reservation<'a>> {
        let mut reserved = self.lock();
        loop {
            if gave_up() {
                return None;
            }
            let in_use = held.held_bytes().saturating_add(*reserved);
            if in_use.saturating_add(need) <= budget {
                break;
            }
            // Evicting needs the store's own lock: never hold ours meanwhile.
            drop(reserved);
            let evicted = held.evict_one();
            reserved = self.lock();
            if evicted {
                continue;
            }
            if *reserved == 0 {
                // Nothing left to drop and nobody else running: go anyway
                // (the trace fits the budget alone; `too_big_message` refused the rest).
                break;
            }
            reserved = self
                .freed
                .wait_timeout(reserved, Duration::from_millis(500))
                .map(|(g, _)| g)
                .unwrap_or_else(|p| p.into_inner().0);
        }
        *reserved = reserved.saturating_add(need);
        Some(Reservation { owner: self, need })
    }
}

impl Reservations {
    /// Reserve `need` more bytes at once, over the budget if need be.
    pub fn force(&self, need: u64) -> Reservation<'_> {
        let mut reserved = self.lock();
        *reserved = reserved.saturating_add(need);
        Reservation { owner: self, need }
    }
}

/// Memory promised to one ingest; returned on drop.
pub struct Reservation<'a> {
    owner: &'a Reservations,
    need: u64,
}

impl Drop for Reservation<'_> {
    fn drop(&mut self) {
        let mut reserved = self.owner.lock();
        *reserved = reserved.saturating_sub(self.need);
        self.owner.freed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    struct Fake {
        held: Cell<u64>,
    }
    impl Held for Fake {
        fn held_bytes(&self) -> u64 {
            self.held.get()
        }
        fn evict_one(&self) -> bool {
            let had = self.held.get() > 0;
            self.held.set(0);
            had
        }
    }

    #[test]
    fn evicts_then_admits() {
        let r = Reservations::default();
        let held = Fake {
            held: Cell::new(80),
        };
        let a = r.admit(50, 100, &held, &|| false).unwrap();
        assert_eq!(
            held.held.get(),
            0,
            "the held trace was dropped to make room"
        );
        // Nothing to evict, one running: a second that does not fit gives up when told.
        assert!(r.admit(60, 100, &held, &|| true).is_none());
        drop(a);
        assert!(r.admit(60, 100, &held, &|| false).is_some());
    }

    #[test]
    fn messages_name_the_figures() {
        let m = too_big_message(300 << 20, 256 << 20);
        assert!(m.contains("300 MiB") && m.contains("256 MiB"), "{m}");
    }

    #[test]
    fn samples_and_stack_walks_count_by_number_the_rest_by_bytes() {
        let none = etl::ProfileMix::default();
        assert_eq!(ingest_estimate(400 << 20, none), FIXED + (300 << 20));
        // The 80M bench trace: 160M such events in 19.3 GB, 97% of its bytes.
        let bench = etl::ProfileMix {
            events_per_byte: 160e6 / 19.3e9,
            byte_share: 0.97,
        };
        let need = ingest_estimate(19_300_000_000, bench);
        let want = FIXED as f64 + 160e6 * PER_PROFILE_EVENT + 19.3e9 * 0.03 * 0.75;
        assert!((need as f64 - want).abs() < 1e3, "{need} vs {want}");
        // Nonsense from a damaged head is bounded, not wrapped.
        let wild = etl::ProfileMix {
            events_per_byte: f64::INFINITY,
            byte_share: f64::NAN,
        };
        assert_eq!(ingest_estimate(u64::MAX, wild), u64::MAX);
    }
}
