#![no_main]
//! Fuzz target `buffer_events`: see `fuzz_harness::buffer_events` for what it exercises.

#[path = "../../crates/etl/tests/fuzz_harness/mod.rs"]
mod fuzz_harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_harness::buffer_events(data));
