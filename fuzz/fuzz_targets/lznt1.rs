#![no_main]
//! Fuzz target `lznt1`: see `fuzz_harness::lznt1` for what it exercises.

#[path = "../../crates/etl/tests/fuzz_harness/mod.rs"]
mod fuzz_harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_harness::lznt1(data));
