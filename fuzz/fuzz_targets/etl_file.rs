#![no_main]
//! Fuzz target `etl_file`: see `fuzz_harness::etl_file` for what it exercises.

#[path = "../../crates/etl/tests/fuzz_harness/mod.rs"]
mod fuzz_harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_harness::etl_file(data));
