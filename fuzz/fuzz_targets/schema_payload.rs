#![no_main]
//! Fuzz target `schema_payload`: see `fuzz_harness::schema_payload` for what it exercises.

#[path = "../../crates/etl/tests/fuzz_harness/mod.rs"]
mod fuzz_harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_harness::schema_payload(data));
