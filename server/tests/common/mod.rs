//! Shared by the server's integration tests: the real-traces folder, a
//! running `etlscope serve` child process, and a tiny HTTP/1.1 client
//! (std only, one connection per request).

#![allow(dead_code)]

#[cfg(unix)]
pub mod cluster;
pub mod fixture_trace;
pub mod foreign_hosts;
pub mod naive_tagger;
pub mod small_disk;
pub mod symbols_report;
#[cfg(unix)]
pub mod team;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

#[allow(unused_imports)]
pub use testdata::real_traces_dir;

/// A fresh folder for one test, kept until the test removes it (a server
/// process may still hold it).
pub fn temp_dir(tag: &str) -> PathBuf {
    testdata::TempDir::new(tag).keep()
}

/// The binary under test: `$ETLSCOPE_BIN` (e.g. a release build, for the
/// tests sized for one), else the one cargo built for these tests.
pub fn binary() -> PathBuf {
    std::env::var_os("ETLSCOPE_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_etlscope")))
}

/// A running server, stopped (SIGKILL) on drop.
pub struct Server {
    pub child: Child,
    pub addr: String,
    /// Everything it wrote to stderr so far (also passed on to ours).
    pub log: Arc<Mutex<String>>,
    /// Under `ETLSCOPE_CLUSTER`: the other replicas and nginx, whose
    /// address `addr` is (`child` is the first replica).
    #[cfg(unix)]
    pub cluster: Option<cluster::Parts>,
}

impl Server {
    pub fn start(data_dir: &Path, extra: &[&str]) -> Server {
        Server::start_command("serve", data_dir, extra)
    }

    /// `etlscope COMMAND` (serve or open) on a free port.
    pub fn start_command(command: &str, data_dir: &Path, extra: &[&str]) -> Server {
        Server::start_env(command, data_dir, extra, &[])
    }

    /// `start_command` with these environment variables set for the server.
    /// Under `ETLSCOPE_CLUSTER` (the cluster.env of deploy/local-cluster.sh),
    /// the server is three replicas on that cluster's PostgreSQL and object
    /// store behind nginx: the same tests, another base URL.
    pub fn start_env(
        command: &str,
        data_dir: &Path,
        extra: &[&str],
        env: &[(&str, &str)],
    ) -> Server {
        #[cfg(unix)]
        if let Some(s) = cluster::start(command, data_dir, extra, env) {
            return s;
        }
        Server::start_one(command, data_dir, extra, env)
    }

    /// One `etlscope COMMAND` process on a free port.
    pub fn start_one(
        command: &str,
        data_dir: &Path,
        extra: &[&str],
        env: &[(&str, &str)],
    ) -> Server {
        Server::start_bin(&binary(), command, data_dir, extra, env)
    }

    /// `start_one` of the binary at `bin`.
    pub fn start_bin(
        bin: &Path,
        command: &str,
        data_dir: &Path,
        extra: &[&str],
        env: &[(&str, &str)],
    ) -> Server {
        Server::try_start_bin_at(bin, "127.0.0.1:0", command, data_dir, extra, env)
            .expect("port 0 is never taken")
    }

    /// `start_bin` listening on `addr`, or None when another process took
    /// `addr` between choosing it and binding it (ports chosen ahead, as a
    /// cluster's are, race with the tests running beside it).
    pub fn try_start_bin_at(
        bin: &Path,
        addr: &str,
        command: &str,
        data_dir: &Path,
        extra: &[&str],
        env: &[(&str, &str)],
    ) -> Option<Server> {
        let mut child = Command::new(bin)
            .args([command, "--addr", addr, "--data-dir"])
            .arg(data_dir)
            .args(extra)
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start etlscope");
        let log = Arc::new(Mutex::new(String::new()));
        let err = child.stderr.take().unwrap();
        let sink = log.clone();
        let stderr_done = std::thread::spawn(move || {
            for line in BufReader::new(err).lines().map_while(Result::ok) {
                eprintln!("{line}");
                if let Ok(mut l) = sink.lock() {
                    l.push_str(&line);
                    l.push('\n');
                }
            }
        });
        let out = child.stdout.take().unwrap();
        let mut lines = BufReader::new(out).lines();
        let Some(Ok(first)) = lines.next() else {
            let _ = child.wait();
            let _ = stderr_done.join();
            let said = log.lock().map(|l| l.clone()).unwrap_or_default();
            if said.contains("Address already in use") {
                return None;
            }
            panic!("server printed nothing");
        };
        let addr = first
            .split("http://")
            .nth(1)
            .and_then(|r| r.split('/').next())
            .unwrap_or_else(|| panic!("no address in {first:?}"))
            .to_string();
        // Each trace's link comes once its files are hashed (the server
        // listens before): wait for them, so the catalog lists them all.
        // (`serve` reads each file as a trace, `open` all of them as one.)
        let (mut sets, mut files) = (0, 0);
        let mut args = extra.iter();
        while let Some(a) = args.next() {
            if *a == "--trace" {
                args.next();
                sets += 1;
            } else if Path::new(a).is_file() {
                files += 1;
            }
        }
        // `--demo` serves the two embedded demo traces.
        let demo = if extra.contains(&"--demo") { 2 } else { 0 };
        let traces = sets
            + demo
            + match command {
                "open" => files.min(1),
                _ => files,
            };
        let mut links = 0;
        while links < traces {
            match lines.next() {
                Some(Ok(l)) if l.contains("/t/") && !l.contains("the investigation") => links += 1,
                Some(Ok(_)) => {}
                _ => break,
            }
        }
        // Keep draining stdout so the child never blocks on a full pipe.
        std::thread::spawn(move || for _ in lines {});
        Some(Server {
            child,
            addr,
            log,
            #[cfg(unix)]
            cluster: None,
        })
    }

    pub fn get(&self, path: &str) -> (u16, String) {
        request(&self.addr, "GET", path, &[], &[])
    }

    pub fn post(&self, path: &str, body: &[u8]) -> (u16, String) {
        request(&self.addr, "POST", path, body, &[])
    }

    pub fn json(&self, method: &str, path: &str, body: &str) -> (u16, serde_json::Value) {
        let (s, b) = request(&self.addr, method, path, body.as_bytes(), &[]);
        let v = serde_json::from_str(&b).unwrap_or_else(|e| panic!("{method} {path}: {e}: {b}"));
        (s, v)
    }

    /// Wait until a trace is ready (or fail after `secs`).
    pub fn wait_ready(&self, id: &str, secs: u64) -> serde_json::Value {
        let deadline = Instant::now() + Duration::from_secs(secs);
        loop {
            let (s, v) = self.json("GET", &format!("/api/traces/{id}"), "");
            assert_eq!(s, 200, "{v}");
            match v["status"].as_str() {
                Some("ready") if v.get("summary").is_some() => return v,
                Some("failed") => panic!("ingest failed: {v}"),
                _ => {}
            }
            assert!(
                Instant::now() < deadline,
                "trace {id} not ready after {secs} s: {v}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One HTTP/1.1 request as the UI sends it (with `X-Etlscope: 1`, which
/// every state change needs); returns (status, body).
pub fn request(
    addr: &str,
    method: &str,
    path: &str,
    body: &[u8],
    headers: &[(&str, &str)],
) -> (u16, String) {
    let mut all = vec![("X-Etlscope", "1")];
    all.extend_from_slice(headers);
    raw_request(addr, method, path, body, &all)
}

/// One HTTP/1.1 request with exactly these headers besides `Host` (unless
/// given), `Connection` and `Content-Length`; returns (status, body).
pub fn raw_request(
    addr: &str,
    method: &str,
    path: &str,
    body: &[u8],
    headers: &[(&str, &str)],
) -> (u16, String) {
    let text = exchange(addr, &head(addr, method, path, body.len(), headers), body);
    parse_response(&text)
}

/// The request head (ending in the blank line).
pub fn head(addr: &str, method: &str, path: &str, len: usize, headers: &[(&str, &str)]) -> String {
    let mut head = format!("{method} {path} HTTP/1.1\r\n");
    if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
        head.push_str(&format!("Host: {addr}\r\n"));
    }
    head.push_str(&format!("Connection: close\r\nContent-Length: {len}\r\n"));
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    head
}

/// Send `head` and `body`, return everything the server answered.
pub fn exchange(addr: &str, head: &str, body: &[u8]) -> String {
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(120))).ok();
    s.write_all(head.as_bytes()).unwrap();
    // The server may answer (e.g. 413) before reading the whole body.
    let _ = s.write_all(body);
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    String::from_utf8_lossy(&raw).into_owned()
}

/// (status, body) of a raw response.
pub fn parse_response(text: &str) -> (u16, String) {
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or_else(|| panic!("no HTTP status in {:?}", &text[..text.len().min(200)]));
    let body = match text.split_once("\r\n\r\n") {
        Some((h, b))
            if h.to_ascii_lowercase()
                .contains("transfer-encoding: chunked") =>
        {
            dechunk(b)
        }
        Some((_, b)) => b.to_string(),
        None => String::new(),
    };
    (status, body)
}

fn dechunk(mut b: &str) -> String {
    let mut out = String::new();
    while let Some((len, rest)) = b.split_once("\r\n") {
        let n = usize::from_str_radix(len.trim(), 16).unwrap_or(0);
        if n == 0 || rest.len() < n {
            break;
        }
        out.push_str(&rest[..n]);
        b = rest[n..].trim_start_matches("\r\n");
    }
    out
}

/// `etlscope export ... --format json`, parsed.
pub fn export_json(args: &[&str]) -> serde_json::Value {
    let out = Command::new(binary())
        .arg("export")
        .args(args)
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// A `/proc/PID/status` figure in KiB (`field` such as "VmRSS:" or
/// "VmHWM:"), 0 when it cannot be read.
pub fn status_kib(pid: u32, field: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix(field))
                .and_then(|v| v.split_whitespace().next())
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

/// A zip whose one member `name` is the fixture trace followed by `mib` MiB
/// of a repeated pseudo-random 16 KiB block (which deflate squeezes, and the
/// reader skips as trailing bytes), deflated at `level`.
pub fn zip_with_padded_member(name: &str, mib: usize, level: i64) -> Vec<u8> {
    use std::io::Write;
    let (trace, _) = fixture_trace::write();
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let block: Vec<u8> = (0..16384)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    let mut out = std::io::Cursor::new(Vec::new());
    let mut z = zip::ZipWriter::new(&mut out);
    let opts = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .compression_level(Some(level))
        .large_file(true);
    z.start_file(name, opts).unwrap();
    z.write_all(&trace).unwrap();
    for _ in 0..mib * 64 {
        z.write_all(&block).unwrap();
    }
    z.finish().unwrap();
    out.into_inner()
}

/// The `.etl` members of the zip at `zip_path`, written flat (by their file
/// names) into `dir`, in the zip's order.
pub fn extract_members(zip_path: &Path, dir: &Path) -> Vec<PathBuf> {
    let mut z = zip::ZipArchive::new(std::fs::File::open(zip_path).unwrap()).unwrap();
    let mut out = Vec::new();
    for i in 0..z.len() {
        let mut m = z.by_index(i).unwrap();
        let name = m
            .name()
            .unwrap()
            .rsplit('/')
            .next()
            .unwrap_or("")
            .to_string();
        if !name.to_ascii_lowercase().ends_with(".etl") {
            continue;
        }
        let path = dir.join(&name);
        let mut f = std::fs::File::create(&path).unwrap();
        std::io::copy(&mut m, &mut f).unwrap();
        out.push(path);
    }
    out
}

/// A zip (stored, not deflated) of `files` under their file names.
pub fn zip_of(files: &[PathBuf]) -> Vec<u8> {
    use std::io::Write;
    let mut out = std::io::Cursor::new(Vec::new());
    let mut z = zip::ZipWriter::new(&mut out);
    let opts = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Stored)
        .large_file(true);
    for f in files {
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        z.start_file(name, opts).unwrap();
        z.write_all(&std::fs::read(f).unwrap()).unwrap();
    }
    z.finish().unwrap();
    out.into_inner()
}
