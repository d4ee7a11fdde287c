//! Every function of fixtures/symbols/fixture.pdb resolves to the name
//! llvm-pdbutil lists for it (fixture.functions.txt, derived by build.sh),
//! through a plain folder, a symstore folder and a local HTTP symbol server.

mod common;

use common::*;
use symbols::{Progress, SymbolPath, SymbolStatus, Symbolizer, SymbolizerConfig};

fn symbolizer(path: &str, cache: &std::path::Path) -> Symbolizer {
    let mut c = SymbolizerConfig::new(SymbolPath::parse(path));
    c.default_cache = cache.to_path_buf();
    Symbolizer::new(c)
}

/// Symbolize frames at start/middle/end of every fixture function and
/// check each gets its function's name.
fn assert_all_named(s: &Symbolizer) {
    let id = fixture_identity();
    let expected = expected_functions("fixture.functions.txt");
    assert_eq!(
        expected.len(),
        7,
        "fixture.functions.txt lists 7 procedures"
    );
    let probes = probes(&expected);
    let rvas: Vec<u32> = probes.iter().map(|p| p.0).collect();
    let (modules, frames, strings, rows) = model_with(&id, &rvas);
    let out = s.symbolize(&modules, &frames, &strings, &Progress::default());
    assert!(
        out.modules[0].status.is_loaded(),
        "{}",
        out.modules[0].status
    );
    assert_eq!(out.modules[0].resolved_frames as usize, frames.len());
    for ((rva, name), row) in probes.iter().zip(&rows) {
        let got = out.frames.iter().find(|(r, _)| r == row).map(|(_, f)| f);
        let got = got.unwrap_or_else(|| panic!("rva {rva:#x} unresolved"));
        assert_eq!(&got.name, name, "rva {rva:#x}");
    }
}

#[test]
fn plain_folder() {
    let cache = TempDir::new("cache");
    let folder = fixtures();
    assert_all_named(&symbolizer(folder.to_str().unwrap(), cache.path()));
}

#[test]
fn symstore_folder() {
    let store = TempDir::new("store");
    let cache = TempDir::new("cache");
    put_in_symstore(
        store.path(),
        &fixture_identity(),
        &fixtures().join("fixture.pdb"),
    );
    // The store holds nothing flat: only the symstore path can succeed.
    assert!(!store.path().join("fixture.pdb").is_file());
    assert_all_named(&symbolizer(store.path().to_str().unwrap(), cache.path()));
}

#[test]
fn http_symbol_server_then_cache() {
    let store = TempDir::new("served");
    let cache = TempDir::new("cache");
    put_in_symstore(
        store.path(),
        &fixture_identity(),
        &fixtures().join("fixture.pdb"),
    );
    let server = LocalServer::start(store.path().to_path_buf());
    let path = format!("srv*{}*{}", cache.path().display(), server.url);
    let s = symbolizer(&path, cache.path());
    assert_all_named(&s);
    let id = fixture_identity();
    assert_eq!(
        *server.requests.lock().unwrap(),
        vec![format!("/symbols/{}", id.symstore_path())]
    );
    // Downloaded into the cache in symstore layout.
    assert!(cache.path().join(id.symstore_path()).is_file());
    // A fresh symbolizer finds it in the cache: no new request.
    let s2 = symbolizer(&path, cache.path());
    assert_all_named(&s2);
    assert_eq!(server.count(), 1);
}

#[test]
fn inline_frames_and_source_lines() {
    // From fixture.dump.txt (llvm-pdbutil --symbols): fixture_loop at
    // 0001:0048 = RVA 0x1030 inlines mix_inline over code offsets
    // 0x10..0x15; fixture_nested_inline at RVA 0x1060 inlines
    // twice_mixed_inline, itself inlining mix_inline, over 0x10..0x16.
    let id = fixture_identity();
    let (modules, frames, strings, rows) = model_with(&id, &[0x1040, 0x1070, 0x1020]);
    let s = symbolizer(fixtures().to_str().unwrap(), TempDir::new("c").path());
    let out = s.symbolize(&modules, &frames, &strings, &Progress::default());
    let info = |row: u32| {
        out.frames
            .iter()
            .find(|(r, _)| *r == row)
            .unwrap()
            .1
            .clone()
    };
    let a = info(rows[0]);
    assert_eq!(a.name, "fixture_loop");
    let chain: Vec<&str> = a.inlined.iter().map(|f| f.function.as_str()).collect();
    assert_eq!(chain, ["mix_inline"]);
    assert_eq!(a.leaf_name(), "mix_inline");
    let b = info(rows[1]);
    assert_eq!(b.name, "fixture_nested_inline");
    let chain: Vec<&str> = b.inlined.iter().map(|f| f.function.as_str()).collect();
    assert_eq!(chain, ["mix_inline", "twice_mixed_inline"]);
    let c = info(rows[2]);
    assert_eq!(c.name, "fixture_add");
    assert!(c.inlined.is_empty());
    // Source file of the fixture (compiled with -ffile-compilation-dir=.).
    assert!(
        c.file.as_deref().unwrap_or("").ends_with("fixture.cpp"),
        "{:?}",
        c.file
    );
    assert!(c.line.is_some());
}

#[test]
fn wrong_guid_is_identity_mismatch() {
    // variant/fixture.pdb: same name, another GUID (fixture.identity.txt).
    let id = fixture_identity();
    let variant = expected_identity("fixture.identity.txt", "variant/fixture.pdb");
    assert_ne!(variant.guid, id.guid);
    let s = symbolizer(
        fixtures().join("variant").to_str().unwrap(),
        TempDir::new("c").path(),
    );
    let (modules, frames, strings, _) = model_with(&id, &[0x1000, 0x1020]);
    let out = s.symbolize(&modules, &frames, &strings, &Progress::default());
    assert!(out.frames.is_empty(), "frames must stay unresolved");
    match &out.modules[0].status {
        SymbolStatus::IdentityMismatch { guid, .. } => assert_eq!(*guid, variant.guid),
        other => panic!("expected identity mismatch, got {other}"),
    }
    assert_eq!(out.modules[0].status.label(), "identity mismatch");
}

#[test]
fn wrong_guid_in_symstore_slot_is_identity_mismatch() {
    // Someone put the variant PDB under the fixture's key: still refused.
    let store = TempDir::new("store");
    put_in_symstore(
        store.path(),
        &fixture_identity(),
        &fixtures().join("variant/fixture.pdb"),
    );
    let s = symbolizer(store.path().to_str().unwrap(), TempDir::new("c").path());
    let (modules, frames, strings, _) = model_with(&fixture_identity(), &[0x1000]);
    let out = s.symbolize(&modules, &frames, &strings, &Progress::default());
    assert!(out.frames.is_empty());
    assert_eq!(out.modules[0].status.label(), "identity mismatch");
}

#[test]
fn known_missing_pdb_is_not_requested_again() {
    let store = TempDir::new("empty");
    let cache = TempDir::new("cache");
    let server = LocalServer::start(store.path().to_path_buf());
    let path = format!("srv*{}*{}", cache.path().display(), server.url);
    let s = symbolizer(&path, cache.path());
    let (modules, frames, strings, _) = model_with(&fixture_identity(), &[0x1000]);
    let out = s.symbolize(&modules, &frames, &strings, &Progress::default());
    assert_eq!(out.modules[0].status, SymbolStatus::NotFound);
    // Asked for .pdb, then the CAB-compressed .pd_.
    assert_eq!(server.count(), 2);
    let out = s.symbolize(&modules, &frames, &strings, &Progress::default());
    assert_eq!(out.modules[0].status, SymbolStatus::NotFound);
    assert_eq!(server.count(), 2, "no new request for a known miss");
    // A new process (fresh symbolizer, same cache) remembers it from disk.
    let s2 = symbolizer(&path, cache.path());
    s2.symbolize(&modules, &frames, &strings, &Progress::default());
    assert_eq!(server.count(), 2, "miss persisted in the cache");
}

#[test]
fn download_failure_says_why() {
    // A port nothing listens on: bind, read the port, close.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let cache = TempDir::new("cache");
    let path = format!(
        "srv*{}*http://127.0.0.1:{port}/symbols",
        cache.path().display()
    );
    let s = symbolizer(&path, cache.path());
    let (modules, frames, strings, _) = model_with(&fixture_identity(), &[0x1000]);
    let out = s.symbolize(&modules, &frames, &strings, &Progress::default());
    let st = &out.modules[0].status;
    assert_eq!(st.label(), "download failed", "{st}");
    assert!(
        st.to_string()
            .starts_with("download failed: GET http://127.0.0.1"),
        "{st}"
    );
}

#[test]
fn compressed_pd_underscore_is_expanded() {
    // The server has only fixture.pd_ (an MSZIP CAB made with the cab crate).
    let store = TempDir::new("served");
    let cache = TempDir::new("cache");
    let id = fixture_identity();
    let dir = store.path().join(&id.name).join(id.key());
    std::fs::create_dir_all(&dir).unwrap();
    let pdb = std::fs::read(fixtures().join("fixture.pdb")).unwrap();
    let mut builder = cab::CabinetBuilder::new();
    builder
        .add_folder(cab::CompressionType::MsZip)
        .add_file("fixture.pdb");
    let file = std::fs::File::create(dir.join("fixture.pd_")).unwrap();
    let mut w = builder.build(file).unwrap();
    while let Some(mut f) = w.next_file().unwrap() {
        std::io::Write::write_all(&mut f, &pdb).unwrap();
    }
    w.finish().unwrap();
    let server = LocalServer::start(store.path().to_path_buf());
    let path = format!("srv*{}*{}", cache.path().display(), server.url);
    assert_all_named(&symbolizer(&path, cache.path()));
    assert_eq!(server.count(), 2);
    assert_eq!(
        std::fs::read(cache.path().join(id.symstore_path())).unwrap(),
        pdb
    );
}

#[test]
fn garbage_pd_underscore_is_reported() {
    let store = TempDir::new("served");
    let cache = TempDir::new("cache");
    let id = fixture_identity();
    let dir = store.path().join(&id.name).join(id.key());
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("fixture.pd_"), b"MSCF but not really a cabinet").unwrap();
    let server = LocalServer::start(store.path().to_path_buf());
    let path = format!("srv*{}*{}", cache.path().display(), server.url);
    let s = symbolizer(&path, cache.path());
    let (modules, frames, strings, _) = model_with(&id, &[0x1000]);
    let st = s
        .symbolize(&modules, &frames, &strings, &Progress::default())
        .modules[0]
        .status
        .to_string();
    assert!(
        st.starts_with("download failed: not a CAB archive (.pd_)"),
        "{st}"
    );
}

#[test]
fn pdb_reads_its_own_identity() {
    let id = fixture_identity();
    let (guid, age) = symbols::Pdb::read_identity(&fixtures().join("fixture.pdb")).unwrap();
    assert_eq!((guid, age), (id.guid, id.age));
}

#[test]
fn func_rows_group_frames_by_function() {
    let expected = expected_functions("fixture.functions.txt");
    let probes = probes(&expected);
    let rvas: Vec<u32> = probes.iter().map(|p| p.0).collect();
    let (modules, frames, strings, rows) = model_with(&fixture_identity(), &rvas);
    let s = symbolizer(fixtures().to_str().unwrap(), TempDir::new("c").path());
    let out = s.symbolize(&modules, &frames, &strings, &Progress::default());
    let funcs = out.func_rows(&frames);
    assert_eq!(funcs.len(), expected.len());
    for e in &expected {
        let f = funcs.start_rva.iter().position(|&r| r == e.rva).unwrap();
        assert_eq!(funcs.name[f], e.name);
        assert_eq!(funcs.module[f], 0);
    }
    assert_eq!(funcs.frame_func.len(), rows.len());
    for ((_, name), row) in probes.iter().zip(&rows) {
        let (_, f) = funcs.frame_func.iter().find(|(r, _)| r == row).unwrap();
        assert_eq!(&funcs.name[*f as usize], name);
    }
}

#[test]
fn report_lists_identity_and_status() {
    let id = fixture_identity();
    let (modules, frames, strings, _) = model_with(&id, &[0x1000, 0x1020, 0x5000]);
    let trace = model::Trace {
        modules,
        frames,
        strings,
        ..Default::default()
    };
    let s = symbolizer(fixtures().to_str().unwrap(), TempDir::new("c").path());
    let (reports, _) = symbols::report::module_report(&trace, &s);
    assert_eq!(reports.len(), 1);
    assert_eq!((reports[0].frames, reports[0].resolved_frames), (3, 2));
    let text = symbols::report::format_report(&reports);
    assert!(
        text.contains(&format!("fixture.pdb {}", id.key())),
        "{text}"
    );
    assert!(text.contains("2/3  loaded: "), "{text}");
    assert!(
        text.ends_with("1 modules, 1 PDBs loaded, 2 of 3 module frames named\n"),
        "{text}"
    );
}

#[test]
fn two_builds_of_one_pdb_name_download_concurrently() {
    // fixture.pdb and variant/fixture.pdb share a name; the symstore keeps
    // them apart by GUID, and each module gets its own build's names.
    let store = TempDir::new("served");
    let cache = TempDir::new("cache");
    let a = fixture_identity();
    let b = expected_identity("fixture.identity.txt", "variant/fixture.pdb");
    put_in_symstore(store.path(), &a, &fixtures().join("fixture.pdb"));
    put_in_symstore(store.path(), &b, &fixtures().join("variant/fixture.pdb"));
    let server = LocalServer::start(store.path().to_path_buf());
    let s = symbolizer(
        &format!("srv*{}*{}", cache.path().display(), server.url),
        cache.path(),
    );
    let (mut modules, mut frames, mut strings, _) = model_with(&a, &[0x1020]);
    let name = strings.intern("variant.dll");
    let m = modules.push(name, name, 0x3000, 0, 0);
    modules.pdb_guid[m as usize] = Some(b.guid);
    modules.pdb_age[m as usize] = b.age;
    modules.pdb_name[m as usize] = strings.intern(&b.name);
    let row_b = frames.intern_module_frame(m, 0x1020);
    let out = s.symbolize(&modules, &frames, &strings, &Progress::default());
    assert!(out.modules.iter().all(|st| st.status.is_loaded()));
    assert_eq!(out.frames.len(), 2);
    assert_eq!(
        out.frames.iter().find(|(r, _)| *r == row_b).unwrap().1.name,
        "fixture_add"
    );
    assert_eq!(server.count(), 2);
}
