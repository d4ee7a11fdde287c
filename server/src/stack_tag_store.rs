//! Stack tag sets kept per server: each uploaded `.stacktags` file is
//! stored as sent in `DATA_DIR/stacktags/NAME.stacktags` and parsed once;
//! `default` is the built-in set. Queries name the set to use; the engine
//! for a (trace, set) pair is built on first use and a few are kept.

use crate::store::LoadedTrace;
use query::stack_tags::{ParseError, StackTags, DEFAULT_NAME, DEFAULT_XML};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};

/// Most sets one server keeps.
pub const MAX_SETS: usize = 100;
/// Engines of (trace, set) pairs kept ready.
const CACHED: usize = 4;

#[derive(Debug)]
pub enum PutError {
    BadName(String),
    Parse(ParseError),
    TooMany,
    Io(std::io::Error),
}

impl std::fmt::Display for PutError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PutError::BadName(n) => write!(
                f,
                "bad stack tag set name {n:?}: use 1 to 64 letters, digits, '.', '_' or '-', not {DEFAULT_NAME:?}"
            ),
            PutError::Parse(e) => write!(f, "{e}"),
            PutError::TooMany => write!(f, "the server keeps at most {MAX_SETS} stack tag sets"),
            PutError::Io(e) => write!(f, "{e}"),
        }
    }
}

struct Tagged {
    base: Weak<LoadedTrace>,
    set: Arc<StackTags>,
    loaded: Arc<LoadedTrace>,
}

pub struct TagStore {
    dir: PathBuf,
    sets: Mutex<BTreeMap<String, Arc<StackTags>>>,
    tagged: Mutex<Vec<Tagged>>,
    /// A team server's replicas keep the sets in their shared catalog
    /// (then `dir` is unused); `xmls` is what `sets` were parsed from.
    shared: Option<Arc<dyn crate::catalog::Catalog>>,
    xmls: Mutex<BTreeMap<String, String>>,
}

fn catalog_error(e: anyhow::Error) -> std::io::Error {
    std::io::Error::other(format!("{e:#}"))
}

/// Names are file names: a short, plain alphabet, never `default`.
pub fn valid_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name != DEFAULT_NAME
        && !name.starts_with('.')
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
}

impl TagStore {
    /// Reads the sets stored in `dir` (created if missing); a file that no
    /// longer parses is skipped with a warning.
    pub fn open(dir: &Path) -> std::io::Result<TagStore> {
        std::fs::create_dir_all(dir)?;
        let mut sets = BTreeMap::new();
        for e in std::fs::read_dir(dir)?.flatten() {
            let path = e.path();
            let Some(name) = path
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| n.strip_suffix(".stacktags"))
            else {
                continue;
            };
            if !valid_name(name) {
                continue;
            }
            let parsed = std::fs::read_to_string(&path)
                .map_err(|e| e.to_string())
                .and_then(|xml| StackTags::parse(name, &xml).map_err(|e| e.to_string()));
            match parsed {
                Ok(set) => {
                    sets.insert(name.to_string(), Arc::new(set));
                }
                Err(e) => tracing::warn!("stack tags {}: {e}", path.display()),
            }
        }
        Ok(TagStore {
            dir: dir.to_path_buf(),
            sets: Mutex::new(sets),
            tagged: Mutex::new(Vec::new()),
            shared: None,
            xmls: Mutex::new(BTreeMap::new()),
        })
    }

    /// The sets of a team server, kept in the catalog its replicas share:
    /// a set uploaded through one replica is used by every other.
    pub fn shared(catalog: Arc<dyn crate::catalog::Catalog>) -> TagStore {
        TagStore {
            dir: PathBuf::new(),
            sets: Mutex::new(BTreeMap::new()),
            tagged: Mutex::new(Vec::new()),
            shared: Some(catalog),
            xmls: Mutex::new(BTreeMap::new()),
        }
    }

    /// Bring the parsed sets in line with the shared catalog's (those
    /// whose XML did not change are kept as parsed).
    fn refresh(&self) {
        let Some(catalog) = &self.shared else { return };
        let stored = match catalog.stack_tag_sets() {
            Ok(s) => s,
            Err(e) => {
                tracing::warn!(error = %format!("{e:#}"), "cannot read the stack tag sets from the catalog");
                return;
            }
        };
        let (Ok(mut sets), Ok(mut xmls)) = (self.sets.lock(), self.xmls.lock()) else {
            return;
        };
        let mut next = BTreeMap::new();
        let mut next_xml = BTreeMap::new();
        for (name, xml) in stored {
            let kept = sets
                .get(&name)
                .filter(|_| xmls.get(&name) == Some(&xml))
                .cloned();
            let set = match kept {
                Some(s) => s,
                None => match StackTags::parse(&name, &xml) {
                    Ok(s) => Arc::new(s),
                    Err(e) => {
                        tracing::warn!("stack tags {name}: {e}");
                        continue;
                    }
                },
            };
            next.insert(name.clone(), set);
            next_xml.insert(name, xml);
        }
        *sets = next;
        *xmls = next_xml;
    }

    /// The built-in set first, then the stored ones by name.
    pub fn list(&self) -> Vec<Arc<StackTags>> {
        self.refresh();
        let mut v = vec![StackTags::builtin()];
        if let Ok(s) = self.sets.lock() {
            v.extend(s.values().cloned());
        }
        v
    }

    pub fn get(&self, name: &str) -> Option<Arc<StackTags>> {
        if name == DEFAULT_NAME {
            return Some(StackTags::builtin());
        }
        self.refresh();
        self.sets.lock().ok()?.get(name).cloned()
    }

    /// The XML of a set, as uploaded (our own file for `default`).
    pub fn xml(&self, name: &str) -> Option<String> {
        if name == DEFAULT_NAME {
            return Some(DEFAULT_XML.to_string());
        }
        self.get(name)?;
        if self.shared.is_some() {
            return self.xmls.lock().ok()?.get(name).cloned();
        }
        std::fs::read_to_string(self.path(name)).ok()
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.join(format!("{name}.stacktags"))
    }

    /// Parse and keep `xml` as set `name`, replacing a set of that name.
    pub fn put(&self, name: &str, xml: &str) -> Result<Arc<StackTags>, PutError> {
        if !valid_name(name) {
            return Err(PutError::BadName(name.to_string()));
        }
        let set = Arc::new(StackTags::parse(name, xml).map_err(PutError::Parse)?);
        if let Some(catalog) = &self.shared {
            let stored = catalog
                .stack_tag_sets()
                .map_err(|e| PutError::Io(catalog_error(e)))?;
            if stored.len() >= MAX_SETS && !stored.iter().any(|(n, _)| n == name) {
                return Err(PutError::TooMany);
            }
            catalog
                .put_stack_tags(name, xml)
                .map_err(|e| PutError::Io(catalog_error(e)))?;
            self.refresh();
            return Ok(set);
        }
        let mut sets = self.sets.lock().map_err(|_| PutError::TooMany)?;
        if sets.len() >= MAX_SETS && !sets.contains_key(name) {
            return Err(PutError::TooMany);
        }
        // Write beside, then rename: a crash leaves the old file or the new.
        let tmp = self.dir.join(format!(".{name}.tmp"));
        std::fs::write(&tmp, xml).map_err(PutError::Io)?;
        std::fs::rename(&tmp, self.path(name)).map_err(PutError::Io)?;
        sets.insert(name.to_string(), set.clone());
        Ok(set)
    }

    /// Whether there was a set `name` to delete.
    pub fn delete(&self, name: &str) -> std::io::Result<bool> {
        if !valid_name(name) {
            return Ok(false);
        }
        if let Some(catalog) = &self.shared {
            let had = catalog.delete_stack_tags(name).map_err(catalog_error)?;
            if let Ok(mut t) = self.tagged.lock() {
                t.retain(|x| x.set.name != name);
            }
            self.refresh();
            return Ok(had);
        }
        let Ok(mut sets) = self.sets.lock() else {
            return Ok(false);
        };
        if sets.remove(name).is_none() {
            return Ok(false);
        }
        std::fs::remove_file(self.path(name))?;
        if let Ok(mut t) = self.tagged.lock() {
            t.retain(|x| x.set.name != name);
        }
        Ok(true)
    }

    /// `base` with its Stack Tag column showing `set`.
    pub fn tagged(&self, base: &Arc<LoadedTrace>, set: Arc<StackTags>) -> Arc<LoadedTrace> {
        if Arc::ptr_eq(&set, &StackTags::builtin()) {
            return base.clone();
        }
        let hit = |x: &Tagged| {
            Arc::ptr_eq(&x.set, &set) && x.base.upgrade().is_some_and(|b| Arc::ptr_eq(&b, base))
        };
        if let Ok(t) = self.tagged.lock() {
            if let Some(x) = t.iter().find(|x| hit(x)) {
                return x.loaded.clone();
            }
        }
        let loaded = Arc::new(base.with_stack_tags(set.clone()));
        if let Ok(mut t) = self.tagged.lock() {
            t.retain(|x| x.base.strong_count() > 0);
            if t.len() >= CACHED {
                t.remove(0);
            }
            t.push(Tagged {
                base: Arc::downgrade(base),
                set,
                loaded: loaded.clone(),
            });
        }
        loaded
    }
}

#[cfg(test)]
mod tests {
    use super::valid_name;

    #[test]
    fn names_are_plain_file_names() {
        assert!(valid_name("ui-for-etw.v2"));
        assert!(!valid_name("default"));
        assert!(!valid_name(""));
        assert!(!valid_name("../x"));
        assert!(!valid_name("a/b"));
        assert!(!valid_name(".hidden"));
        assert!(!valid_name(&"x".repeat(65)));
    }
}
