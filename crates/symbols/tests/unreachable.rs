//! A symbol server that accepts connections and never answers costs one
//! timeout and one message for the whole run, not one per module; later
//! modules are not asked at all. Also: a cancelled run looks nothing up.

mod common;

use common::*;
use model::frames::FrameTable;
use model::images::ModuleTable;
use model::strings::StringTable;
use std::time::{Duration, Instant};
use symbols::{PdbIdentity, Progress, SymbolPath, SymbolStatus, Symbolizer, SymbolizerConfig};

const MODULES: usize = 6;

/// `MODULES` modules, each with its own PDB identity and one frame.
fn model() -> (ModuleTable, FrameTable, StringTable) {
    let mut strings = StringTable::default();
    let mut modules = ModuleTable::default();
    let mut frames = FrameTable::default();
    let base = fixture_identity();
    for i in 0..MODULES {
        let name = strings.intern(&format!("m{i}.dll"));
        let path = strings.intern(&format!(r"C:\m{i}.dll"));
        let m = modules.push(name, path, 0x3000, 0, 0);
        let mut guid = base.guid;
        guid.0[15] = guid.0[15].wrapping_add(i as u8);
        modules.pdb_guid[m as usize] = Some(guid);
        modules.pdb_age[m as usize] = 1;
        modules.pdb_name[m as usize] = strings.intern(&format!("m{i}.pdb"));
        frames.intern_module_frame(m, 0x1000);
    }
    (modules, frames, strings)
}

fn symbolizer(path: &str, cache: &std::path::Path, timeout: Duration) -> Symbolizer {
    let mut c = SymbolizerConfig::new(SymbolPath::parse(path));
    c.default_cache = cache.to_path_buf();
    c.server.timeout = timeout;
    c.threads = MODULES;
    Symbolizer::new(c)
}

#[test]
fn unreachable_server_is_one_message_after_one_timeout() {
    // Accepts (the kernel completes the handshake) but never reads or answers.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let cache = TempDir::new("cache");
    let url = format!("http://127.0.0.1:{port}/symbols");
    let timeout = Duration::from_millis(800);
    let s = symbolizer(
        &format!("srv*{}*{url}", cache.path().display()),
        cache.path(),
        timeout,
    );
    let (modules, frames, strings) = model();
    let started = Instant::now();
    let out = s.symbolize(&modules, &frames, &strings, &Progress::default());
    let took = started.elapsed();
    drop(listener);

    assert_eq!(
        s.http_requests(),
        1,
        "only the first module asks the server"
    );
    assert_eq!(out.modules.len(), MODULES);
    for m in &out.modules {
        assert_eq!(m.status.label(), "download failed", "{:?}", m.status);
    }
    assert_eq!(out.warnings.len(), 1, "{:?}", out.warnings);
    assert!(out.warnings[0].contains(&url), "{}", out.warnings[0]);
    // One timeout; six in a row would be 4.8 s.
    assert!(took >= timeout, "{took:?}");
    assert!(took < timeout * 3, "{took:?}");
    let places = s.search_places(None);
    assert_eq!(
        places,
        vec![
            format!("cache {}", cache.path().display()),
            format!("{url} (unreachable)")
        ]
    );
}

#[test]
fn a_server_that_answers_is_asked_for_every_module() {
    let store = TempDir::new("empty");
    let cache = TempDir::new("cache");
    let server = LocalServer::start(store.path().to_path_buf());
    let s = symbolizer(
        &format!("srv*{}*{}", cache.path().display(), server.url),
        cache.path(),
        Duration::from_secs(5),
    );
    let (modules, frames, strings) = model();
    let out = s.symbolize(&modules, &frames, &strings, &Progress::default());
    assert!(out.warnings.is_empty(), "{:?}", out.warnings);
    // .pdb and .pd_ for each module.
    assert_eq!(server.count(), 2 * MODULES);
    assert!(out
        .modules
        .iter()
        .all(|m| m.status == SymbolStatus::NotFound));
}

#[test]
fn a_cancelled_run_looks_nothing_up() {
    let store = TempDir::new("store");
    let id: PdbIdentity = fixture_identity();
    put_in_symstore(store.path(), &id, &fixtures().join("fixture.pdb"));
    let s = symbolizer(
        store.path().to_str().unwrap(),
        store.path(),
        Duration::from_secs(1),
    );
    let (modules, frames, strings, _) = model_with(&id, &[0x1000]);
    let progress = Progress::default();
    progress.cancel();
    let out = s.symbolize(&modules, &frames, &strings, &progress);
    assert_eq!(out.modules[0].status, SymbolStatus::Cancelled);
    assert!(out.frames.is_empty());
    assert_eq!(progress.finished(), vec![(0, SymbolStatus::Cancelled)]);
}
