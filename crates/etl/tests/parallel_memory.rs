//! Decompressing buffers in parallel holds at most one decompressed buffer per
//! rayon worker, however many buffers (or CPUs) the file has. Measured with a
//! counting global allocator (hence a test binary of its own).

use etl::census::Census;
use etl::EtlFile;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

struct Counting;
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let now = LIVE.fetch_add(l.size(), Relaxed) + l.size();
        PEAK.fetch_max(now, Relaxed);
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size(), Relaxed);
        unsafe { System.dealloc(p, l) }
    }
}

#[global_allocator]
static A: Counting = Counting;

const HEADER: usize = 0x48;

fn buffer_header(size: u32, saved: u32, flags: u16, cpu: u16, buffer_type: u16) -> Vec<u8> {
    let mut h = vec![0u8; HEADER];
    h[0..4].copy_from_slice(&size.to_le_bytes());
    h[4..8].copy_from_slice(&saved.to_le_bytes());
    h[0x28..0x2A].copy_from_slice(&cpu.to_le_bytes());
    h[0x34..0x36].copy_from_slice(&flags.to_le_bytes());
    h[0x36..0x38].copy_from_slice(&buffer_type.to_le_bytes());
    h
}

/// Header buffer holding one System64 event with hook 0 (empty payload).
fn header_buffer() -> Vec<u8> {
    let size = (HEADER + 0x20) as u32;
    let mut b = buffer_header(size, size, 0, 0, 4);
    let mut ev = vec![0u8; 0x20];
    ev[2] = 0x02;
    ev[3] = 0xC0;
    ev[4..6].copy_from_slice(&0x20u16.to_le_bytes());
    b.extend(ev);
    b
}

/// MS-XCA stream for `n` bytes of 'a': one literal, then one match (offset 1)
/// whose length uses the 32-bit escape: nibble 15, byte 255, u16 0, u32.
fn xca_run_of_a(n: usize) -> Vec<u8> {
    let mut s = vec![
        0xFF, 0xFF, 0xFF, 0x7F, b'a', 0x07, 0x00, 0x0F, 0xFF, 0x00, 0x00,
    ];
    s.extend_from_slice(&((n - 4) as u32).to_le_bytes());
    s
}

#[test]
fn parallel_decompression_holds_one_buffer_per_worker() {
    const BUFFERS: u16 = 64;
    const OUT: usize = 256 << 10;
    // Pad the compressed data so the 128x ratio limit accepts it.
    const RAW: usize = 4 << 10;
    let mut file = header_buffer();
    for cpu in 0..BUFFERS {
        let mut data = xca_run_of_a(OUT);
        data.resize(RAW, 0);
        let size = (HEADER + RAW) as u32;
        file.extend(buffer_header(size, (HEADER + OUT) as u32, 0x40, cpu + 1, 0));
        file.extend(data);
    }
    let f = EtlFile::from_bytes(file).unwrap();
    let before = LIVE.load(Relaxed);
    PEAK.store(before, Relaxed);
    let census = Census::of(&f);
    let extra = PEAK.load(Relaxed) - before;

    // Every buffer decompressed (its 'a's then fail as events, one error each).
    assert_eq!(census.skipped_buffers, 0);
    let file_diags = f.diagnostics().len();
    assert_eq!(census.errors.len(), usize::from(BUFFERS) + file_diags);
    let workers = rayon::current_num_threads();
    eprintln!(
        "census of {BUFFERS} x {} KiB buffers on {workers} workers: peak {} KiB above the file",
        OUT >> 10,
        extra >> 10
    );
    assert!(
        extra <= (workers + 1) * OUT + (64 << 10),
        "peak {extra} bytes for {workers} workers"
    );
}
