//! The data directory and the traces held in memory.
//!
//! Layout: `traces/<id>.etl` (uploaded files, named by content hash),
//! `tmp/` (uploads in flight; emptied at start), `symbols/` (uploaded PDBs in
//! symstore layout), `catalog.sqlite`. Loaded traces are kept under a memory
//! budget; the least recently used are dropped and reloaded on demand.

mod local;
pub mod lru_cache;
#[cfg(all(feature = "team", not(windows)))]
mod object;
pub mod remote;

use crate::admission::{ingest_estimate, too_big_message, Held, Reservation, Reservations};
use crate::catalog::{Catalog, MemberFile, TraceEntry};
pub use crate::heal::MISSING;
use crate::upload::{TempFile, UploadError};
use model::progress::BuildProgress;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

pub struct LoadedTrace {
    pub id: String,
    pub engine: query::Engine,
    /// Symbol lookup: under way (progress) and, once done, each module's status.
    pub symbols: Mutex<SymbolState>,
    row_tables: [std::sync::OnceLock<query::RowTable>; query::RowTableKind::ALL.len()],
    pub load_seconds: f64,
    last_used: AtomicU64,
    /// Which symbolization run named this trace (0: not named yet); a run
    /// replaces the trace in place only if it started after this one.
    symbol_run: u64,
    /// The files read (a container's members, or each file of a trace of
    /// several), in reading order.
    pub members: Vec<etl::trace::MemberInfo>,
    /// Set while the trace is still arriving (a recording, or a replay).
    pub live: Option<crate::live::LiveInfo>,
    /// `/findings`' answer, made once per loaded trace (a remade engine,
    /// after symbols or a new live model, is a new `LoadedTrace`).
    pub findings: std::sync::OnceLock<serde_json::Value>,
}

impl LoadedTrace {
    pub fn new(id: String, trace: model::Trace, load_seconds: f64, last_used: u64) -> LoadedTrace {
        let engine = query::Engine::new(Arc::new(trace));
        LoadedTrace::with_engine(id, engine, load_seconds, last_used)
    }

    /// A trace whose index is already built (a live model's, extended
    /// from the previous model's).
    pub fn from_engine(id: String, engine: query::Engine) -> LoadedTrace {
        LoadedTrace::with_engine(id, engine, 0.0, 0)
    }

    fn with_engine(
        id: String,
        engine: query::Engine,
        load_seconds: f64,
        last_used: u64,
    ) -> LoadedTrace {
        LoadedTrace {
            id,
            engine,
            row_tables: Default::default(),
            symbols: Mutex::new(SymbolState::Pending),
            load_seconds,
            last_used: AtomicU64::new(last_used),
            symbol_run: 0,
            members: Vec::new(),
            live: None,
            findings: std::sync::OnceLock::new(),
        }
    }

    pub fn trace(&self) -> &model::Trace {
        self.engine.trace()
    }

    /// Bytes held for this trace: the model, its indexes and the
    /// comparisons' cache (the memory budget's count).
    pub fn heap_bytes(&self) -> u64 {
        self.engine.heap_bytes() as u64
    }

    /// The same trace with its Stack Tag column showing `tags` (row tables
    /// are rebuilt on use; the samples' index is shared).
    pub fn with_stack_tags(&self, tags: Arc<query::stack_tags::StackTags>) -> LoadedTrace {
        let mut t = LoadedTrace::with_engine(
            self.id.clone(),
            self.engine.with_stack_tags(tags),
            self.load_seconds,
            self.last_used.load(Ordering::Relaxed),
        );
        t.members = self.members.clone();
        t.symbol_run = self.symbol_run;
        t
    }

    /// The same trace with its regions from `regions` (a view's regions
    /// file; row tables are rebuilt on use, the samples' index is shared).
    pub fn with_regions(&self, regions: Arc<model::regions::RegionTable>) -> LoadedTrace {
        let mut t = LoadedTrace::with_engine(
            self.id.clone(),
            self.engine.with_regions(regions),
            self.load_seconds,
            self.last_used.load(Ordering::Relaxed),
        );
        t.members = self.members.clone();
        t.symbol_run = self.symbol_run;
        t
    }

    /// Row tables (Processes ... Generic Events), built on first use.
    pub fn row_table(&self, kind: query::RowTableKind) -> &query::RowTable {
        let i = kind.index().min(self.row_tables.len() - 1);
        self.row_tables[i].get_or_init(|| self.engine.row_table(kind))
    }
}

/// A model and the files it was read from.
type Built = (model::Trace, Vec<etl::trace::MemberInfo>);

pub enum SymbolState {
    Pending,
    Running(Arc<symbols::Progress>),
    Done(SymbolsDone),
}

/// How the last symbol lookup ended.
pub struct SymbolsDone {
    /// One row per module (`symbolize::status_json`).
    pub modules: Vec<serde_json::Value>,
    /// Said once for the run (an unreachable symbol server).
    pub warnings: Vec<String>,
    /// The places searched, in order.
    pub searched: Vec<String>,
    pub cancelled: bool,
}

enum Slot {
    Ingesting(Arc<BuildProgress>),
    Ready(Arc<LoadedTrace>),
    Failed(String),
}

/// Why a trace cannot be queried right now.
pub enum NotReady {
    NotFound,
    Ingesting(Arc<BuildProgress>),
    Failed(String),
}

/// Where the catalog and the trace bytes live (`serve --catalog`, `--store`,
/// `--cache-dir`, `--cache-gb`); all None: the data directory's own.
#[derive(Debug, Clone, Default)]
pub struct Backends {
    /// `postgres://...` or `sqlite://FILE`.
    pub catalog: Option<String>,
    /// `s3://BUCKET/PREFIX` or `file:///DIR`.
    pub store: Option<String>,
    pub cache_dir: Option<PathBuf>,
    pub cache_bytes: u64,
    /// `--symbols-dir`: where uploaded PDBs are kept (default
    /// `DATA_DIR/symbols`); a team replica's copies of the store's.
    pub symbols_dir: Option<PathBuf>,
}

pub struct Store {
    pub data_dir: PathBuf,
    /// Uploaded PDBs in symstore layout, first in every trace's symbol path.
    pub symbols_dir: PathBuf,
    /// Uploaded trace files: `traces/` (or `--store file:///DIR`), or the
    /// local cache of the remote store's.
    traces_dir: PathBuf,
    /// The object store holding the trace bytes (`--store s3://...`).
    remote: Option<Arc<dyn remote::RemoteTraces>>,
    /// `--symbol-path` / `_NT_SYMBOL_PATH`.
    pub symbol_path: Option<String>,
    pub catalog: Arc<dyn Catalog>,
    memory_budget: u64,
    slots: Mutex<HashMap<String, Slot>>,
    clock: AtomicU64,
    /// Numbers symbolization runs, so the newest result wins.
    symbol_runs: AtomicU64,
    /// How many times this process read each trace into memory (a reload
    /// after eviction counts again): what tells a cache hit from a reload.
    loads: Mutex<HashMap<String, u64>>,
    /// Traces read (or being read) only to check an upload (shared mode),
    /// not asked for here yet: nginx sends a trace's requests to the replica
    /// it routes the trace to, which may be another. Their models are the
    /// first dropped when memory is wanted, so the traces this replica
    /// serves stay loaded; one asked for leaves the set.
    checks: Mutex<std::collections::HashSet<String>>,
    /// This replica's part in the shared ingest queue (`ingest_jobs`).
    pub jobs: crate::ingest_jobs::Jobs,
    /// The catalog or the trace bytes are shared with other replicas.
    shared: bool,
    /// Memory promised to running ingests (admission control).
    reservations: Reservations,
    /// Stack tag sets uploaded to this server.
    pub stack_tags: crate::stack_tag_store::TagStore,
    /// Schema packs uploaded to this server (docs/schema-packs.md).
    pub schemas: crate::schema_store::SchemaStore,
    /// Regions files uploaded to this server (`/api/regions`), or shared.
    pub regions: crate::region_store::RegionStore,
}

impl Store {
    pub fn open(
        data_dir: &Path,
        memory_budget: u64,
        symbol_path: Option<String>,
        backends: &Backends,
    ) -> anyhow::Result<Arc<Store>> {
        for sub in ["traces", "tmp"] {
            std::fs::create_dir_all(data_dir.join(sub))?;
        }
        let symbols_dir = backends
            .symbols_dir
            .clone()
            .unwrap_or_else(|| data_dir.join("symbols"));
        std::fs::create_dir_all(&symbols_dir)?;
        // Uploads that were in flight when the server stopped are discarded.
        for e in std::fs::read_dir(data_dir.join("tmp"))?.flatten() {
            std::fs::remove_file(e.path()).ok();
        }
        let catalog: Arc<dyn Catalog> = match &backends.catalog {
            None => Arc::new(crate::heal::open_catalog(data_dir)?),
            Some(url) => Arc::from(crate::catalog::open_url(url)?),
        };
        let (traces_dir, remote) = match backends.store.as_deref() {
            None => (data_dir.join("traces"), None),
            Some(url) if url.starts_with("file://") => {
                let dir = PathBuf::from(&url["file://".len()..]);
                std::fs::create_dir_all(&dir)?;
                (dir, None)
            }
            Some(url) => {
                let cache = backends
                    .cache_dir
                    .clone()
                    .unwrap_or_else(|| data_dir.join("cache"));
                let r = remote::open(url, &cache, backends.cache_bytes)?;
                (cache, Some(r))
            }
        };
        // Shared with other replicas: their rows and files are not this
        // one's to heal, nor their ingests to resume.
        let shared = backends.catalog.is_some() || remote.is_some();
        // Shared by the replicas: in the catalog.
        let (stack_tags, regions) = match backends.catalog {
            Some(_) => (
                crate::stack_tag_store::TagStore::shared(catalog.clone()),
                crate::region_store::RegionStore::shared(catalog.clone()),
            ),
            None => (
                crate::stack_tag_store::TagStore::open(&data_dir.join("stacktags"))?,
                crate::region_store::RegionStore::open(&data_dir.join("regions"))?,
            ),
        };
        let store = Arc::new(Store {
            data_dir: data_dir.to_path_buf(),
            symbols_dir,
            traces_dir,
            remote,
            shared,
            symbol_path,
            catalog,
            memory_budget,
            slots: Mutex::new(HashMap::new()),
            clock: AtomicU64::new(0),
            symbol_runs: AtomicU64::new(0),
            loads: Mutex::new(HashMap::new()),
            checks: Mutex::new(std::collections::HashSet::new()),
            jobs: Default::default(),
            reservations: Reservations::default(),
            stack_tags,
            schemas: crate::schema_store::SchemaStore::open(&data_dir.join("schemas"))?,
            regions,
        });
        if !shared {
            let stale = crate::heal::reconcile(store.catalog.as_ref(), &store.traces_dir, |e| {
                store.trace_files(e)
            })?;
            store.resume(stale);
        }
        if let Some(r) = store.remote.clone() {
            let catalog = store.catalog.clone();
            std::thread::spawn(move || {
                let grace = remote::orphan_grace();
                if let Err(e) = remote::sweep_orphans(r.as_ref(), catalog.as_ref(), grace) {
                    tracing::warn!(error = %format!("{e:#}"), "orphan sweep of the object store failed");
                }
            });
        }
        Ok(store)
    }

    fn count_load(&self, id: &str) {
        *self
            .loads
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(id.to_string())
            .or_insert(0) += 1;
    }

    /// How many times this process has read trace `id` into memory to
    /// serve it (an upload's check counts once it is asked for).
    pub fn loads(&self, id: &str) -> u64 {
        self.loads
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(id)
            .copied()
            .unwrap_or(0)
    }

    /// The object store of a team server (`--store s3://...`).
    pub fn remote(&self) -> Option<&dyn remote::RemoteTraces> {
        self.remote.as_deref()
    }

    /// The catalog or the trace bytes are shared with other replicas.
    pub fn is_shared(&self) -> bool {
        self.shared
    }

    /// Ingest, one after another in the background, traces whose ingest a
    /// stop interrupted (or never started).
    fn resume(self: &Arc<Self>, entries: Vec<TraceEntry>) {
        if entries.is_empty() {
            return;
        }
        let store = self.clone();
        std::thread::spawn(move || {
            for e in entries {
                let p = store.start_ingest(e.clone());
                while matches!(store.peek(&e.id), Err(NotReady::Ingesting(q)) if Arc::ptr_eq(&p, &q))
                {
                    std::thread::sleep(std::time::Duration::from_millis(100));
                }
            }
        });
    }

    /// Uploads live in `traces/`; local traces served by reference keep their absolute path.
    /// For a trace of several files, the first.
    pub fn trace_path(&self, e: &TraceEntry) -> PathBuf {
        self.resolve(&e.file_name)
    }

    /// Every file of the trace, with what was recorded of it when added.
    pub fn trace_files(&self, e: &TraceEntry) -> Vec<(PathBuf, MemberFile)> {
        e.files()
            .into_iter()
            .map(|m| (self.resolve(&m.path), m))
            .collect()
    }

    /// The status and message to list for `e`: this run's own for a trace
    /// it holds, reads or failed to read; else the catalog's, unless the
    /// trace's files are gone or changed since they were added (then
    /// `missing` or `failed`, naming the file), or the catalog's status is
    /// one only a reading under way makes true (left by a kill, or written
    /// while the catalog could not be: `pending` then, read on first use).
    /// A status that differs from the catalog's is written to it, so a
    /// write refused before (a full disk) is made up for once it can be.
    pub fn status_of(&self, e: &TraceEntry) -> (String, String) {
        self.status_seen(e, true)
    }

    /// `status_of`, looking once more at a row that changed under it when `fresh`.
    fn status_seen(&self, e: &TraceEntry, fresh: bool) -> (String, String) {
        let held = |slots: &HashMap<String, Slot>| match slots.get(&e.id) {
            Some(Slot::Ready(t)) if t.live.is_some() => Some(("live".to_string(), String::new())),
            Some(Slot::Ready(_)) => Some(("ready".to_string(), String::new())),
            Some(Slot::Ingesting(_)) => Some(("ingesting".to_string(), String::new())),
            Some(Slot::Failed(m)) => Some(("failed".to_string(), m.clone())),
            None => None,
        };
        let now = held(&self.slots());
        // The files are looked at without the lock (a slow disk must not
        // hold up every query).
        let (status, message) = now.clone().unwrap_or_else(|| match self.file_problem(e) {
            Some((status, message)) => (status.to_string(), message),
            None if crate::heal::STALE.contains(&e.status.as_str()) || e.status == MISSING => {
                ("pending".to_string(), String::new())
            }
            None => (e.status.clone(), e.error.clone()),
        });
        if status != e.status || message != e.error {
            let slots = self.slots();
            // Unless a reading began or ended meanwhile: its own write is newer.
            if held(&slots) == now {
                // Nor over a status written since `e` was read: a trace read,
                // recorded ready and dropped from memory between the two
                // looks was listed `pending` here and never read again.
                match self
                    .catalog
                    .set_status_if(&e.id, (&e.status, &e.error), &status, &message)
                {
                    Ok(true) => {}
                    Ok(false) if fresh => {
                        drop(slots);
                        if let Ok(Some(newer)) = self.catalog.get(&e.id) {
                            return self.status_seen(&newer, false);
                        }
                    }
                    Ok(false) => {}
                    Err(err) => {
                        tracing::debug!(id = %e.id, error = %err, "cannot record the trace's status in the catalog")
                    }
                }
            }
        }
        (status, message)
    }

    fn resolve(&self, file_name: &str) -> PathBuf {
        let p = Path::new(file_name);
        if p.is_absolute() {
            p.to_path_buf()
        } else {
            self.traces_dir.join(file_name)
        }
    }

    /// Why the files of `e` are not the trace the library holds (see
    /// `heal::file_problem`). An upload in a remote store is whole as the
    /// catalog says: its local copy is only a cache.
    pub fn file_problem(&self, e: &TraceEntry) -> Option<(&'static str, String)> {
        if self.remote.is_some() && self.owned_path(e).is_some() {
            return None;
        }
        crate::heal::file_problem(e, &self.trace_files(e))
    }

    /// The file of `e` if the server wrote it (an upload in `traces/`, named
    /// by its id); None for a trace served by reference, which is the
    /// user's own file and never modified or deleted.
    pub fn owned_path(&self, e: &TraceEntry) -> Option<PathBuf> {
        let ours = [format!("{}.etl", e.id), format!("{}.etl.zip", e.id)];
        (crate::upload::valid_id(&e.id) && ours.contains(&e.file_name))
            .then(|| self.traces_dir.join(&e.file_name))
    }

    /// Put an upload into the library: its row and its file in `traces/`
    /// as one step (see `Catalog::insert_then`).
    /// With a remote store, the bytes go to it first (in parts, from the
    /// temporary file), and the file becomes the cache's copy.
    ///
    /// `new`: the trace was not in the catalog; then the result is false
    /// when another replica added it meanwhile (this upload is not the new
    /// one). A restored trace (`new` false) is always added.
    pub fn add_upload(
        &self,
        entry: &TraceEntry,
        temp: TempFile,
        new: bool,
    ) -> Result<bool, UploadError> {
        let dest = self.traces_dir.join(&entry.file_name);
        let name = entry.file_name.clone();
        let remote = self.remote.clone();
        let place: crate::catalog::Place<'_> = Box::new(|| {
            if let Some(r) = &remote {
                r.put_file(&temp.path, &name)?;
                r.cache().make_room(entry.size, &name);
            }
            temp.persist_or_copy(&dest)?;
            if let Some(r) = &remote {
                r.cache().added(&name, entry.size);
            }
            Ok(())
        });
        let placed = if new {
            self.catalog.insert_new_then(entry, place)
        } else {
            self.catalog
                .insert_then(entry, place)
                .map(|r| r.map(|()| true))
        };
        let placed = placed.map_err(|e| {
            // A local file may be in place without its row: take it
            // back. An object is left to the orphan sweep (another
            // replica may have added the same bytes under the same name).
            if self.remote.is_none() {
                let _ = std::fs::remove_file(&dest);
            }
            if crate::catalog::is_unavailable(&e) {
                UploadError::Unavailable(format!("cannot record the upload: {e:#}"))
            } else {
                UploadError::Io(format!("cannot record the upload: {e:#}"))
            }
        })?;
        placed.map_err(|e| {
            if e.kind() == std::io::ErrorKind::NotConnected {
                UploadError::Unavailable(format!("cannot store the upload: {e}"))
            } else {
                UploadError::write("cannot store the upload", &e)
            }
        })
    }

    /// Remove a trace from the library: stop its ingest, drop it from
    /// memory, and delete its file only if the server wrote it.
    pub fn delete(&self, id: &str) -> anyhow::Result<bool> {
        let Some(e) = self.catalog.get(id)? else {
            return Ok(false);
        };
        self.catalog.delete(id)?;
        if let Some(Slot::Ingesting(p)) = self.slots().remove(id) {
            p.cancel();
        }
        if let (Some(r), Some(_)) = (&self.remote, self.owned_path(&e)) {
            // Left behind when the store is away: the orphan sweep takes it.
            if let Err(err) = r.delete(&e.file_name) {
                tracing::warn!(%id, error = %err, "cannot remove a deleted trace's object");
            }
        } else if let Some(path) = self.owned_path(&e) {
            if let Err(err) = std::fs::remove_file(&path) {
                if err.kind() != std::io::ErrorKind::NotFound {
                    tracing::warn!(%id, error = %err, "cannot remove a deleted trace's file");
                }
            }
        }
        release_free_memory();
        Ok(true)
    }

    /// What traces held in memory, ingests and queries may take, in bytes.
    pub fn memory_budget(&self) -> u64 {
        self.memory_budget
    }

    /// The trace's files on this machine (an upload in an object store is
    /// fetched into the cache first), checked unchanged since they were
    /// added: what a redacted copy is made from.
    pub fn local_files(&self, e: &TraceEntry) -> anyhow::Result<Vec<PathBuf>> {
        if let (Some(r), Some(_)) = (&self.remote, self.owned_path(e)) {
            r.local(&e.file_name, e.size).map_err(|err| match err {
                remote::StoreError::Away(m) => anyhow::Error::new(crate::catalog::Unavailable(
                    format!("the object store: {m}"),
                )),
                other => anyhow::anyhow!("{other}"),
            })?;
        }
        let files = self.trace_files(e);
        if let Some(why) = files
            .iter()
            .find_map(|(p, m)| changed_since_added(p, m.size, m.modified_ns))
        {
            anyhow::bail!(why);
        }
        Ok(files.into_iter().map(|(p, _)| p).collect())
    }

    pub fn tmp_dir(&self) -> PathBuf {
        self.data_dir.join("tmp")
    }

    fn slots(&self) -> std::sync::MutexGuard<'_, HashMap<String, Slot>> {
        self.slots.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The loaded trace, or why not; starts loading it when needed.
    pub fn get(self: &Arc<Self>, id: &str) -> Result<Arc<LoadedTrace>, NotReady> {
        // Deleted through another replica: dropped here too.
        if self.shared && matches!(self.catalog.deleted(id), Ok(true)) {
            if let Some(Slot::Ingesting(p)) = self.slots().remove(id) {
                p.cancel();
            }
            return Err(NotReady::NotFound);
        }
        {
            let slots = self.slots();
            match slots.get(id) {
                Some(Slot::Ready(t)) => {
                    if self.checks().remove(id) {
                        self.count_load(id);
                    }
                    t.last_used.store(
                        self.clock.fetch_add(1, Ordering::Relaxed),
                        Ordering::Relaxed,
                    );
                    if let Some(l) = &t.live {
                        l.viewed.store(true, Ordering::Relaxed);
                    }
                    return Ok(t.clone());
                }
                Some(Slot::Ingesting(p)) => {
                    // Asked for: kept once read.
                    self.checks().remove(id);
                    return Err(NotReady::Ingesting(p.clone()));
                }
                Some(Slot::Failed(m)) => return Err(NotReady::Failed(m.clone())),
                None => {
                    self.checks().remove(id);
                }
            }
        }
        let entry = match self.catalog.get(id) {
            Ok(Some(e)) if e.status == MISSING => return Err(NotReady::Failed(e.error)),
            Ok(Some(e)) => e,
            _ => return Err(NotReady::NotFound),
        };
        Err(NotReady::Ingesting(self.start_ingest(entry)))
    }

    /// Forget the loaded (not live) traces with a Generic Events provider of
    /// `guids`, so their next use loads them again with the schema packs of
    /// now; how many.
    pub fn unload_with_providers(&self, guids: &[etl::Guid]) -> usize {
        let mut slots = self.slots();
        let before = slots.len();
        slots.retain(|_, s| match s {
            Slot::Ready(t) if t.live.is_none() => !t
                .trace()
                .generic
                .providers
                .guid
                .iter()
                .flatten()
                .any(|g| guids.contains(g)),
            _ => true,
        });
        before - slots.len()
    }

    fn checks(&self) -> std::sync::MutexGuard<'_, std::collections::HashSet<String>> {
        self.checks.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Read a trace just uploaded, to record whether it is ready or failed.
    /// Shared with other replicas, the model is the first to go when memory
    /// is wanted until the trace is asked for here: nginx routes the trace's
    /// requests to the replica it picks (deploy/nginx.conf), maybe another.
    pub fn start_check(self: &Arc<Self>, entry: TraceEntry) {
        if self.shared {
            let slots = self.slots();
            if !slots.contains_key(&entry.id) {
                self.checks().insert(entry.id.clone());
            }
        }
        self.start_ingest(entry);
    }

    /// Load a catalogued trace in the background (no-op if already under way).
    pub fn start_ingest(self: &Arc<Self>, entry: TraceEntry) -> Arc<BuildProgress> {
        let progress = Arc::new(BuildProgress::default());
        {
            let mut slots = self.slots();
            match slots.get(&entry.id) {
                Some(Slot::Ingesting(p)) => return p.clone(),
                Some(Slot::Ready(t)) => {
                    // Its file stored again under a loaded trace: still ready.
                    if t.live.is_none() && entry.status != "ready" {
                        self.record_status(&entry.id, "ready", "");
                    }
                    return progress;
                }
                _ => {}
            }
            slots.insert(entry.id.clone(), Slot::Ingesting(progress.clone()));
        }
        let store = self.clone();
        let p = progress.clone();
        std::thread::spawn(move || store.ingest(entry, p));
        progress
    }

    /// Write a trace's status to the catalog. The in-memory status stays the
    /// truth for this run either way; a catalog that cannot be written (disk
    /// full, read-only) is an error in the log, not a silent difference that
    /// shows after the next restart.
    fn record_status(&self, id: &str, status: &str, message: &str) {
        if let Err(e) = self.catalog.set_status(id, status, message) {
            tracing::error!(%id, status, error = %e, "cannot record the trace's status in the catalog");
        }
    }

    fn ingest(self: Arc<Self>, entry: TraceEntry, progress: Arc<BuildProgress>) {
        if let (Some(r), Some(_)) = (&self.remote, self.owned_path(&entry)) {
            match r.local(&entry.file_name, entry.size) {
                Ok(_) => {}
                // Not the trace's fault: nothing is marked failed, the
                // next request tries again.
                Err(remote::StoreError::Away(m)) => {
                    tracing::warn!(id = %entry.id, error = %m, "cannot fetch the trace from the object store");
                    let mut slots = self.slots();
                    if matches!(slots.get(&entry.id), Some(Slot::Ingesting(p)) if Arc::ptr_eq(p, &progress))
                    {
                        slots.remove(&entry.id);
                    }
                    return;
                }
                Err(e) => {
                    let msg = e.to_string();
                    self.slots()
                        .insert(entry.id.clone(), Slot::Failed(msg.clone()));
                    self.record_status(&entry.id, "failed", &msg);
                    return;
                }
            }
        }
        self.record_status(&entry.id, "ingesting", "");
        let files = self.trace_files(&entry);
        let started = Instant::now();
        // Every member is checked: one rewritten file would fault the mapping.
        let changed = files
            .iter()
            .find_map(|(p, m)| changed_since_added(p, m.size, m.modified_ns));
        let (result, tickets) = match changed {
            Some(why) => (Err(why), Vec::new()),
            None => {
                let paths: Vec<&Path> = files.iter().map(|(p, _)| p.as_path()).collect();
                self.read_admitted(&paths, &progress)
            }
        };
        self.finish_ingest(entry, &progress, started, result, tickets);
    }

    /// Hold the model just read under its id, or record why it could not be
    /// read; drop it if the trace was deleted (or read by another) meanwhile.
    fn finish_ingest(
        self: &Arc<Self>,
        entry: TraceEntry,
        progress: &Arc<BuildProgress>,
        started: Instant,
        result: Result<Built, String>,
        tickets: Vec<Reservation<'_>>,
    ) {
        let path = self.trace_path(&entry);
        let mut slots = self.slots();
        // Deleted (or replaced) while it was read: the result is nobody's.
        let ours =
            matches!(slots.get(&entry.id), Some(Slot::Ingesting(p)) if Arc::ptr_eq(p, progress));
        let listed = matches!(self.catalog.get(&entry.id), Ok(Some(_)));
        if !ours || !listed || progress.is_cancelled() {
            if ours {
                slots.remove(&entry.id);
            }
            drop(slots);
            drop(result);
            release_free_memory();
            tracing::info!(id = %entry.id, "ingest of a deleted trace dropped");
            return;
        }
        match result {
            Ok((trace, members)) => {
                // An upload's check nobody asked for here: kept, but the
                // first to go when memory is wanted, and not a load served.
                let unasked = self.checks().contains(&entry.id);
                tracing::info!(id = %entry.id, secs = started.elapsed().as_secs_f64(), unasked, "ingested");
                let indexing = Instant::now();
                let mut loaded = LoadedTrace::new(
                    entry.id.clone(),
                    trace,
                    started.elapsed().as_secs_f64(),
                    if unasked {
                        0
                    } else {
                        self.clock.fetch_add(1, Ordering::Relaxed)
                    },
                );
                loaded.members = members;
                tracing::info!(id = %entry.id, secs = indexing.elapsed().as_secs_f64(), "query index made");
                let loaded = Arc::new(loaded);
                slots.insert(entry.id.clone(), Slot::Ready(loaded.clone()));
                if !unasked {
                    self.count_load(&entry.id);
                }
                self.record_status(&entry.id, "ready", "");
                evict_over_budget(&mut slots, self.memory_budget, &entry.id);
                drop(slots);
                release_free_memory();
                // Symbol lookup copies the model: still under the reservation.
                self.symbolize(loaded, &path);
                self.summarize(&entry.id);
                drop(tickets);
                release_free_memory();
                self.warm_compare(&entry.id);
            }
            Err(msg) => {
                self.checks().remove(&entry.id);
                tracing::warn!(id = %entry.id, error = %msg, "ingest failed");
                slots.insert(entry.id.clone(), Slot::Failed(msg.clone()));
                self.record_status(&entry.id, "failed", &msg);
            }
        }
    }

    /// Serve a snapshot of a trace still arriving. False when the trace
    /// was deleted meanwhile (the live path then stops).
    pub fn publish_live(&self, loaded: LoadedTrace) -> bool {
        let mut slots = self.slots();
        match self.catalog.get(&loaded.id) {
            Ok(Some(e)) if e.status == "live" => {}
            Ok(Some(_)) => self.record_status(&loaded.id, "live", ""),
            _ => {
                slots.remove(&loaded.id);
                return false;
            }
        }
        let id = loaded.id.clone();
        loaded.last_used.store(
            self.clock.fetch_add(1, Ordering::Relaxed),
            Ordering::Relaxed,
        );
        slots.insert(id.clone(), Slot::Ready(Arc::new(loaded)));
        evict_over_budget(&mut slots, self.memory_budget, &id);
        true
    }

    /// The live trace's last model: from now on a normal library entry
    /// (ready, then named from PDBs as an ingest's is).
    pub fn finish_live(self: &Arc<Self>, loaded: LoadedTrace, trace_path: &Path) {
        let id = loaded.id.clone();
        loaded.last_used.store(
            self.clock.fetch_add(1, Ordering::Relaxed),
            Ordering::Relaxed,
        );
        let loaded = Arc::new(loaded);
        {
            let mut slots = self.slots();
            if !matches!(self.catalog.get(&id), Ok(Some(_))) {
                slots.remove(&id);
                return;
            }
            slots.insert(id.clone(), Slot::Ready(loaded.clone()));
        }
        self.record_status(&id, "ready", "");
        self.symbolize(loaded, trace_path);
        self.summarize(&id);
        self.warm_compare(&id);
    }

    /// Write the library summary (issue 38) of loaded trace `id`, named
    /// from PDBs as far as its lookup got; a failure is logged, the trace
    /// stays served (the next start's sweep tries again).
    pub fn summarize(&self, id: &str) {
        let ready = match self.slots().get(id) {
            Some(Slot::Ready(t)) if t.live.is_none() => Some(t.clone()),
            _ => None,
        };
        let (Some(t), Ok(Some(entry))) = (ready, self.catalog.get(id)) else {
            return;
        };
        let started = Instant::now();
        let written = crate::library::summary::summarize(&t.engine, &entry)
            .and_then(|s| self.catalog.put_summary(&s));
        match written {
            Ok(()) => tracing::info!(
                id,
                secs = started.elapsed().as_secs_f64(),
                "library summary written"
            ),
            Err(e) => {
                tracing::warn!(id, error = %format!("{e:#}"), "cannot write the library summary")
            }
        }
    }

    /// The library sweep's step: summarize `entry` if it is in memory,
    /// else read it as an unasked check (its ingest writes the summary)
    /// and wait for that read to end.
    pub fn summarize_or_read(self: &Arc<Self>, entry: TraceEntry) {
        let id = entry.id.clone();
        let loaded = matches!(self.slots().get(&id), Some(Slot::Ready(_)));
        if loaded {
            self.summarize(&id);
            return;
        }
        if !self.slots().contains_key(&id) {
            self.checks().insert(id.clone());
        }
        let p = self.start_ingest(entry);
        while matches!(self.peek(&id), Err(NotReady::Ingesting(q)) if Arc::ptr_eq(&p, &q)) {
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    }

    /// Makes the loaded trace's comparison indexes (labels and path
    /// fingerprints of its stacks, about 26 bytes per stack row) once it is
    /// named, so that its first comparison answers as fast as the next
    /// ones. Not a use of the trace: its eviction order is unchanged.
    fn warm_compare(&self, id: &str) {
        let ready = match self.slots().get(id) {
            Some(Slot::Ready(t)) => Some(t.clone()),
            _ => None,
        };
        if let Some(t) = ready {
            let started = std::time::Instant::now();
            t.engine.warm_compare();
            tracing::info!(
                id,
                secs = started.elapsed().as_secs_f64(),
                "comparison indexes made"
            );
            // Deleted or evicted while the indexes were made: this was the
            // last hold on the model, so give its pages back now, as the
            // delete itself would have.
            let kept = matches!(self.slots().get(id), Some(Slot::Ready(s)) if Arc::ptr_eq(s, &t));
            drop(t);
            if !kept {
                release_free_memory();
            }
        }
    }

    /// Read a trace once admission control lets it: admitted by its size
    /// (a zip member's declared size) before the file is even mapped, since
    /// opening walks every buffer header, which pages most of the file in.
    /// Should the member turn out larger, the reservation is topped up
    /// without waiting (waiting while holding one could wait forever).
    /// The reservations are returned with the result.
    fn read_admitted(
        &self,
        paths: &[&Path],
        progress: &BuildProgress,
    ) -> (Result<Built, String>, Vec<Reservation<'_>>) {
        let budget = self.memory_budget;
        let mut expanded_len = 0u64;
        // The members' samples and stack walks, and their bytes.
        let (mut profile_events, mut profile_bytes) = (0f64, 0f64);
        let mut readable = 0;
        let mut first_error = None;
        for path in paths {
            match etl::EtlFile::probe(path) {
                Ok(p) => {
                    expanded_len = expanded_len.saturating_add(p.expanded_len);
                    profile_events += p.expanded_len as f64 * p.profile.events_per_byte;
                    profile_bytes += p.expanded_len as f64 * p.profile.byte_share;
                    readable += 1;
                }
                Err(e) => {
                    first_error.get_or_insert(e.to_string());
                }
            }
        }
        // An unreadable member of several costs only its own events (the
        // open below names it); with none readable there is nothing to read.
        if readable == 0 {
            let msg = first_error.unwrap_or_else(|| "no file to read".into());
            return (Err(msg), Vec::new());
        }
        let mix = etl::ProfileMix {
            events_per_byte: profile_events / (expanded_len.max(1) as f64),
            byte_share: profile_bytes / (expanded_len.max(1) as f64),
        };
        let probed = ingest_estimate(expanded_len, mix);
        if probed > budget {
            return (Err(too_big_message(probed, budget)), Vec::new());
        }
        let cancelled = || progress.is_cancelled();
        // None means deleted while waiting: the build below is then skipped (cancelled).
        let mut tickets: Vec<Reservation<'_>> = self
            .reservations
            .admit(probed, budget, self, &cancelled)
            .into_iter()
            .collect();
        let file = match etl::EtlFile::open_many_spilling(paths, &self.tmp_dir()) {
            Ok(f) => f,
            Err(e) => return (Err(e.to_string()), tickets),
        };
        let need = ingest_estimate(file.expanded_len(), mix);
        if need > budget {
            return (Err(too_big_message(need, budget)), tickets);
        }
        if need > probed {
            tickets.push(self.reservations.force(need - probed));
        }
        let members = file.members();
        // Where an ingest's time goes, in the log (`ETLSCOPE_LOG=etlscope=info`).
        let mut steps = if tracing::enabled!(tracing::Level::INFO) {
            model::ingest::steps::StepTimes::on(crate::live::cpu_ms)
        } else {
            Default::default()
        };
        let trace = model::build_with_steps(&file, progress, &mut steps);
        tracing::info!(steps = %steps.line(), "ingest steps (CPU/wall ms)");
        (Ok((trace, members)), tickets)
    }

    /// Reserves `need` bytes for a SQL query under the memory budget,
    /// dropping least recently used traces or waiting for running ingests
    /// as an ingest would; `gave_up` stops the wait (the client went away).
    pub fn admit_query(
        &self,
        need: u64,
        gave_up: &dyn Fn() -> bool,
    ) -> Result<Reservation<'_>, String> {
        if need > self.memory_budget {
            return Err(format!(
                "a SQL query reserves {} MiB (--sql-memory-mb), more than the memory budget of {} MiB",
                need >> 20,
                self.memory_budget >> 20
            ));
        }
        self.reservations
            .admit(need, self.memory_budget, self, gave_up)
            .ok_or_else(|| "the query was cancelled while it waited for memory".to_string())
    }

    /// The symbol path a trace's lookups use after the local folders: its
    /// own (set in the Symbols panel, kept in the catalog), else the server's.
    pub fn symbol_path_of(&self, id: &str) -> Option<String> {
        match self.catalog.symbol_path(id) {
            Ok(Some(p)) => Some(p),
            _ => self.symbol_path.clone(),
        }
    }

    /// Look a loaded trace's symbols up again along its current symbol path
    /// (the Symbols panel's Load). False if a lookup is already running.
    pub fn load_symbols(self: &Arc<Self>, loaded: Arc<LoadedTrace>) -> anyhow::Result<bool> {
        let entry = self
            .catalog
            .get(&loaded.id)?
            .ok_or_else(|| anyhow::anyhow!("no such trace"))?;
        let progress = Arc::new(symbols::Progress::default());
        {
            let mut s = loaded
                .symbols
                .lock()
                .map_err(|_| anyhow::anyhow!("symbol state lock poisoned"))?;
            if matches!(*s, SymbolState::Running(_)) {
                return Ok(false);
            }
            *s = SymbolState::Running(progress.clone());
        }
        let path = self.trace_path(&entry);
        let store = self.clone();
        std::thread::spawn(move || store.symbolize_with(loaded, &path, progress));
        Ok(true)
    }

    /// Name frames from PDBs in the background; queries see the unnamed
    /// trace meanwhile and the named one as soon as it is ready.
    fn symbolize(self: &Arc<Self>, loaded: Arc<LoadedTrace>, trace_path: &Path) {
        let progress = Arc::new(symbols::Progress::default());
        if let Ok(mut s) = loaded.symbols.lock() {
            *s = SymbolState::Running(progress.clone());
        }
        self.symbolize_with(loaded, trace_path, progress);
    }

    fn symbolize_with(
        self: &Arc<Self>,
        loaded: Arc<LoadedTrace>,
        trace_path: &Path,
        progress: Arc<symbols::Progress>,
    ) {
        let run = self.symbol_runs.fetch_add(1, Ordering::Relaxed) + 1;
        // PDBs uploaded through other replicas that this trace needs.
        crate::shared_pdbs::sync_for(self, &pdb_keys(loaded.trace()));
        let path = crate::symbolize::symbol_path(
            Some(&self.symbols_dir),
            trace_path,
            self.symbol_path_of(&loaded.id).as_deref(),
        );
        let config = crate::symbolize::config(path, self.data_dir.join("symbol-cache"));
        // Look up on the model in place; copy it only when there are names to apply.
        let (result, searched) =
            crate::symbolize::lookup_searched(loaded.trace(), config, &progress);
        let done = || SymbolsDone {
            modules: crate::symbolize::status_json(loaded.trace(), &result, &searched),
            warnings: result.warnings.clone(),
            searched: searched.clone(),
            cancelled: progress.is_cancelled(),
        };
        if result.frames.is_empty() {
            if let Ok(mut s) = loaded.symbols.lock() {
                *s = SymbolState::Done(done());
            }
            return;
        }
        let statuses = done();
        let mut trace = loaded.trace().clone();
        crate::symbolize::apply(&mut trace, &result);
        // Only function-dependent parts of the index are rebuilt; the
        // by-thread order and sample totals carry over.
        let trace = Arc::new(trace);
        let engine = loaded
            .engine
            .with_symbols(trace.clone())
            .unwrap_or_else(|_| query::Engine::new(trace));
        let mut named = LoadedTrace::with_engine(
            loaded.id.clone(),
            engine,
            loaded.load_seconds,
            self.clock.fetch_add(1, Ordering::Relaxed),
        );
        named.symbol_run = run;
        named.members = loaded.members.clone();
        let named = Arc::new(named);
        if let Ok(mut s) = named.symbols.lock() {
            *s = SymbolState::Done(statuses);
        }
        let mut slots = self.slots();
        // Replace only a trace named by an earlier run (or not at all): a
        // re-run after a PDB upload wins over a first run ending later.
        if let Some(Slot::Ready(cur)) = slots.get(&loaded.id) {
            if cur.symbol_run < run {
                slots.insert(loaded.id.clone(), Slot::Ready(named));
            }
        }
    }

    /// Re-name, in the background, the loaded traces with a module whose
    /// recorded PDB identity is `guid`/`age` (a PDB for it just arrived).
    /// Returns their ids. Traces not in memory get it when next loaded.
    pub fn resymbolize_needing(self: &Arc<Self>, guid: etl::Guid, age: u32) -> Vec<String> {
        self.resymbolize_needing_key(&symbols::PdbIdentity::new("", guid, age).key())
    }

    /// The loaded traces with a module whose PDB key (GUID and age, as in
    /// symstore paths) is `key`.
    fn loaded_needing(&self, key: &str) -> Vec<Arc<LoadedTrace>> {
        self.slots()
            .values()
            .filter_map(|s| match s {
                Slot::Ready(t) => Some(t.clone()),
                _ => None,
            })
            .filter(|t| {
                pdb_keys(t.trace())
                    .iter()
                    .any(|k| k.eq_ignore_ascii_case(key))
            })
            .collect()
    }

    /// Whether a trace loaded here wants the PDB of `key`.
    pub fn needs_pdb(&self, key: &str) -> bool {
        !self.loaded_needing(key).is_empty()
    }

    /// `resymbolize_needing` by the PDB's key.
    pub fn resymbolize_needing_key(self: &Arc<Self>, key: &str) -> Vec<String> {
        let needing = self.loaded_needing(key);
        let mut ids = Vec::new();
        for loaded in needing {
            let Ok(Some(entry)) = self.catalog.get(&loaded.id) else {
                continue;
            };
            ids.push(loaded.id.clone());
            let path = self.trace_path(&entry);
            let store = self.clone();
            // Running before the answer goes out, so a client polling next sees it.
            let progress = Arc::new(symbols::Progress::default());
            if let Ok(mut s) = loaded.symbols.lock() {
                *s = SymbolState::Running(progress.clone());
            }
            std::thread::spawn(move || store.symbolize_with(loaded, &path, progress));
        }
        ids.sort();
        ids
    }

    /// Wait until the trace is loaded (or failed), up to `timeout`.
    pub async fn wait_ready(
        self: &Arc<Self>,
        id: &str,
        timeout: std::time::Duration,
    ) -> Result<Arc<LoadedTrace>, NotReady> {
        let deadline = Instant::now() + timeout;
        loop {
            match self.get(id) {
                Err(NotReady::Ingesting(p)) if Instant::now() < deadline => {
                    drop(p);
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                }
                r => return r,
            }
        }
    }

    /// Like `get`, but never starts an ingest.
    pub fn peek(&self, id: &str) -> Result<Arc<LoadedTrace>, NotReady> {
        match self.slots().get(id) {
            Some(Slot::Ready(t)) => Ok(t.clone()),
            Some(Slot::Ingesting(p)) => Err(NotReady::Ingesting(p.clone())),
            Some(Slot::Failed(m)) => Err(NotReady::Failed(m.clone())),
            None => Err(NotReady::NotFound),
        }
    }
}

impl Held for Store {
    fn held_bytes(&self) -> u64 {
        held_bytes(&self.slots())
    }

    fn evict_one(&self) -> bool {
        let mut slots = self.slots();
        match lru(&slots, "") {
            Some(id) => {
                tracing::info!(%id, "dropping trace from memory (room for an ingest)");
                slots.remove(&id);
                drop(slots);
                release_free_memory();
                true
            }
            None => false,
        }
    }
}

fn held_bytes(slots: &HashMap<String, Slot>) -> u64 {
    slots
        .values()
        .map(|s| match s {
            Slot::Ready(t) => t.heap_bytes(),
            _ => 0,
        })
        .sum()
}

/// The least recently used loaded trace other than `keep`.
fn lru(slots: &HashMap<String, Slot>, keep: &str) -> Option<String> {
    slots
        .iter()
        .filter_map(|(id, s)| match s {
            Slot::Ready(t) if id != keep => Some((t.last_used.load(Ordering::Relaxed), id.clone())),
            _ => None,
        })
        .min()
        .map(|(_, id)| id)
}

fn evict_over_budget(slots: &mut HashMap<String, Slot>, budget: u64, keep: &str) {
    while held_bytes(slots) > budget {
        let Some(id) = lru(slots, keep) else { return };
        tracing::info!(%id, "dropping trace from memory (over budget)");
        slots.remove(&id);
    }
}

/// Give memory freed after a build back to the OS: glibc keeps it in its
/// arenas otherwise, and RSS stays at the ingest's peak.
fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only walks glibc's own free lists.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Cap glibc's malloc arenas at one per core before any thread starts.
/// glibc's default (8 per core) spreads a parallel build's allocations over
/// many arenas whose freed pages `malloc_trim` cannot all hand back, so a
/// server's RSS crept up with every trace loaded and deleted.
///
/// Also fix the size from which a block is mapped on its own at 1 MB: by
/// default glibc raises it to the largest block freed (up to 32 MB), so
/// once the build frees its first big buffer, the hash tables it grows by
/// doubling (a few MB each) come from the heap, and each table left behind
/// stays resident: the 10M-sample trace's build peaked at 1.41 GB of
/// anonymous memory against 1.10 GB with the threshold fixed.
pub fn tune_malloc() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // Blocks from this size on get pages of their own, returned when freed.
        const MMAP_THRESHOLD_BYTES: libc::c_int = 1 << 20;
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        let arenas = libc::c_int::try_from(cores.max(2)).unwrap_or(libc::c_int::MAX);
        // SAFETY: mallopt only sets glibc tunables; called before other threads exist.
        unsafe {
            libc::mallopt(libc::M_ARENA_MAX, arenas);
            libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES);
        }
    }
}

/// RFC 3339 UTC timestamp of now.
pub fn now_rfc3339() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    rfc3339(secs)
}

/// RFC 3339 UTC timestamp of `secs` since 1970.
pub fn rfc3339(secs: i64) -> String {
    let ft = secs
        .saturating_mul(10_000_000)
        .saturating_add(116_444_736_000_000_000);
    let s = etl::logfile::filetime_to_iso8601(ft);
    // Drop the microseconds: seconds are enough for a catalog.
    format!("{}Z", s.get(..19).unwrap_or(&s))
}

/// Why the file at `path` is no longer the trace the library holds, if it is
/// not: a file served by reference is the user's, who may truncate or
/// rewrite it. Reading a mapped file that shrinks under us would fault, so a
/// file whose size (or, when recorded, modification time: a rewrite to the
/// same size) differs from the one recorded when it was added is refused
/// with this message instead of read.
pub fn changed_since_added(path: &Path, size: u64, modified_ns: Option<u64>) -> Option<String> {
    let what = match std::fs::metadata(path) {
        Ok(m) if m.len() != size => format!("{size} bytes then, {} now", m.len()),
        Ok(m) if modified_ns.is_some_and(|t| crate::catalog::modified_ns(&m) != Some(t)) => {
            "modified since".to_string()
        }
        Ok(_) => return None,
        Err(e) => return Some(format!("{} cannot be read: {e}", path.display())),
    };
    Some(format!(
        "{} changed since it was added to the library ({what}): \
         it is not read; open it again to add the new file",
        path.display()
    ))
}

/// The PDB keys (GUID and age, upper-case hex as in symstore paths) the
/// trace's modules recorded.
fn pdb_keys(trace: &model::Trace) -> Vec<String> {
    let m = &trace.modules;
    let mut keys: Vec<String> = m
        .pdb_guid
        .iter()
        .zip(&m.pdb_age)
        .filter_map(|(g, &a)| g.map(|g| symbols::PdbIdentity::new("", g, a).key()))
        .collect();
    keys.sort();
    keys.dedup();
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A listing reads the catalog, then looks at the slots: a trace read,
    /// recorded ready and dropped from memory in between must be listed
    /// ready, not `pending` (which was written over `ready`, and the trace
    /// was never read again: CI's http_memory, with four ingests queued).
    #[test]
    fn a_listing_never_writes_its_older_view_over_a_newer_status() {
        let dir = std::env::temp_dir().join(format!("etlscope-status-{}", std::process::id()));
        std::fs::remove_dir_all(&dir).ok();
        let store = Store::open(&dir, 1 << 30, None, &Backends::default()).unwrap();
        std::fs::write(dir.join("traces").join("t.etl"), b"four").unwrap();
        let entry = TraceEntry {
            id: "t".into(),
            name: "t.etl".into(),
            size: 4,
            file_name: "t.etl".into(),
            uploaded_at: "2026-12-06T00:00:00Z".into(),
            uploader: String::new(),
            notes: String::new(),
            status: "ready".into(),
            error: String::new(),
            members: Vec::new(),
            redacted_from: String::new(),
        };
        store.catalog.insert(&entry).unwrap();
        // Read by the listing while the trace was still being read.
        let seen = TraceEntry {
            status: "ingesting".into(),
            ..entry.clone()
        };
        assert_eq!(store.status_of(&seen), ("ready".into(), String::new()));
        assert_eq!(store.catalog.get("t").unwrap().unwrap().status, "ready");
        // A row really left `ingesting` by a kill is still listed pending.
        store.catalog.set_status("t", "ingesting", "").unwrap();
        assert_eq!(store.status_of(&seen).0, "pending");
        assert_eq!(store.catalog.get("t").unwrap().unwrap().status, "pending");
        std::fs::remove_dir_all(&dir).ok();
    }
}
