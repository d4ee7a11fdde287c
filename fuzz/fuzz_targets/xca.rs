#![no_main]
//! Fuzz target `xca`: see `fuzz_harness::xca` for what it exercises.

#[path = "../../crates/etl/tests/fuzz_harness/mod.rs"]
mod fuzz_harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_harness::xca(data));
