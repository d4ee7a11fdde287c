//! Shared helpers for the model's real-trace acceptance tests.

#![allow(dead_code)]

#[allow(unused_imports)]
pub use testdata::real_traces_dir;

/// Build the model of one real trace, or `None` when the folder is missing.
pub fn model_of(name: &str) -> Option<model::Trace> {
    let dir = real_traces_dir()?;
    let path = dir.join(name);
    assert!(path.is_file(), "{} is missing from {}", name, dir.display());
    let file = etl::EtlFile::open(&path).unwrap();
    Some(model::build(&file))
}
