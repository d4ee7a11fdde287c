#![no_main]
//! Fuzz target `redact`: see `fuzz_harness::redact` (crates/redact/tests)
//! for what it exercises: any bytes opened as a trace and redacted.

#[path = "../../crates/redact/tests/fuzz_harness/mod.rs"]
mod fuzz_harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = fuzz_harness::redact(data);
});
