#![no_main]
//! Fuzz target `regions`: any bytes as a WPA Regions of Interest file
//! through the parser; must end normally (no panic, hang or unbounded
//! allocation) whatever the input.

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Ok(xml) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(set) = regions::parse(xml) {
        for r in &set.regions {
            std::hint::black_box((r.is_timed(), r.path.len()));
        }
    }
});
