//! `Engine::inclusive_by_module` (every module's inclusive count in one
//! walk) against the butterfly of each module, which counts the same
//! samples one module at a time, on random traces, with and without a
//! process filter.

use query::synthetic::{self, Shape};
use query::*;
use std::sync::Arc;

#[test]
fn every_modules_inclusive_count_equals_its_butterfly() {
    for seed in 1..5u64 {
        let shape = Shape {
            samples: 3000,
            stacks: 300,
            threads: 20,
            processes: 6,
            modules: 8,
            frames_per_module: 12,
            cpus: 4,
            symbolized: 0.5,
            two_intervals: seed % 2 == 0,
            seed,
        };
        let e = Engine::new(Arc::new(synthetic::trace(&shape)));
        let procs = e
            .table(&TableRequest {
                columns: vec![Column::Process],
                limit: 0,
                ..TableRequest::default()
            })
            .unwrap();
        let mut filters = vec![Filters::default()];
        for r in procs.rows.iter().take(3) {
            filters.push(Filters {
                columns: vec![ColumnFilter {
                    column: Column::Process,
                    values: vec![r.key],
                    exclude: false,
                }],
                ..Filters::default()
            });
        }
        let modules = e
            .table(&TableRequest {
                columns: vec![Column::Module],
                limit: 0,
                ..TableRequest::default()
            })
            .unwrap();
        for f in &filters {
            let all = e.inclusive_by_module(f).unwrap();
            for m in &modules.rows {
                let b = e
                    .butterfly(&ButterflyRequest {
                        target: ButterflyTarget::Module(m.key),
                        by: NeighborBy::Module,
                        filters: f.clone(),
                    })
                    .unwrap();
                assert_eq!(
                    all.get(m.key as usize).copied().unwrap_or(0),
                    b.inclusive.count,
                    "seed {seed}, module {} ({}), filters {f:?}",
                    m.label,
                    m.key
                );
            }
        }
    }
}
