#![no_main]
//! Fuzz target `container`: see `fuzz_harness::container` for what it exercises.

#[path = "../../crates/etl/tests/fuzz_harness/mod.rs"]
mod fuzz_harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_harness::container(data));
