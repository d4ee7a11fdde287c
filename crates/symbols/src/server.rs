//! A blocking HTTP symbol-server client (SymSrv protocol: `GET
//! URL/name.pdb/GUIDAGE/name.pdb`, or `name.pd_` for a CAB-compressed copy)
//! that stores what it downloads in a symstore-layout disk cache and
//! remembers misses for a while, in memory and on disk, so a PDB known to be
//! missing is not asked for again. Threads may share one `SymbolServer`.
//! A server that cannot be reached (connection refused, timed out) is asked
//! once: the first request is made alone, and a failure to reach it makes
//! every later fetch fail at once with [`SymbolServer::unreachable`]'s reason.
//! Redirects are followed by hand, at most [`MAX_HOPS`], where
//! [`RedirectPolicy`] allows; the first one refused is kept for the report.

use crate::cab_file;
use crate::identity::PdbIdentity;
use crate::redirect::{self, RedirectPolicy, MAX_HOPS};
use std::collections::HashMap;
use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime};

#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// Connecting, and waiting for the response head.
    pub timeout: Duration,
    /// Receiving a whole body (PDBs can be hundreds of MB).
    pub body_timeout: Duration,
    /// How long a miss (404 for both `.pdb` and `.pd_`) is remembered.
    pub miss_ttl: Duration,
    /// Larger downloads (or expanded `.pd_`) are refused.
    pub max_bytes: u64,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            timeout: Duration::from_secs(20),
            body_timeout: Duration::from_secs(600),
            miss_ttl: Duration::from_secs(24 * 3600),
            max_bytes: 4 << 30,
        }
    }
}

/// The outcome of one fetch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fetched {
    /// Now in the cache at this path (not yet identity-checked).
    Downloaded(PathBuf),
    /// The server said 404 within `miss_ttl`: no request was made.
    KnownMissing,
    /// The server said 404 just now.
    Missing,
    /// Anything else: connection, timeout, HTTP status, bad `.pd_`. The reason.
    Failed(String),
}

pub struct SymbolServer {
    url: String,
    agent: ureq::Agent,
    config: ServerConfig,
    /// Identity key -> when its miss was recorded.
    misses: Mutex<HashMap<String, Instant>>,
    requests: AtomicU64,
    /// Whether the server answered yet; held while the first request is made.
    reach: Mutex<Reach>,
    redirects: RedirectPolicy,
    /// The first redirect not followed, and why.
    refused: Mutex<Option<String>>,
}

/// What is known about reaching the server.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Reach {
    Unknown,
    Answered,
    Unreachable(String),
}

/// Why a GET failed: the server was not reached, or it answered badly.
enum GetError {
    Transport(String),
    Answer(String),
}

impl std::fmt::Debug for SymbolServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SymbolServer")
            .field("url", &self.url)
            .finish()
    }
}

impl SymbolServer {
    pub fn new(url: &str, config: ServerConfig) -> SymbolServer {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            // Followed in `get`, where each target is checked.
            .max_redirects(0)
            .timeout_connect(Some(config.timeout))
            .timeout_recv_response(Some(config.timeout))
            .timeout_recv_body(Some(config.body_timeout))
            .user_agent(concat!("etlscope-symbols/", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        let url = url.trim_end_matches('/').to_string();
        SymbolServer {
            redirects: RedirectPolicy::new(&url, &[]),
            url,
            agent,
            config,
            misses: Mutex::new(HashMap::new()),
            requests: AtomicU64::new(0),
            reach: Mutex::new(Reach::Unknown),
            refused: Mutex::new(None),
        }
    }

    /// Let redirects go to these servers too (the others of the symbol path).
    pub fn trusting(mut self, others: &[String]) -> SymbolServer {
        self.redirects = RedirectPolicy::new(&self.url, others);
        self
    }

    /// The first redirect this server sent that was not followed, and why.
    pub fn refused_redirect(&self) -> Option<String> {
        self.refused
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    /// HTTP requests made so far (each GET counts).
    pub fn requests(&self) -> u64 {
        self.requests.load(Ordering::Relaxed)
    }

    /// Why the server is not asked any more (it could not be reached), if so.
    pub fn unreachable(&self) -> Option<String> {
        match &*self.reach.lock().unwrap_or_else(|p| p.into_inner()) {
            Reach::Unreachable(why) => Some(why.clone()),
            _ => None,
        }
    }

    /// Download the PDB of `id` into `cache` (symstore layout) unless the
    /// server is known not to have it or not to answer.
    pub fn fetch(&self, id: &PdbIdentity, cache: &Path) -> Fetched {
        if !id.is_safe_name() {
            return Fetched::Failed(format!("refusing PDB name {:?}", id.name));
        }
        if self.known_missing(id, cache) {
            return Fetched::KnownMissing;
        }
        // Until the server has answered once, requests go one at a time, so
        // an unreachable one costs one timeout, not one per module.
        let mut reach = self.reach.lock().unwrap_or_else(|p| p.into_inner());
        match &*reach {
            Reach::Unreachable(why) => return Fetched::Failed(skipped(why)),
            Reach::Answered => {
                drop(reach);
                return self
                    .fetch_reached(id, cache)
                    .unwrap_or_else(Fetched::Failed);
            }
            Reach::Unknown => {}
        }
        match self.fetch_reached(id, cache) {
            Ok(f) => {
                *reach = Reach::Answered;
                f
            }
            Err(why) => {
                *reach = Reach::Unreachable(why.clone());
                Fetched::Failed(why)
            }
        }
    }

    /// `fetch` once the server may be asked: `Err` only when it was not reached.
    fn fetch_reached(&self, id: &PdbIdentity, cache: &Path) -> Result<Fetched, String> {
        let answered = |e: GetError| match e {
            GetError::Transport(m) => Err(m),
            GetError::Answer(m) => Ok(Fetched::Failed(m)),
        };
        let dir = cache.join(&id.name).join(id.key());
        if let Err(e) = fs::create_dir_all(&dir) {
            return Ok(Fetched::Failed(format!("cache {}: {e}", dir.display())));
        }
        let dest = dir.join(&id.name);
        let base = format!("{}/{}/{}", self.url, encode(&id.name), id.key());
        match self.download(&format!("{base}/{}", encode(&id.name)), &dest) {
            Ok(true) => return Ok(Fetched::Downloaded(dest)),
            Ok(false) => {}
            Err(e) => return answered(e),
        }
        let compressed_name = compressed_name(&id.name);
        let compressed = dir.join(&compressed_name);
        match self.download(&format!("{base}/{}", encode(&compressed_name)), &compressed) {
            Ok(true) => {
                let tmp = temp_path(&dest);
                let r = cab_file::expand_first_file(&compressed, &tmp, self.config.max_bytes)
                    .and_then(|()| fs::rename(&tmp, &dest).map_err(|e| e.to_string()));
                let _ = fs::remove_file(&compressed);
                let _ = fs::remove_file(&tmp);
                Ok(match r {
                    Ok(()) => Fetched::Downloaded(dest),
                    Err(e) => Fetched::Failed(e),
                })
            }
            Ok(false) => {
                self.record_miss(id, &dir);
                Ok(Fetched::Missing)
            }
            Err(e) => answered(e),
        }
    }

    /// GET `url`, following the redirects the policy allows.
    fn get(&self, url: &str) -> Result<ureq::http::Response<ureq::Body>, GetError> {
        let mut at = url.to_string();
        for hop in 0..=MAX_HOPS {
            self.requests.fetch_add(1, Ordering::Relaxed);
            let response = self.agent.get(&at).call().map_err(|e| {
                let e = format!("GET {at}: {e}");
                // Only the server's own URL tells whether it is reachable.
                if hop == 0 {
                    GetError::Transport(e)
                } else {
                    GetError::Answer(e)
                }
            })?;
            if !response.status().is_redirection() || response.status().as_u16() == 304 {
                return Ok(response);
            }
            let location = response
                .headers()
                .get("location")
                .and_then(|l| l.to_str().ok())
                .unwrap_or("");
            let target = redirect::resolve(&at, location);
            let verdict = match &target {
                _ if hop == MAX_HOPS => Err(format!("more than {MAX_HOPS} redirects")),
                Some(t) => self.redirects.check(t),
                None => Err("not an http(s) URL".to_string()),
            };
            match (verdict, target) {
                (Ok(()), Some(t)) => at = t,
                (verdict, _) => {
                    let why = verdict.err().unwrap_or_default();
                    let shown = if location.is_empty() {
                        "nowhere"
                    } else {
                        location
                    };
                    let what = format!("redirected to {shown}, not followed: {why}");
                    let mut first = self.refused.lock().unwrap_or_else(|p| p.into_inner());
                    first.get_or_insert_with(|| what.clone());
                    return Err(GetError::Answer(format!("GET {url}: {what}")));
                }
            }
        }
        Err(GetError::Answer(format!(
            "GET {url}: more than {MAX_HOPS} redirects"
        )))
    }

    /// GET `url` into `dest`: `Ok(true)` when stored, `Ok(false)` on 404.
    fn download(&self, url: &str, dest: &Path) -> Result<bool, GetError> {
        let response = self.get(url)?;
        let status = response.status().as_u16();
        if status == 404 {
            return Ok(false);
        }
        if status != 200 {
            return Err(GetError::Answer(format!("GET {url}: HTTP {status}")));
        }
        let tmp = temp_path(dest);
        let result = (|| -> io::Result<u64> {
            let mut body = response.into_body();
            let reader = body
                .with_config()
                .limit(self.config.max_bytes.saturating_add(1))
                .reader();
            let mut file = fs::File::create(&tmp)?;
            let n = io::copy(
                &mut reader.take(self.config.max_bytes.saturating_add(1)),
                &mut file,
            )?;
            file.flush()?;
            Ok(n)
        })();
        match result {
            Ok(n) if n > self.config.max_bytes => {
                let _ = fs::remove_file(&tmp);
                Err(GetError::Answer(format!(
                    "GET {url}: larger than {} bytes",
                    self.config.max_bytes
                )))
            }
            Ok(_) => fs::rename(&tmp, dest).map(|()| true).map_err(|e| {
                let _ = fs::remove_file(&tmp);
                GetError::Answer(format!("cache {}: {e}", dest.display()))
            }),
            Err(e) => {
                let _ = fs::remove_file(&tmp);
                Err(GetError::Answer(format!("GET {url}: {e}")))
            }
        }
    }

    fn known_missing(&self, id: &PdbIdentity, cache: &Path) -> bool {
        let key = format!("{}/{}", id.name, id.key());
        if let Ok(m) = self.misses.lock() {
            if let Some(t) = m.get(&key) {
                if t.elapsed() < self.config.miss_ttl {
                    return true;
                }
            }
        }
        // A miss recorded by an earlier process.
        let marker = cache.join(&id.name).join(id.key()).join(self.miss_marker());
        let age = fs::metadata(&marker)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| SystemTime::now().duration_since(t).ok());
        matches!(age, Some(a) if a < self.config.miss_ttl)
    }

    fn record_miss(&self, id: &PdbIdentity, dir: &Path) {
        if let Ok(mut m) = self.misses.lock() {
            m.insert(format!("{}/{}", id.name, id.key()), Instant::now());
        }
        // Best effort: a cache we cannot write to only costs a request later.
        let _ = fs::write(dir.join(self.miss_marker()), format!("{}\n", self.url));
    }

    /// One marker per server, so a miss on one does not hide another.
    fn miss_marker(&self) -> String {
        format!("missing-{:016x}", fnv1a(self.url.as_bytes()))
    }
}

/// The reason given for a fetch not made: the server did not answer before.
fn skipped(why: &str) -> String {
    format!("not asked: the server was unreachable earlier in this run ({why})")
}

/// `name.pdb` -> `name.pd_`.
fn compressed_name(name: &str) -> String {
    let mut s = name.to_string();
    s.pop();
    s.push('_');
    s
}

/// Percent-encode all but unreserved URL characters.
fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn temp_path(dest: &Path) -> PathBuf {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let mut name = dest.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".{}.{n}.part", std::process::id()));
    dest.with_file_name(name)
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_urls() {
        assert_eq!(compressed_name("ntdll.pdb"), "ntdll.pd_");
        assert_eq!(encode("a b#.pdb"), "a%20b%23.pdb");
    }
}
