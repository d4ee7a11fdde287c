//! Issue 31, point 3: a symbol server's redirects are followed only to its
//! own scheme, host and port (or another server on the symbol path). A 302
//! to another port is not followed (the listener there counts no hit) and
//! the trace's symbol report says so once; a redirect within the server
//! still fetches the PDB.

mod common;

use common::{fixture_trace, temp_dir, Server};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What a fake server answers to a request path: a status line's code and
/// reason, extra headers, and a body.
type Answer = (&'static str, Vec<(String, String)>, Vec<u8>);

/// A one-request-per-connection HTTP server on 127.0.0.1 answering with
/// `answer(path, own port)`; returns its port and a count of requests.
fn fake_server(answer: impl Fn(&str, u16) -> Answer + Send + 'static) -> (u16, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let hits = Arc::new(AtomicUsize::new(0));
    let count = hits.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            stream.set_read_timeout(Some(Duration::from_secs(5))).ok();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            if reader.read_line(&mut line).is_err() {
                continue;
            }
            loop {
                let mut h = String::new();
                if reader.read_line(&mut h).is_err() || h == "\r\n" || h.is_empty() {
                    break;
                }
            }
            count.fetch_add(1, Ordering::SeqCst);
            let path = line.split(' ').nth(1).unwrap_or("/").to_string();
            let (status, headers, body) = answer(&path, port);
            let mut head = format!(
                "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n",
                body.len()
            );
            for (k, v) in headers {
                head.push_str(&format!("{k}: {v}\r\n"));
            }
            head.push_str("\r\n");
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(&body);
        }
    });
    (port, hits)
}

fn redirect(to: String) -> Answer {
    ("302 Found", vec![("Location".into(), to)], Vec::new())
}

fn not_found() -> Answer {
    ("404 Not Found", Vec::new(), Vec::new())
}

fn pdb() -> Vec<u8> {
    std::fs::read(fixture_trace::fixtures().join("fixture.pdb")).unwrap()
}

/// The symbol state once no lookup runs, and its fixture.dll row.
fn settled(server: &Server, id: &str) -> (Value, Value) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let (s, v) = server.json("GET", &format!("/api/traces/{id}/symbols"), "");
        assert_eq!(s, 200, "{v}");
        if v["status"] == "done" {
            let m = v["modules"]
                .as_array()
                .and_then(|ms| ms.iter().find(|m| m["module"] == "fixture.dll"))
                .cloned()
                .unwrap_or_else(|| panic!("no fixture.dll row: {v}"));
            return (v, m);
        }
        assert!(Instant::now() < deadline, "lookup never ended: {v}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn redirects_elsewhere_are_refused_and_reported_within_the_server_followed() {
    // Where the refused redirect points: it would serve the PDB.
    let (elsewhere, elsewhere_hits) = fake_server(|path, _| {
        if path.ends_with("/fixture.pdb") {
            ("200 OK", Vec::new(), pdb())
        } else {
            not_found()
        }
    });
    // The configured server sends every request to the other port.
    let (hostile, hostile_hits) =
        fake_server(move |path, _| redirect(format!("http://127.0.0.1:{elsewhere}{path}")));
    // A server that moves its files within itself: an absolute URL to its
    // own origin, then a relative one, then the file.
    let (moving, moving_hits) = fake_server(|path, port| {
        if let Some(rest) = path.strip_prefix("/symbols/") {
            redirect(format!("http://127.0.0.1:{port}/hop/{rest}"))
        } else if let Some(rest) = path.strip_prefix("/hop/") {
            redirect(format!("/store/{rest}"))
        } else if path.starts_with("/store/") && path.ends_with("/fixture.pdb") {
            ("200 OK", Vec::new(), pdb())
        } else {
            not_found()
        }
    });

    let data = temp_dir("redirect-data");
    let mine = temp_dir("redirect-trace");
    let (trace, _) = fixture_trace::write();
    let file = mine.join("fixture.etl");
    std::fs::write(&file, &trace).unwrap();
    let cache = |tag: &str| mine.join(tag).display().to_string();
    let hostile_path = format!("srv*{}*http://127.0.0.1:{hostile}/symbols", cache("c1"));
    let server = Server::start(
        &data,
        &["--symbol-path", &hostile_path, file.to_str().unwrap()],
    );
    let (_, list) = server.json("GET", "/api/traces", "");
    let id = list["traces"][0]["id"].as_str().unwrap().to_string();
    server.wait_ready(&id, 60);

    let (v, m) = settled(&server, &id);
    eprintln!(
        "refused: status {}, detail {}, warnings {}; hits: configured {}, other port {}",
        m["status"],
        m["detail"],
        v["warnings"],
        hostile_hits.load(Ordering::SeqCst),
        elsewhere_hits.load(Ordering::SeqCst)
    );
    assert_eq!(
        elsewhere_hits.load(Ordering::SeqCst),
        0,
        "the redirect to another port was followed"
    );
    assert!(hostile_hits.load(Ordering::SeqCst) >= 1);
    assert_ne!(m["status"], "loaded", "{m}");
    let warnings: Vec<&str> = v["warnings"]
        .as_array()
        .map(|w| w.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let refused: Vec<&&str> = warnings.iter().filter(|w| w.contains("redirect")).collect();
    assert_eq!(
        refused.len(),
        1,
        "one message for the refused redirect: {v}"
    );
    assert!(
        refused[0].contains(&format!("127.0.0.1:{elsewhere}"))
            && refused[0].contains(&format!("127.0.0.1:{hostile}")),
        "the message names both ends: {}",
        refused[0]
    );

    // Within one server, redirects are followed (two hops here).
    let moving_path = format!("srv*{}*http://127.0.0.1:{moving}/symbols", cache("c2"));
    let sym = format!("/api/traces/{id}/symbols");
    let (s, v) = server.json(
        "PUT",
        &sym,
        &json!({ "symbol_path": moving_path }).to_string(),
    );
    assert_eq!(s, 200, "{v}");
    let (s, v) = server.json("POST", &format!("{sym}/load"), "");
    assert_eq!(s, 202, "{v}");
    let (v, m) = settled(&server, &id);
    eprintln!(
        "same server: status {}, warnings {}, hits {}",
        m["status"],
        v["warnings"],
        moving_hits.load(Ordering::SeqCst)
    );
    assert_eq!(m["status"], "loaded", "{v}");
    assert_eq!(moving_hits.load(Ordering::SeqCst), 3, "pdb, hop, store");
    assert_eq!(m["resolved_frames"], m["frames"], "{m}");
    assert_eq!(elsewhere_hits.load(Ordering::SeqCst), 0);
    drop(server);
    for d in [data, mine] {
        std::fs::remove_dir_all(d).ok();
    }
}
