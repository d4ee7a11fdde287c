//! The build counts hex-only events (a health finding) by reading again only
//! the buffers where its own read left an event to no typed decoder: the
//! count must be the full count of `etlscope info` (`coverage`, which reads
//! every event of the file against the trace's whole registry).

use etl::decode::schema::coverage::coverage;

#[test]
fn every_real_trace_counts_what_the_full_count_does() {
    let Some(names) = testdata::real_trace_files() else {
        return;
    };
    assert!(names.len() >= 10, "{names:?}");
    let mut with_hex = 0;
    for path in &names {
        let file = etl::EtlFile::open_many(&[path.as_path()])
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let full = coverage(&file).hex_only;
        let built = model::build(&file).info.hex_only_events;
        assert_eq!(built, full, "{}", path.display());
        with_hex += usize::from(full > 0);
    }
    // The partial read is exercised, not only the empty one.
    assert!(with_hex >= 1, "no real trace has a hex-only event");
}

#[test]
fn a_kernel_only_trace_counts_none() {
    let params = synth::bench::BenchParams {
        samples: 20_000,
        ..Default::default()
    };
    let (cur, _) = synth::bench::write_bench(std::io::Cursor::new(Vec::new()), &params).unwrap();
    let file = etl::EtlFile::from_bytes(cur.into_inner()).unwrap();
    assert_eq!(coverage(&file).hex_only, 0);
    assert_eq!(model::build(&file).info.hex_only_events, 0);
}
