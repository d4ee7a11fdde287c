//! Regions files, kept as stack tag sets are (`named_files`): each
//! uploaded WPA Regions of Interest file is stored as sent (in
//! `DATA_DIR/regions/NAME.regions.xml`, or a team server's catalog) and
//! parsed once. A query names the set its view uses; the instances of a
//! (trace, set) pair are found on first use and a few are kept.
//! `--regions FILE` stays the default of traces whose views name no set.

pub use crate::named_files::PutError;
use crate::named_files::{Kind, NamedFiles};
use crate::store::LoadedTrace;
use regions::RegionSet;
use std::path::Path;
use std::sync::{Arc, Mutex, Weak};

/// Traces with a set's instances kept ready.
const CACHED: usize = 4;

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
    name: String,
    set: Arc<RegionSet>,
    loaded: Arc<LoadedTrace>,
}

pub struct RegionStore {
    files: NamedFiles<RegionSet>,
    applied: Mutex<Vec<Applied>>,
}

impl RegionStore {
    /// Reads the sets stored in `dir` (created if missing); a file that no
    /// longer parses is skipped with a warning.
    pub fn open(dir: &Path) -> std::io::Result<RegionStore> {
        Ok(RegionStore {
            files: NamedFiles::open(Kind::Regions, dir, parse)?,
            applied: Mutex::new(Vec::new()),
        })
    }

    /// The sets of a team server, kept in the catalog its replicas share:
    /// a file uploaded through one replica is used by every other.
    pub fn shared(catalog: Arc<dyn crate::catalog::Catalog>) -> RegionStore {
        RegionStore {
            files: NamedFiles::shared(Kind::Regions, catalog, parse),
            applied: Mutex::new(Vec::new()),
        }
    }

    pub fn list(&self) -> Vec<(String, Arc<RegionSet>)> {
        self.files.list()
    }

    pub fn get(&self, name: &str) -> Option<Arc<RegionSet>> {
        self.files.get(name)
    }

    /// The file of set `name`, as uploaded.
    pub fn xml(&self, name: &str) -> Option<Vec<u8>> {
        self.files.bytes(name)
    }

    /// Parse and keep `bytes` as set `name`, replacing a set of that name.
    pub fn put(&self, name: &str, bytes: &[u8]) -> Result<Arc<RegionSet>, PutError> {
        let (set, old) = self.files.put(name, bytes)?;
        // The replaced set's instances are of no further use.
        if let (Some(old), Ok(mut a)) = (old, self.applied.lock()) {
            a.retain(|x| !Arc::ptr_eq(&x.set, &old));
        }
        Ok(set)
    }

    /// Whether there was a set `name` to delete.
    pub fn delete(&self, name: &str) -> std::io::Result<bool> {
        let had = self.files.delete(name)?;
        if had {
            if let Ok(mut a) = self.applied.lock() {
                a.retain(|x| x.name != name);
            }
        }
        Ok(had)
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
                name: name.to_string(),
                set,
                loaded: loaded.clone(),
            });
        }
        loaded
    }
}
