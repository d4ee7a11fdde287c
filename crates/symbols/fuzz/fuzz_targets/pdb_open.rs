//! The PDB entry point: load arbitrary bytes as a PDB, then look up
//! addresses. libfuzzer's panic hook aborts even on panics `Pdb` catches,
//! so this finds panics inside the parser crates as well as hangs and
//! runaway allocations.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(mut pdb) = symbols::Pdb::from_bytes(data.to_vec()) {
        let _ = pdb.function_count();
        for rva in [0u32, 0x1000, 0x1010, 0x1030, 0x1040, 0x1070, 0x10a8, 0x10f0, 0x2000, u32::MAX] {
            let _ = pdb.lookup(rva);
        }
    }
});
