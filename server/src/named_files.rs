//! Small files users upload by name (stack tag sets, regions files), each
//! parsed once. A server of its own keeps them as files in a folder of its
//! data directory (`DIR/NAME.SUFFIX`); the replicas of a team server keep
//! them in their shared catalog (`named_files`, by kind), so a file
//! uploaded through one replica is used by every other. The stores of each
//! kind (`stack_tag_store`, `region_store`) add what they build from them.

use crate::catalog::Catalog;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Most files of one kind a server keeps.
pub const MAX_FILES: usize = 100;

/// What a file is: its name in the catalog, on disk and in messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    StackTags,
    Regions,
}

impl Kind {
    /// The catalog's `kind` column.
    pub fn key(self) -> &'static str {
        match self {
            Kind::StackTags => "stacktags",
            Kind::Regions => "regions",
        }
    }

    fn suffix(self) -> &'static str {
        match self {
            Kind::StackTags => ".stacktags",
            Kind::Regions => ".regions.xml",
        }
    }

    fn noun(self) -> &'static str {
        match self {
            Kind::StackTags => "stack tag set",
            Kind::Regions => "regions file",
        }
    }
}

#[derive(Debug)]
pub enum PutError {
    BadName(Kind, String),
    /// The parser's error (with its line), or not UTF-8.
    Parse(String),
    TooMany(Kind),
    Io(std::io::Error),
}

impl std::fmt::Display for PutError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PutError::BadName(k, n) => write!(
                f,
                "bad {} name {n:?}: use 1 to 64 letters, digits, '.', '_' or '-', not \"default\"",
                k.noun()
            ),
            PutError::Parse(e) => write!(f, "{e}"),
            PutError::TooMany(k) => {
                write!(f, "the server keeps at most {MAX_FILES} {}s", k.noun())
            }
            PutError::Io(e) => write!(f, "{e}"),
        }
    }
}

/// Names are file names: a short, plain alphabet, never `default` (the
/// built-in stack tag set's).
pub fn valid_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name != "default"
        && !name.starts_with('.')
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
}

/// Reads a file's bytes as its kind: the error names the file and line.
pub type Parse<T> = fn(&str, &[u8]) -> Result<T, String>;

enum Backing {
    Dir(PathBuf),
    Catalog(Arc<dyn Catalog>),
}

/// A parsed file and the digest of the bytes it was parsed from.
struct Held<T> {
    digest: [u8; 32],
    parsed: Arc<T>,
}

pub struct NamedFiles<T> {
    kind: Kind,
    backing: Backing,
    parse: Parse<T>,
    files: Mutex<BTreeMap<String, Held<T>>>,
}

fn digest(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

fn catalog_error(e: anyhow::Error) -> std::io::Error {
    std::io::Error::other(format!("{e:#}"))
}

impl<T> NamedFiles<T> {
    /// The files of `dir` (created if missing); one that no longer parses
    /// is skipped with a warning.
    pub fn open(kind: Kind, dir: &Path, parse: Parse<T>) -> std::io::Result<NamedFiles<T>> {
        std::fs::create_dir_all(dir)?;
        let mut files = BTreeMap::new();
        for e in std::fs::read_dir(dir)?.flatten() {
            let path = e.path();
            let Some(name) = path
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| n.strip_suffix(kind.suffix()))
                .filter(|n| valid_name(n))
            else {
                continue;
            };
            let read = std::fs::read(&path).map_err(|e| e.to_string());
            match read.and_then(|b| parse(name, &b).map(|p| (digest(&b), p))) {
                Ok((digest, p)) => {
                    let parsed = Arc::new(p);
                    files.insert(name.to_string(), Held { digest, parsed });
                }
                Err(e) => tracing::warn!("{}: {e}", path.display()),
            }
        }
        Ok(NamedFiles {
            kind,
            backing: Backing::Dir(dir.to_path_buf()),
            parse,
            files: Mutex::new(files),
        })
    }

    /// The files of a team server, in the catalog its replicas share.
    pub fn shared(kind: Kind, catalog: Arc<dyn Catalog>, parse: Parse<T>) -> NamedFiles<T> {
        NamedFiles {
            kind,
            backing: Backing::Catalog(catalog),
            parse,
            files: Mutex::new(BTreeMap::new()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Held<T>>> {
        self.files.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Bring the parsed files in line with the shared catalog's (those
    /// whose bytes did not change are kept as parsed).
    fn refresh(&self) {
        let Backing::Catalog(catalog) = &self.backing else {
            return;
        };
        let stored = match catalog.named_files(self.kind.key()) {
            Ok(s) => s,
            Err(e) => {
                tracing::warn!(error = %format!("{e:#}"), kind = self.kind.key(), "cannot read the named files from the catalog");
                return;
            }
        };
        let mut files = self.lock();
        let mut next = BTreeMap::new();
        for (name, bytes) in stored {
            let d = digest(&bytes);
            if let Some(held) = files.remove(&name).filter(|h| h.digest == d) {
                next.insert(name, held);
                continue;
            }
            match (self.parse)(&name, &bytes) {
                Ok(p) => {
                    let parsed = Arc::new(p);
                    next.insert(name, Held { digest: d, parsed });
                }
                Err(e) => tracing::warn!("{} {name}: {e}", self.kind.noun()),
            }
        }
        *files = next;
    }

    /// Every file, by name.
    pub fn list(&self) -> Vec<(String, Arc<T>)> {
        self.refresh();
        self.lock()
            .iter()
            .map(|(k, h)| (k.clone(), h.parsed.clone()))
            .collect()
    }

    pub fn get(&self, name: &str) -> Option<Arc<T>> {
        self.refresh();
        self.lock().get(name).map(|h| h.parsed.clone())
    }

    /// The file as uploaded.
    pub fn bytes(&self, name: &str) -> Option<Vec<u8>> {
        if !valid_name(name) {
            return None;
        }
        match &self.backing {
            Backing::Dir(dir) => {
                self.lock().get(name)?;
                std::fs::read(self.path(dir, name)).ok()
            }
            Backing::Catalog(catalog) => catalog
                .named_files(self.kind.key())
                .ok()?
                .into_iter()
                .find(|(n, _)| n == name)
                .map(|(_, b)| b),
        }
    }

    fn path(&self, dir: &Path, name: &str) -> PathBuf {
        dir.join(format!("{name}{}", self.kind.suffix()))
    }

    /// Parse and keep `bytes` as file `name`, replacing one of that name.
    /// Returns the new file and the one it replaced, if any.
    pub fn put(&self, name: &str, bytes: &[u8]) -> Result<(Arc<T>, Option<Arc<T>>), PutError> {
        if !valid_name(name) {
            return Err(PutError::BadName(self.kind, name.to_string()));
        }
        let parsed = Arc::new((self.parse)(name, bytes).map_err(PutError::Parse)?);
        let held = Held {
            digest: digest(bytes),
            parsed: parsed.clone(),
        };
        match &self.backing {
            Backing::Catalog(catalog) => {
                let stored = catalog
                    .named_files(self.kind.key())
                    .map_err(|e| PutError::Io(catalog_error(e)))?;
                if stored.len() >= MAX_FILES && !stored.iter().any(|(n, _)| n == name) {
                    return Err(PutError::TooMany(self.kind));
                }
                catalog
                    .put_named_file(self.kind.key(), name, bytes)
                    .map_err(|e| PutError::Io(catalog_error(e)))?;
                let old = self.lock().insert(name.to_string(), held);
                Ok((parsed, old.map(|h| h.parsed)))
            }
            Backing::Dir(dir) => {
                let mut files = self.lock();
                if files.len() >= MAX_FILES && !files.contains_key(name) {
                    return Err(PutError::TooMany(self.kind));
                }
                // Write beside, then rename: a crash leaves the old file or the new.
                let tmp = dir.join(format!(".{name}.tmp"));
                std::fs::write(&tmp, bytes).map_err(PutError::Io)?;
                std::fs::rename(&tmp, self.path(dir, name)).map_err(PutError::Io)?;
                let old = files.insert(name.to_string(), held);
                Ok((parsed, old.map(|h| h.parsed)))
            }
        }
    }

    /// Whether there was a file `name` to delete.
    pub fn delete(&self, name: &str) -> std::io::Result<bool> {
        if !valid_name(name) {
            return Ok(false);
        }
        match &self.backing {
            Backing::Catalog(catalog) => {
                let had = catalog
                    .delete_named_file(self.kind.key(), name)
                    .map_err(catalog_error)?;
                self.lock().remove(name);
                Ok(had)
            }
            Backing::Dir(dir) => {
                let mut files = self.lock();
                if files.remove(name).is_none() {
                    return Ok(false);
                }
                std::fs::remove_file(self.path(dir, name))?;
                Ok(true)
            }
        }
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
