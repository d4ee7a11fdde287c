//! Stack tag sets: each uploaded `.stacktags` file is kept as sent (in
//! `DATA_DIR/stacktags/NAME.stacktags`, or a team server's catalog: see
//! `named_files`) and parsed once; `default` is the built-in set. Queries
//! name the set to use; the engine for a (trace, set) pair is built on
//! first use and a few are kept.

pub use crate::named_files::{valid_name, PutError};
use crate::named_files::{Kind, NamedFiles};
use crate::store::LoadedTrace;
use query::stack_tags::{StackTags, DEFAULT_NAME, DEFAULT_XML};
use std::path::Path;
use std::sync::{Arc, Mutex, Weak};

/// Engines of (trace, set) pairs kept ready.
const CACHED: usize = 4;

struct Tagged {
    base: Weak<LoadedTrace>,
    set: Arc<StackTags>,
    loaded: Arc<LoadedTrace>,
}

pub struct TagStore {
    files: NamedFiles<StackTags>,
    tagged: Mutex<Vec<Tagged>>,
}

/// A `.stacktags` file's bytes: UTF-8 text (the API strips a byte-order mark).
fn parse(name: &str, bytes: &[u8]) -> Result<StackTags, String> {
    let xml = std::str::from_utf8(bytes)
        .map_err(|_| "a .stacktags file must be UTF-8 text".to_string())?;
    StackTags::parse(name, xml).map_err(|e| e.to_string())
}

impl TagStore {
    /// Reads the sets stored in `dir` (created if missing); a file that no
    /// longer parses is skipped with a warning.
    pub fn open(dir: &Path) -> std::io::Result<TagStore> {
        Ok(TagStore {
            files: NamedFiles::open(Kind::StackTags, dir, parse)?,
            tagged: Mutex::new(Vec::new()),
        })
    }

    /// The sets of a team server, kept in the catalog its replicas share:
    /// a set uploaded through one replica is used by every other.
    pub fn shared(catalog: Arc<dyn crate::catalog::Catalog>) -> TagStore {
        TagStore {
            files: NamedFiles::shared(Kind::StackTags, catalog, parse),
            tagged: Mutex::new(Vec::new()),
        }
    }

    /// The built-in set first, then the stored ones by name.
    pub fn list(&self) -> Vec<Arc<StackTags>> {
        let mut v = vec![StackTags::builtin()];
        v.extend(self.files.list().into_iter().map(|(_, s)| s));
        v
    }

    pub fn get(&self, name: &str) -> Option<Arc<StackTags>> {
        if name == DEFAULT_NAME {
            return Some(StackTags::builtin());
        }
        self.files.get(name)
    }

    /// The XML of a set, as uploaded (our own file for `default`).
    pub fn xml(&self, name: &str) -> Option<String> {
        if name == DEFAULT_NAME {
            return Some(DEFAULT_XML.to_string());
        }
        String::from_utf8(self.files.bytes(name)?).ok()
    }

    /// Parse and keep `xml` as set `name`, replacing a set of that name.
    pub fn put(&self, name: &str, xml: &str) -> Result<Arc<StackTags>, PutError> {
        let (set, _) = self.files.put(name, xml.as_bytes())?;
        Ok(set)
    }

    /// Whether there was a set `name` to delete.
    pub fn delete(&self, name: &str) -> std::io::Result<bool> {
        let had = self.files.delete(name)?;
        if had {
            if let Ok(mut t) = self.tagged.lock() {
                t.retain(|x| x.set.name != name);
            }
        }
        Ok(had)
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
