//! Schema packs kept per server (docs/schema-packs.md): each uploaded
//! manifest or pack is stored as a pack in `DATA_DIR/schemas/NAME.pack`.
//! With `--manifests`' packs first, they are the user's packs of every
//! trace loaded from then on; a trace already loaded that has a provider of
//! a new pack is loaded again on its next use.

use etl::decode::schema::{pack, packs};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Most packs one server keeps.
pub const MAX_PACKS: usize = 100;
/// Largest manifest or pack accepted (the biggest public manifests are ~2 MB).
pub const MAX_BYTES: usize = 16 << 20;

pub struct SchemaStore {
    dir: PathBuf,
    /// `--manifests`' packs, consulted before the stored ones.
    given: Vec<Arc<pack::Pack>>,
    packs: Mutex<BTreeMap<String, Arc<pack::Pack>>>,
}

/// What a stored pack holds, for the API.
pub fn summary(name: &str, p: &pack::Pack) -> serde_json::Value {
    serde_json::json!({
        "name": name,
        "providers": p.providers.iter().map(|p| serde_json::json!({
            "name": p.name, "guid": p.guid.to_string(), "events": p.events.len(),
        })).collect::<Vec<_>>(),
        "events": p.providers.iter().map(|p| p.events.len()).sum::<usize>(),
    })
}

impl SchemaStore {
    /// Reads the packs stored in `dir` (created if missing); one that no
    /// longer reads is skipped with a warning.
    pub fn open(dir: &Path) -> std::io::Result<SchemaStore> {
        std::fs::create_dir_all(dir)?;
        let mut stored = BTreeMap::new();
        for e in std::fs::read_dir(dir)?.flatten() {
            let path = e.path();
            let Some(name) = path
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| n.strip_suffix(".pack"))
                .filter(|n| crate::stack_tag_store::valid_name(n))
            else {
                continue;
            };
            match crate::cli::manifests::read_one(&path) {
                Ok((p, _)) => {
                    stored.insert(name.to_string(), Arc::new(p));
                }
                Err(e) => tracing::warn!("schema pack {e}"),
            }
        }
        let s = SchemaStore {
            dir: dir.to_path_buf(),
            given: packs::user_packs(),
            packs: Mutex::new(stored),
        };
        s.install();
        Ok(s)
    }

    fn install(&self) {
        let mut all = self.given.clone();
        if let Ok(p) = self.packs.lock() {
            all.extend(p.values().cloned());
        }
        packs::set_user_pack_arcs(all);
    }

    pub fn list(&self) -> Vec<(String, Arc<pack::Pack>)> {
        self.packs
            .lock()
            .map(|p| p.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
            .unwrap_or_default()
    }

    /// Read `bytes` (a manifest or a pack) and keep it as pack `name`,
    /// replacing one of that name; the error names the line at fault.
    pub fn put(&self, name: &str, bytes: &[u8]) -> Result<Arc<pack::Pack>, String> {
        if !crate::stack_tag_store::valid_name(name) {
            return Err(format!(
                "bad schema pack name {name:?}: use 1 to 64 letters, digits, '.', '_' or '-'"
            ));
        }
        let (p, _) = crate::cli::manifests::from_bytes(bytes, name)?;
        let p = Arc::new(p);
        {
            let mut packs = self.packs.lock().map_err(|_| "schema store poisoned")?;
            if packs.len() >= MAX_PACKS && !packs.contains_key(name) {
                return Err(format!("the server keeps at most {MAX_PACKS} schema packs"));
            }
            let tmp = self.dir.join(format!(".{name}.tmp"));
            std::fs::write(&tmp, pack::write(&p)).map_err(|e| e.to_string())?;
            std::fs::rename(&tmp, self.dir.join(format!("{name}.pack")))
                .map_err(|e| e.to_string())?;
            packs.insert(name.to_string(), p.clone());
        }
        self.install();
        Ok(p)
    }

    /// Whether there was a pack `name` to delete.
    pub fn delete(&self, name: &str) -> std::io::Result<bool> {
        if !crate::stack_tag_store::valid_name(name) {
            return Ok(false);
        }
        let gone = match self.packs.lock() {
            Ok(mut p) => p.remove(name).is_some(),
            Err(_) => false,
        };
        if gone {
            std::fs::remove_file(self.dir.join(format!("{name}.pack")))?;
            self.install();
        }
        Ok(gone)
    }
}
