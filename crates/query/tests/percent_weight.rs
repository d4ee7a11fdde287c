//! `% Weight` of CPU Usage (Sampled) is a share of the CPU time of the
//! selected range (range x CPUs), as WPA computes it: on the demo trace,
//! explorer.exe over 7-23 s keeps its share of 16 s x 4 CPUs when the table
//! is filtered to it, instead of becoming 100 %. The expected weight is
//! counted here from the model's samples, each weighing the 1 ms interval the
//! demo's writer logs (crates/synth/src/explorer.rs: CollectionStart with
//! NewInterval 10,000 x 100 ns).

use query::{Column, ColumnFilter, Engine, Filters, TableRequest, TimeRange};
use std::path::Path;
use std::sync::Arc;

#[test]
fn explorer_keeps_its_share_of_16_seconds_on_4_cpus_when_filtered_to() {
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../traces/explorer-overlay.etl");
    let file = etl::EtlFile::open(&demo).unwrap();
    let trace = model::build(&file);
    assert_eq!(trace.info.cpus, 4);
    let (lo, hi) = (7_000_000_000i64, 23_000_000_000i64);
    // Naive: explorer.exe's samples in the range, weighed by their interval.
    let s = &trace.samples;
    let explorer_weight: i64 = (0..s.len())
        .filter(|&i| s.time[i] >= lo && s.time[i] < hi)
        .filter(|&i| {
            let p = trace.threads.process[s.thread(i) as usize] as usize;
            trace.strings.get(trace.processes.name[p]) == "explorer.exe"
        })
        .count() as i64
        * 1_000_000;
    let want = explorer_weight as f64 * 100.0 / (16e9 * 4.0);

    let e = Engine::new(Arc::new(trace));
    let range = Some(TimeRange {
        start_ns: lo,
        end_ns: hi,
    });
    let all = e
        .table(&TableRequest {
            columns: vec![Column::ProcessName],
            filters: Filters {
                range,
                ..Filters::default()
            },
            limit: 0,
            ..TableRequest::default()
        })
        .unwrap();
    let explorer = all.rows.iter().find(|r| r.label == "explorer.exe").unwrap();
    assert_eq!(explorer.weight_ns, explorer_weight);
    assert!(
        (explorer.percent_weight - want).abs() < 1e-9,
        "{} vs {want}",
        explorer.percent_weight
    );
    // Filtered to explorer.exe: the same share, not 100 %.
    let only = e
        .table(&TableRequest {
            columns: vec![Column::Process],
            filters: Filters {
                range,
                columns: vec![ColumnFilter {
                    column: Column::ProcessName,
                    values: vec![explorer.key],
                    exclude: false,
                }],
                ..Filters::default()
            },
            limit: 0,
            ..TableRequest::default()
        })
        .unwrap();
    assert_eq!(only.rows.len(), 1);
    assert!(
        (only.rows[0].percent_weight - want).abs() < 1e-9,
        "{} vs {want}",
        only.rows[0].percent_weight
    );
    assert!(want > 60.0 && want < 70.0, "42.3 CPU s of 64: {want}");
}
