//! Stable identities on a real trace (`perfview-net452-x64.etl`): every
//! Process, Module and Function row and every call node of the busiest
//! process's tree down to depth 6 has an identity that resolves back to
//! exactly its own row among its siblings, and the identities have the
//! documented shapes (pid@start, name@timestamp:size, module+RVA).

use query::{Column, Engine, Filters, SortBy, TableRequest, TableResponse};
use std::sync::Arc;

fn engine() -> Option<Engine> {
    let path = testdata::real_traces_dir()?.join("perfview-net452-x64.etl");
    let file = etl::EtlFile::open(&path).unwrap();
    Some(Engine::new(Arc::new(model::build(&file))))
}

fn level(e: &Engine, columns: &[Column], path: &[u32]) -> TableResponse {
    e.table(&TableRequest {
        columns: columns.to_vec(),
        filters: Filters::default(),
        path: path.to_vec(),
        sort: SortBy::default(),
        limit: 0,
    })
    .unwrap()
}

/// Each row with an identity is the only row of its level the identity names.
fn check_level(e: &Engine, r: &TableResponse) -> usize {
    let col = r.column.unwrap();
    let mut named = 0;
    for row in &r.rows {
        let Some(id) = e.stable_id(col, row.key) else {
            continue;
        };
        named += 1;
        let resolved = e.resolve_stable_id(&id).expect("parses").expect("resolves");
        let hits: Vec<u32> = r
            .rows
            .iter()
            .filter(|x| e.key_is(col, x.key, &resolved))
            .map(|x| x.key)
            .collect();
        assert_eq!(hits, vec![row.key], "{id} ({}) in {col:?}", row.label);
    }
    named
}

#[test]
fn identities_resolve_to_their_own_rows() {
    let Some(e) = engine() else { return };
    for col in [Column::Process, Column::Module, Column::Function] {
        let r = level(&e, &[col], &[]);
        let named = check_level(&e, &r);
        assert!(named > 0, "{col:?} rows have identities");
        println!("{col:?}: {named} of {} rows named", r.rows.len());
    }
    // Processes: pid:PID@START; Test.x64.exe is pid 3676, started during the trace.
    let procs = level(&e, &[Column::Process], &[]);
    let test = procs
        .rows
        .iter()
        .find(|r| r.label == "Test.x64.exe (3676)")
        .unwrap();
    let id = e.stable_id(Column::Process, test.key).unwrap();
    assert!(id.starts_with("pid:3676@"), "{id}");
    assert!(id["pid:3676@".len()..].parse::<i64>().unwrap() > 0, "{id}");
    // Modules: name@timestamp:size in hex.
    let mods = level(&e, &[Column::Module], &[]);
    let ntdll = mods.rows.iter().find(|r| r.label == "ntdll.dll").unwrap();
    let id = e.stable_id(Column::Module, ntdll.key).unwrap();
    let re_ok = id.starts_with("mod:ntdll.dll@")
        && id["mod:ntdll.dll@".len()..]
            .split(':')
            .all(|h| !h.is_empty() && h.chars().all(|c| c.is_ascii_hexdigit()));
    assert!(re_ok, "{id}");

    // The call tree under Test.x64.exe: each level's Stack rows.
    let cols = [Column::Process, Column::Stack];
    let mut frontier = vec![vec![test.key]];
    let mut nodes = 0;
    for _depth in 0..6 {
        let mut next = Vec::new();
        for path in &frontier {
            let r = level(&e, &cols, path);
            nodes += check_level(&e, &r);
            for row in r.rows.iter().filter(|x| x.expandable).take(4) {
                let mut p = path.clone();
                p.push(row.key);
                next.push(p);
            }
        }
        frontier = next;
    }
    assert!(nodes > 20, "{nodes} call nodes checked");
    println!("{nodes} call nodes resolve to themselves");
}

#[test]
fn strings_that_are_not_identities_are_labels() {
    let Some(e) = engine() else { return };
    for s in [
        "Test.x64.exe (3676)",
        "ntdll.dll!?",
        "pid:3676",
        "mod:x",
        "fn:x@1:2",
    ] {
        assert!(e.resolve_stable_id(s).is_none(), "{s}");
    }
    // Well-formed identities this trace lacks resolve to nothing (not to a wrong row).
    for s in ["pid:3676@1", "mod:ntdll.dll@0:0", "fn:ntdll.dll@0:0+10"] {
        assert_eq!(e.resolve_stable_id(s), Some(Err(())), "{s}");
    }
}
