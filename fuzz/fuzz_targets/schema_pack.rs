#![no_main]
//! Fuzz target `schema_pack`: see `fuzz_harness::schema_pack` (schema packs
//! and instrumentation manifests: no panic, errors name a line, round trips).

#[path = "../../crates/etl/tests/fuzz_harness/mod.rs"]
mod fuzz_harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_harness::schema_pack(data));
