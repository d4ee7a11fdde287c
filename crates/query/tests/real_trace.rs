//! The engine on a real trace: `perfview-net452-x64.etl` (recorded by
//! PerfView on Windows). Expected values come from outside the engine: a
//! plain loop over the model's samples, the independent model reference
//! (`tests/reference/model_reference.py`, whose output is the constants of
//! `crates/model/tests/expected/perfview_net452.rs`, included below) and
//! PerfView's published baseline of this trace (net.4.5.2.x64.baseline.txt).

use query::{Column, Engine, Filters, SortBy, TableRequest, ValueColumn, STACK_SELF};
use std::collections::BTreeMap;
use std::sync::Arc;

#[allow(dead_code)]
#[path = "../../model/tests/expected/perfview_net452.rs"]
mod reference;

#[path = "../../model/tests/expected/perfview_managed.rs"]
mod managed;

fn engine() -> Option<Engine> {
    let path = testdata::real_traces_dir()?.join("perfview-net452-x64.etl");
    let file = etl::EtlFile::open(&path).unwrap();
    Some(Engine::new(Arc::new(model::build(&file))))
}

fn req(columns: &[Column], path: &[u32]) -> TableRequest {
    TableRequest {
        columns: columns.to_vec(),
        filters: Filters::default(),
        path: path.to_vec(),
        sort: SortBy {
            column: ValueColumn::Count,
            descending: true,
        },
        limit: 0,
    }
}

#[test]
fn per_process_counts_match_a_plain_loop_and_the_reference() {
    let Some(e) = engine() else { return };
    let t = e.trace();
    let resp = e.table(&req(&[Column::Process], &[])).unwrap();
    let got: BTreeMap<String, u64> = resp
        .rows
        .iter()
        .map(|r| (r.label.clone(), r.count))
        .collect();

    // Independent count: one plain loop over the model's samples.
    let mut expect: BTreeMap<String, u64> = BTreeMap::new();
    for i in 0..t.samples.len() {
        let p = t.threads.process[t.samples.thread(i) as usize];
        *expect.entry(t.process_label(p)).or_default() += 1;
    }
    assert_eq!(got, expect);

    // The reference's samples per process (79,528 samples; Test.x64.exe
    // (3676) 5,129; Idle (0) 73,313).
    assert_eq!(resp.parent.count, reference::SAMPLES as u64);
    let want: BTreeMap<String, u64> = reference::PER_PROCESS
        .iter()
        .map(|&(p, n)| (p.to_string(), n))
        .collect();
    assert_eq!(got, want);
    eprintln!(
        "{} processes, top: {:?}",
        got.len(),
        &resp.rows[..3.min(resp.rows.len())]
    );
}

#[test]
fn busiest_stack_path_adds_up_to_a_leaf() {
    let Some(e) = engine() else { return };
    let cols = [Column::Process, Column::Stack];
    let mut path = Vec::new();
    let mut resp = e.table(&req(&cols, &path)).unwrap();
    let mut depth = 0;
    loop {
        let sum: u64 = resp.rows.iter().map(|r| r.count).sum();
        let wsum: i64 = resp.rows.iter().map(|r| r.weight_ns).sum();
        if resp.rows.is_empty() {
            break;
        }
        assert_eq!(sum, resp.parent.count, "children add up at depth {depth}");
        assert_eq!(wsum, resp.parent.weight_ns);
        // Follow the busiest row that goes deeper.
        let Some(next) = resp
            .rows
            .iter()
            .find(|r| r.expandable && r.key != STACK_SELF)
        else {
            break;
        };
        eprintln!("{:>6} {}{}", next.count, "  ".repeat(depth), next.label);
        path.push(next.key);
        let child = e.table(&req(&cols, &path)).unwrap();
        assert_eq!(
            child.parent.count, next.count,
            "a row's count is its children's parent"
        );
        resp = child;
        depth += 1;
    }
    assert!(
        depth >= 5,
        "the busiest path reaches a leaf {depth} levels down"
    );
    // At the leaf, the samples ending there are the whole node.
    let leaf_total = resp.parent.count;
    assert!(leaf_total > 0);
}

/// File I/O creates per path, Size sums, and the Stack drill, against a
/// plain loop over the model's file I/O rows.
#[test]
fn file_io_row_table_groups_like_a_plain_loop() {
    use query::{RowFilter, RowTableKind, RowTableRequest, NO_STACK};
    let Some(e) = engine() else { return };
    let t = e.trace();
    let rt = e.row_table(RowTableKind::FileIo);
    let col = |n: &str| rt.columns.iter().position(|c| *c == n).unwrap();
    let create = rt.keys_of_label(col("Type"), "Create");
    let r = rt
        .query(&RowTableRequest {
            columns: vec![col("File Path")],
            filters: vec![RowFilter {
                column: col("Type"),
                values: create.clone(),
                exclude: false,
            }],
            ..RowTableRequest::default()
        })
        .unwrap();
    let f = &t.file_io;
    let mut want: BTreeMap<String, (u64, i64)> = BTreeMap::new();
    for i in 0..f.len() {
        if f.op[i] == model::io::FileOp::Create {
            let e = want
                .entry(t.strings.get(f.path[i]).to_string())
                .or_default();
            e.0 += 1;
            e.1 += f.size[i] as i64;
        }
    }
    let got: BTreeMap<String, (u64, i64)> = r
        .rows
        .iter()
        .map(|r| (r.label.clone(), (r.count, r.sums[0])))
        .collect();
    assert_eq!(got, want);
    // PerfView's baseline of this trace, line 562:
    // `COUNT Microsoft-Windows-Kernel-File/Create:562`.
    assert_eq!(r.total.count, 562);

    // Stack level 1: rows with no stack are `n/a`; the rest split by outermost frame.
    let r = rt
        .query(&RowTableRequest {
            columns: vec![col("Stack")],
            ..RowTableRequest::default()
        })
        .unwrap();
    let no_stack = f.stack.iter().filter(|&&s| s == model::NONE).count() as u64;
    let na = r
        .rows
        .iter()
        .find(|r| r.key == NO_STACK)
        .map_or(0, |r| r.count);
    assert_eq!(na, no_stack);
    assert_eq!(r.rows.iter().map(|r| r.count).sum::<u64>(), f.len() as u64);
    assert_eq!(rt.next_column(&[col("Stack")], &[]), Some("Stack"));
}

/// A minimum stack depth of 2 leaves the samples whose stack row is at
/// least two frames deep (plain loop over the model's samples): every
/// sample without a stack walk (its IP alone is its stack) and the few
/// walks of one frame are out.
#[test]
fn min_stack_depth_leaves_samples_with_stack() {
    use query::FlameRequest;
    let Some(e) = engine() else { return };
    let filters = Filters {
        min_stack_depth: 2,
        ..Filters::default()
    };
    let mut r = req(&[Column::Process], &[]);
    r.filters = filters.clone();
    let t = e.table(&r).unwrap();
    let g = e
        .flame(&FlameRequest {
            filters,
            min_fraction: 0.0,
            ..FlameRequest::default()
        })
        .unwrap();
    let tr = e.trace();
    let deep = tr
        .samples
        .stack
        .iter()
        .filter(|&&s| tr.stacks.depth.get(s as usize).is_some_and(|&d| d >= 2))
        .count() as u64;
    assert_eq!(t.total.count, deep);
    assert_eq!(g.total.count, deep);
    // The reference counts the same samples from the bytes: 6,215 of the
    // 6,318 with a stack walk.
    assert_eq!(deep, reference::SAMPLES_WITH_TWO_OR_MORE_FRAMES);
    assert_eq!(tr.info.samples_with_stack, reference::SAMPLES_WITH_STACK);
}

/// Generic Events carry a Fields column with each event's decoded payload:
/// on perfview-primitive-types.etl the TraceLogging event PrimitiveTypesTest
/// shows the values its source wrote (PerfView's sample program: Mercury,
/// -51, 102 ...; the same values crates/etl/tests/decode_real.rs checks).
#[test]
fn generic_events_show_their_fields() {
    use query::{RowFilter, RowTableKind, RowTableRequest};
    let Some(dir) = testdata::real_traces_dir() else {
        return;
    };
    let file = etl::EtlFile::open(&dir.join("perfview-primitive-types.etl")).unwrap();
    let e = Engine::new(Arc::new(model::build(&file)));
    let rt = e.row_table(RowTableKind::Generic);
    let col = |n: &str| rt.columns.iter().position(|c| *c == n).unwrap();
    let name = rt.keys_of_label(col("Event Name"), "PrimitiveTypesTest");
    assert!(!name.is_empty());
    let r = rt
        .query(&RowTableRequest {
            columns: vec![col("Fields")],
            filters: vec![RowFilter {
                column: col("Event Name"),
                values: name,
                exclude: false,
            }],
            ..RowTableRequest::default()
        })
        .unwrap();
    // One event per planet; Mercury's values as decode_real.rs has them.
    let labels: Vec<&str> = r.rows.iter().map(|x| x.label.as_str()).collect();
    let mercury = labels
        .iter()
        .find(|l| l.starts_with("string_type=Mercury;"))
        .unwrap_or_else(|| panic!("no Mercury row in {labels:?}"));
    // WPA's Field 1..n: the values by position, Mercury's first.
    let by_field = rt
        .query(&RowTableRequest {
            columns: vec![col("Field 1"), col("Field 3")],
            filters: vec![RowFilter {
                column: col("Event Name"),
                values: rt.keys_of_label(col("Event Name"), "PrimitiveTypesTest"),
                exclude: false,
            }],
            ..RowTableRequest::default()
        })
        .unwrap();
    let firsts: Vec<&str> = by_field.rows.iter().map(|x| x.label.as_str()).collect();
    assert!(firsts.contains(&"Mercury"), "{firsts:?}");
    for want in [
        "boolean_type=false",
        "char_type=M",
        "int16_type=-51",
        "int32_type=-102",
        "uint16_type=51",
        "uint32_type=102",
    ] {
        assert!(mercury.contains(want), "{want} in {mercury}");
    }
}

/// WPA groups the Module column by the name it shows: this trace maps a
/// 64-bit clr.dll (Test.x64.exe) and a 32-bit one (PerfView.exe), which are
/// one "clr.dll" row, and "callers of module clr.dll" covers both (a plain
/// loop over the model's samples: stacks with a frame in a module of that
/// name).
#[test]
fn modules_of_one_name_are_one_module() {
    use query::{ButterflyRequest, ButterflyTarget, NeighborBy};
    let Some(e) = engine() else { return };
    let t = e.trace();
    let clr: Vec<u32> = (0..t.modules.len() as u32)
        .filter(|&m| t.strings.get(t.modules.name[m as usize]) == "clr.dll")
        .collect();
    assert_eq!(clr.len(), 2, "two clr.dll modules in the trace");
    let resp = e.table(&req(&[Column::Module], &[])).unwrap();
    let rows: Vec<_> = resp.rows.iter().filter(|r| r.label == "clr.dll").collect();
    assert_eq!(rows.len(), 1, "one clr.dll row");
    let with_clr = (0..t.samples.len())
        .filter(|&i| {
            t.stacks
                .frames_leaf_first(t.samples.stack[i])
                .any(|f| clr.contains(&t.frames.module[f as usize]))
        })
        .count() as u64;
    let b = e
        .butterfly(&ButterflyRequest {
            target: ButterflyTarget::Module(rows[0].key),
            by: NeighborBy::Module,
            filters: Filters::default(),
        })
        .unwrap();
    assert_eq!(b.inclusive.count, with_clr);
    assert!(
        with_clr > 5_030,
        "both processes' clr.dll samples: {with_clr}"
    );
}

/// The Stack and Function columns' labels of managed frames are the
/// reference's `module!Namespace.Class::Method` (tests/reference/managed_frames.py),
/// and their Module key is that module.
#[test]
fn managed_frames_are_labelled_with_their_module() {
    let Some(e) = engine() else { return };
    let t = e.trace();
    let keys = e.funcs();
    let mut labels: BTreeMap<String, u64> = BTreeMap::new();
    for i in 0..t.samples.len() {
        for f in t.stacks.frames_leaf_first(t.samples.stack[i]) {
            if t.frames.func[f as usize] == model::NONE {
                continue;
            }
            let key = keys.of_frame(f);
            let label = keys.label(t, key);
            let module = keys.module_of(key);
            assert_ne!(module, model::NONE, "{label}");
            let name = t.strings.get(t.modules.name[module as usize]);
            assert!(label.starts_with(&format!("{name}!")), "{label}");
            *labels.entry(label).or_default() += 1;
        }
    }
    assert_eq!(
        labels.values().sum::<u64>(),
        managed::MANAGED_FRAMES_WITH_MODULE_OVER_ALL_SAMPLES
    );
    for &(label, n) in managed::TOP_LABELS {
        assert_eq!(labels.get(label), Some(&n), "{label}");
    }
    assert_eq!(labels.len() as u64, managed::DISTINCT_LABELS);
}
