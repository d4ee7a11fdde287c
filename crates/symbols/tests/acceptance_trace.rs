//! Issue 5 acceptance: a writer-made 64-bit trace whose process loaded
//! fixtures/symbols/fixture.dll (image rundown + DbgID_RSDS carrying the
//! fixture PDB's GUID/age from fixture.identity.txt, same timestamp as the
//! image event) and was sampled inside every fixture function. Through the
//! real path (`model::build` -> symbolizer -> `Trace::apply_names` ->
//! `query::Engine`), every frame gets the name llvm-pdbutil lists for its
//! RVA (fixture.functions.txt) via a plain folder, a symstore folder and a
//! local HTTP symbol server; a same-named PDB of another GUID names nothing
//! and the status says "identity mismatch".

mod common;

use common::*;
use query::{Column, Engine, TableRequest};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use symbols::{Progress, SymbolPath, SymbolStatus, Symbolization, Symbolizer, SymbolizerConfig};
use synth::image_samples::{write_image_samples, ImageWithPdb};

const BASE: u64 = 0x7FF8_1230_0000;

/// SizeOfImage from the DLL's PE optional header (PE32+).
fn size_of_image(dll: &[u8]) -> u64 {
    let pe = u32::from_le_bytes(dll[0x3C..0x40].try_into().unwrap()) as usize;
    let off = pe + 24 + 56;
    u64::from(u32::from_le_bytes(dll[off..off + 4].try_into().unwrap()))
}

/// Expected name of an RVA: the fixture function whose range holds it.
fn expected_name(functions: &[Expected], rva: u32) -> &str {
    functions
        .iter()
        .find(|f| rva >= f.rva && rva < f.rva + f.size.max(1))
        .map(|f| f.name.as_str())
        .unwrap_or_else(|| panic!("rva {rva:#x} is in no fixture function"))
}

/// The trace's stacks: for each probe (start, middle, last byte of every
/// function), the probe as leaf and the middle of the next function as
/// its caller. Also returns how many samples each leaf function gets.
fn stacks(functions: &[Expected]) -> (Vec<Vec<u32>>, BTreeMap<String, u64>) {
    let mut out = Vec::new();
    let mut per_leaf = BTreeMap::new();
    for (i, f) in functions.iter().enumerate() {
        let next = &functions[(i + 1) % functions.len()];
        let caller = next.rva + next.size / 2;
        for (rva, name) in probes(std::slice::from_ref(f)) {
            out.push(vec![rva, caller]);
            *per_leaf.entry(name).or_insert(0) += 1;
        }
    }
    (out, per_leaf)
}

fn trace_bytes() -> Vec<u8> {
    let dll = std::fs::read(fixtures().join("fixture.dll")).unwrap();
    let id = fixture_identity();
    let image = ImageWithPdb {
        path: r"C:\fixture\fixture.dll".into(),
        base: BASE,
        size: size_of_image(&dll),
        pdb_guid: id.guid,
        pdb_age: id.age,
        pdb_path: r"C:\build\fixture.pdb".into(),
    };
    let functions = expected_functions("fixture.functions.txt");
    write_image_samples(&image, &stacks(&functions).0).unwrap()
}

/// Build the model, name it along `path`, and index it for queries.
fn symbolized(path: &str, cache: &Path) -> (Engine, Symbolization) {
    let file = etl::EtlFile::from_bytes(trace_bytes()).unwrap();
    let mut trace = model::build(&file);
    let mut config = SymbolizerConfig::new(SymbolPath::parse(path));
    config.default_cache = cache.to_path_buf();
    let s = Symbolizer::new(config).symbolize(
        &trace.modules,
        &trace.frames,
        &trace.strings,
        &Progress::default(),
    );
    trace.apply_names(s.frames.iter().map(|(row, f)| (*row, f.name.as_str())));
    (Engine::new(Arc::new(trace)), s)
}

fn fixture_status(s: &Symbolization, e: &Engine) -> SymbolStatus {
    let t = e.trace();
    let m = (0..t.modules.len())
        .find(|&m| t.strings.get(t.modules.name[m]) == "fixture.dll")
        .expect("the trace has fixture.dll");
    s.modules[m].status.clone()
}

/// Function column: label -> sample count.
fn function_column(e: &Engine) -> BTreeMap<String, u64> {
    let req = TableRequest {
        columns: vec![Column::Function],
        ..Default::default()
    };
    e.table(&req)
        .unwrap()
        .rows
        .iter()
        .map(|r| (r.label.clone(), r.count))
        .collect()
}

fn assert_every_frame_named(e: &Engine, s: &Symbolization) {
    assert!(fixture_status(s, e).is_loaded(), "{}", fixture_status(s, e));
    let functions = expected_functions("fixture.functions.txt");
    assert_eq!(
        functions.len(),
        7,
        "fixture.functions.txt lists 7 procedures"
    );
    // Leaf functions as the query engine groups them.
    let (stacks, per_leaf) = stacks(&functions);
    let want: BTreeMap<String, u64> = per_leaf
        .iter()
        .map(|(n, c)| (format!("fixture.dll!{n}"), *c))
        .collect();
    assert_eq!(function_column(e), want);
    // Every frame of every stack, leaf and caller.
    let t = e.trace();
    assert_eq!(t.samples.len(), stacks.len());
    for (i, rvas) in stacks.iter().enumerate() {
        let labels: Vec<String> = t
            .stacks
            .frames_leaf_first(t.samples.stack[i])
            .map(|f| t.frame_label(f))
            .collect();
        let want: Vec<String> = rvas
            .iter()
            .map(|&r| format!("fixture.dll!{}", expected_name(&functions, r)))
            .collect();
        assert_eq!(labels, want, "sample {i}");
    }
}

#[test]
fn plain_folder() {
    let folder = TempDir::new("plain");
    std::fs::copy(
        fixtures().join("fixture.pdb"),
        folder.path().join("fixture.pdb"),
    )
    .unwrap();
    let cache = TempDir::new("cache");
    let (e, s) = symbolized(folder.path().to_str().unwrap(), cache.path());
    assert_every_frame_named(&e, &s);
}

#[test]
fn symstore_folder() {
    let store = TempDir::new("store");
    put_in_symstore(
        store.path(),
        &fixture_identity(),
        &fixtures().join("fixture.pdb"),
    );
    // Nothing flat: fixture.pdb here is the symstore directory.
    assert!(!store.path().join("fixture.pdb").is_file());
    let cache = TempDir::new("cache");
    let (e, s) = symbolized(store.path().to_str().unwrap(), cache.path());
    assert_every_frame_named(&e, &s);
}

#[test]
fn local_http_symbol_server() {
    let served = TempDir::new("served");
    put_in_symstore(
        served.path(),
        &fixture_identity(),
        &fixtures().join("fixture.pdb"),
    );
    let server = LocalServer::start(served.path().to_path_buf());
    let cache = TempDir::new("cache");
    let path = format!("srv*{}*{}", cache.path().display(), server.url);
    let (e, s) = symbolized(&path, cache.path());
    assert_every_frame_named(&e, &s);
    assert_eq!(
        *server.requests.lock().unwrap(),
        vec![format!("/symbols/{}", fixture_identity().symstore_path())]
    );
}

#[test]
fn wrong_guid_pdb_names_nothing() {
    let folder = TempDir::new("wrong");
    // variant/fixture.pdb: same name, another GUID (fixture.identity.txt).
    std::fs::copy(
        fixtures().join("variant/fixture.pdb"),
        folder.path().join("fixture.pdb"),
    )
    .unwrap();
    let cache = TempDir::new("cache");
    let (e, s) = symbolized(folder.path().to_str().unwrap(), cache.path());
    let status = fixture_status(&s, &e);
    assert_eq!(status.label(), "identity mismatch", "{status}");
    assert!(
        status.to_string().starts_with("identity mismatch: "),
        "{status}"
    );
    assert!(s.frames.is_empty());
    let functions = expected_functions("fixture.functions.txt");
    let samples = stacks(&functions).0.len() as u64;
    let want: BTreeMap<String, u64> = [("fixture.dll!?".to_string(), samples)].into();
    assert_eq!(function_column(&e), want);
}
