//! The model's modules + frames in; per-module status and per-frame
//! function info out. Modules are looked up along the symbol path on a
//! small thread pool (downloads overlap); each PDB is loaded once and kept
//! for later calls.

use crate::identity::PdbIdentity;
use crate::locate::{self, Lookup};
use crate::pdb::{FunctionInfo, Pdb};
use crate::server::{Fetched, ServerConfig, SymbolServer};
use crate::status::{ModuleStatus, SymbolStatus};
use crate::symbol_path::{SymbolPath, SymbolPathEntry};
use model::frames::FrameTable;
use model::images::{ModuleTable, NONE};
use model::strings::StringTable;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

#[derive(Debug, Clone)]
pub struct SymbolizerConfig {
    pub path: SymbolPath,
    /// Where downloads go when the symbol path names no cache.
    pub default_cache: PathBuf,
    pub server: ServerConfig,
    /// Modules looked up (and downloaded) at once.
    pub threads: usize,
}

impl SymbolizerConfig {
    pub fn new(path: SymbolPath) -> SymbolizerConfig {
        SymbolizerConfig {
            path,
            default_cache: std::env::temp_dir().join("etlscope-symbols"),
            server: ServerConfig::default(),
            threads: 8,
        }
    }
}

/// Counters a UI can poll while `symbolize` runs on another thread, and
/// its cancel switch.
#[derive(Debug, Default)]
pub struct Progress {
    pub modules_total: AtomicUsize,
    pub modules_done: AtomicUsize,
    pub frames_total: AtomicUsize,
    pub frames_done: AtomicUsize,
    /// Set to stop: modules not yet started end `Cancelled`.
    pub cancelled: AtomicBool,
    /// Module rows whose lookup has ended, with how it ended, in order.
    pub finished: Mutex<Vec<(u32, SymbolStatus)>>,
}

impl Progress {
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::Relaxed);
    }

    pub fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Relaxed)
    }

    /// The modules finished so far.
    pub fn finished(&self) -> Vec<(u32, SymbolStatus)> {
        self.finished.lock().map(|f| f.clone()).unwrap_or_default()
    }
}

/// What one `symbolize` call found.
#[derive(Debug, Clone, Default)]
pub struct Symbolization {
    /// One entry per module row of the model, in row order.
    pub modules: Vec<ModuleStatus>,
    /// Frame row -> what it resolves to; frames left out stay unresolved.
    pub frames: Vec<(u32, FunctionInfo)>,
    /// Said once per run rather than per module: symbol servers that could
    /// not be reached and were skipped after the first try.
    pub warnings: Vec<String>,
}

pub type SharedPdb = Arc<Mutex<Pdb>>;

/// What one worker found for one identity: its modules, status, named frames.
type Resolved = (Vec<usize>, SymbolStatus, Vec<(u32, FunctionInfo)>);

pub struct Symbolizer {
    config: SymbolizerConfig,
    servers: Mutex<HashMap<String, Arc<SymbolServer>>>,
    loaded: Mutex<HashMap<PdbIdentity, (PathBuf, SharedPdb)>>,
}

impl Symbolizer {
    pub fn new(config: SymbolizerConfig) -> Symbolizer {
        Symbolizer {
            config,
            servers: Mutex::new(HashMap::new()),
            loaded: Mutex::new(HashMap::new()),
        }
    }

    pub fn config(&self) -> &SymbolizerConfig {
        &self.config
    }

    /// The PDB identity the trace recorded for module row `m`.
    pub fn module_identity(
        modules: &ModuleTable,
        strings: &StringTable,
        m: usize,
    ) -> Option<PdbIdentity> {
        let guid = (*modules.pdb_guid.get(m)?)?;
        let name = strings.get(*modules.pdb_name.get(m)?);
        let age = *modules.pdb_age.get(m)?;
        let id = PdbIdentity::new(name, guid, age);
        (!id.name.is_empty()).then_some(id)
    }

    /// HTTP requests made to symbol servers so far.
    pub fn http_requests(&self) -> u64 {
        self.servers
            .lock()
            .map(|s| s.values().map(|s| s.requests()).sum())
            .unwrap_or(0)
    }

    /// Find and load the PDB of `id` along the symbol path, then at the
    /// path the image recorded. Loaded PDBs are kept: a second call is free.
    pub fn find(
        &self,
        id: &PdbIdentity,
        recorded: Option<&str>,
    ) -> (SymbolStatus, Option<SharedPdb>) {
        if let Some((path, pdb)) = self.loaded.lock().ok().and_then(|l| l.get(id).cloned()) {
            return (SymbolStatus::Loaded { path }, Some(pdb));
        }
        let mut best = Outcome::NotFound;
        let mut cache: Option<PathBuf> = None;
        for entry in &self.config.path.entries {
            let outcome = match entry {
                SymbolPathEntry::Folder(f) => Outcome::from(locate::find_in_folder(f, id)),
                SymbolPathEntry::Cache(f) => {
                    let f = f
                        .clone()
                        .unwrap_or_else(|| self.config.default_cache.clone());
                    let o = Outcome::from(locate::find_in_symstore(&f, id));
                    cache = Some(f);
                    o
                }
                SymbolPathEntry::Server { caches, source } => {
                    let caches = if caches.is_empty() {
                        vec![cache
                            .clone()
                            .unwrap_or_else(|| self.config.default_cache.clone())]
                    } else {
                        caches.clone()
                    };
                    self.ask_server(id, &caches, source)
                }
            };
            best = match outcome {
                Outcome::Found(path, pdb) => return self.keep(id, path, pdb),
                other => best.or(other),
            };
        }
        if let Some(r) = recorded.filter(|r| r.contains(['/', '\\'])) {
            match Outcome::from(locate::check_file(Path::new(r), id)) {
                Outcome::Found(path, pdb) => return self.keep(id, path, pdb),
                other => best = best.or(other),
            }
        }
        (best.into_status(), None)
    }

    fn keep(&self, id: &PdbIdentity, path: PathBuf, pdb: Pdb) -> (SymbolStatus, Option<SharedPdb>) {
        let pdb = Arc::new(Mutex::new(pdb));
        if let Ok(mut l) = self.loaded.lock() {
            // Another thread may have loaded the same identity: keep the first.
            let (path, pdb) = l.entry(id.clone()).or_insert((path, pdb)).clone();
            return (SymbolStatus::Loaded { path }, Some(pdb));
        }
        (SymbolStatus::Loaded { path }, Some(pdb))
    }

    fn ask_server(&self, id: &PdbIdentity, caches: &[PathBuf], source: &str) -> Outcome {
        let mut best = Outcome::NotFound;
        for c in caches {
            match Outcome::from(locate::find_in_symstore(c, id)) {
                found @ Outcome::Found(..) => return found,
                other => best = best.or(other),
            }
        }
        if !SymbolPathEntry::is_http(source) {
            // A symstore share: read in place.
            return best.or(Outcome::from(locate::find_in_symstore(
                Path::new(source),
                id,
            )));
        }
        let Some(cache) = caches.first() else {
            return best;
        };
        let server = self.server(source);
        let fetched = match server.fetch(id, cache) {
            Fetched::Downloaded(path) => Outcome::from(locate::check_file(&path, id)),
            Fetched::Missing | Fetched::KnownMissing => Outcome::NotFound,
            Fetched::Failed(reason) => Outcome::DownloadFailed(reason),
        };
        best.or(fetched)
    }

    fn server(&self, url: &str) -> Arc<SymbolServer> {
        let make = || {
            let others: Vec<String> = self
                .config
                .path
                .entries
                .iter()
                .filter_map(|e| match e {
                    SymbolPathEntry::Server { source, .. } if SymbolPathEntry::is_http(source) => {
                        Some(source.clone())
                    }
                    _ => None,
                })
                .collect();
            Arc::new(SymbolServer::new(url, self.config.server.clone()).trusting(&others))
        };
        match self.servers.lock() {
            Ok(mut s) => s.entry(url.to_string()).or_insert_with(make).clone(),
            Err(_) => make(),
        }
    }

    /// Name the frames of the model. Only modules with frames are looked up.
    pub fn symbolize(
        &self,
        modules: &ModuleTable,
        frames: &FrameTable,
        strings: &StringTable,
        progress: &Progress,
    ) -> Symbolization {
        // Frame rows per module.
        let mut by_module: Vec<Vec<u32>> = vec![Vec::new(); modules.len()];
        for (row, &m) in frames.module.iter().enumerate() {
            if m != NONE {
                if let Some(v) = by_module.get_mut(m as usize) {
                    v.push(row as u32);
                }
            }
        }
        // Modules sharing a PDB identity are looked up once.
        let mut work: HashMap<PdbIdentity, Vec<usize>> = HashMap::new();
        let mut statuses: Vec<ModuleStatus> = (0..modules.len())
            .map(|m| {
                let identity = Self::module_identity(modules, strings, m);
                let n = by_module.get(m).map_or(0, Vec::len) as u32;
                let status = match (&identity, n) {
                    (None, _) => SymbolStatus::NoIdentity,
                    (Some(_), 0) => SymbolStatus::NotNeeded,
                    (Some(id), _) => {
                        work.entry(id.clone()).or_default().push(m);
                        SymbolStatus::NotFound
                    }
                };
                ModuleStatus {
                    module: m as u32,
                    identity,
                    status,
                    frames: n,
                    resolved_frames: 0,
                }
            })
            .collect();
        let work: Vec<(PdbIdentity, Vec<usize>)> = work.into_iter().collect();
        progress.modules_total.store(work.len(), Ordering::Relaxed);
        let total_frames: usize = work
            .iter()
            .flat_map(|(_, ms)| ms)
            .map(|&m| by_module[m].len())
            .sum();
        progress.frames_total.store(total_frames, Ordering::Relaxed);

        let next = AtomicUsize::new(0);
        let results: Mutex<Vec<Resolved>> = Mutex::new(Vec::new());
        let threads = self.config.threads.clamp(1, 64).min(work.len().max(1));
        std::thread::scope(|s| {
            for _ in 0..threads {
                s.spawn(|| loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some((id, ms)) = work.get(i) else { break };
                    let recorded = ms
                        .first()
                        .and_then(|&m| modules.pdb_name.get(m))
                        .map(|&s| strings.get(s));
                    let (status, pdb) = if progress.is_cancelled() {
                        (SymbolStatus::Cancelled, None)
                    } else {
                        self.find(id, recorded)
                    };
                    let mut named = Vec::new();
                    for &m in ms {
                        let rows = &by_module[m];
                        if let Some(pdb) = &pdb {
                            if let Ok(mut pdb) = pdb.lock() {
                                resolve_rows(&mut pdb, rows, frames, &mut named);
                            }
                        }
                        progress
                            .frames_done
                            .fetch_add(rows.len(), Ordering::Relaxed);
                    }
                    if let Ok(mut f) = progress.finished.lock() {
                        f.extend(ms.iter().map(|&m| (m as u32, status.clone())));
                    }
                    if let Ok(mut r) = results.lock() {
                        r.push((ms.clone(), status, named));
                    }
                    progress.modules_done.fetch_add(1, Ordering::Relaxed);
                });
            }
        });

        let mut out = Symbolization::default();
        for (ms, status, named) in results.into_inner().unwrap_or_default() {
            for &m in &ms {
                if let Some(st) = statuses.get_mut(m) {
                    st.status = status.clone();
                    st.resolved_frames = named
                        .iter()
                        .filter(|(row, _)| frames.module.get(*row as usize) == Some(&(m as u32)))
                        .count() as u32;
                }
            }
            out.frames.extend(named);
        }
        out.frames.sort_unstable_by_key(|(row, _)| *row);
        out.modules = statuses;
        out.warnings = self.server_warnings();
        out
    }

    /// One line per symbol server given up on as unreachable, and one per
    /// server whose redirect was not followed.
    fn server_warnings(&self) -> Vec<String> {
        let servers: Vec<Arc<SymbolServer>> = self
            .servers
            .lock()
            .map(|s| s.values().cloned().collect())
            .unwrap_or_default();
        let mut out: Vec<String> = servers
            .iter()
            .flat_map(|s| {
                let unreachable = s.unreachable().map(|why| {
                    format!(
                        "symbol server {} unreachable, not asked again in this run: {why}",
                        s.url()
                    )
                });
                let refused = s
                    .refused_redirect()
                    .map(|what| format!("symbol server {} {what}", s.url()));
                unreachable.into_iter().chain(refused)
            })
            .collect();
        out.sort();
        out
    }

    /// The places `find` searches, in order, as the UI shows them
    /// ("where it looked"): folders, caches, servers, the recorded path.
    pub fn search_places(&self, recorded: Option<&str>) -> Vec<String> {
        let mut out = Vec::new();
        let mut cache: Option<PathBuf> = None;
        let default = &self.config.default_cache;
        for entry in &self.config.path.entries {
            match entry {
                SymbolPathEntry::Folder(f) => out.push(f.display().to_string()),
                SymbolPathEntry::Cache(f) => {
                    let f = f.clone().unwrap_or_else(|| default.clone());
                    out.push(format!("cache {}", f.display()));
                    cache = Some(f);
                }
                SymbolPathEntry::Server { caches, source } => {
                    let caches = if caches.is_empty() {
                        vec![cache.clone().unwrap_or_else(|| default.clone())]
                    } else {
                        caches.clone()
                    };
                    out.extend(caches.iter().map(|c| format!("cache {}", c.display())));
                    out.push(
                        match self
                            .servers
                            .lock()
                            .ok()
                            .and_then(|s| s.get(source).cloned())
                        {
                            Some(s) if s.unreachable().is_some() => {
                                format!("{source} (unreachable)")
                            }
                            Some(s) if s.refused_redirect().is_some() => {
                                format!("{source} (redirect refused)")
                            }
                            _ => source.clone(),
                        },
                    );
                }
            }
        }
        if let Some(r) = recorded.filter(|r| r.contains(['/', '\\'])) {
            out.push(r.to_string());
        }
        out
    }
}

fn resolve_rows(
    pdb: &mut Pdb,
    rows: &[u32],
    frames: &FrameTable,
    out: &mut Vec<(u32, FunctionInfo)>,
) {
    for &row in rows {
        let Some(&rva) = frames.address.get(row as usize) else {
            continue;
        };
        let Ok(rva) = u32::try_from(rva) else {
            continue;
        };
        if let Some(info) = pdb.lookup(rva) {
            out.push((row, info));
        }
    }
}

/// A lookup outcome along the symbol path, ranked by how much it tells.
enum Outcome {
    Found(PathBuf, Pdb),
    Mismatch(PathBuf, etl::Guid, u32),
    Malformed(PathBuf, String),
    DownloadFailed(String),
    NotFound,
}

impl From<Lookup> for Outcome {
    fn from(l: Lookup) -> Outcome {
        match l {
            Lookup::Found { path, pdb } => Outcome::Found(path, pdb),
            Lookup::Mismatch { path, guid, age } => Outcome::Mismatch(path, guid, age),
            Lookup::Malformed { path, error } => Outcome::Malformed(path, error.to_string()),
            Lookup::Missing => Outcome::NotFound,
        }
    }
}

impl Outcome {
    fn rank(&self) -> u8 {
        match self {
            Outcome::Found(..) => 4,
            Outcome::Mismatch(..) => 3,
            Outcome::Malformed(..) => 2,
            Outcome::DownloadFailed(..) => 1,
            Outcome::NotFound => 0,
        }
    }

    fn or(self, other: Outcome) -> Outcome {
        if other.rank() > self.rank() {
            other
        } else {
            self
        }
    }

    fn into_status(self) -> SymbolStatus {
        match self {
            Outcome::Found(path, _) => SymbolStatus::Loaded { path },
            Outcome::Mismatch(path, guid, age) => {
                SymbolStatus::IdentityMismatch { path, guid, age }
            }
            Outcome::Malformed(path, error) => SymbolStatus::Malformed { path, error },
            Outcome::DownloadFailed(reason) => SymbolStatus::DownloadFailed { reason },
            Outcome::NotFound => SymbolStatus::NotFound,
        }
    }
}
