//! `CppCon.pdb` (real MSVC output, 32-bit x86) from the shared symbols
//! folder: every function llvm-pdbutil lists (fixtures/symbols/
//! cppcon.functions.txt, derived by build.sh from `llvm-pdbutil dump
//! --section-headers --symbols`) resolves to its name at its first,
//! middle and last byte.

mod common;

use common::*;
use std::collections::HashMap;
use std::path::PathBuf;
use symbols::Pdb;

fn shared_symbols() -> Option<PathBuf> {
    let dir = testdata::shared_symbols_dir()?;
    if dir.join("CppCon.pdb").is_file() {
        return Some(dir);
    }
    testdata::skip(&format!("CppCon.pdb not found in {}", dir.display()));
    None
}

#[test]
fn cppcon_identity() {
    let Some(dir) = shared_symbols() else { return };
    let id = expected_identity("cppcon.identity.txt", "CppCon.pdb");
    let pdb = Pdb::open(&dir.join("CppCon.pdb")).unwrap();
    assert_eq!(pdb.guid(), id.guid);
    // llvm-pdbutil's summary prints the PDB info stream's age.
    assert!(pdb.matches(id.guid, id.age));
}

#[test]
fn cppcon_functions_resolve() {
    let Some(dir) = shared_symbols() else { return };
    let expected = expected_functions("cppcon.functions.txt");
    assert_eq!(
        expected.len(),
        88,
        "procedures + thunks listed by llvm-pdbutil"
    );
    // COMDAT folding puts several functions at one address: any of them is right.
    let mut names_at: HashMap<u32, Vec<&str>> = HashMap::new();
    for f in &expected {
        names_at.entry(f.rva).or_default().push(&f.name);
    }
    let mut pdb = Pdb::open(&dir.join("CppCon.pdb")).unwrap();
    let mut failures = Vec::new();
    for f in &expected {
        let last = f.rva + f.size.max(1) - 1;
        for rva in [f.rva, f.rva + f.size / 2, last] {
            // Folded functions share their bytes: any name of the group is right.
            let ok_names = &names_at[&f.rva];
            match pdb.lookup(rva) {
                Some(info) if ok_names.contains(&info.name.as_str()) => {}
                other => failures.push(format!(
                    "{rva:#x} ({} {}): got {:?}",
                    f.kind,
                    f.name,
                    other.map(|i| i.name)
                )),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} wrong:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
