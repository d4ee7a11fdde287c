//! Zip bombs are refused with a clear error and bounded memory. A counting
//! global allocator measures the peak heap of each open; the tests share one
//! lock so their peaks do not mix. The bombs are built at test time.

mod common;

use common::zips::{patch_sizes, zeros_zip};
use common::TempDir;
use etl::container::{extract_etl, ZipLimits};
use etl::{Error, EtlFile};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::Mutex;

struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static SERIAL: Mutex<()> = Mutex::new(());

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            let now = CURRENT.fetch_add(l.size(), Relaxed) + l.size();
            PEAK.fetch_max(now, Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) };
        CURRENT.fetch_sub(l.size(), Relaxed);
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Run `f` and return its result with the heap growth at its peak.
fn peak_heap<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let base = CURRENT.load(Relaxed);
    PEAK.store(base, Relaxed);
    let r = f();
    (r, PEAK.load(Relaxed).saturating_sub(base))
}

fn refused(r: Result<EtlFile, Error>) -> String {
    match r {
        Ok(_) => panic!("a zip bomb was accepted"),
        Err(Error::Container(m)) => {
            eprintln!("refused: {m}");
            m
        }
        Err(e) => panic!("expected a container error, got {e}"),
    }
}

const MIB: usize = 1 << 20;

/// Built once: deflating in an unoptimised test build is slow.
fn bomb() -> Vec<u8> {
    static BOMB: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    BOMB.get_or_init(|| zeros_zip("bomb.etl", 64 << 20)).clone()
}

/// 64 MiB of zeros deflate to about 64 KiB (ratio ~1000, over the limit of
/// 200) and the member says so honestly: refused from the declared size,
/// before inflating anything.
#[test]
fn bomb_with_honest_sizes_is_refused_before_inflating() {
    let _g = SERIAL.lock().unwrap();
    let zip = bomb();
    assert!(zip.len() < MIB, "the bomb is small: {} bytes", zip.len());
    let tmp = TempDir::new("bomb-honest");
    let path = tmp.write("bomb.etl.zip", &zip);
    let (r, peak) = peak_heap(|| EtlFile::open(&path));
    let m = refused(r);
    assert!(m.contains("bomb.etl") && m.contains("limit"), "{m}");
    assert!(peak < 4 * MIB, "peak heap {peak} bytes");
}

/// The same bomb claiming to inflate to 1 MiB: inflation stops one byte past
/// what the archive may yield, so memory stays bounded by the limit.
#[test]
fn bomb_lying_about_its_size_is_refused_with_bounded_memory() {
    let _g = SERIAL.lock().unwrap();
    let mut zip = bomb();
    patch_sizes(&mut zip, MIB as u32, false);
    let limit = (zip.len() * 200).max(MIB);
    let (r, peak) = peak_heap(|| EtlFile::from_bytes(zip.clone()));
    let m = refused(r);
    assert!(m.contains("bomb.etl"), "{m}");
    // The input copy, plus at most the limit (and Vec growth slack).
    assert!(
        peak < zip.len() + 3 * limit,
        "peak heap {peak} bytes, limit {limit}"
    );
}

/// A member declaring a 4 GiB .etl (far over the ratio limit) is refused
/// without allocating for the declared size.
#[test]
fn bomb_declaring_gigabytes_is_refused_without_allocating_them() {
    let _g = SERIAL.lock().unwrap();
    let mut zip = zeros_zip("bomb.etl", MIB as u64);
    patch_sizes(&mut zip, 0xFFFF_FFF0, false);
    let (r, peak) = peak_heap(|| EtlFile::from_bytes(zip.clone()));
    let m = refused(r);
    assert!(m.contains("limit"), "{m}");
    assert!(peak < 4 * MIB, "peak heap {peak} bytes");
}

/// A member lying that its compressed data is 2 GiB long must not raise the
/// ratio limit: the ratio is taken against bytes that exist in the archive.
#[test]
fn lying_compressed_size_does_not_raise_the_limit() {
    let _g = SERIAL.lock().unwrap();
    let mut zip = zeros_zip("bomb.etl", 8 * MIB as u64);
    patch_sizes(&mut zip, 0x7FFF_FFFF, true);
    let (r, peak) = peak_heap(|| EtlFile::from_bytes(zip.clone()));
    let m = refused(r);
    assert!(m.contains("limit"), "{m}");
    assert!(peak < 4 * MIB, "peak heap {peak} bytes");
}

/// The absolute limit applies to honest, well-compressed archives too.
#[test]
fn absolute_limit_is_enforced() {
    let _g = SERIAL.lock().unwrap();
    let zip = zeros_zip("big.etl", 2 * MIB as u64);
    let limits = ZipLimits {
        max_uncompressed: MIB as u64,
        max_ratio: u64::MAX,
    };
    let Err(Error::Container(m)) = extract_etl(&zip, limits) else {
        panic!("over the absolute limit was accepted");
    };
    assert!(m.contains("limit"), "{m}");
}
