//! The PDB entry point as the process sees it: panics inside the parser
//! crates are caught by `symbols::Pdb` (and silenced here), so the fuzzer
//! gets past them and hunts what the guard cannot stop: hangs, runaway
//! allocations, and panics that escape the guard (those still abort).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(
    init: std::panic::set_hook(Box::new(|_| {})),
    |data: &[u8]| {
        if let Ok(mut pdb) = symbols::Pdb::from_bytes(data.to_vec()) {
            let _ = pdb.function_count();
            for rva in [0u32, 0x1000, 0x1010, 0x1030, 0x1040, 0x1070, 0x10a8, 0x10f0, 0x2000, u32::MAX] {
                let _ = pdb.lookup(rva);
            }
        }
    }
);
