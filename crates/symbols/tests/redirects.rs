//! Symbol-server redirects (issue 31): at most three are followed, and one
//! to another server of the symbol path is (the server test
//! `http_symbol_redirects.rs` covers the refused ones and the report).

mod common;

use common::*;
use std::io::Write;
use std::net::TcpListener;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use symbols::{
    Fetched, Progress, ServerConfig, SymbolPath, SymbolServer, Symbolizer, SymbolizerConfig,
};

/// A server on 127.0.0.1 answering every request with a 302 to
/// `to(path, own port)`; returns its port and a request count.
fn redirecting(to: impl Fn(&str, u16) -> String + Send + 'static) -> (u16, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let hits = Arc::new(AtomicUsize::new(0));
    let count = hits.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let Some(path) = request_path(&stream) else {
                continue;
            };
            count.fetch_add(1, Ordering::SeqCst);
            let head = format!(
                "HTTP/1.1 302 Found\r\nLocation: {}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                to(&path, port)
            );
            let _ = stream.write_all(head.as_bytes());
        }
    });
    (port, hits)
}

#[test]
fn a_redirect_loop_stops_after_three_hops() {
    let (port, hits) = redirecting(|path, _| path.to_string());
    let server = SymbolServer::new(
        &format!("http://127.0.0.1:{port}/symbols"),
        ServerConfig::default(),
    );
    let cache = TempDir::new("redirect-loop");
    let got = server.fetch(&fixture_identity(), cache.path());
    let Fetched::Failed(why) = got else {
        panic!("{got:?}")
    };
    assert!(why.contains("more than 3 redirects"), "{why}");
    assert_eq!(hits.load(Ordering::SeqCst), 4, "the request and three hops");
    let refused = server.refused_redirect().unwrap_or_default();
    assert!(refused.contains("more than 3 redirects"), "{refused}");
}

#[test]
fn a_redirect_to_another_server_on_the_symbol_path_is_followed() {
    let id = fixture_identity();
    let store = TempDir::new("redirect-store");
    put_in_symstore(store.path(), &id, &fixtures().join("fixture.pdb"));
    let real = LocalServer::start(store.path().to_path_buf());
    let real_url = real.url.clone();
    let (front, front_hits) =
        redirecting(move |path, _| format!("{real_url}/{}", path.trim_start_matches("/symbols/")));
    let (c1, c2) = (TempDir::new("redirect-c1"), TempDir::new("redirect-c2"));
    let path = format!(
        "srv*{}*http://127.0.0.1:{front}/symbols;srv*{}*{}",
        c1.path().display(),
        c2.path().display(),
        real.url
    );
    let s = Symbolizer::new(SymbolizerConfig::new(SymbolPath::parse(&path)));
    let (modules, frames, strings, _) = model_with(&id, &[0x1000]);
    let out = s.symbolize(&modules, &frames, &strings, &Progress::default());
    assert!(
        out.modules[0].status.is_loaded(),
        "{}",
        out.modules[0].status
    );
    assert_eq!(front_hits.load(Ordering::SeqCst), 1);
    assert_eq!(real.count(), 1, "reached through the redirect");
    assert!(out.warnings.is_empty(), "{:?}", out.warnings);
}
