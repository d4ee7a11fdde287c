//! Regions files kept per server, like stack tag sets: each uploaded WPA
//! Regions of Interest file is stored as sent in
//! `DATA_DIR/regions/NAME.regions.xml` and parsed once. A query names the
//! set its view uses; the instances of a (trace, set) pair are found on
//! first use and a few are kept. `--regions FILE` stays the default of
//! traces whose views name no set.

use crate::store::LoadedTrace;
use regions::RegionSet;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};

/// Most sets one server keeps.
pub const MAX_SETS: usize = 100;
/// Traces with a set's instances kept ready.
const CACHED: usize = 4;
const SUFFIX: &str = ".regions.xml";

#[derive(Debug)]
pub enum PutError {
    BadName(String),
    /// The parser's error (with its line), or not UTF-8.
    Parse(String),
    TooMany,
    Io(std::io::Error),
}

impl std::fmt::Display for PutError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PutError::BadName(n) => write!(
                f,
                "bad regions file name {n:?}: use 1 to 64 letters, digits, '.', '_' or '-', not \"default\""
            ),
            PutError::Parse(e) => write!(f, "{e}"),
            PutError::TooMany => write!(f, "the server keeps at most {MAX_SETS} regions files"),
            PutError::Io(e) => write!(f, "{e}"),
        }
    }
}

/// Parse a regions file's bytes: UTF-8 (a byte-order mark allowed), then
/// `regions::parse`, its error naming the line.
pub fn parse(name: &str, bytes: &[u8]) -> Result<RegionSet, String> {
    let xml =
        std::str::from_utf8(bytes).map_err(|_| format!("regions file {name}: not UTF-8 text"))?;
    let xml = xml.strip_prefix('\u{feff}').unwrap_or(xml);
    regions::parse(xml).map_err(|e| format!("regions file {name}: {e}"))
}

struct Applied {
    base: Weak<LoadedTrace>,
    set: Arc<RegionSet>,
    loaded: Arc<LoadedTrace>,
}

pub struct RegionStore {
    dir: PathBuf,
    sets: Mutex<BTreeMap<String, Arc<RegionSet>>>,
    applied: Mutex<Vec<Applied>>,
}

impl RegionStore {
    /// Reads the sets stored in `dir` (created if missing); a file that no
    /// longer parses is skipped with a warning.
    pub fn open(dir: &Path) -> std::io::Result<RegionStore> {
        std::fs::create_dir_all(dir)?;
        let mut sets = BTreeMap::new();
        for e in std::fs::read_dir(dir)?.flatten() {
            let path = e.path();
            let Some(name) = path
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| n.strip_suffix(SUFFIX))
                .filter(|n| crate::stack_tag_store::valid_name(n))
            else {
                continue;
            };
            let parsed = std::fs::read(&path)
                .map_err(|e| e.to_string())
                .and_then(|b| parse(name, &b));
            match parsed {
                Ok(set) => {
                    sets.insert(name.to_string(), Arc::new(set));
                }
                Err(e) => tracing::warn!("{}: {e}", path.display()),
            }
        }
        Ok(RegionStore {
            dir: dir.to_path_buf(),
            sets: Mutex::new(sets),
            applied: Mutex::new(Vec::new()),
        })
    }

    pub fn list(&self) -> Vec<(String, Arc<RegionSet>)> {
        self.sets
            .lock()
            .map(|s| s.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
            .unwrap_or_default()
    }

    pub fn get(&self, name: &str) -> Option<Arc<RegionSet>> {
        self.sets.lock().ok()?.get(name).cloned()
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.join(format!("{name}{SUFFIX}"))
    }

    /// The file of set `name`, as uploaded.
    pub fn xml(&self, name: &str) -> Option<Vec<u8>> {
        self.get(name)?;
        std::fs::read(self.path(name)).ok()
    }

    /// Parse and keep `bytes` as set `name`, replacing a set of that name.
    pub fn put(&self, name: &str, bytes: &[u8]) -> Result<Arc<RegionSet>, PutError> {
        if !crate::stack_tag_store::valid_name(name) {
            return Err(PutError::BadName(name.to_string()));
        }
        let set = Arc::new(parse(name, bytes).map_err(PutError::Parse)?);
        let mut sets = self.sets.lock().map_err(|_| PutError::TooMany)?;
        if sets.len() >= MAX_SETS && !sets.contains_key(name) {
            return Err(PutError::TooMany);
        }
        // Write beside, then rename: a crash leaves the old file or the new.
        let tmp = self.dir.join(format!(".{name}.tmp"));
        std::fs::write(&tmp, bytes).map_err(PutError::Io)?;
        std::fs::rename(&tmp, self.path(name)).map_err(PutError::Io)?;
        let old = sets.insert(name.to_string(), set.clone());
        drop(sets);
        // The replaced set's instances are of no further use.
        if let (Some(old), Ok(mut a)) = (old, self.applied.lock()) {
            a.retain(|x| !Arc::ptr_eq(&x.set, &old));
        }
        Ok(set)
    }

    /// Whether there was a set `name` to delete.
    pub fn delete(&self, name: &str) -> std::io::Result<bool> {
        if !crate::stack_tag_store::valid_name(name) {
            return Ok(false);
        }
        let Ok(mut sets) = self.sets.lock() else {
            return Ok(false);
        };
        let Some(gone) = sets.remove(name) else {
            return Ok(false);
        };
        std::fs::remove_file(self.path(name))?;
        if let Ok(mut a) = self.applied.lock() {
            a.retain(|x| !Arc::ptr_eq(&x.set, &gone));
        }
        Ok(true)
    }

    /// `base` with its regions from `set` (named `name`): the instances
    /// are found once per (trace, set) and a few are kept.
    pub fn applied(
        &self,
        base: &Arc<LoadedTrace>,
        name: &str,
        set: Arc<RegionSet>,
    ) -> Arc<LoadedTrace> {
        let hit = |x: &Applied| {
            Arc::ptr_eq(&x.set, &set) && x.base.upgrade().is_some_and(|b| Arc::ptr_eq(&b, base))
        };
        if let Ok(a) = self.applied.lock() {
            if let Some(x) = a.iter().find(|x| hit(x)) {
                return x.loaded.clone();
            }
        }
        let table = model::regions::find(base.trace(), name, set.clone());
        let loaded = Arc::new(base.with_regions(Arc::new(table)));
        if let Ok(mut a) = self.applied.lock() {
            a.retain(|x| x.base.strong_count() > 0);
            if a.len() >= CACHED {
                a.remove(0);
            }
            a.push(Applied {
                base: Arc::downgrade(base),
                set,
                loaded: loaded.clone(),
            });
        }
        loaded
    }
}
